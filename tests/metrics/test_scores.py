"""Scores of a mapping: Jaccard, semantic, conceptual, relational, AS."""

from __future__ import annotations

import json

import pytest

from dri.graphs import add_triple, new_graph
from dri.mapping import MappedPair, Mapping
from dri.metrics import Comparison, compare, score_mapping
from dri.metrics.scores import SCORE_NAMES, STRUCTURE_HALF, combine


def _mapping(pairs: list[MappedPair], source_size: int, target_size: int) -> Mapping:
    return Mapping(
        pairs=pairs,
        source_size=source_size,
        target_size=target_size,
        seconds=0.0,
        source_relations=1,
        target_relations=1,
    )


def test_formulas_on_a_hand_made_mapping():
    pairs = [
        MappedPair("r:0", "r:0", "relation", "attract", "attract", 1.0, "attract.v.01"),
        MappedPair("r:1", "r:3", "relation", "revolve", "orbit", 0.5, None),
        MappedPair("c:sun", "c:nucleus", "concept", "sun", "nucleus", 0.1, "object.n.01"),
        MappedPair("c:planet", "c:electron", "concept", "planet", "electron", 0.5, None),
    ]
    s = score_mapping(_mapping(pairs, source_size=6, target_size=10))
    assert s.jaccard == pytest.approx(4 / (6 + 10 - 4))
    assert s.semantic == pytest.approx((1.0 + 0.5 + 0.1 + 0.5) / 4)
    assert s.relational == pytest.approx(0.75)
    assert s.conceptual == pytest.approx(0.3)
    assert s.analogy_similarity == pytest.approx(s.jaccard * s.semantic)
    assert (s.mapped_concepts, s.mapped_relations, s.message) == (2, 2, None)


def test_identical_graphs_score_one():
    g = new_graph("g")
    add_triple(g, "sun", "attract", "planet")
    add_triple(g, "planet", "orbit", "sun")
    s = compare(g, g.copy()).scores
    assert s.content == pytest.approx(1.0) and s.combined == pytest.approx(1.0)
    assert (s.jaccard, s.semantic, s.conceptual, s.relational, s.analogy_similarity) == (
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
    )


def test_no_pairs_scores_zero_with_a_reason():
    s = score_mapping(_mapping([], 5, 7))
    assert (s.jaccard, s.semantic, s.analogy_similarity) == (0.0, 0.0, 0.0)
    assert "constraints" in s.message
    s = score_mapping(Mapping([], 0, 3, 0.0, source_relations=0, target_relations=1))
    assert "source graph is empty" in s.message


def test_comparison_to_dict_is_json():
    a, b = new_graph("a", name="A"), new_graph("b", name="B")
    add_triple(a, "dog", "chase", "cat")
    add_triple(b, "cat", "chase", "mouse")
    comparison = compare(a, b)
    assert isinstance(comparison, Comparison)
    data = json.loads(json.dumps(comparison.to_dict()))
    assert data["source"] == "A" and data["target"] == "B"
    assert data["scores"]["mapped_relations"] == 1
    assert {(p["source_lemma"], p["target_lemma"]) for p in data["mapping"]["pairs"]} >= {("chase", "chase")}
    assert data["scores"]["analogy_similarity"] == pytest.approx(comparison.scores.analogy_similarity)


def test_content_and_combined_scores():
    a, b = new_graph("a"), new_graph("b")
    add_triple(a, "sun", "attract", "planet")
    add_triple(b, "nucleus", "attract", "electron")
    s = compare(a, b).scores
    assert 0.0 < s.content < 1.0
    # One relation each: the structure's share is 1 / (1 + STRUCTURE_HALF), the
    # structure the geometric mean of AS and semantic.
    share = 1 / (1 + STRUCTURE_HALF)
    structure = (s.analogy_similarity * s.semantic) ** 0.5
    assert 0.0 < structure < 1.0
    assert s.combined == pytest.approx(share * structure + (1 - share) * s.content)
    assert {"content", "combined", "coverage"} <= set(SCORE_NAMES)
    # The coverage is the source's side of the content's sentence match (one sentence each: the cosine).
    assert s.coverage == pytest.approx(s.content, abs=1e-6)


def test_combined_leans_on_structure_as_relations_grow():
    assert combine(0.8, 0.8, 0.2, 0) == pytest.approx(0.2)  # nothing to map: content alone
    assert combine(0.8, 0.8, 0.2, int(STRUCTURE_HALF)) == pytest.approx(0.5)
    assert combine(0.8, 0.8, 0.2, 100_000) > 0.79
    assert 0.0 <= combine(1.0, 1.0, 1.0, 3) <= 1.0


def test_the_combined_structure_is_how_much_maps_and_how_closely():
    # The same coverage (AS) with near words counts more than with loose ones.
    half = int(STRUCTURE_HALF)
    assert combine(0.36, 1.0, 0.0, half) == pytest.approx(0.5 * 0.6)
    assert combine(0.36, 0.25, 0.0, half) == pytest.approx(0.5 * 0.3)
    assert combine(0.36, 0.0, 0.4, half) == pytest.approx(0.5 * 0.4)  # nothing close: content only
