"""The structure mapper: clones, hand-built analogies, SMT constraints (property test)."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dri.graphs import add_concept, add_triple, new_graph
from dri.graphs.ros import OBJ, RELATION, SUBJ
from dri.mapping import Mapping, map_graphs
from dri.mapping.matrices import ConceptMatrix, LabelMatrix
from dri.mapping.profiles import get_profile
from dri.mapping.random_graphs import random_ros_graph
from dri.mapping.search import Maps, Search, SearchInputs
from dri.mapping.seeds import SEED_FLOOR, Candidates, SeedTable, _ranked, round12
from dri.mapping.sides import Side
from dri.mapping.wordnet import similarity_functions
from dri.metrics import compare, score_mapping


def _args(g: nx.DiGraph, rel: str) -> tuple[str | None, str | None]:
    s = next((u for u, _, lab in g.in_edges(rel, data="label") if lab == "subj"), None)
    o = next((v for _, v, lab in g.out_edges(rel, data="label") if lab == "obj"), None)
    return s, o


def assert_smt(source: nx.DiGraph, target: nx.DiGraph, m: Mapping) -> None:
    """1-to-1, type-consistent and parallel-connected."""
    forward = m.as_dict()
    assert len(forward) == len(m.pairs), "a source node is mapped twice"
    assert len(set(forward.values())) == len(m.pairs), "a target node is mapped twice"
    for p in m.pairs:
        assert source.nodes[p.source]["type"] == target.nodes[p.target]["type"] == p.kind
        assert p.source_lemma == source.nodes[p.source]["lemma"]
        assert p.target_lemma == target.nodes[p.target]["lemma"]
        assert 0.0 <= p.lin <= 1.0
        if p.kind == "relation":
            (s, o), (ts, to) = _args(source, p.source), _args(target, p.target)
            assert forward.get(s) == ts and forward.get(o) == to
    # Every argument of a mapped relation is mapped; any other mapped concept is a
    # loose match, which only a profile with loose concepts makes, at its floor.
    args = {a for p in m.relation_pairs for a in _args(source, p.source)} - {None}
    concepts = {p.source for p in m.concept_pairs}
    assert args <= concepts
    profile = get_profile(m.profile)
    loose = [p for p in m.concept_pairs if p.source not in args]
    assert not loose or profile.loose_concepts > 0
    assert all(p.lin >= profile.concept_floor - 1e-9 for p in loose)


def solar_and_atom() -> tuple[nx.DiGraph, nx.DiGraph]:
    solar = new_graph("solar", name="solar system")
    add_triple(solar, "sun", "attract", "planet")
    add_triple(solar, "planet", "revolve", "sun")
    add_triple(solar, "sun", "heat", "planet")
    add_triple(solar, "sun", "be", "star")
    atom = new_graph("atom", name="atom")
    add_triple(atom, "nucleus", "attract", "electron")
    add_triple(atom, "electron", "revolve", "nucleus")
    add_triple(atom, "nucleus", "be", "atom")
    return solar, atom


@pytest.mark.parametrize("nodes, seed", [(60, 1), (150, 2), (300, 3)])
def test_clone_maps_every_node(nodes, seed):
    g = random_ros_graph(nodes, random.Random(seed))
    comparison = compare(g, g.copy())
    assert len(comparison.mapping) == nodes
    assert all(p.source_lemma == p.target_lemma for p in comparison.mapping.pairs)
    assert comparison.scores.analogy_similarity == pytest.approx(1.0)
    assert comparison.scores.jaccard == pytest.approx(1.0)
    assert comparison.mapping.runs == 1
    assert_smt(g, g, comparison.mapping)


@pytest.mark.parametrize("profile", ["paper", "sme"])
def test_solar_system_maps_onto_atom(profile):
    solar, atom = solar_and_atom()
    m = map_graphs(solar, atom, profile=profile)
    assert_smt(solar, atom, m)
    pairs = {(p.source_lemma, p.target_lemma) for p in m.pairs}
    assert {
        ("sun", "nucleus"),
        ("planet", "electron"),
        ("attract", "attract"),
        ("revolve", "revolve"),
    } <= pairs
    assert ("star", "atom") in pairs  # via "be"
    assert len(m.relation_pairs) == 3
    scores = score_mapping(m)
    assert scores.relational == pytest.approx(1.0)
    assert 0 < scores.conceptual < 1
    if profile == "paper":
        assert scores.analogy_similarity == pytest.approx(scores.jaccard * scores.semantic)
    else:
        assert scores.analogy_similarity == pytest.approx(scores.weighted_jaccard)
        assert 0 < scores.weighted_jaccard < 1


def test_swapping_inputs_gives_the_inverse_here():
    solar, atom = solar_and_atom()
    there = {(p.source, p.target) for p in map_graphs(solar, atom).pairs}
    back = {(p.target, p.source) for p in map_graphs(atom, solar).pairs}
    assert there == back


def test_leg_maps_to_bus_by_lin():
    # Structure alone cannot decide between bus and ticket; Lin picks bus.
    walker = new_graph("walk", name="walking")
    add_triple(walker, "person", "use", "leg")
    add_triple(walker, "leg", "carry", "person")
    commuter = new_graph("bus", name="commuting")
    add_triple(commuter, "commuter", "use", "ticket")
    add_triple(commuter, "commuter", "use", "bus")
    add_triple(commuter, "bus", "carry", "commuter")
    add_triple(commuter, "ticket", "carry", "commuter")
    m = map_graphs(walker, commuter)
    assert_smt(walker, commuter, m)
    leg = next(p for p in m.concept_pairs if p.source_lemma == "leg")
    assert leg.target_lemma == "bus"
    assert leg.generic == "device.n.01"  # a kind of instrumentality.n.03
    person = next(p for p in m.concept_pairs if p.source_lemma == "person")
    assert person.target_lemma == "commuter" and person.generic == "person.n.01"


def test_greatest_similarity_wins_with_a_custom_similarity():
    table = {("alpha", "beta"): 0.2, ("alpha", "gamma"): 0.9}

    def sim(a: str, b: str, pos: str) -> float:
        return table.get((a, b), table.get((b, a), 0.0))

    s = new_graph("s")
    add_triple(s, "hub", "link", "alpha")
    t = new_graph("t")
    add_triple(t, "hub", "link", "beta")
    add_triple(t, "hub", "link", "gamma")
    m = map_graphs(s, t, similarity=sim)
    assert {(p.source_lemma, p.target_lemma) for p in m.concept_pairs} == {("hub", "hub"), ("alpha", "gamma")}
    assert all(p.generic is None for p in m.pairs)
    table[("alpha", "beta")] = 0.95
    m = map_graphs(s, t, similarity=sim)
    assert ("alpha", "beta") in {(p.source_lemma, p.target_lemma) for p in m.concept_pairs}


def test_results_are_deterministic():
    rng = random.Random(7)
    a, b = random_ros_graph(80, rng), random_ros_graph(90, rng)
    first, second = map_graphs(a, b), map_graphs(a, b)
    assert [(p.source, p.target) for p in first.pairs] == [(p.source, p.target) for p in second.pairs]


def test_empty_and_verbless_graphs_score_zero_with_a_message():
    solar, _ = solar_and_atom()
    empty = new_graph("empty")
    nouns = new_graph("nouns")
    add_concept(nouns, "sun")
    add_concept(nouns, "planet")
    for a, b, why in (
        (empty, solar, "empty"),
        (solar, empty, "empty"),
        (nouns, solar, "no relations"),
        (solar, nouns, "no relations"),
        (empty, empty, "empty"),
    ):
        for profile in ("paper", "sme"):
            if profile == "sme" and why == "no relations":
                continue  # sme pairs the concepts loosely (next test)
            comparison = compare(a, b, profile=profile)
            s = comparison.scores
            assert len(comparison.mapping) == 0
            assert (s.jaccard, s.semantic, s.conceptual, s.relational, s.analogy_similarity) == (
                0,
                0,
                0,
                0,
                0,
            )
            assert s.message and why in s.message


def test_verbless_graphs_share_only_loose_concepts_under_sme():
    solar, _ = solar_and_atom()
    nouns = new_graph("nouns")
    add_concept(nouns, "sun")
    add_concept(nouns, "planet")
    for a, b in ((nouns, solar), (solar, nouns)):
        comparison = compare(a, b, profile="sme")
        s = comparison.scores
        assert {p.source_lemma for p in comparison.mapping.pairs} == {"sun", "planet"}
        assert s.mapped_relations == 0 and s.relational == 0.0
        assert 0.0 < s.analogy_similarity < 0.2 and s.message is None


@pytest.mark.parametrize("other", [None, "The sun attracts the planets.", nx.Graph(), nx.DiGraph().nodes])
def test_a_side_that_is_not_a_directed_graph_is_a_type_error_naming_it(other):
    """Not an AttributeError from deep inside the mapper (or compare's inferences)."""
    solar, _ = solar_and_atom()
    with pytest.raises(TypeError, match=r"target must be a ROS graph .* not "):
        map_graphs(solar, other)
    with pytest.raises(TypeError, match=r"source must be a ROS graph"):
        compare(other, solar)


def test_relations_missing_an_argument_do_not_crash():
    s = new_graph("s")
    add_triple(s, "sun", "attract", "planet")
    s.remove_node("c:planet")  # a relation without an object
    t = new_graph("t")
    add_triple(t, "nucleus", "attract", "electron")
    m = map_graphs(s, t)
    assert len(m) == 0
    assert score_mapping(m).message


NOUNS = ("dog", "cat", "sun", "planet", "atom", "leg", "bus", "idea", "tree", "car", "person", "xqzzyword")
VERBS = ("be", "have", "attract", "use", "carry", "walk", "ride", "revolve")


@st.composite
def ros_graphs(draw) -> nx.DiGraph:
    triples = draw(
        st.lists(
            st.tuples(st.sampled_from(NOUNS), st.sampled_from(VERBS), st.sampled_from(NOUNS)), max_size=14
        )
    )
    g = new_graph("h")
    for s, v, o in triples:
        add_triple(g, s, v, o)
    for extra in draw(st.lists(st.sampled_from(NOUNS), max_size=2)):
        add_concept(g, extra)  # isolated concepts are allowed in a graph
    return g


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ros_graphs(), ros_graphs(), st.integers(min_value=0, max_value=4), st.sampled_from(["paper", "sme"]))
def test_property_mappings_obey_smt_and_scores_lie_in_unit_interval(source, target, restarts, profile):
    comparison = compare(source, target, restarts=restarts, profile=profile)
    assert_smt(source, target, comparison.mapping)
    s = comparison.scores
    for value in (
        s.jaccard,
        s.semantic,
        s.conceptual,
        s.relational,
        s.analogy_similarity,
        s.weighted_jaccard,
    ):
        assert 0.0 <= value <= 1.0
    assert s.mapped_concepts + s.mapped_relations == len(comparison.mapping)
    if profile == "sme":
        floor = get_profile("sme").relation_floor
        assert all(p.lin >= floor for p in comparison.mapping.relation_pairs)
    elif source.number_of_nodes() and list(source.edges) and list(target.edges):
        assert s.mapped_relations >= 1 or s.message  # something maps when both have relations


