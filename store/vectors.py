"""Stage 1 of analogy search in memory: content vectors as one sparse matrix.

Every stored graph carries its content vector (:mod:`mapping.features`,
feature -> count). :class:`VectorIndex` hashes them into the columns of a
SciPy CSR matrix (scikit-learn's ``FeatureHasher``, 2**20 columns, so no
vocabulary has to be kept or grown), weighs them with sublinear tf-idf over
the indexed documents and normalises the rows, so ranking every document
against a probe is one sparse matrix-vector product and an ``argpartition``.
The SQLite store builds one per corpus selection and keeps it until the
stored graphs change; the Neo4j store uses the server's vector index instead
(``docs/search.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dri.mapping.features import FEATURES_VERSION, content_features

__all__ = ["HASH_FEATURES", "VectorIndex", "dense_vector", "encode_features", "size_factor"]

#: Columns of the hashed matrix; collisions are rare at this size for the
#: vocabularies of text corpora (tens of thousands of features).
HASH_FEATURES = 2**20
#: Dimensions of the dense projection kept for Neo4j's vector index.
DENSE_DIMENSIONS = 512


def encode_features(graph) -> str:
    """The stored form of a graph's content vector (JSON with the features' version)."""
    return json.dumps({"v": FEATURES_VERSION, "f": content_features(graph)}, sort_keys=True)


def decode_features(text: str | None) -> dict[str, float] | None:
    """The feature counts of a stored vector, or ``None`` if missing or of another version."""
    if not text:
        return None
    data = json.loads(text)
    return data["f"] if data.get("v") == FEATURES_VERSION else None


def _hasher():
    # scikit-learn is imported on first use: the store is opened by commands that never search.
    from sklearn.feature_extraction import FeatureHasher

    return FeatureHasher(n_features=HASH_FEATURES, input_type="dict", alternate_sign=False)


def dense_vector(features: Mapping[str, float], dimensions: int = DENSE_DIMENSIONS) -> list[float]:
    """A fixed-length unit vector for a vector index: signed feature hashing of
    the sublinear counts (cosine-preserving in expectation, Weinberger et al. 2009)."""
    from sklearn.feature_extraction import FeatureHasher

    weights = {k: 1.0 + float(np.log(v)) for k, v in features.items() if v > 0}
    row = FeatureHasher(n_features=dimensions, input_type="dict").transform([weights]).toarray()[0]
    norm = float(np.linalg.norm(row))
    return [float(x) / norm for x in row] if norm else [0.0] * dimensions


def size_factor(sizes: np.ndarray, size: float) -> np.ndarray:
    """``min / max`` of each graph's node count and the probe's.

    The Analogy Similarity is a Jaccard share of mapped nodes times their
    similarity, and the Jaccard share of two graphs can be no more than the
    ratio of their sizes: a document of a tenth of the target's size cannot
    score above 0.1. Stage 1 multiplies the cosine by this bound; measured,
    it raises recall on Clough & Stevenson (``docs/search.md``).
    """
    size = max(float(size), 1.0)
    return np.minimum(sizes, size) / np.maximum(np.maximum(sizes, size), 1.0)


@dataclass
class VectorIndex:
    """Documents' content vectors as a weighted, row-normalised sparse matrix."""

    doc_ids: list[str]
    matrix: object  # scipy.sparse.csr_matrix, rows of unit length
    idf: np.ndarray
    sizes: np.ndarray  # node counts of the graphs

    def __post_init__(self) -> None:
        self.positions = {doc_id: i for i, doc_id in enumerate(self.doc_ids)}

    @classmethod
    def build(
        cls,
        doc_ids: Sequence[str],
        features: Sequence[Mapping[str, float]],
        sizes: Sequence[int] | None = None,
    ) -> VectorIndex:
        from sklearn.feature_extraction.text import TfidfTransformer

        counts = _hasher().transform(list(features))
        tfidf = TfidfTransformer(sublinear_tf=True, norm="l2")
        matrix = tfidf.fit_transform(counts) if counts.shape[0] else counts
        idf = tfidf.idf_ if counts.shape[0] else np.ones(HASH_FEATURES)
        sizes = np.asarray(sizes if sizes is not None else [1] * len(doc_ids), dtype=float)
        return cls(list(doc_ids), matrix.tocsr(), idf, sizes)

    def query_row(
        self, position: int, k: int, exclude: frozenset[str] = frozenset()
    ) -> list[tuple[str, float]]:
        """Like :meth:`query` for an indexed document, by its row."""
        scores = np.asarray((self.matrix @ self.matrix[position].T).todense()).ravel()
        return self._top(scores, k, exclude, self.sizes[position])

    def query(
        self,
        features: Mapping[str, float],
        k: int,
        exclude: frozenset[str] = frozenset(),
        size: float | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` best documents for a probe's feature counts (and its graph's
        node count), best first: ``(doc_id, score)``; see :func:`size_factor`."""
        if not self.doc_ids:
            return []
        row = _hasher().transform([dict(features)]).tocsr()
        row.data = 1.0 + np.log(row.data)  # as TfidfTransformer(sublinear_tf=True)
        row = row.multiply(self.idf).tocsr()
        norm = np.sqrt(row.multiply(row).sum())
        scores = np.asarray((self.matrix @ row.T).todense()).ravel() / (norm or 1.0)
        return self._top(scores, k, exclude, size)

    def _top(
        self, scores: np.ndarray, k: int, exclude: frozenset[str], size: float | None
    ) -> list[tuple[str, float]]:
        scores = scores.astype(float)
        if size is not None:
            scores *= size_factor(self.sizes, size)
        for doc_id in exclude:
            i = self.positions.get(doc_id)
            if i is not None:
                scores[i] = -np.inf
        wanted = min(len(scores), k + len(exclude))
        top = (
            np.argpartition(-scores, wanted - 1)[:wanted] if wanted < len(scores) else np.arange(len(scores))
        )
        ranked = sorted(top, key=lambda i: (-scores[i], self.doc_ids[i]))
        return [(self.doc_ids[i], float(scores[i])) for i in ranked if np.isfinite(scores[i])][:k]
