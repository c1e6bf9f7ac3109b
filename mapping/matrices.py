"""Similarity matrices of one mapping: every source concept word or relation label
against every target one, computed at once when that pays off.

Under max-over-senses Lin (:func:`mapping.wordnet.WordNet.score_matrix`,
:func:`mapping.wordnet.relation_similarity_matrix`) one matrix of all pairs
costs less than the pairs the seeds and the search ask for, one by one. The
matrices give the same floats as asking pair by pair (tested); before they
are computed (a clone never needs them) and above :data:`MATRIX_LIMIT`
entries, pairs are asked one at a time.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dri.mapping.meaning import meaning_matrix
from dri.mapping.sides import Side
from dri.mapping.wordnet import relation_similarity_matrix, wordnet

__all__ = ["MATRIX_LIMIT", "ConceptMatrix", "LabelMatrix", "per_pair"]


def per_pair(
    codes: np.ndarray, rows: np.ndarray, cols: np.ndarray, score: Callable[[int, int], float]
) -> np.ndarray:
    """``score(rows[j], cols[j])`` for every j, computed once per distinct code."""
    if not len(codes):
        return np.zeros(0)
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    values = np.array([score(i, k) for i, k in zip(rows[first].tolist(), cols[first].tolist())])
    return values[inverse.reshape(-1)]


#: Largest similarity matrix (source words or labels x target ones) computed at
#: once, about 40 MB while a mapping runs (the array and its rows as lists);
#: bigger graphs score pairs one at a time.
MATRIX_LIMIT = 1_000_000


#: A matrix costs about as much as asking this fraction of its pairs one at a
#: time (cold): past that share of pairs asked, it is computed.
_MATRIX_SHARE = 20


class ConceptMatrix:
    """The similarity of every source noun or adjective concept with every target concept word,
    computed with :meth:`WordNet.score_matrix` when the seeds are scored (the same
    floats as asking pair by pair, tested): the seeds and the search then ask for
    most of these pairs, and under max-over-senses one matrix costs less than the
    pairs one by one. Before that (a clone never scores seeds), other rules,
    other parts of speech and matrices above :data:`MATRIX_LIMIT` entries ask ``sim`` pair
    by pair."""

    def __init__(self, s: Side, t: Side, rule: str, sim: Callable[[str, str, str], float]):
        self.s, self.t, self.rule, self.sim = s, t, rule, sim
        self.rows: list[list[float] | None] | None = None
        self.column: list[int] = []
        self._column = self._row = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0))
        self._lemma_s: np.ndarray | None = None  # lemma ids shared by both sides, on first use
        self._lemma_t: np.ndarray | None = None
        self.asked = 0

    def get(self, a: int, b: int) -> float:
        # Pair by pair until the seeds need the matrix or the pairs asked make up a
        # share of it that costs more (a clone asks few), then from the matrix.
        if self.rows is None:
            self.asked += 1
            if self.asked * _MATRIX_SHARE > len(self.s.concepts) * len(self.t.concepts):
                self._compute()
        row = self.rows[a] if self.rows is not None else None
        if row is None:
            s, t = self.s, self.t
            return self.sim(s.con_word[a], t.con_word[b], s.con_pos[a])
        return row[self.column[b]]

    def values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``Search.con_lin(a[j], b[j])`` for every j: 1.0 for identical lemmas, else the matrix."""
        if self.rows is None:
            self._compute()
        s, t = self.s, self.t
        if self._lemma_s is None or self._lemma_t is None:
            lemmas = {x: n for n, x in enumerate(dict.fromkeys(s.con_lemma + t.con_lemma))}
            self._lemma_s = np.array([lemmas[x] for x in s.con_lemma], dtype=np.int64)
            self._lemma_t = np.array([lemmas[x] for x in t.con_lemma], dtype=np.int64)
        same = self._lemma_s[a] == self._lemma_t[b]
        out = np.ones(len(a))
        row = self._row[a]
        gather = ~same & (row >= 0)
        out[gather] = self._matrix[row[gather], self._column[b[gather]]]
        rest = ~same & (row < 0)
        if rest.any():
            ra, rb = a[rest], b[rest]
            out[rest] = per_pair(ra * max(1, len(t.concepts)) + rb, ra, rb, self.get)
        return out

    def _compute(self) -> list[list[float] | None]:
        s, t = self.s, self.t
        columns = list(dict.fromkeys(t.con_word))
        where = {w: n for n, w in enumerate(columns)}
        self.column = [where[w] for w in t.con_word]
        self._column = np.array(self.column, dtype=np.int64)
        rows: list[list[float] | None] = [None] * len(s.concepts)
        self._row = np.full(len(s.concepts), -1, dtype=np.int64)
        self._matrix = np.zeros((0, len(columns)))
        if self.rule == "max":
            # Nouns and adjectives (a source concept's part of speech is the pair's), one
            # block of rows each; other parts of speech are asked pair by pair.
            blocks = []
            for pos in ("n", "a"):
                mine = [j for j in range(len(s.concepts)) if s.con_pos[j] == pos]
                words = list(dict.fromkeys(s.con_word[j] for j in mine))
                if words and len(words) * len(columns) <= MATRIX_LIMIT:
                    blocks.append((pos, mine, words))
            if blocks:
                wn = wordnet()
                self._matrix = np.concatenate(
                    [wn.score_matrix(words, columns, pos, self.rule) for pos, _, words in blocks]
                )
                matrix = self._matrix.tolist()
                first = 0
                for _, mine, words in blocks:
                    index = {w: first + n for n, w in enumerate(words)}
                    for j in mine:
                        rows[j] = matrix[index[s.con_word[j]]]
                        self._row[j] = index[s.con_word[j]]
                    first += len(words)
        self.rows = rows
        return rows


