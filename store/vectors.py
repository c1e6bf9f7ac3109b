"""Stage 1 of analogy search in memory: content vectors as one sparse matrix.

Every stored graph carries its content vector (:mod:`mapping.features`,
feature -> count). :class:`VectorIndex` hashes them into the columns of a
SciPy CSR matrix (scikit-learn's ``FeatureHasher`` numbers, from
:mod:`metrics.tfidf`; 2**20 columns, so no
vocabulary has to be kept or grown), weighs them with sublinear tf-idf over
the indexed documents and normalises the rows, so the cosine of every
document with a probe is one sparse matrix-vector product.

The cosine alone ranks poorly where the Analogy Similarity follows the share
of two graphs that maps rather than their words (stories: ``docs/search.md``).
So each document is ranked by :func:`combine`: an estimate of that share
times the content similarity. :class:`StructureIndex` estimates the share
from the typed relation labels (``m:`` features): a probe's relation can map
only onto a document relation of the same type whose label is identical or
similar enough (:class:`mapping.features.RelationPartners`), so

    m = min( sum over probe labels l of min(count of l, document relations l may pair with),
             sum over document labels d of min(count of d, probe relations d may pair with) )

bounds the relation pairs of any mapping (a histogram intersection under the
mapper's compatibility), and ``m / (r_probe + r_doc - m)`` is the relation
Jaccard share it allows. Both parts are sparse operations over all documents.
The compatibility includes the pairs the default profile makes by meaning,
through the clause vectors of the relation labels (:func:`label_vectors`),
computed once per document and stored with its features (:func:`encode_features`).

The estimate sees which relations may pair, not what their sentences say,
while the default profile's mapper weighs every pair by how close the two
sentences are once their nouns are abstracted. So the score is multiplied
by the documents' clause coverage (:func:`covered`,
:mod:`mapping.clause_coverage`: their abstracted sentences matched one by
one), from the abstracted sentences' vectors stored with the features too.
The coverage is at most 1, so only the documents whose score can still
reach the ``k`` best are covered.

The SQLite store builds one index per corpus selection and keeps it until the
stored graphs change; the Neo4j store takes a pool from the server's vector
index and re-ranks it with the same :func:`combine` (``docs/search.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike

from dri.mapping.abstract_sentences import (
    ABSTRACT_SENTENCES,
    ABSTRACTION,
    abstract_sentence_vectors,
    kept_rows,
)
from dri.mapping.clause_coverage import SentenceRows, coverage
from dri.mapping.content import pack_rows, unpack_rows
from dri.mapping.features import (
    FEATURES_VERSION,
    RELATION_PREFIX,
    RelationPartners,
    content_features,
    label_vectors,
)
from dri.mapping.profiles import get_profile
from dri.metrics.tfidf import document_idf, hash_features, weigh

__all__ = [
    "CONTENT_OFFSET",
    "HASH_FEATURES",
    "STORED_VERSION",
    "ContentVectors",
    "StoredFeatures",
    "StructureIndex",
    "VectorIndex",
    "combine",
    "covered",
    "decode_stored",
    "dense_vector",
    "encode_features",
    "pack_label_vectors",
    "pack_sentence_rows",
    "size_factor",
    "unpack_label_vectors",
    "unpack_sentence_rows",
]

#: The version of what stage 1 keeps of a document: its features' and its sentences'
#: abstraction's; anything stored under another is computed again on the next search.
STORED_VERSION = f"{FEATURES_VERSION}+{ABSTRACTION}"
#: Columns of the hashed matrix; collisions are rare at this size for the
#: vocabularies of text corpora (tens of thousands of features).
HASH_FEATURES = 2**20
#: Dimensions of the dense projection kept for Neo4j's vector index.
DENSE_DIMENSIONS = 512
#: Weight of the structural estimate when the content cosine is 0: a document
#: with no word in common still ranks by the share that may map
#: (:func:`combine`; chosen on all three corpora at once, ``docs/search.md``).
CONTENT_OFFSET = 0.5
#: Relation similarity below which the mapper never pairs two relations: the
#: default profile's ``relation_floor``, which the structural estimate mirrors.
RELATION_FLOOR = get_profile().relation_floor
#: The default profile's weight of relations matched by meaning, which the estimate mirrors too.
RELATION_MEANING = get_profile().relation_meaning
#: Added to the estimate so that documents it cannot tell apart keep their cosine order.
_TIE = 1e-6


class SparseMatrix(Protocol):
    """What the indexes use of a SciPy CSR matrix (SciPy ships no type information)."""

    shape: tuple[int, int]
    data: np.ndarray
    indices: np.ndarray

    @property
    def T(self) -> SparseMatrix: ...

    def __matmul__(self, other: Any) -> SparseMatrix: ...

    def __getitem__(self, key: int) -> SparseMatrix: ...

    def getrow(self, i: int) -> SparseMatrix: ...

    def copy(self) -> SparseMatrix: ...

    def tocsr(self) -> SparseMatrix: ...

    def todense(self) -> np.ndarray: ...

    def sum(self, axis: int | None = None) -> Any: ...


def content_only(features: Mapping[str, float]) -> dict[str, float]:
    """The features that enter the cosine (all but the typed relation labels)."""
    return {k: v for k, v in features.items() if not k.startswith(RELATION_PREFIX)}


def combine(share: ArrayLike, cosine: ArrayLike) -> np.ndarray:
    """The stage-1 score: estimated mapped share times ``CONTENT_OFFSET + cosine``."""
    score: np.ndarray = (np.asarray(share, dtype=float) + _TIE) * (
        CONTENT_OFFSET + np.asarray(cosine, dtype=float)
    )
    return score


def pack_label_vectors(vectors: Mapping[str, np.ndarray]) -> dict[str, Any] | None:
    """Relation labels' clause vectors as JSON: the labels, and their rows as float16
    in base64 (:func:`mapping.content.pack_rows`); ``None`` when there are none."""
    if not vectors:
        return None
    labels = sorted(vectors)
    return {"labels": labels, "rows": pack_rows(np.stack([vectors[x] for x in labels]))}


def unpack_label_vectors(value: object) -> dict[str, np.ndarray]:
    """Inverse of :func:`pack_label_vectors`; empty for anything else."""
    if not isinstance(value, dict) or not isinstance(value.get("labels"), list):
        return {}
    rows = unpack_rows(value.get("rows"))
    if rows is None or len(rows) != len(value["labels"]):
        return {}
    return dict(zip(value["labels"], rows))


def pack_sentence_rows(graph: nx.DiGraph) -> str | None:
    """The graph's abstracted-sentence vectors (:func:`mapping.abstract_sentences.abstract_sentence_vectors`,
    computed on first use) as the graph keeps them (``"<abstraction>:<rows>"``); None without them."""
    rows = abstract_sentence_vectors(graph)
    return None if rows is None or not len(rows) else str(graph.graph[ABSTRACT_SENTENCES])


def unpack_sentence_rows(value: object) -> tuple[bool, np.ndarray | None]:
    """Inverse of :func:`pack_sentence_rows`: whether ``value`` is current, and its rows
    (None for none). Rows of another abstraction, or damaged, are not current: they are
    computed again."""
    if value is None:
        return True, None
    rows = kept_rows(value)
    return rows is not None, rows


def encode_features(graph: nx.DiGraph) -> str:
    """The stored form of a graph's content vector (JSON with the features' version),
    with the clause vectors of its relation labels and its abstracted sentences' vectors."""
    features = content_features(graph)
    stored: dict[str, Any] = {"v": STORED_VERSION, "f": features}
    packed = pack_label_vectors(label_vectors(features))
    if packed:
        stored["l"] = packed
    sentences = pack_sentence_rows(graph)
    if sentences:
        stored["s"] = sentences
    return json.dumps(stored, sort_keys=True)


