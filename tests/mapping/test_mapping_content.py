"""Content similarity of two ROS graphs: their words aligned through word vectors."""

from __future__ import annotations

import pytest

from dri.graphs import add_triple, new_graph
from dri.graphs.ros import add_concept
from dri.mapping.content import content_similarity, content_words


def _graph(name: str, *triples: tuple[str, str, str]):
    g = new_graph(name)
    for s, v, o in triples:
        add_triple(g, s, v, o)
    return g


def test_words_are_concepts_and_relation_heads():
    g = _graph("g", ("sun", "try_to_attract", "planet"), ("planet", "orbit", "sun"))
    assert sorted(content_words(g)) == [("attract", "v"), ("orbit", "v"), ("planet", "n"), ("sun", "n")]


def test_same_words_score_one_and_nothing_scores_zero():
    a = _graph("a", ("sun", "attract", "planet"))
    assert content_similarity(a, a.copy()) == pytest.approx(1.0)
    assert content_similarity(a, new_graph("empty")) == 0.0


def test_related_content_beats_unrelated_and_is_symmetric():
    a = _graph("a", ("network", "learn", "representation"))
    near = _graph("b", ("model", "train", "embedding"))
    far = _graph("c", ("farmer", "plant", "seed"))
    assert content_similarity(a, near) > content_similarity(a, far)
    assert content_similarity(a, near) == pytest.approx(content_similarity(near, a))


def test_graphs_without_relations_still_compare():
    a, b = new_graph("a"), new_graph("b")
    add_concept(a, "lstm")
    add_concept(b, "lstm")
    add_concept(b, "bootstrapping")
    assert 0.0 < content_similarity(a, b) < 1.0


def test_frequent_words_weigh_less():
    # "be" is the least informative verb: sharing it says less than sharing "orbit".
    a = _graph("a", ("moon", "orbit", "planet"), ("moon", "be", "rock"))
    shares_orbit = _graph("b", ("ship", "orbit", "star"))
    shares_be = _graph("c", ("ship", "be", "star"))
    assert content_similarity(a, shares_orbit) > content_similarity(a, shares_be)