def test_relation_labels_with_prepositions_compare_by_their_verbs():
    # "base_on" is no WordNet verb; its head "base" still relates to "build".
    a, b = new_graph("a"), new_graph("b")
    add_triple(a, "theory", "base_on", "evidence")
    add_triple(b, "theory", "build_on", "evidence")
    relation = map_graphs(a, b).relation_pairs[0]
    assert (relation.source_lemma, relation.target_lemma) == ("base_on", "build_on")
    assert relation.lin > 0.5 and relation.generic is not None


def _varied_graph(rng: random.Random, nodes: int, name: str) -> nx.DiGraph:
    """A random graph with a small verb pool (many repeated labels), plus order-2,
    one-argument and self-referential relations and an adjective concept."""
    verbs = (
        "have",
        "make",
        "take",
        "give",
        "get",
        "hold",
        "keep",
        "seize",
        "grab",
        "own",
        "build",
        "destroy",
    )
    g = random_ros_graph(nodes, rng, verb_pool=6, verbs=verbs, name=name)
    concepts = sorted(n for n, kind in g.nodes(data="type") if kind != RELATION)
    nouns = [g.nodes[c]["lemma"] for c in concepts]
    for j, lemma in enumerate(["cause", "cause", "before"]):
        rel = f"r:h{j}"
        g.add_node(rel, type=RELATION, lemma=lemma, pos="v", order=2, sentences=[], sections=[])
        first = add_triple(g, rng.choice(nouns), "have", rng.choice(nouns))
        second = add_triple(g, rng.choice(nouns), "make", rng.choice(nouns))
        g.add_edge(first, rel, label=SUBJ)
        g.add_edge(rel, second, label=OBJ)
    for j, verb in enumerate(["collapse", "fall", "collapse"]):
        rel = f"r:o{j}"
        g.add_node(rel, type=RELATION, lemma=verb, pos="v", sentences=[], sections=[])
        g.add_edge(rng.choice(concepts), rel, label=SUBJ)
    me = rng.choice(concepts)
    g.add_node("r:self", type=RELATION, lemma="wash", pos="v", sentences=[], sections=[])
    g.add_edge(me, "r:self", label=SUBJ)
    g.add_edge("r:self", me, label=OBJ)
    add_concept(g, "weak", pos="a")
    add_concept(g, "tom", entity="PERSON", wordnet_lemma="person")
    add_triple(g, g.nodes[rng.choice(concepts)]["lemma"], "be", "weak")
    add_triple(g, "tom", "be", "weak")
    return g