@dataclass(frozen=True)
class StoredFeatures:
    """What stage 1 keeps of one document (:func:`encode_features`)."""

    features: dict[str, float]
    labels: dict[str, np.ndarray]  # clause vectors by relation label
    sentences: np.ndarray | None  # abstracted sentences' vectors


def decode_stored(text: str | None) -> StoredFeatures | None:
    """A stored vector, or ``None`` if missing, of another version (of the features
    or of the abstraction) or damaged: it is computed again from the graph."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("v") != STORED_VERSION or not _is_counts(data.get("f")):
        return None
    current, sentences = unpack_sentence_rows(data.get("s"))
    if not current:
        return None
    return StoredFeatures(data["f"], unpack_label_vectors(data.get("l")), sentences)


def _is_counts(value: object) -> bool:
    """Whether ``value`` is feature counts as :func:`encode_features` stores them."""
    return isinstance(value, dict) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values()
    )


def decode_features(text: str | None) -> dict[str, float] | None:
    """The feature counts of a stored vector, or ``None`` if missing or of another version."""
    stored = decode_stored(text)
    return stored.features if stored else None


def dense_vector(features: Mapping[str, float], dimensions: int = DENSE_DIMENSIONS) -> list[float]:
    """A fixed-length unit vector for a vector index: signed feature hashing of
    the sublinear counts (cosine-preserving in expectation, Weinberger et al. 2009)."""
    weights = {k: 1.0 + float(np.log(v)) for k, v in content_only(features).items() if v > 0}
    row = hash_features([weights], dimensions, alternate_sign=True).toarray()[0]
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
    bound: np.ndarray = np.minimum(sizes, size) / np.maximum(np.maximum(sizes, size), 1.0)
    return bound


def covered(scores: np.ndarray, probe: np.ndarray, rows: SentenceRows, k: int) -> np.ndarray:
    """``scores`` times the clause coverage (:func:`mapping.clause_coverage.coverage`)
    of each document with the probe's abstracted sentences, exact for the ``k`` best.

    The coverage is at most 1, so a document whose score is below the ``k``-th
    best covered score cannot enter the top ``k``: documents are covered in
    order of their score, a block at a time, until the next is below it. The
    rest are set below every covered one (their own score times 0)."""
    out = np.zeros(len(scores))
    order = np.argsort(-scores, kind="stable")
    block = max(2 * k, 256)
    for start in range(0, len(order), block):
        chosen = order[start : start + block]
        out[chosen] = scores[chosen] * coverage(probe, rows, chosen)
        rest = start + block
        if rest >= len(order) or k <= 0:
            break
        # The first block alone holds 2k documents, so the k-th best covered one exists.
        kth = np.partition(out[order[:rest]], rest - k)[rest - k]
        if scores[order[rest]] < kth:
            break
    return out


@dataclass
class StructureIndex:
    """Documents' typed relation labels as a sparse count matrix, for the
    estimate of the relation share two graphs can map (module docstring)."""

    vocabulary: list[str]
    labels: SparseMatrix  # documents x vocabulary, counts
    relations: np.ndarray  # relations per document
    floor: float = RELATION_FLOOR
    vectors: Mapping[str, np.ndarray] | None = None  # clause vectors by relation label
    meaning: float = RELATION_MEANING

    def __post_init__(self) -> None:
        self.partners = RelationPartners(self.vocabulary, self.floor, self.vectors, self.meaning)

    @classmethod
    def build(
        cls,
        features: Sequence[Mapping[str, float]],
        floor: float = RELATION_FLOOR,
        vectors: Mapping[str, np.ndarray] | None = None,
    ) -> StructureIndex:
        from scipy.sparse import csr_matrix  # slow to import: only a search needs it

        positions: dict[str, int] = {}
        rows, cols, data = [], [], []
        for row, counts in enumerate(features):
            for key, count in counts.items():
                if key.startswith(RELATION_PREFIX) and count > 0:
                    rows.append(row)
                    cols.append(positions.setdefault(key, len(positions)))
                    data.append(float(count))
        labels = csr_matrix((data, (rows, cols)), shape=(len(features), len(positions)), dtype=float)
        relations = np.asarray(labels.sum(axis=1)).ravel()
        return cls(list(positions), labels, relations, floor, vectors)

    def row(self, position: int) -> dict[str, float]:
        """The typed relation labels of an indexed document, as features."""
        row = self.labels.getrow(position)
        return {self.vocabulary[j]: float(v) for j, v in zip(row.indices, row.data)}

    def share(
        self, probe: Mapping[str, float], vectors: Mapping[str, np.ndarray] | None = None
    ) -> np.ndarray:
        """The estimated relation Jaccard share of every document with ``probe``'s
        features: ``m / (r_probe + r_doc - m)``, ``m`` the bound of mappable
        relation pairs (module docstring). 0 where nothing can map. ``vectors``:
        the probe's label vectors, for labels the index has none of."""
        from scipy.sparse import csr_matrix

        count = self.labels.shape[0]
        wanted = {k: float(v) for k, v in probe.items() if k.startswith(RELATION_PREFIX) and v > 0}
        if not wanted or not count or not self.vocabulary:
            return np.zeros(count)
        keys = sorted(wanted)
        q = np.array([wanted[k] for k in keys])
        rows, cols = [], []
        for j, found in enumerate(self.partners.partners_of(keys, vectors)):
            rows += found
            cols += [j] * len(found)
        pairs = csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(self.vocabulary), len(keys)), dtype=float
        )
        # Probe side: each probe label, capped by the document relations it may pair with.
        reach = (self.labels @ pairs).tocsr()
        reach.data = np.minimum(reach.data, q[reach.indices])
        probe_side = np.asarray(reach.sum(axis=1)).ravel()
        # Document side: each document label, capped by the probe relations it may pair with.
        caps = np.asarray(pairs @ q).ravel()
        capped = self.labels.copy()
        capped.data = np.minimum(capped.data, caps[capped.indices])
        doc_side = np.asarray(capped.sum(axis=1)).ravel()
        mapped = np.minimum(probe_side, doc_side)
        union = q.sum() + self.relations - mapped
        share: np.ndarray = np.divide(mapped, union, out=np.zeros(count), where=union > 0)
        return share


