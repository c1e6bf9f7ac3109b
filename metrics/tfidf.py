"""TF-IDF and feature hashing on SciPy sparse matrices, without scikit-learn.

scikit-learn costs about a second to import, more than a whole small
evaluation spends on its one TF-IDF fit; these few functions give the same
numbers, bit for bit, as the parts of it the project used:

* :class:`TfidfText` -- ``TfidfVectorizer()`` with its defaults (lower case,
  words of two or more word characters, smooth IDF, raw counts, unit rows);
* :func:`hash_features` -- ``FeatureHasher(input_type="dict")``: MurmurHash3
  (seed 0, the ``murmurhash`` package spaCy already needs) of each feature's
  UTF-8 bytes, ``abs(h) % n`` as the column, the sign of ``h`` as the sign
  when ``alternate_sign``;
* :func:`document_idf` and :func:`weigh` -- ``TfidfTransformer``'s
  smooth IDF and its (sublinear) weighting with unit rows.

Identity matters: the baselines are in the reports and the stage-1 ranking
decides which candidates are structure-mapped. Rows are normalised as
scikit-learn's Cython loop does (squares summed in column order, then one
division by the square root), through SciPy's own sequential CSR product,
never through numpy's pairwise sums, which round differently
(``tests/metrics/test_tfidf.py`` compares both on real texts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from murmurhash import hash as murmurhash3_32

__all__ = ["TfidfText", "document_idf", "hash_features", "normalize_rows", "weigh"]

# scikit-learn's default token_pattern: two or more word characters.
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_INT32_MIN = -(2**31)


def _sparse() -> Any:
    # SciPy's sparse package takes a few tenths of a second to import, and the
    # store imports this module: only a search or a baseline needs it.
    from scipy import sparse

    return sparse


def normalize_rows(matrix: Any) -> Any:
    """Scale each row of a CSR matrix to unit Euclidean length, in place (zero rows stay)."""
    sparse = _sparse()
    squares = sparse.csr_matrix(
        (matrix.data * matrix.data, matrix.indices, matrix.indptr), shape=matrix.shape
    )
    sums = squares @ np.ones(matrix.shape[1])  # csr_matvec: each row summed in order, as sklearn's loop
    norms = np.sqrt(sums)
    norms[norms == 0.0] = 1.0
    matrix.data /= np.repeat(norms, np.diff(matrix.indptr))
    return matrix


def document_idf(counts: Any) -> np.ndarray:
    """Smooth inverse document frequency of each column: ``ln((1 + n) / (1 + df)) + 1``."""
    df = np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.float64)
    df += 1.0
    idf = np.full_like(df, fill_value=counts.shape[0] + 1, dtype=np.float64)
    idf /= df
    np.log(idf, out=idf)
    idf += 1.0
    return idf


def weigh(counts: Any, idf: np.ndarray, sublinear: bool = False) -> Any:
    """A copy of ``counts`` (CSR) as TF-IDF weights with unit rows (``1 + ln tf`` if ``sublinear``)."""
    sparse = _sparse()
    matrix = sparse.csr_matrix(counts, dtype=np.float64, copy=True)
    if sublinear:
        np.log(matrix.data, matrix.data)
        matrix.data += 1.0
    matrix.data *= idf[matrix.indices]
    return normalize_rows(matrix)


def hash_features(rows: Iterable[Mapping[str, float]], n_features: int, alternate_sign: bool = False) -> Any:
    """Feature dictionaries as the rows of a CSR matrix of ``n_features`` hashed columns."""
    indices: list[int] = []
    values: list[float] = []
    indptr = [0]
    for row in rows:
        for feature, value in row.items():
            if value == 0:
                continue
            h = murmurhash3_32(feature)
            # abs(-2**31) overflows an int32 in sklearn's loop; it defines this column instead.
            column = (2**31 - 1 - (n_features - 1)) % n_features if h == _INT32_MIN else abs(h) % n_features
            indices.append(column)
            values.append(-value if alternate_sign and h < 0 else value)
        indptr.append(len(indices))
    matrix = _sparse().csr_matrix(
        (np.asarray(values, dtype=np.float64), np.asarray(indices, dtype=np.int32), np.asarray(indptr)),
        shape=(len(indptr) - 1, n_features),
        dtype=np.float64,
    )
    matrix.sum_duplicates()  # sorts the columns too
    return matrix


@dataclass
class TfidfText:
    """A vocabulary and its IDF fitted on texts; :meth:`transform` gives unit TF-IDF rows."""

    vocabulary: dict[str, int]
    idf: np.ndarray

    @classmethod
    def fit(cls, texts: Sequence[str]) -> TfidfText:
        """Fit on ``texts``; ``ValueError`` if they hold no word of two or more letters."""
        words = sorted({w for text in texts for w in _TOKEN.findall(text.lower())})
        if not words:
            raise ValueError("empty vocabulary: no word of two or more letters")
        vocabulary = {w: i for i, w in enumerate(words)}
        return cls(vocabulary, document_idf(_counts(texts, vocabulary)))

    def transform(self, texts: Sequence[str]) -> Any:
        """The texts' TF-IDF rows (words outside the vocabulary left out), CSR, unit length."""
        return weigh(_counts(texts, self.vocabulary), self.idf)


def _counts(texts: Sequence[str], vocabulary: Mapping[str, int]) -> Any:
    indices: list[int] = []
    values: list[int] = []
    indptr = [0]
    for text in texts:
        counter: dict[int, int] = {}
        for word in _TOKEN.findall(text.lower()):
            column = vocabulary.get(word)
            if column is not None:
                counter[column] = counter.get(column, 0) + 1
        indices.extend(counter)
        values.extend(counter.values())
        indptr.append(len(indices))
    matrix = _sparse().csr_matrix(
        (np.asarray(values, dtype=np.float64), np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
        shape=(len(texts), len(vocabulary)),
    )
    matrix.sort_indices()
    return matrix
