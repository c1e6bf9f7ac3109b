"""Content vectors of ROS graphs: the cheap first stage (MAC) of analogy search.

MAC/FAC (Forbus, Gentner and Law, *MAC/FAC: A Model of Similarity-Based
Retrieval*, Cognitive Science 19, 1995) retrieves analogues in two stages.
MAC ("many are called") scores every stored description against the probe
with the dot product of two *content vectors* -- how often each predicate and
entity type occurs -- which is cheap enough for the whole memory and keeps a
few candidates; FAC ("few are chosen") runs full structure mapping on those
only. This module computes the content vector of a ROS graph; ranking lives
in the stores (a sparse-matrix product on SQLite, the vector index on Neo4j)
and the two stages are put together in :mod:`dri.flows.search`.

A graph's vector counts string features:

* ``c:<lemma>`` each concept (its ``wordnet_lemma`` when it has one, so named
  people count as ``person``);
* ``r:<head>`` each first-order relation by its head verb
  (:func:`mapping.wordnet.relation_heads`: ``try_to_build_on`` -> ``build_on``);
* ``o:<lemma>`` each higher-order relation (``cause``, ``purpose``, ...);
* ``hc:<synset>`` / ``hr:<synset>`` the WordNet hypernyms of each concept's
  and each relation head's first sense, so that "planet" and "electron", or
  "attract" and "pull", share features though not words -- the far analogies
  that structure mapping finds and word overlap does not;
* ``s:c<degree>`` / ``s:r<subject degree>-<object degree>`` each node's
  structural signature: structure mapping scores the share of two graphs
  that maps (the Jaccard part of the Analogy Similarity), which depends on
  their shapes more than on their words;
* ``m:<type>:<label>`` each relation by its full label and its type as the
  mapper sees it (order, subject, object, subject is object). These are not
  part of the cosine: they feed the estimate of how many relations two
  graphs can map (:class:`RelationPartners`; ranking in
  :mod:`store.vectors`).

Hypernyms at the very top of the hierarchy (``entity``, ``abstraction``,
...) say nothing; they are left out below :data:`MIN_HYPERNYM_IC` bits of
information content. The raw counts are stored; :func:`weigh` turns a matrix
of them into sublinear tf-idf rows of unit length, so a dot product is a
cosine. Which features to use was measured, not assumed: ``docs/search.md``.

The mapper pairs two relations only when their types are equal and their
labels identical or at least ``relation_floor`` similar (tiered
identicality, :mod:`mapping.profiles`), so the relations of the probe that
have a partner of that kind in a document bound the relations the two can
map. :class:`RelationPartners` finds, for a probe's labels, the partners in
a vocabulary of labels through the same WordNet index as the mapper's seeds
(:func:`mapping.seeds.relation_reach`), without comparing every pair.

Under ``sme`` the mapper also pairs labels by meaning (:mod:`mapping.meaning`:
``max(lin, w x meaning)`` must reach the floor), so the partners include the
labels of the same type whose clause vectors are close enough for that
(:func:`label_vectors`, computed once per document and stored with its
features, ``store.vectors.encode_features``): without them a story that
meaning lifts into the top 10 can rank past the candidates (docs/search.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import networkx as nx
import numpy as np

from dri.mapping.blas import one_blas_thread
from dri.mapping.meaning import clause_vectors, cosine_at, identity_only
from dri.mapping.seeds import relation_reach
from dri.mapping.wordnet import normalise, relation_heads, relation_similarity_matrix, wordnet

__all__ = [
    "FEATURES_VERSION",
    "FEATURE_SETS",
    "MIN_HYPERNYM_IC",
    "RELATION_PREFIX",
    "RelationPartners",
    "content_features",
    "label_vectors",
    "meaning_labels",
]

#: Bumped whenever the features change, so stored vectors are recomputed.
FEATURES_VERSION = "4"
#: Hypernyms with less information content (in bits... nats, as WordNet IC) are too general to count.
MIN_HYPERNYM_IC = 3.0
#: Weight of a hypernym feature against a word feature (a shared word says more).
HYPERNYM_WEIGHT = 0.5

#: Stored clause vectors are float16 (``mapping.content.pack_rows``), which moves a
#: cosine of unit vectors by at most this; the meaning partners' cut is lowered by
#: it so that no pair the mapper makes (from float32 vectors) is left out.
STORED_COSINE_ERROR = 1e-3

#: Node degrees above this count as this in the structural signatures.
MAX_DEGREE = 6

#: The feature kinds compared in ``bench/bench_search.py``; ``"all"`` is the default.
#: Every set carries the typed relation labels (``m``) the structural estimate needs.
FEATURE_SETS = {
    "lemmas": ("c", "r", "m"),
    "hypernyms": ("hc", "hr", "m"),
    "lemmas+hypernyms": ("c", "r", "hc", "hr", "m"),
    "lemmas+hypernyms+order2": ("c", "r", "o", "hc", "hr", "m"),
    "all": ("c", "r", "o", "hc", "hr", "s", "m"),  # with the structural signatures
}
#: Features starting with this are typed relation labels, kept out of the cosine.
RELATION_PREFIX = "m:"


def _signature(graph: nx.DiGraph, node: str, data: dict[str, Any]) -> str:
    """The node's place in the structure: a concept by its degree, a relation by
    the degrees of its subject and object (0 when it has none)."""
    if data.get("type") != "relation":
        return f"s:c{min(graph.degree(node), MAX_DEGREE)}"
    ends = []
    for neighbours in (graph.predecessors(node), graph.successors(node)):
        first = next(iter(neighbours), None)
        ends.append(min(graph.degree(first), MAX_DEGREE) if first is not None else 0)
    return f"s:r{ends[0]}-{ends[1]}"


def _relation_type(graph: nx.DiGraph, node: str, data: dict[str, Any]) -> str:
    """The relation's type as :mod:`mapping.mapper` compares it: order, has a
    subject, has an object, subject is object (the first edge of each wins)."""
    subj = next((u for u, _, label in graph.in_edges(node, data="label") if label == "subj"), None)
    obj = next((v for _, v, label in graph.out_edges(node, data="label") if label == "obj"), None)
    order = 2 if data.get("order", 1) == 2 else 1
    return f"{order}{int(subj is not None)}{int(obj is not None)}{int(subj is not None and subj == obj)}"


@lru_cache(maxsize=65536)
def _hypernyms(word: str, pos: str) -> tuple[int, ...]:
    wn = wordnet()
    synsets = wn.synsets(normalise(word), pos)
    if not synsets:
        return ()
    first = synsets[0]
    ic = wn._icv[pos]
    return tuple(
        sorted(o for o in first.ancestors if o != first.offset and ic.get(o, 0.0) >= MIN_HYPERNYM_IC)
    )


def content_features(graph: nx.DiGraph, kinds: Iterable[str] = FEATURE_SETS["all"]) -> dict[str, float]:
    """The content vector of ``graph``: feature -> count (hypernyms weighted by
    :data:`HYPERNYM_WEIGHT`). Empty for an empty graph."""
    kinds = frozenset(kinds)
    # A plain dict, as a Counter would fill it: counts stay ints, hypernym weights floats.
    counts: dict[str, float] = {}
    for node, data in graph.nodes(data=True):
        if "s" in kinds:
            key = _signature(graph, node, data)
            counts[key] = counts.get(key, 0) + 1
        if "m" in kinds and data.get("type") == "relation":
            # The label as the mapper compares it (its lemma, else the node id).
            key = f"{RELATION_PREFIX}{_relation_type(graph, node, data)}:{data.get('lemma', node)}"
            counts[key] = counts.get(key, 0) + 1
        lemma = str(data.get("wordnet_lemma") or data.get("lemma") or "")
        if not lemma:
            continue
        if data.get("type") == "relation":
            if int(data.get("order", 1) or 1) > 1:
                if "o" in kinds:
                    key = f"o:{lemma}"
                    counts[key] = counts.get(key, 0) + 1
                continue
            head = relation_heads(lemma)[0][0]
            if "r" in kinds:
                key = f"r:{head}"
                counts[key] = counts.get(key, 0) + 1
            if "hr" in kinds:
                for offset in _hypernyms(head, "v"):
                    key = f"hr:{offset}"
                    counts[key] = counts.get(key, 0) + HYPERNYM_WEIGHT
        else:
            if "c" in kinds:
                key = f"c:{normalise(lemma)}"
                counts[key] = counts.get(key, 0) + 1
            if "hc" in kinds and data.get("pos", "n") == "n":
                for offset in _hypernyms(lemma, "n"):
                    key = f"hc:{offset}"
                    counts[key] = counts.get(key, 0) + HYPERNYM_WEIGHT
    return dict(counts)


def meaning_labels(features: Mapping[str, float]) -> list[str]:
    """The distinct relation labels of ``features`` (its ``m:`` keys) that may pair
    by meaning (all but the identity-only ones), sorted."""
    labels = {_split(k)[1] for k in features if k.startswith(RELATION_PREFIX)}
    return sorted(x for x in labels if not identity_only(x))


def label_vectors(features: Mapping[str, float]) -> dict[str, np.ndarray]:
    """The clause vector (:mod:`mapping.meaning`) of each of :func:`meaning_labels`."""
    labels = meaning_labels(features)
    return dict(zip(labels, clause_vectors(labels))) if labels else {}


#: The largest block of label similarities :class:`RelationPartners` computes at once (8 MB).
_MATRIX_CELLS = 1_000_000


class RelationPartners:
    """Which typed relation labels (``m:`` features) of a vocabulary each probe
    label may pair with in a mapping: the same type, and an identical label or
    one at least ``floor`` similar (:func:`mapping.wordnet.relation_similarity`,
    the mapper's own test). With ``floor`` 0 any label of the same type may.

    The vocabulary's labels are indexed by the WordNet verb synsets through
    which they can reach ``floor`` (built on first use or by :meth:`prepare`);
    a probe label meets only the labels sharing one, whose similarity is then
    checked.

    Given the labels' clause ``vectors`` and the profile's ``meaning`` weight,
    labels of the same type whose meaning similarity reaches ``floor / meaning``
    are partners too, as the mapper pairs them (:mod:`mapping.meaning`); a label
    without a vector pairs by WordNet only.
    """

    def __init__(
        self,
        vocabulary: Sequence[str],
        floor: float,
        vectors: Mapping[str, np.ndarray] | None = None,
        meaning: float = 0.0,
    ):
        self.vocabulary = list(vocabulary)
        self.floor = floor
        self.positions = {key: i for i, key in enumerate(self.vocabulary)}
        self._index: dict[tuple[str, int], list[tuple[float, int]]] | None = None
        self._by_type: dict[str, list[int]] = {}
        for i, key in enumerate(self.vocabulary):
            self._by_type.setdefault(_split(key)[0], []).append(i)
        self.vectors = dict(vectors or {})
        reach = floor / meaning if meaning > 0.0 else 2.0
        self.cut = cosine_at(reach) - STORED_COSINE_ERROR if vectors and 0.0 < reach <= 1.0 else None
        # The vocabulary's labels with a vector as the rows of one matrix, and per
        # type the row and the vocabulary position of each label of that type.
        self._labels: dict[str, int] = {}
        self._meaning: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if self.cut is not None:
            for kind, where in self._by_type.items():
                known = [
                    (i, label) for i in where if (label := _split(self.vocabulary[i])[1]) in self.vectors
                ]
                known = [(i, label) for i, label in known if not identity_only(label)]
                if known:
                    rows = [self._labels.setdefault(label, len(self._labels)) for _, label in known]
                    self._meaning[kind] = (np.array(rows, dtype=np.int64), np.array([i for i, _ in known]))
        self._matrix = (
            np.stack([self.vectors[x] for x in self._labels]).astype(np.float32) if self._labels else None
        )

    def prepare(self) -> RelationPartners:
        """Build the synset index now rather than on the first :meth:`partners`."""
        self._built()
        return self

    def _built(self) -> dict[tuple[str, int], list[tuple[float, int]]]:
        if self._index is None:
            index: dict[tuple[str, int], list[tuple[float, int]]] = {}
            for i, key in enumerate(self.vocabulary):
                kind, label = _split(key)
                for synset, least in relation_reach(label, self.floor):
                    index.setdefault((kind, synset), []).append((least, i))
            for bucket in index.values():
                bucket.sort()
            self._index = index
        return self._index

    def partners(self, key: str, vector: np.ndarray | None = None) -> list[int]:
        """Positions in the vocabulary of the labels ``key`` may pair with (by
        meaning too, through ``vector`` or the label's own vector, if known)."""
        return self.partners_of([key], {_split(key)[1]: vector} if vector is not None else None)[0]

    def partners_of(
        self, keys: Sequence[str], vectors: Mapping[str, np.ndarray] | None = None
    ) -> list[list[int]]:
        """:meth:`partners` of each of ``keys``, their clause vectors taken from
        ``vectors`` or else the vocabulary's; one matrix product for all of them."""
        close = self._close_in_meaning(keys, vectors or {})
        found: list[set[int]] = []
        maybe: list[list[int]] = []  # per key: labels whose WordNet bound reaches the floor
        for key in keys:
            kind, label = _split(key)
            if self.floor <= 0.0:
                found.append(set(self._by_type.get(kind, ())))
                maybe.append([])
                continue
            mine = {self.positions[key]} if key in self.positions else set()
            if label in close and kind in self._meaning:
                rows, positions = self._meaning[kind]
                mine.update(int(i) for i in positions[close[label][rows]])
            found.append(mine)
            maybe.append([i for i in self._within_bound(kind, label) if i not in mine])
        self._by_wordnet(keys, found, maybe)
        return [sorted(mine) for mine in found]

    def _close_in_meaning(
        self, keys: Sequence[str], vectors: Mapping[str, np.ndarray]
    ) -> dict[str, np.ndarray]:
        """For each label of ``keys`` with a clause vector: which of the vocabulary's
        labels with a vector (rows of the matrix) lie within the cut."""
        if self.cut is None or self._matrix is None:
            return {}
        labels, rows = [], []
        for label in dict.fromkeys(_split(k)[1] for k in keys):
            vector = vectors.get(label)
            if vector is None:
                vector = self.vectors.get(label)
            if vector is not None and not identity_only(label):
                labels.append(label)
                rows.append(vector)
        if not labels:
            return {}
        with one_blas_thread():  # a small product: threads would cost more CPU than they save
            cosine = np.asarray(rows, dtype=np.float32) @ self._matrix.T  # one product for all labels
        return dict(zip(labels, cosine >= self.cut))

    def _within_bound(self, kind: str, label: str) -> list[int]:
        """The labels of type ``kind`` whose WordNet bound with ``label`` (the best
        Lin through a synset both reach) reaches ``floor``."""
        index, ic = self._built(), wordnet()._icv["v"]  # read only
        bound: dict[int, float] = {}
        for synset, least in relation_reach(label, self.floor):
            twice = 2.0 * ic[synset]
            limit = twice / self.floor - least
            for other_ic, i in index.get((kind, synset), ()):
                if other_ic > limit:
                    break
                bound[i] = max(bound.get(i, 0.0), twice / (least + other_ic))
        floor = self.floor - 1e-12
        return [i for i, value in bound.items() if value >= floor]

    def _by_wordnet(self, keys: Sequence[str], found: list[set[int]], maybe: list[list[int]]) -> None:
        """Add to each key's ``found`` the labels of ``maybe`` at least ``floor`` similar
        to it by WordNet: one :func:`~mapping.wordnet.relation_similarity_matrix` of
        the keys' labels against all of them (the same floats as pair by pair)."""
        wanted = sorted({i for those in maybe for i in those})
        if not wanted:
            return
        labels = list(dict.fromkeys(_split(key)[1] for key in keys))
        row = {label: n for n, label in enumerate(labels)}
        column = {i: n for n, i in enumerate(wanted)}
        # In blocks of columns, each a matrix of at most _MATRIX_CELLS (a column's floats
        # do not depend on the others).
        width = max(1, _MATRIX_CELLS // len(labels))
        others = [_split(self.vocabulary[i])[1] for i in wanted]
        similar = np.concatenate(
            [relation_similarity_matrix(labels, others[n : n + width]) for n in range(0, len(others), width)],
            axis=1,
        )
        floor = self.floor - 1e-12
        for key, mine, those in zip(keys, found, maybe):
            values = similar[row[_split(key)[1]]]
            mine.update(i for i in those if values[column[i]] >= floor)


def _split(key: str) -> tuple[str, str]:
    """``"m:1110:attract"`` -> ``("1110", "attract")``."""
    _, kind, label = key.split(":", 2)
    return kind, label