@dataclass
class VectorIndex:
    """Documents' content vectors as a weighted, row-normalised sparse matrix,
    with their :class:`StructureIndex`; :meth:`query` ranks by :func:`combine`.

    ``rank`` says what ranks the documents: ``"estimate"`` (the default),
    ``"cosine"`` alone, ``"share"`` (the structural estimate alone) or
    ``"size"`` (the cosine times :func:`size_factor`); the others than the
    default are kept for the comparison in ``bench/bench_search.py``.
    """

    doc_ids: list[str]
    matrix: SparseMatrix  # rows of unit length
    idf: np.ndarray
    sizes: np.ndarray  # node counts of the graphs
    structure: StructureIndex
    rank: str = "estimate"
    #: The documents' abstracted-sentence vectors; None: no clause coverage in the estimate.
    sentences: SentenceRows | None = None

    def __post_init__(self) -> None:
        self.positions = {doc_id: i for i, doc_id in enumerate(self.doc_ids)}

    @classmethod
    def build(
        cls,
        doc_ids: Sequence[str],
        features: Sequence[Mapping[str, float]],
        sizes: Sequence[int] | None = None,
        rank: str = "estimate",
        vectors: Mapping[str, np.ndarray] | None = None,
        sentences: Sequence[np.ndarray | None] | None = None,
    ) -> VectorIndex:
        """``vectors``: the clause vectors of the documents' relation labels
        (:func:`mapping.features.label_vectors`); without them relations pair by WordNet only.
        ``sentences``: each document's abstracted-sentence vectors (None: it has none);
        without them the estimate leaves out the clause coverage."""
        counts = hash_features((content_only(f) for f in features), HASH_FEATURES)
        idf = document_idf(counts) if counts.shape[0] else np.ones(HASH_FEATURES)
        matrix = weigh(counts, idf, sublinear=True) if counts.shape[0] else counts
        nodes = np.asarray(sizes if sizes is not None else [1] * len(doc_ids), dtype=float)
        structure = StructureIndex.build(features, vectors=vectors)
        structure.partners.prepare()  # part of building the index, not of the first query
        rows = SentenceRows.build(sentences) if sentences is not None else None
        return cls(list(doc_ids), matrix.tocsr(), idf, nodes, structure, rank, rows)

    def query_row(
        self, position: int, k: int, exclude: frozenset[str] = frozenset()
    ) -> list[tuple[str, float]]:
        """Like :meth:`query` for an indexed document, by its row."""
        scores = np.asarray((self.matrix @ self.matrix[position].T).todense()).ravel()
        own = self.sentences.of(position) if self.sentences is not None else None
        return self._top(
            scores, k, exclude, self.sizes[position], self.structure.row(position), sentences=own
        )

    def query(
        self,
        features: Mapping[str, float],
        k: int,
        exclude: frozenset[str] = frozenset(),
        size: float | None = None,
        vectors: Mapping[str, np.ndarray] | None = None,
        sentences: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` best documents for a probe's feature counts (and its graph's
        node count, for ``rank="size"``; its label vectors and abstracted-sentence
        vectors for the estimate), best first: ``(doc_id, score)``."""
        if not self.doc_ids:
            return []
        row = hash_features([content_only(features)], HASH_FEATURES)
        row.data = 1.0 + np.log(row.data)  # as TfidfTransformer(sublinear_tf=True)
        row = row.multiply(self.idf).tocsr()
        norm = np.sqrt(row.multiply(row).sum())
        scores = np.asarray((self.matrix @ row.T).todense()).ravel() / (norm or 1.0)
        return self._top(scores, k, exclude, size, features, vectors, sentences)

    def _top(
        self,
        scores: np.ndarray,
        k: int,
        exclude: frozenset[str],
        size: float | None,
        probe: Mapping[str, float],
        vectors: Mapping[str, np.ndarray] | None = None,
        sentences: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        scores = scores.astype(float)
        if self.rank == "estimate":
            scores = combine(self.structure.share(probe, vectors), scores)
            if self.sentences is not None and sentences is not None:
                scores = covered(scores, sentences, self.sentences, k + len(exclude))
        elif self.rank == "share":
            scores = combine(self.structure.share(probe, vectors), 0.0) + _TIE * scores
        elif self.rank == "size" and size is not None:
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


@dataclass(frozen=True)
class ContentVectors:
    """What stage 1 keeps of every stored document (of a corpus), in one order."""

    doc_ids: list[str]
    features: list[dict[str, float]]  # feature counts
    sizes: list[int]  # node counts of the graphs
    labels: dict[str, np.ndarray]  # clause vectors of all their relation labels
    sentences: list[np.ndarray | None]  # each one's abstracted-sentence vectors

    def index(self) -> VectorIndex:
        return VectorIndex.build(
            self.doc_ids, self.features, self.sizes, vectors=self.labels, sentences=self.sentences
        )