@pytest.mark.parametrize("profile", ["paper", "sme"])
@pytest.mark.parametrize("seed, seeds_from", [(1, "label index"), (2, "label matrix"), (3, "every pair")])
def test_seed_table_orders_seeds_exactly_as_sorting_their_keys(profile, seed, seeds_from):
    # The seed table scores all seeds at once over arrays; its order must be the
    # one of sorting each seed's key on an empty state, ties and rounding included,
    # whether candidates come from the label index, from the label matrix or are all pairs.
    rng = random.Random(seed)
    s, t = Side.of(_varied_graph(rng, 160, "a")), Side.of(_varied_graph(rng, 140, "b"))
    prof = get_profile(profile)
    sim, _ = similarity_functions("max")
    labels = LabelMatrix(s, t, "max", sim) if seeds_from == "label matrix" else None
    candidates = Candidates(s, t, lambda a, b: sim(a, b, "v"), max(prof.relation_floor, SEED_FLOOR), labels)
    candidates = candidates if seeds_from != "every pair" else None
    table = SeedTable(candidates)
    concepts = ConceptMatrix(s, t, "max", sim)
    if seeds_from == "label matrix":
        # The label matrix finds the same candidates as the index.
        index = Candidates(s, t, lambda a, b: sim(a, b, "v"), max(prof.relation_floor, SEED_FLOOR))
        assert sorted(zip(*candidates.get())) == sorted(zip(*index.get()))
    for structure in (False, True):
        inputs = SearchInputs(
            s,
            t,
            sim,
            floor=prof.relation_floor,
            candidates=candidates,
            table=table,
            concepts=concepts,
            labels=labels,
        )
        search = Search(inputs, structure=structure)
        if candidates is not None:
            rows, cols = candidates.get()
            pairs = list(zip(rows.tolist(), cols.tolist()))
        else:
            pairs = [(i, k) for i in range(len(s.relations)) for k in range(len(t.relations))]
        empty = Maps.empty(s, t)
        keys = []
        for i, k in pairs:
            extension = search.extension(i, k, empty)
            if extension is not None:
                keys.append(search.key(i, k, extension))
        expected = [key[-2:] for key in sorted(keys)]
        assert list(zip(*search.seeds())) == expected
        assert len(expected) > 100 and any(s.order[i] == 2 for i, _ in expected)
        assert any(not s.signature[i][2] for i, _ in expected)  # one-argument seeds too


