"""Mapping profiles: the paper's profile as published, and the SME profile's
tiered identicality, structural evaluation and weighted Jaccard."""

from __future__ import annotations

import random

import pytest

from dri.graphs import add_concept, add_triple, new_graph
from dri.mapping import map_graphs
from dri.mapping.mapper import SIMILARITIES
from dri.mapping.profiles import DEFAULT_PROFILE, PROFILES, Profile, get_profile
from dri.mapping.random_graphs import random_ros_graph
from dri.mapping.wordnet import RULES, relation_similarity, wordnet
from dri.metrics import compare


def test_registry_names_and_errors():
    assert get_profile().name == DEFAULT_PROFILE
    assert get_profile("paper") is PROFILES["paper"]
    custom = PROFILES["sme"].but(name="mine", relation_floor=0.9)
    assert get_profile(custom) is custom and isinstance(custom, Profile)
    with pytest.raises(ValueError, match="unknown mapping profile 'nope'"):
        get_profile("nope")


def test_unrelated_relations_pair_in_the_paper_profile_only():
    # want/attack: Lin 0 between the verbs; the paper pairs them anyway.
    s = new_graph("s")
    add_triple(s, "dog", "want", "bone")
    t = new_graph("t")
    add_triple(t, "army", "attack", "city")
    paper = compare(s, t, profile="paper")
    assert [(p.source_lemma, p.target_lemma) for p in paper.mapping.relation_pairs] == [("want", "attack")]
    assert paper.mapping.relation_pairs[0].lin < get_profile("sme").relation_floor
    sme = compare(s, t, profile="sme")
    assert len(sme.mapping) == 0
    assert sme.scores.analogy_similarity == 0.0 and sme.scores.message


def test_paper_analogy_similarity_is_jaccard_times_semantic():
    s = new_graph("s")
    add_triple(s, "sun", "attract", "planet")
    add_triple(s, "planet", "orbit", "sun")
    t = new_graph("t")
    add_triple(t, "nucleus", "attract", "electron")
    add_concept(t, "proton")
    c = compare(s, t, profile="paper")
    assert c.mapping.profile == "paper"
    assert c.scores.analogy_similarity == pytest.approx(c.scores.jaccard * c.scores.semantic)
    # Under the paper profile the weighted Jaccard weighs each node pair by its Lin score.
    lin = sum(p.lin for p in c.mapping.pairs)
    assert c.scores.weighted_jaccard == pytest.approx(lin / (4 + 4 - lin))


def _system_and_loose_pieces():
    # The target holds a connected system (a hit b, b push c) and two loose
    # relations with the same verbs (x hit y, z push w).
    t = new_graph("t")
    add_triple(t, "a", "hit", "b")
    add_triple(t, "b", "push", "c")
    add_triple(t, "x", "hit", "y")
    add_triple(t, "z", "push", "w")
    connected = new_graph("connected")
    add_triple(connected, "a", "hit", "b")
    add_triple(connected, "b", "push", "c")
    isolated = new_graph("isolated")
    add_triple(isolated, "x", "hit", "y")
    add_triple(isolated, "z", "push", "w")
    return t, connected, isolated


def test_connected_matches_outweigh_isolated_ones_under_sme():
    t, connected, isolated = _system_and_loose_pieces()
    sme_conn = compare(connected, t, profile="sme")
    sme_iso = compare(isolated, t, profile="sme")
    assert len(sme_conn.mapping.relation_pairs) == len(sme_iso.mapping.relation_pairs) == 2
    assert sme_conn.scores.analogy_similarity > sme_iso.scores.analogy_similarity
    # The paper's Jaccard counts nodes, so the loose pieces (more nodes) win there.
    paper_conn = compare(connected, t, profile="paper")
    paper_iso = compare(isolated, t, profile="paper")
    assert paper_iso.scores.analogy_similarity > paper_conn.scores.analogy_similarity


def test_score_divides_by_both_graphs_sizes():
    small = new_graph("small")
    add_triple(small, "dog", "chase", "cat")
    big = new_graph("big")
    add_triple(big, "dog", "chase", "cat")
    for n, noun in enumerate(("tree", "house", "river")):
        add_triple(big, noun, "stand", f"hill{n}")
    alone = compare(small, small.copy(), profile="sme").scores.analogy_similarity
    diluted = compare(small, big, profile="sme").scores.analogy_similarity
    assert alone == pytest.approx(1.0)
    assert 0 < diluted < 0.5


def test_clone_scores_one_under_every_profile():
    g = new_graph("g")
    add_triple(g, "sun", "attract", "planet")
    add_triple(g, "planet", "orbit", "sun")
    for name in PROFILES:
        c = compare(g, g.copy(), profile=name)
        assert c.scores.analogy_similarity == pytest.approx(1.0)
        assert c.scores.weighted_jaccard == pytest.approx(1.0)


def test_explanation_has_lin_and_generic_space_in_both_profiles():
    s = new_graph("s")
    add_triple(s, "person", "use", "leg")
    t = new_graph("t")
    add_triple(t, "commuter", "use", "bus")
    for name in ("paper", "sme"):
        m = map_graphs(s, t, profile=name)
        leg = next(p for p in m.concept_pairs if p.source_lemma == "leg")
        assert leg.target_lemma == "bus" and leg.generic == "device.n.01" and 0 < leg.lin < 1
        assert m.relation_pairs[0].lin == 1.0


