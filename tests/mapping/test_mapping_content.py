"""Content similarity of two documents: the cosine of their sentence-encoder vectors."""

from __future__ import annotations

import numpy as np
import pytest

from dri.extract import graph_from_text
from dri.graphs import add_triple, new_graph
from dri.graphs.ros import add_concept
from dri.mapping.content import CONTENT_VECTOR, content_similarity, content_vector, graph_text
from dri.mapping.encoder import sentence_encoder


def _graph(name: str, *triples: tuple[str, str, str]):
    g = new_graph(name)
    for s, v, o in triples:
        add_triple(g, s, v, o)
    return g


def test_the_extractor_keeps_the_text_and_the_vector_is_its_encoding() -> None:
    text = "The sun attracts the planets. The planets orbit the sun."
    g = graph_from_text(text)
    assert g.graph["text"] == text
    vector = content_vector(g)
    assert vector is not None and np.allclose(vector, sentence_encoder().encode_document(text), atol=1e-5)
    # Kept in the graph as plain floats, so graph JSON and the stores keep it.
    assert len(g.graph[CONTENT_VECTOR]) == vector.shape[0]
    assert all(isinstance(x, float) for x in g.graph[CONTENT_VECTOR])


def test_a_kept_vector_is_reused_not_recomputed() -> None:
    g = graph_from_text("A cat sleeps on the mat.")
    g.graph[CONTENT_VECTOR] = [1.0] + [0.0] * (len(content_vector(g)) - 1)
    assert content_vector(g)[0] == 1.0


@pytest.mark.parametrize("junk", [[1.0, 2.0], ["a"] * 384, [float("nan")] * 384, [0.0] * 384, "text", None])
def test_a_kept_value_that_is_no_vector_is_computed_again(junk) -> None:
    g = graph_from_text("A cat sleeps on the mat.")
    g.graph[CONTENT_VECTOR] = junk
    vector = content_vector(g)
    assert vector is not None and np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)


def test_paraphrases_score_above_unrelated_texts_and_the_score_is_symmetric() -> None:
    a = graph_from_text("The general divided his army and attacked the fortress from all sides.")
    b = graph_from_text("The commander split his troops to assault the castle from every direction.")
    c = graph_from_text("The recipe needs two cups of flour and a spoon of sugar.")
    assert content_similarity(a, b) > content_similarity(a, c) + 0.3
    assert content_similarity(a, b) == pytest.approx(content_similarity(b, a))
    assert content_similarity(a, a.copy()) == pytest.approx(1.0, abs=1e-5)


def test_a_graph_without_text_reads_its_clauses_back() -> None:
    g = _graph("g", ("sun", "attract", "planet"), ("planet", "orbit", "sun"))
    assert graph_text(g) == "sun attract planet. planet orbit sun."
    near = _graph("b", ("star", "pull", "planet"))
    far = _graph("c", ("farmer", "plant", "seed"))
    assert content_similarity(g, near) > content_similarity(g, far)


def test_concepts_alone_still_compare_and_nothing_scores_zero() -> None:
    a, b = new_graph("a"), new_graph("b")
    add_concept(a, "lstm")
    add_concept(b, "lstm")
    add_concept(b, "bootstrapping")
    assert 0.0 < content_similarity(a, b) < 1.0
    assert content_similarity(a, new_graph("empty")) == 0.0
    assert content_vector(new_graph("empty")) is None
