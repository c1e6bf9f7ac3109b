"""Content similarity of two documents: their sentences matched by a sentence encoder."""

from __future__ import annotations

import numpy as np
import pytest

from dri.extract import graph_from_text
from dri.graphs import add_triple, new_graph
from dri.graphs.ros import add_concept
from dri.mapping.content import (
    CONTENT_VECTOR,
    MAX_SENTENCES,
    SENTENCE_VECTORS,
    content_match,
    content_similarity,
    content_vector,
    graph_text,
    pack_rows,
    sentence_match,
    sentence_runs,
    sentence_vectors,
    unpack_rows,
)
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


def test_one_sentence_each_scores_the_cosine_of_the_two_sentences() -> None:
    a = graph_from_text("The general divided his army to attack the fortress.")
    b = graph_from_text("The surgeon split the rays to destroy the tumour.")
    vectors = sentence_encoder().encode([a.graph["text"], b.graph["text"]])
    assert content_similarity(a, b) == pytest.approx(float(vectors[0] @ vectors[1]), abs=2e-3)


def test_sentences_are_matched_one_by_one_precision_recall_and_f1() -> None:
    source = graph_from_text("The sun attracts the planets. The planets orbit the sun. Comets are icy.")
    target = graph_from_text("Planets go round the sun. A recipe needs flour.")
    rows_s, rows_t = sentence_vectors(source), sentence_vectors(target)
    assert rows_s is not None and rows_t is not None
    assert rows_s.shape == (3, 384) and rows_t.shape == (2, 384)
    similarity = np.clip(rows_s @ rows_t.T, 0, 1)
    precision, recall = similarity.max(axis=1).mean(), similarity.max(axis=0).mean()
    matched = 2 * precision * recall / (precision + recall)
    assert sentence_match(rows_s, rows_t) == pytest.approx(matched, abs=1e-6)
    expected = matched
    assert content_similarity(source, target) == pytest.approx(expected, abs=1e-6)
    assert content_similarity(target, source) == pytest.approx(expected, abs=1e-6)
    # The coverage is the source's side alone: swapping the two swaps the sides.
    match, swapped = content_match(source, target), content_match(target, source)
    assert (match.coverage, match.recall) == pytest.approx((precision, recall), abs=1e-6)
    assert (swapped.coverage, swapped.recall) == pytest.approx((recall, precision), abs=1e-6)
    assert match.similarity == pytest.approx(expected, abs=1e-6)


def test_a_candidate_that_says_more_keeps_the_query_covered() -> None:
    query = graph_from_text("We train a neural network to translate speech.")
    exact = graph_from_text("We train a neural network to translate speech.")
    longer = graph_from_text(
        "We train a neural network to translate speech. Earlier systems used phrase tables. "
        "The results beat every baseline on three languages."
    )
    # The longer candidate says all the query says, so it covers it as fully;
    # the symmetric similarity holds its other sentences against it.
    assert content_match(query, longer).coverage == pytest.approx(
        content_match(query, exact).coverage, abs=1e-3
    )
    assert content_match(query, longer).similarity < content_match(query, exact).similarity - 0.1
    assert content_match(query, new_graph("empty")) == content_match(new_graph("empty"), query)
    assert content_match(query, new_graph("empty")).coverage == 0.0


def test_the_sentence_vectors_are_kept_in_the_graph_and_reused() -> None:
    g = graph_from_text("A cat sleeps on the mat. A dog barks.")
    rows = sentence_vectors(g)
    assert isinstance(g.graph[SENTENCE_VECTORS], str) and rows is not None
    g.graph[SENTENCE_VECTORS] = pack_rows(np.eye(2, 384, dtype=np.float32))
    kept = sentence_vectors(g)
    assert kept is not None and kept.shape == (2, 384) and kept[1, 1] == 1.0


@pytest.mark.parametrize(
    "junk",
    [
        None,
        7,
        "",
        "not base64 !",
        "QUJD",
        pack_rows(np.zeros((1, 384))),
        pack_rows(np.full((1, 384), np.inf)),
    ],
)
def test_kept_sentence_vectors_that_are_not_rows_are_computed_again(junk) -> None:
    assert unpack_rows(junk) is None
    g = graph_from_text("A cat sleeps on the mat.")
    g.graph[SENTENCE_VECTORS] = junk
    rows = sentence_vectors(g)
    assert rows is not None and rows.shape == (1, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)


def test_packed_rows_keep_cosines_within_a_thousandth() -> None:
    rows = sentence_encoder().encode(
        ["The sun attracts the planets.", "An atom has a nucleus.", "Cats purr."]
    )
    back = unpack_rows(pack_rows(rows))
    assert back is not None and np.abs(back @ back.T - rows @ rows.T).max() < 1e-3
    assert 0.0 <= sentence_match(rows, back) <= 1.0


def test_a_long_text_is_matched_by_runs_of_consecutive_sentences() -> None:
    sentences = [f"Sentence number {n} is here." for n in range(MAX_SENTENCES * 2 + 7)]
    runs = sentence_runs(" ".join(sentences))
    assert len(runs) == MAX_SENTENCES
    assert " ".join(runs) == " ".join(sentences)
    assert sentence_runs("One. Two words here.") == ["One.", "Two words here."]
    assert sentence_runs("no full stop") == ["no full stop"]