VERBS = ("have", "own", "hold", "take", "seize", "grab", "make", "build", "destroy", "ruin", "give", "get")


def test_profiles_name_a_sense_rule():
    assert {f"lin-{rule}": rule for rule in RULES} == SIMILARITIES
    s, t = new_graph("s"), new_graph("t")
    add_triple(s, "thief", "take", "jewel")
    add_triple(t, "guide", "guide", "tourist")
    by_rule = {
        rule: map_graphs(s, t, profile=PROFILES["paper"].but(name=rule, similarity=f"lin-{rule}"))
        for rule in ("max", "semcor")
    }
    # take/guide meet through rare senses under max-over-senses only.
    assert by_rule["max"].relation_pairs[0].lin == 1.0 > by_rule["semcor"].relation_pairs[0].lin
    assert by_rule["semcor"].similarity == "lin-semcor"
    with pytest.raises(ValueError, match="unknown similarity 'lin-nope'"):
        map_graphs(s, t, profile=PROFILES["sme"].but(name="x", similarity="lin-nope"))


@pytest.mark.parametrize("profile", ["paper", "sme"])
@pytest.mark.parametrize("seed", [4, 5, 6])
def test_the_profiles_map_as_with_max_over_senses_lin_asked_pair_by_pair(profile, seed):
    # The profiles' similarity goes through similarity_functions("max") and the concept
    # matrix; the mapping must be the one that Lin over every sense pair gives, asked
    # one pair at a time (relation labels by head verb).
    def reference(a: str, b: str, pos: str) -> float:
        return relation_similarity(a, b) if pos == "v" else wordnet().lin(a, b, pos)[0]

    rng = random.Random(seed)
    a = random_ros_graph(70, rng, verbs=VERBS, verb_pool=8, name="a")
    b = random_ros_graph(60, rng, verbs=VERBS, verb_pool=8, name="b")
    named = map_graphs(a, b, profile=profile)
    asked = map_graphs(a, b, profile=profile, similarity=reference)
    assert len(named.relation_pairs) >= 3
    assert [(p.source, p.target, p.lin) for p in named.pairs] == [
        (p.source, p.target, p.lin) for p in asked.pairs
    ]
    assert named.evaluation == asked.evaluation


def test_the_restart_budget_comes_from_the_profile_unless_given():
    rng_a, rng_b = random.Random(1), random.Random(2)
    a, b = random_ros_graph(60, rng_a), random_ros_graph(60, rng_b)
    # Two unrelated random graphs never map completely, so the search uses every restart it may.
    assert map_graphs(a, b, profile="paper").runs == get_profile("paper").restarts + 1 == 129
    assert map_graphs(a, b, profile="paper", restarts=64).runs == 65
    assert map_graphs(a, b, profile=get_profile("paper").but(restarts=8)).runs == 9


def _loose_pair():
    s = new_graph("s")
    add_triple(s, "man", "play", "guitar")
    add_triple(s, "dog", "bark_at", "cat")
    t = new_graph("t")
    add_triple(t, "woman", "play", "violin")
    add_triple(t, "cat", "sleep_on", "dog")
    return s, t


def test_loose_concepts_map_outside_the_structure_only_when_the_profile_asks():
    s, t = _loose_pair()
    plain = compare(s, t, profile=PROFILES["sme"].but(loose_concepts=0.0))
    loose = compare(s, t, profile=PROFILES["sme"].but(loose_concepts=0.5))
    plain_pairs = {(p.source_lemma, p.target_lemma) for p in plain.mapping.pairs}
    loose_pairs = {(p.source_lemma, p.target_lemma) for p in loose.mapping.pairs}
    # bark_at/sleep_on are below the relation floor, so dog and cat map only as loose concepts
    assert ("dog", "dog") not in plain_pairs and ("cat", "cat") not in plain_pairs
    assert loose_pairs == plain_pairs | {("dog", "dog"), ("cat", "cat")}
    flagged = {(p.source_lemma, p.target_lemma) for p in loose.mapping.pairs if p.loose}
    assert flagged == {("dog", "dog"), ("cat", "cat")}
    assert not any(p.loose for p in plain.mapping.pairs)
    assert loose.scores.analogy_similarity > plain.scores.analogy_similarity
    # a loose pair counts less than the same pair inside a matched structure
    full = compare(s, t, profile=PROFILES["sme"].but(loose_concepts=1.0))
    assert full.scores.analogy_similarity > loose.scores.analogy_similarity


def test_loose_concepts_keep_one_to_one_and_the_floor():
    s = new_graph("s")
    add_triple(s, "sun", "attract", "planet")
    add_concept(s, "dog")
    add_concept(s, "puppy")
    t = new_graph("t")
    add_triple(t, "sun", "attract", "planet")
    add_concept(t, "dog")
    add_concept(t, "algorithm")
    m = map_graphs(s, t, profile=PROFILES["sme"].but(loose_concepts=0.5, concept_floor=0.5))
    targets = [p.target for p in m.pairs]
    assert len(targets) == len(set(targets))
    pairs = {(p.source_lemma, p.target_lemma) for p in m.pairs}
    assert ("dog", "dog") in pairs and not any(b == "algorithm" for _, b in pairs)