def test_round12_is_pythons_round():
    rng = random.Random(3)
    values = [rng.random() for _ in range(20000)]
    values += [(1.0 + rng.random() + rng.random()) / 3 for _ in range(20000)]
    values += [(rng.randrange(10**12) + 0.5) / 1e12 for _ in range(20000)]  # halves after scaling
    values += [0.0, 1.0, 0.5, 1 / 3, 2 / 3, 1 / 6]
    assert round12(np.array(values)).tolist() == [round(v, 12) for v in values]


@pytest.mark.parametrize("structure", [False, True])
@pytest.mark.parametrize("row_max", [8, 2**20, 2**61])
def test_seed_ranking_is_lexsort_of_the_key_fields(structure, row_max):
    # The seed order packs the key's fields into one integer (or two) when they fit:
    # it must be exactly the order of sorting the fields, whichever way it takes
    # (larger node ids leave fewer bits: one key, two keys, plain lexsort).
    rng = np.random.default_rng(row_max)
    n = 3000
    rows, cols = rng.integers(0, row_max, n), rng.permutation(n)
    rscore = round12(rng.choice(rng.random(40), n))
    rscore[:5] = (0.0, 1.0, 0.5, 1 / 3, 2 / 3)
    same, potential = rng.integers(0, 4, n), rng.integers(0, 30, n)
    anchors = (rng.random(n) < 0.05).astype(np.int64)
    keys = (cols, rows, -same, -rscore, -potential) if structure else (cols, rows, -same, -rscore)
    expected = np.lexsort((*keys, -anchors))
    got = _ranked(rows, cols, rscore, same, potential, anchors, structure)
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("structure", [False, True])
def test_check_from_what_is_kept_is_extension_and_key(structure):
    # Search.check keeps a pair's compatibility, arguments, extension and key between
    # runs; in any state it must give what extension() and key() compute afresh, and
    # count the same feasibility checks.
    rng = random.Random(5)
    s, t = Side.of(_varied_graph(rng, 60, "a")), Side.of(_varied_graph(rng, 50, "b"))
    sim, _ = similarity_functions("max")
    labels = LabelMatrix(s, t, "max", sim)
    labels.matrix()  # settled: what a pair needs is kept from the first check on
    inputs = SearchInputs(s, t, sim, floor=0.5, concepts=ConceptMatrix(s, t, "max", sim), labels=labels)
    kept, fresh = Search(inputs, structure=structure), Search(inputs, structure=structure)
    pairs = [(i, k) for i in range(len(s.relations)) for k in range(len(t.relations))]
    feasible = 0
    for _ in range(6):
        maps = Maps.empty(s, t)
        for j in rng.sample(range(len(s.concepts)), len(s.concepts) // 3):
            b = rng.randrange(len(t.concepts))
            if maps.cinv[b] < 0:
                maps.cmap[j], maps.cinv[b] = b, j
        for i, k in pairs:
            extension = fresh.extension(i, k, maps)
            expected = None if extension is None else (extension, fresh.key(i, k, extension))
            assert kept.check(i, k, maps) == expected
            feasible += expected is not None
    assert kept.work == fresh.work and feasible > 100 and kept.entries
