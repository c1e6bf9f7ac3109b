"""Higher-order and one-argument relations in the mapper (docs/GRAPH-CONVENTIONS:
order-2 relations take relation nodes as arguments; one-argument relations
have a subject only)."""

from __future__ import annotations

import networkx as nx
import pytest

from dri.graphs import add_concept, add_triple, new_graph
from dri.graphs.ros import OBJ, RELATION, SUBJ
from dri.mapping import map_graphs
from dri.metrics import compare


def add_higher(g: nx.DiGraph, first: str, lemma: str, second: str) -> str:
    """An order-2 relation ``first -lemma-> second`` over two relation nodes."""
    index = g.graph.get("next_relation", 0)
    g.graph["next_relation"] = index + 1
    rel = f"r:{index}"
    g.add_node(rel, type=RELATION, lemma=lemma, pos="v", order=2, sentences=[], sections=[])
    g.add_edge(first, rel, label=SUBJ)
    g.add_edge(rel, second, label=OBJ)
    return rel


def add_one_argument(g: nx.DiGraph, subject: str, verb: str) -> str:
    rel = add_triple(g, subject, verb, "__gone__")
    g.remove_node("c:__gone__")
    return rel


def storm() -> nx.DiGraph:
    g = new_graph("storm")
    destroy = add_triple(g, "storm", "destroy", "harbour")
    weak = add_triple(g, "wall", "be", "weak")
    add_higher(g, destroy, "cause", weak)
    return g


def flood() -> nx.DiGraph:
    g = new_graph("flood")
    ruin = add_triple(g, "flood", "ruin", "village")
    low = add_triple(g, "dam", "be", "low")
    add_higher(g, ruin, "cause", low)
    return g


def pairs(m) -> set[tuple[str, str]]:
    return {(p.source_lemma, p.target_lemma) for p in m.pairs}


@pytest.mark.parametrize("profile", ["paper", "sme"])
def test_a_cause_maps_its_argument_relations_and_their_arguments(profile):
    m = map_graphs(storm(), flood(), profile=profile)
    assert {("cause", "cause"), ("destroy", "ruin"), ("be", "be"), ("storm", "flood")} <= pairs(m)
    assert {("harbour", "village"), ("wall", "dam"), ("weak", "low")} <= pairs(m)
    forward = m.as_dict()
    s, t = storm(), flood()
    # Parallel connectivity one level up: the cause's arguments map onto each other.
    for p in m.relation_pairs:
        if s.nodes[p.source].get("order") == 2:
            for label in (SUBJ, OBJ):
                (a,) = [u for u, _, lab in s.in_edges(p.source, data="label") if lab == label] or [
                    v for _, v, lab in s.out_edges(p.source, data="label") if lab == label
                ]
                (b,) = [u for u, _, lab in t.in_edges(p.target, data="label") if lab == label] or [
                    v for _, v, lab in t.out_edges(p.target, data="label") if lab == label
                ]
                assert forward[a] == b
    assert len(m.relation_pairs) == 3 and len(m.concept_pairs) == 4


def test_a_cause_forces_argument_relations_the_search_would_not_pick_first():
    # Without the cause, "destroy" would pair with the identical "destroy";
    # the cause pair forces it onto "ruin" and maps the whole system.
    s = storm()
    t = flood()
    add_triple(t, "army", "destroy", "fort")
    m = map_graphs(s, t, profile="paper")
    assert ("cause", "cause") in pairs(m)
    assert len(m.relation_pairs) == 3


def test_order_two_never_maps_to_order_one():
    s = new_graph("s")
    a = add_triple(s, "x", "cause", "y")  # an ordinary relation labelled "cause"
    t = new_graph("t")
    r1 = add_triple(t, "p", "hit", "q")
    r2 = add_triple(t, "q", "fall", "ground")
    add_higher(t, r1, "cause", r2)
    m = map_graphs(s, t, profile="paper")
    assert all(t.nodes[p.target].get("order", 1) == 1 for p in m.relation_pairs)
    assert s.nodes[a]["lemma"] == "cause"
    assert ("cause", "cause") not in pairs(m)


def test_higher_order_structure_counts_in_the_sme_score():
    with_cause, without = storm(), storm()
    without.remove_node(next(n for n, o in without.nodes(data="order") if o == 2))
    target_with, target_without = flood(), flood()
    target_without.remove_node(next(n for n, o in target_without.nodes(data="order") if o == 2))
    structured = compare(with_cause, target_with, profile="sme")
    flat = compare(without, target_without, profile="sme")
    assert structured.mapping.evaluation > flat.mapping.evaluation
    # Trickle-down: the first-order pairs under a mapped cause carry more evidence.
    assert structured.scores.analogy_similarity > flat.scores.analogy_similarity


def test_one_argument_relations_map_to_each_other_only():
    s = new_graph("s")
    add_one_argument(s, "wall", "collapse")
    t = new_graph("t")
    add_one_argument(t, "bridge", "fall")
    m = map_graphs(s, t, profile="paper")
    assert pairs(m) == {("collapse", "fall"), ("wall", "bridge")}
    two = new_graph("two")
    add_triple(two, "bridge", "collapse", "road")
    assert len(map_graphs(s, two, profile="paper")) == 0


def test_wordnet_lemma_drives_similarity_and_identical_lemmas_stay_one():
    s = new_graph("s")
    add_triple(s, "johnny", "teach", "class")
    t = new_graph("t")
    add_triple(t, "susan", "teach", "class")
    add_concept(t, "susan")
    for g, name in ((s, "johnny"), (t, "susan")):
        g.nodes[f"c:{name}"].update(entity="PERSON", wordnet_lemma="person")
    m = map_graphs(s, t)
    person = next(p for p in m.concept_pairs if p.source_lemma == "johnny")
    assert person.target_lemma == "susan"
    assert person.lin == 1.0 and person.generic == "person.n.01"
    clazz = next(p for p in m.concept_pairs if p.source_lemma == "class")
    assert clazz.lin == 1.0
