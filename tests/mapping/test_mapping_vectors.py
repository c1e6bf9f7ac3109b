"""Static word vectors (WordLlama from its wheel): similarities and matrices."""

from __future__ import annotations

import pytest

from dri.mapping.vectors import word_vectors


@pytest.fixture(scope="module")
def vectors():
    return word_vectors()


def test_loaded_once_per_process(vectors) -> None:
    assert word_vectors() is vectors


def test_similar_words_score_above_unrelated_ones(vectors) -> None:
    assert vectors.similarity("car", "automobile") > 0.5
    assert vectors.similarity("car", "automobile") > vectors.similarity("car", "banana") + 0.3


def test_rates_terms_wordnet_does_not_know(vectors) -> None:
    # Neither is a WordNet noun; both are a method of training a model.
    assert vectors.similarity("bootstrapping", "bootstrap") > 0.3
    assert vectors.similarity("extraction_pattern", "pattern") > vectors.similarity(
        "extraction_pattern", "banana"
    )


def test_similarity_is_symmetric_in_unit_range_and_one_for_the_same_word(vectors) -> None:
    for a, b in (("lstm", "network"), ("sun", "nucleus"), ("eat", "devour")):
        s = vectors.similarity(a, b)
        assert 0.0 <= s <= 1.0
        assert s == pytest.approx(vectors.similarity(b, a), abs=1e-6)
    assert vectors.similarity("lstm", "lstm") == 1.0


def test_matrix_equals_pairs(vectors) -> None:
    rows, columns = ["sun", "planet", "lstm"], ["nucleus", "electron", "sun", "extraction_pattern"]
    m = vectors.matrix(rows, columns)
    assert m.shape == (3, 4)
    for i, a in enumerate(rows):
        for j, b in enumerate(columns):
            assert m[i, j] == pytest.approx(vectors.similarity(a, b), abs=1e-6)
    assert m[0, 2] == 1.0
    assert vectors.matrix([], columns).shape == (0, 4)
