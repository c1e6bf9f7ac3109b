"""Candidate seeds of a search: which relation pairs may start it, and in what order.

Seeds are not the cross product of the two graphs' relations: the target's
relation labels are indexed by the WordNet verb synsets through which they
can reach the profile's floor (or :data:`SEED_FLOOR`; :func:`_reach`), so
each source label meets only identical labels and WordNet neighbours at or
above it (:func:`_candidate_pairs`); under max-over-senses the similarity
of every label pair is instead one matrix (:func:`_label_pairs` over a
:class:`~mapping.matrices.LabelMatrix`), which gives the same pairs.
:class:`SeedTable` scores every seed once on the empty state, over arrays,
in exactly the order of the search's own keys (:meth:`mapping.search.Search.key`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple, Protocol

import numpy as np

from dri.mapping.matrices import ConceptMatrix, LabelMatrix, per_pair
from dri.mapping.sides import Side, Signature
from dri.mapping.wordnet import relation_heads, wordnet

__all__ = [
    "FULL_SEEDS",
    "SEED_FLOOR",
    "Candidates",
    "Key",
    "Pair",
    "Pairs",
    "SeedScore",
    "SeedScorer",
    "SeedTable",
    "relation_reach",
    "round12",
]

#: A source and a target index (two relations or two concepts).
Pair = tuple[int, int]
Pairs = tuple[Pair, ...]
#: A candidate's place in a search's order, least first (:meth:`mapping.search.Search.key`):
#: (-anchors, -mean similarity, -identical lemmas, i, k), and in look-ahead mode
#: (-anchors, -potential, -mean similarity, -identical lemmas, i, k).
Key = tuple[int, float, int, int, int] | tuple[int, int, float, int, int, int]
#: The candidates of one signature-and-label group: source relations x target relations.
_Group = tuple[list[int], list[int]]
#: Every feasible seed's rows, columns, rounded score, identical lemmas, potential and anchors.
_Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

#: Without a relation floor, seeds still need this much relation similarity;
#: weaker pairs are reached by growth or as fresh pairs after the seeds.
SEED_FLOOR = 0.3
#: Without a floor, graphs with at most this many relation pairs get every pair
#: as a seed (cheap there, and more varied restarts); larger ones use the index.
FULL_SEEDS = 5_000
#: Relation pairs checked at once when candidates come from the label matrix (a boolean each).
_PAIR_BLOCK = 4_000_000


def _reach(label: str, floor: float) -> dict[int, float]:
    """WordNet verb synsets through which ``label`` can reach Lin >= ``floor``,
    each with the least IC of the label's senses under it.

    Lin(x, y) = 2 IC(c) / (IC(x) + IC(y)) for the most informative common
    subsumer c, so it reaches ``floor`` only through an ancestor c of x with
    IC(c) >= floor x IC(x) / 2 (and the same for y).
    """
    wn = wordnet()
    ic = wn._icv["v"]  # read only: the SemCor IC of every verb synset
    out: dict[int, float] = {}
    for head, _tail in relation_heads(label):
        for x in wn.synsets(head, "v"):
            if not 0.0 < x.ic < math.inf:
                continue
            bound = floor * x.ic / 2.0
            for c in x.ancestors:
                if ic.get(c, 0.0) >= bound and ic.get(c, 0.0) > 0.0 and x.ic < out.get(c, math.inf):
                    out[c] = x.ic
    return out


@lru_cache(maxsize=65_536)
def relation_reach(label: str, floor: float) -> tuple[tuple[int, float], ...]:
    """:func:`_reach` as ``(synset offset, least IC)`` pairs, cached: two relation
    labels can reach Lin >= ``floor`` only through a synset both reach (used by
    the stage-1 estimate of :mod:`mapping.features`)."""
    return tuple(sorted(_reach(label, floor).items()))


def _candidate_pairs(
    s: Side, t: Side, rel_sim: Callable[[str, str], float], floor: float
) -> tuple[tuple[np.ndarray, np.ndarray], set[tuple[str, str]]]:
    """Relation pairs of one type whose labels are identical or WordNet neighbours
    with similarity >= ``floor``, found through an index of the target's labels
    instead of the cross product of relations; and those label pairs.

    Through the index each pair of labels gets the best Lin of their head verbs
    (max over shared ancestors c of 2 IC(c) / (IC(x) + IC(y))), an upper bound
    of their similarity; only pairs whose bound reaches ``floor`` are scored.
    """
    ic = wordnet()._icv["v"]  # read only
    by_label_t: dict[tuple[Signature, str], list[int]] = {}
    for k in range(len(t.relations)):
        by_label_t.setdefault((t.signature[k], t.rel_lemma[k]), []).append(k)
    by_label_s: dict[tuple[Signature, str], list[int]] = {}
    for i in range(len(s.relations)):
        by_label_s.setdefault((s.signature[i], s.rel_lemma[i]), []).append(i)
    # Target labels by the synsets they can reach the floor through, least IC first.
    index: dict[tuple[Signature, int], list[tuple[float, str]]] = {}
    for sig, label in by_label_t:
        for c, least in _reach(label, floor).items():
            index.setdefault((sig, c), []).append((least, label))
    for bucket in index.values():
        bucket.sort()
    groups: list[_Group] = []
    allowed: set[tuple[str, str]] = set()
    for (sig, label), mine in by_label_s.items():
        bound: dict[str, float] = {}
        for c, least in _reach(label, floor).items():
            reaching = index.get((sig, c))
            if not reaching:
                continue
            twice = 2.0 * ic[c]
            limit = twice / floor - least
            for other_ic, other in reaching:
                if other_ic > limit:
                    break
                value = twice / (least + other_ic)
                if value > bound.get(other, 0.0):
                    bound[other] = value
        partners = [o for o, v in bound.items() if v >= floor - 1e-12]
        if (sig, label) in by_label_t:
            partners.append(label)
        for other in sorted(set(partners)):
            if other == label or rel_sim(label, other) >= floor - 1e-12:
                allowed.add((label, other))
                groups.append((mine, by_label_t[(sig, other)]))
    return _cross(groups), allowed


def _cross(groups: list[_Group]) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, k) of each group's ``mine`` x ``theirs``, as two index arrays."""
    if not groups:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    mine = np.array([i for m, _ in groups for i in m], dtype=np.int64)
    theirs = np.array([k for _, t in groups for k in t], dtype=np.int64)
    count_m = np.array([len(m) for m, _ in groups], dtype=np.int64)
    count_t = np.array([len(t) for _, t in groups], dtype=np.int64)
    start_m, start_t = np.cumsum(count_m) - count_m, np.cumsum(count_t) - count_t
    # Group g contributes count_m[g] x count_t[g] pairs, row-major.
    size = count_m * count_t
    group = np.repeat(np.arange(len(groups)), size)
    within = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    width = count_t[group]
    return mine[start_m[group] + within // width], theirs[start_t[group] + within % width]


def _label_pairs(s: Side, t: Side, labels: LabelMatrix, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Relation pairs of one type whose labels' similarity (from the label matrix,
    identical labels 1.0) reaches ``floor``: the pairs :func:`_candidate_pairs` finds,
    row-major (the seed table sorts them by their keys, whose last fields are the pair)."""
    ok = labels.matrix() >= floor - 1e-12
    signatures = {sig: n for n, sig in enumerate(dict.fromkeys(s.signature + t.signature))}
    sig_s = np.array([signatures[x] for x in s.signature], dtype=np.int64)
    sig_t = np.array([signatures[x] for x in t.signature], dtype=np.int64)
    id_s, id_t = np.array(labels.id_s, dtype=np.int64), np.array(labels.id_t, dtype=np.int64)
    # Every relation pair at once, a block of source rows at a time to bound the memory.
    step = max(1, _PAIR_BLOCK // max(1, len(id_t)))
    rows, cols = [], []
    for first in range(0, len(id_s), step):
        part = slice(first, first + step)
        allowed = ok[id_s[part, None], id_t] & (sig_s[part, None] == sig_t)
        r, c = np.nonzero(allowed)
        rows.append(r.astype(np.int64) + first)
        cols.append(c.astype(np.int64))
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(rows), np.concatenate(cols)


class Candidates:
    """The relation pairs that may seed a search, computed on first use (a clone never
    needs them): from the label matrix when there is one, else :func:`_candidate_pairs`."""

    def __init__(
        self,
        s: Side,
        t: Side,
        rel_sim: Callable[[str, str], float],
        floor: float,
        labels: LabelMatrix | None = None,
    ):
        self.s, self.t, self.rel_sim, self.floor, self.labels = s, t, rel_sim, floor, labels
        self.pairs: tuple[np.ndarray, np.ndarray] | None = None
        #: Label pairs at or above the floor, when found through the index (else None).
        self.allowed: set[tuple[str, str]] | None = None
        self._mappable: int | None = None

    def get(self) -> tuple[np.ndarray, np.ndarray]:
        """The candidate pairs as arrays of source and target relation indices."""
        if self.pairs is None:
            if self.labels is not None and self.labels.usable:
                self.pairs = _label_pairs(self.s, self.t, self.labels, self.floor)
            else:
                self.pairs, self.allowed = _candidate_pairs(self.s, self.t, self.rel_sim, self.floor)
        return self.pairs

    def mappable(self) -> int:
        """At most this many relation pairs can map when only candidates are feasible."""
        if self._mappable is None:
            rows, cols = self.get()
            self._mappable = min(len(np.unique(rows)), len(np.unique(cols)))
        return self._mappable


class SeedScore(NamedTuple):
    """The fields of a seed's :data:`Key` on the empty state (see :meth:`SeedScorer.seed_score`)."""

    rscore: float  # mean similarity over the pairs it adds, rounded to 12 places
    same: int  # identical lemmas among them
    potential: int  # further relation pairs they can anchor (look-ahead)
    anchors: int


class SeedScorer(Protocol):
    """What the seed table asks of a search (:class:`mapping.search.Search`)."""

    s: Side
    t: Side
    floor: float
    structure: bool
    concepts: ConceptMatrix | None
    labels: LabelMatrix | None

    def rel_lin(self, i: int, k: int) -> float: ...

    def con_lin(self, a: int, b: int) -> float: ...

    def seed_score(self, i: int, k: int) -> SeedScore | None:
        """The key's fields of relation pair (i, k) on the empty state (None: infeasible)."""


class SeedTable:
    """Every seed scored once on the empty state, for both orderings of the search.

    A seed's key (:meth:`mapping.search.Search.key` on an empty state) is its mean
    similarity over the relation pair and its argument pairs, the number of
    identical lemmas and, for the look-ahead ordering, its potential. For
    order-1 pairs these are computed over arrays of all candidate pairs at
    once, with each distinct label pair and concept pair scored once; order-2
    pairs (which force pairs below them) go through :meth:`SeedScorer.seed_score`. The
    same floating-point operations in the same order as :meth:`mapping.search.Search.key`
    give the same keys, so the order is the same as sorting the keys (tested).
    """

    def __init__(self, candidates: Candidates | None):
        self.candidates = candidates
        self._columns: _Columns | None = None
        self._orders: dict[bool, tuple[list[int], list[int]]] = {}

    def order(self, search: SeedScorer) -> tuple[list[int], list[int]]:
        """The feasible seed pairs, best first, for ``search``'s ordering."""
        hit = self._orders.get(search.structure)
        if hit is None:
            if self._columns is None:
                self._columns = self._score(search)
            rows, cols, rscore, same, potential, anchors = self._columns
            ranked = _ranked(rows, cols, rscore, same, potential, anchors, search.structure)
            hit = (rows[ranked].tolist(), cols[ranked].tolist())
            self._orders[search.structure] = hit
        return hit

    def _score(self, search: SeedScorer) -> _Columns:
        s, t = search.s, search.t
        if self.candidates is not None:
            rows, cols = self.candidates.get()
        else:
            rows = np.repeat(np.arange(len(s.relations), dtype=np.int64), len(t.relations))
            cols = np.tile(np.arange(len(t.relations), dtype=np.int64), len(s.relations))
        sa, ta = s.arrays(), t.arrays()
        # Type match: one id per signature, shared by both sides.
        signatures = {sig: n for n, sig in enumerate(dict.fromkeys(s.signature + t.signature))}
        sig_s = np.array([signatures[x] for x in s.signature], dtype=np.int64)
        sig_t = np.array([signatures[x] for x in t.signature], dtype=np.int64)
        keep = sig_s[rows] == sig_t[cols] if len(rows) else np.zeros(0, dtype=bool)
        rows, cols = rows[keep], cols[keep]
        # Relation similarity, once per label pair.
        labels = {x: n for n, x in enumerate(dict.fromkeys(s.rel_lemma + t.rel_lemma))}
        lab_s = np.array([labels[x] for x in s.rel_lemma], dtype=np.int64)[rows]
        lab_t = np.array([labels[x] for x in t.rel_lemma], dtype=np.int64)[cols]
        if search.labels is not None and search.labels.usable:
            rel = search.labels.values(rows, cols)
        else:
            rel = per_pair(lab_s * len(labels) + lab_t, rows, cols, search.rel_lin)
        same_label = lab_s == lab_t
        if search.floor > 0.0:
            # compatible(): identical labels, or similarity at the floor.
            keep = same_label | (rel >= search.floor - 1e-12)
            rows, cols, rel, same_label = rows[keep], cols[keep], rel[keep], same_label[keep]
        first = sa.order[rows] == 1
        # Order 1, all at once: no argument is mapped, so every compatible pair is feasible.
        r1, c1, total = rows[first], cols[first], rel[first]
        same = same_label[first].astype(np.int64)
        count = np.ones(len(r1), dtype=np.int64)
        potential = np.minimum(sa.n_rsubj[r1], ta.n_rsubj[c1]) + np.minimum(sa.n_robj[r1], ta.n_robj[c1])
        cons = {x: n for n, x in enumerate(dict.fromkeys(s.con_lemma + t.con_lemma))}
        con_s = np.array([cons[x] for x in s.con_lemma], dtype=np.int64)
        con_t = np.array([cons[x] for x in t.con_lemma], dtype=np.int64)
        width = max(1, len(t.concepts))
        for role, args_s, args_t in (
            ("subj", sa.subj[r1], ta.subj[c1]),
            ("obj", sa.obj[r1], ta.obj[c1]),
        ):
            present = args_s >= 0
            if role == "obj":
                present &= args_s != sa.subj[r1]  # subject and object the same node: one pair
            a, b = args_s[present], args_t[present]
            lin = np.zeros(len(r1))
            if search.concepts is not None:
                lin[present] = search.concepts.values(a, b)
            else:
                lin[present] = per_pair(a * width + b, a, b, search.con_lin)
            total = total + lin  # the same additions, in the same order, as Search.key
            count += present
            same += present & (con_s[np.where(present, args_s, 0)] == con_t[np.where(present, args_t, 0)])
            potential[present] += np.minimum(sa.n_subj[a], ta.n_subj[b]) + np.minimum(
                sa.n_obj[a], ta.n_obj[b]
            )
        score = total / count
        rscore = round12(score)
        # Order 2: parallel connectivity forces pairs below, which may conflict. An
        # argument pair of two types is never compatible, so most order-2 pairs are
        # infeasible before any is scored one by one.
        r2, c2 = rows[~first], cols[~first]
        for args_s, args_t in ((sa.subj, ta.subj), (sa.obj, ta.obj)):
            a, b = args_s[r2], args_t[c2]
            typed = (a < 0) | (b < 0) | (sig_s[np.maximum(a, 0)] == sig_t[np.maximum(b, 0)])
            r2, c2 = r2[typed], c2[typed]
        extra: list[tuple[int, int, float, int, int, int]] = []
        for i, k in zip(r2.tolist(), c2.tolist()):
            seed = search.seed_score(i, k)
            if seed is not None:
                extra.append((i, k, *seed))
        anchors = np.zeros(len(r1), dtype=np.int64)
        if extra:
            ei, ek, es, esame, epot, eanch = (np.array(column) for column in zip(*extra))
            r1, c1 = np.concatenate([r1, ei]), np.concatenate([c1, ek])
            rscore = np.concatenate([rscore, es.astype(np.float64)])
            same = np.concatenate([same, esame.astype(np.int64)])
            potential = np.concatenate([potential, epot.astype(np.int64)])
            anchors = np.concatenate([anchors, eanch.astype(np.int64)])
        return r1, c1, rscore, same, potential, anchors


def _ranked(
    rows: np.ndarray,
    cols: np.ndarray,
    rscore: np.ndarray,
    same: np.ndarray,
    potential: np.ndarray,
    anchors: np.ndarray,
    structure: bool,
) -> np.ndarray:
    """The order of the seeds by :meth:`mapping.search.Search.key`: most anchors, in
    look-ahead mode the greatest potential, the greatest score, most identical lemmas,
    then i and k.

    The fields are packed into one integer key when they fit in 63 bits (a score
    rounded to 12 places is an integer number of 1e-12, checked), and sorted
    once: the keys are unique (the pairs are), so any sort gives the order of
    ``np.lexsort`` over the fields, several times faster. Otherwise two packed
    keys (the score and what comes before it, the rest) or the fields themselves
    go to ``np.lexsort``.
    """
    scaled = np.rint(rscore * 1e12)
    exact = len(rscore) == 0 or (
        rscore.min() >= 0.0 and rscore.max() <= 1.0 and np.array_equal(scaled / 1e12, rscore)
    )
    if exact and same.min(initial=0) >= 0:
        score = scaled.astype(np.int64)
        fields = [anchors.max(initial=0) - anchors]
        if structure:
            fields.append(potential.max(initial=0) - potential)
        fields += [score.max(initial=0) - score, same.max(initial=0) - same, rows, cols]
        key = _packed(fields)
        if key is not None:
            return np.argsort(key)
        high, low = _packed(fields[:-3]), _packed(fields[-3:])  # (identical lemmas, i, k) low
        if high is not None and low is not None:
            return np.lexsort((low, high))
    keys = (cols, rows, -same, -rscore, -potential) if structure else (cols, rows, -same, -rscore)
    if anchors.any():
        keys = (*keys, -anchors)
    return np.lexsort(keys)


def _packed(fields: list[np.ndarray]) -> np.ndarray | None:
    """One int64 key that sorts as the non-negative integer ``fields`` do, most
    significant first; None when they need more than 63 bits."""
    widths = [int(f.max(initial=0)).bit_length() for f in fields]
    if sum(widths) > 63:
        return None
    key = np.zeros(len(fields[0]), dtype=np.int64)
    for field, width in zip(fields, widths):
        key = (key << width) | field.astype(np.int64)
    return key


def round12(values: np.ndarray) -> np.ndarray:
    """Python's ``round(x, 12)`` of every value, as :meth:`mapping.search.Search.key` takes it.

    ``round`` rounds the exact binary value half to even and returns the double
    nearest to the decimal; ``rint(x * 1e12) / 1e12`` does the same (the division
    of an integer below 2**53 by 1e12 is correctly rounded too) unless the
    product's own rounding moved it across a half: only values within 1e-3 of a
    half after scaling are left to ``round`` itself.
    """
    scaled = values * 1e12
    out = np.rint(scaled) / 1e12
    fraction = scaled - np.floor(scaled)
    for j in np.flatnonzero(np.abs(fraction - 0.5) < 1e-3).tolist():
        out[j] = round(float(values[j]), 12)
    return out