class LabelMatrix:
    """:func:`mapping.wordnet.relation_similarity` of every source relation label with
    every target label, computed with
    :func:`~mapping.wordnet.relation_similarity_matrix` (the same floats, tested) when
    the candidates are first needed, under max-over-senses and up to
    :data:`MATRIX_LIMIT` entries (``usable``); before that, pair by pair with ``sim``.
    It replaces the label index of :func:`_candidate_pairs` there: one matrix of all
    label pairs costs less than the index and the pairs it finds, scored one by one."""

    def __init__(
        self, s: Side, t: Side, rule: str, sim: Callable[[str, str, str], float], meaning: float = 0.0
    ):
        self.rule, self.sim, self.meaning = rule, sim, meaning
        self.labels_s = list(dict.fromkeys(s.rel_lemma))
        self.labels_t = list(dict.fromkeys(t.rel_lemma))
        where_s = {x: n for n, x in enumerate(self.labels_s)}
        where_t = {x: n for n, x in enumerate(self.labels_t)}
        self.id_s = [where_s[x] for x in s.rel_lemma]
        self.id_t = [where_t[x] for x in t.rel_lemma]
        self.usable = rule == "max" and len(self.labels_s) * len(self.labels_t) <= MATRIX_LIMIT
        self._matrix: np.ndarray | None = None
        self._rows: list[list[float]] | None = None
        self.asked = 0

    @property
    def settled(self) -> bool:
        """Whether :meth:`get` gives its final floats: once the matrix exists (or when it never
        will). A pair asked before takes ``sim``'s float, whose label meaning may differ
        from the matrix's in the last place, and is counted towards computing the matrix."""
        return not self.usable or self._matrix is not None

    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            matrix = relation_similarity_matrix(self.labels_s, self.labels_t, self.rule)
            if self.meaning > 0.0:
                np.maximum(matrix, self.meaning * meaning_matrix(self.labels_s, self.labels_t), out=matrix)
            self._matrix = matrix
        return self._matrix

    def get(self, i: int, k: int) -> float:
        # As ConceptMatrix.get: pair by pair until the matrix is needed or pays off.
        if self._rows is None:
            if self._matrix is None:
                self.asked += 1
                if self.asked * _MATRIX_SHARE <= len(self.labels_s) * len(self.labels_t):
                    return self.sim(self.labels_s[self.id_s[i]], self.labels_t[self.id_t[k]], "v")
            self._rows = self.matrix().tolist()
        return self._rows[self.id_s[i]][self.id_t[k]]

    def values(self, i: np.ndarray, k: np.ndarray) -> np.ndarray:
        """``Search.rel_lin(i[j], k[j])`` for every j (identical labels are 1.0 in the matrix)."""
        values: np.ndarray = self.matrix()[
            np.array(self.id_s, dtype=np.int64)[i], np.array(self.id_t, dtype=np.int64)[k]
        ]
        return values
