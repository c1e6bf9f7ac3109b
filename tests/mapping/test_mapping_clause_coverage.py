"""The clause coverage of two documents' abstracted sentences (stage 1's factor)."""

from __future__ import annotations

import numpy as np
import pytest

from dri.mapping.clause_coverage import SentenceRows, coverage
from dri.mapping.encoder import DIMENSION
from dri.mapping.meaning import UNRELATED


def _rows(*indices: int) -> np.ndarray:
    return np.eye(DIMENSION, dtype=np.float32)[list(indices)]


def test_each_side_is_matched_with_its_closest_sentence_and_the_two_sides_averaged():
    rows = SentenceRows.build([_rows(0, 1), _rows(0), _rows(2, 3), None, _rows(0, 1, 2, 3)])
    got = coverage(_rows(0, 1), rows, np.arange(5))
    # the same sentences; one of two on each side (1 and 0.5); nothing in common; no sentences;
    # both probe sentences covered, half of the document's.
    assert got.tolist() == pytest.approx([1.0, 0.75, 0.0, 1.0, 0.75])
    assert coverage(None, rows, np.arange(5)).tolist() == [1.0] * 5
    assert coverage(_rows(0), rows, np.array([3, 1])).tolist() == pytest.approx([1.0, 1.0])


def test_cosines_are_rescaled_as_the_mappers_clause_factor():
    angle = np.zeros((1, DIMENSION), dtype=np.float32)
    angle[0, 0], angle[0, 1] = 0.6, 0.8  # cosine 0.6 with the first unit row
    rows = SentenceRows.build([angle])
    expected = (0.6 - UNRELATED) / (1.0 - UNRELATED)
    assert coverage(_rows(0), rows, np.arange(1))[0] == pytest.approx(expected, abs=1e-3)  # float16 rows


def test_matches_a_pair_by_pair_computation_on_random_rows():
    rng = np.random.default_rng(3)
    shared = rng.normal(size=DIMENSION)

    def unit(n: int) -> np.ndarray:
        x = rng.normal(size=(n, DIMENSION)) + 2.0 * shared
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    documents = [unit(int(n)) for n in rng.integers(1, 9, size=40)]
    probe = unit(5)
    got = coverage(probe, SentenceRows.build(documents), np.arange(40))
    for doc, value in zip(documents, got):
        scaled = np.clip(
            (probe @ doc.astype(np.float16).astype(np.float32).T - UNRELATED) / (1 - UNRELATED), 0, 1
        )
        assert value == pytest.approx((scaled.max(axis=1).mean() + scaled.max(axis=0).mean()) / 2, abs=1e-5)
    assert 0.05 < got.min() < got.max() < 0.95  # the rows tell the documents apart
