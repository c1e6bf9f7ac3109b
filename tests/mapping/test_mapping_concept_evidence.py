"""Concept pairs counted by the sentences they stand in, and the mapping below the floors."""

from __future__ import annotations

import pytest

from dri.extract import graph_from_text
from dri.graphs import add_triple, new_graph
from dri.mapping import map_graphs
from dri.mapping.profiles import get_profile
from dri.metrics import compare


def _concepts(mapping) -> dict[tuple[str, str], float]:
    return {(p.source_lemma, p.target_lemma): p.evidence for p in mapping.concept_pairs}


def test_a_concept_pair_counts_by_its_sentences_not_by_how_alike_the_concepts_are() -> None:
    source = graph_from_text("The army attacked the fortress.")
    target = graph_from_text("The bees attacked the garden.")
    by_context = map_graphs(source, target, profile=get_profile("sme").but(concept_likeness=0.0))
    by_lin = map_graphs(source, target, profile=get_profile("sme").but(concept_likeness=1.0))
    assert 0.0 <= get_profile("sme").concept_likeness < 1.0
    context, lin = _concepts(by_context), _concepts(by_lin)
    assert set(context) == set(lin) and ("army", "bee") in context
    # The same structure, but the unlike entities no longer count by their (low) Lin.
    assert by_context.relation_pairs == by_lin.relation_pairs
    assert context[("army", "bee")] > lin[("army", "bee")]
    assert by_context.evaluation > by_lin.evaluation
    assert by_context.source_evaluation == by_lin.source_evaluation


def test_identical_sentences_and_graphs_without_text() -> None:
    g = graph_from_text("The army divided into small groups to attack the fortress from all sides.")
    assert compare(g, g.copy()).scores.analogy_similarity == pytest.approx(1.0)
    # Without a text there is no sentence to weigh a concept pair by: Lin, as before.
    s, t = new_graph("s"), new_graph("t")
    add_triple(s, "sun", "attract", "planet", sentence=0)
    add_triple(t, "nucleus", "attract", "electron", sentence=0)
    lin = get_profile("sme").but(concept_likeness=1.0)
    assert map_graphs(s, t, profile="sme").evaluation == map_graphs(s, t, profile=lin).evaluation


def test_a_concept_likeness_outside_zero_to_one_is_refused() -> None:
    s, t = new_graph("s"), new_graph("t")
    add_triple(s, "sun", "attract", "planet")
    add_triple(t, "nucleus", "attract", "electron")
    with pytest.raises(ValueError, match="concept_likeness"):
        map_graphs(s, t, profile=get_profile("sme").but(name="x", concept_likeness=1.5))


def _unlike() -> tuple:
    s, t = new_graph("s"), new_graph("t")
    add_triple(s, "sun", "attract", "planet")
    add_triple(t, "cook", "bake", "bread")
    return s, t


def test_when_nothing_reaches_the_floors_the_floorless_mapping_counts_a_tenth() -> None:
    s, t = _unlike()
    sme = get_profile("sme")
    assert sme.below_floor == 0.1
    within = map_graphs(s, t, profile=sme.but(below_floor=0.0))
    assert len(within) == 0 and within.evaluation == 0.0 and not within.below_floor
    floorless = map_graphs(s, t, profile=sme.but(below_floor=0.0, relation_floor=0.0, concept_floor=0.0))
    assert len(floorless) > 0
    below = map_graphs(s, t, profile=sme)
    assert below.below_floor
    assert [(p.source, p.target) for p in below.pairs] == [(p.source, p.target) for p in floorless.pairs]
    assert below.evaluation == pytest.approx(0.1 * floorless.evaluation)
    for kept, full in zip(below.pairs, floorless.pairs):
        assert kept.evidence == pytest.approx(0.1 * full.evidence)
    assert below.source_evaluation == within.source_evaluation
    # It scores above nothing and below the same structure found within the floors.
    scores = compare(s, t).scores
    assert 0.0 < scores.analogy_similarity < 0.05
    assert scores.analogy_similarity < compare(s, s.copy()).scores.analogy_similarity


def test_a_mapping_within_the_floors_and_the_paper_profile_do_not_go_below() -> None:
    s, t = new_graph("s"), new_graph("t")
    add_triple(s, "sun", "attract", "planet")
    add_triple(t, "nucleus", "attract", "electron")
    m = map_graphs(s, t, profile="sme")
    assert not m.below_floor and m.evaluation > 0.0
    assert m.evaluation == map_graphs(s, t, profile=get_profile("sme").but(below_floor=0.0)).evaluation
    a, b = _unlike()
    assert get_profile("paper").below_floor == 0.0
    assert not map_graphs(a, b, profile="paper").below_floor
