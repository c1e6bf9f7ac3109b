"""The VF2-style greedy search of a mapping (:class:`_Search`), one run at a time.

The state grows one relation pair at a time, together with the argument pairs
parallel connectivity forces (:meth:`_Search._args`); candidates come from
the neighbourhood of the mapped pairs, structure-closing first, then by
similarity (or, in look-ahead mode, by how many further pairs they can
anchor), and when the neighbourhood is exhausted from the best feasible seed
(:mod:`mapping.seeds`). :mod:`mapping.mapper` runs it with bounded restarts;
its docstring gives the rules in full.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.matrices import _ConceptMatrix, _LabelMatrix
from dri.mapping.seeds import _Candidates, _SeedTable
from dri.mapping.sides import _Side

__all__ = ["_Search", "_pairs_of"]

_FAIL = (False, 0, (), ())


class _Search:
    def __init__(
        self,
        s: _Side,
        t: _Side,
        sim: Callable[[str, str, str], float],
        floor: float = 0.0,
        structure: bool = False,
        candidates: _Candidates | None = None,
        table: _SeedTable | None = None,
        concepts: _ConceptMatrix | None = None,
        labels: _LabelMatrix | None = None,
    ):
        self.s, self.t, self.sim = s, t, sim
        self.floor = floor
        # Look-ahead mode: prefer candidates whose new argument pairs can anchor
        # the most further relation pairs (VF2's look-ahead), then similarity.
        self.structure = structure
        # The relation pairs that may start a search (see _candidate_pairs);
        # None means every pair (the full cross product).
        self.candidates = candidates
        # Seeds scored once for both orderings (see _SeedTable).
        self.table = table if table is not None else _SeedTable(candidates)
        # Concept similarities computed together (see _ConceptMatrix); None: one by one.
        self.concepts = concepts
        self.labels = labels
        self.work = 0  # feasibility checks made, a machine-independent effort count
        self._seeds: tuple[list[int], list[int]] | None = None
        self._exact_seeds: list[tuple] | None = None

    # similarity of two lemmas, identical lemmas fixed at 1.0
    def lin(self, a: str, b: str, pos: str) -> float:
        return 1.0 if a == b else self.sim(a, b, pos)

    def rel_lin(self, i: int, k: int) -> float:
        a, b = self.s.rel_lemma[i], self.t.rel_lemma[k]
        if a == b:
            return 1.0
        if self.labels is not None and self.labels.usable:
            return self.labels.get(i, k)
        return self.sim(a, b, "v")

    def con_lin(self, a: int, b: int) -> float:
        s, t = self.s, self.t
        if s.con_lemma[a] == t.con_lemma[b]:
            return 1.0
        if self.concepts is not None:
            return self.concepts.get(a, b)
        return self.sim(s.con_word[a], t.con_word[b], s.con_pos[a])

    def compatible(self, i: int, k: int) -> bool:
        """Type match (order, arity, self-reference) and tiered identicality."""
        if self.s.signature[i] != self.t.signature[k]:
            return False
        if self.floor <= 0.0:
            return True
        a, b = self.s.rel_lemma[i], self.t.rel_lemma[k]
        if a == b:
            return True
        if self.candidates is not None and self.candidates.allowed is not None:
            # The label pairs at or above the floor are known: no Lin to compute.
            return (a, b) in self.candidates.allowed
        return self.rel_lin(i, k) >= self.floor - 1e-12

    def _args(self, i: int, k: int, cmap: list[int], cinv: list[int], rmap: list[int], rinv: list[int]):
        """(feasible, anchors, new concept pairs, new relation pairs) for relation pair (i, k).

        The new relation pairs are those parallel connectivity forces below an
        order-2 pair (its argument relations), not (i, k) itself.
        """
        self.work += 1
        if not self.compatible(i, k):
            return _FAIL
        s, t = self.s, self.t
        si, oi, sk, ok = s.subj[i], s.obj[i], t.subj[k], t.obj[k]
        if s.order[i] == 1:  # the common case: concept arguments only
            anchors = 0
            new = []
            for a, b in ((si, sk), (oi, ok)) if si != oi else ((si, sk),):
                if a < 0:
                    continue
                mapped = cmap[a]
                if mapped >= 0:
                    if mapped != b:
                        return _FAIL
                    anchors += 1
                elif cinv[b] >= 0:
                    return _FAIL
                else:
                    new.append((a, b))
            return True, anchors, tuple(new), ()
        # Order 2: the argument relations map onto each other, and so on down.
        new_r: dict[int, int] = {i: k}
        new_r_inv: dict[int, int] = {k: i}
        new_c: dict[int, int] = {}
        new_c_inv: dict[int, int] = {}
        anchors = 0
        stack = [(i, k)]
        while stack:
            x, y = stack.pop()
            xs, xo, ys, yo = s.subj[x], s.obj[x], t.subj[y], t.obj[y]
            roles = ((xs, ys), (xo, yo)) if xs != xo else ((xs, ys),)
            for a, b in roles:
                if a < 0:
                    continue
                if s.order[x] == 1:
                    mapped = cmap[a] if cmap[a] >= 0 else new_c.get(a, -1)
                    if mapped >= 0:
                        if mapped != b:
                            return _FAIL
                        anchors += (x, y) == (i, k)
                    elif cinv[b] >= 0 or b in new_c_inv:
                        return _FAIL
                    else:
                        new_c[a], new_c_inv[b] = b, a
                else:
                    mapped = rmap[a] if rmap[a] >= 0 else new_r.get(a, -1)
                    if mapped >= 0:
                        if mapped != b:
                            return _FAIL
                        anchors += (x, y) == (i, k)
                    elif rinv[b] >= 0 or b in new_r_inv:
                        return _FAIL
                    else:
                        self.work += 1
                        if not self.compatible(a, b):
                            return _FAIL
                        new_r[a], new_r_inv[b] = b, a
                        stack.append((a, b))
        del new_r[i]
        return True, anchors, tuple(new_c.items()), tuple(new_r.items())

    def _key(self, i: int, k: int, anchors: int, new: tuple, new_r: tuple = ()) -> tuple:
        rscore, same = self._parts(i, k, new, new_r)
        if self.structure:
            return (-anchors, -self._potential(i, k, new, new_r), -rscore, -same, i, k)
        return (-anchors, -rscore, -same, i, k)

    def _parts(self, i: int, k: int, new: tuple, new_r: tuple) -> tuple[float, int]:
        """(mean similarity over the pairs added, rounded; identical lemmas among them)."""
        s, t = self.s, self.t
        total = self.rel_lin(i, k)
        same = int(s.rel_lemma[i] == t.rel_lemma[k])
        for a, b in new_r:
            total += self.rel_lin(a, b)
            same += s.rel_lemma[a] == t.rel_lemma[b]
        for a, b in new:
            total += self.con_lin(a, b)
            same += s.con_lemma[a] == t.con_lemma[b]
        return round(total / (1 + len(new) + len(new_r)), 12), same

    def _potential(self, i: int, k: int, new: tuple, new_r: tuple) -> int:
        """VF2's look-ahead: how many further relation pairs the new pairs can anchor."""
        s, t = self.s, self.t
        potential = 0
        for a, b in new:
            potential += min(len(s.subj_of[a]), len(t.subj_of[b])) + min(len(s.obj_of[a]), len(t.obj_of[b]))
        for a, b in ((i, k), *new_r):
            potential += min(len(s.rsubj_of[a]), len(t.rsubj_of[b])) + min(
                len(s.robj_of[a]), len(t.robj_of[b])
            )
        return potential

    def seeds(self) -> tuple[list[int], list[int]]:
        """The feasible candidate relation pairs, best first, as :meth:`_key` orders them
        on an empty state (see :class:`_SeedTable`): source and target relation indices.

        Scoring them is set-up, not search: it does not count against the
        restart budget (``work``).
        """
        if self._seeds is None:
            work = self.work
            self._seeds = self.table.order(self)
            self.work = work
        return self._seeds

    def exact_seeds(self) -> list[tuple]:
        """Exact order-1 triple matches (score 1, all lemmas identical), found through an index,
        so clone mapping never scores all pairs."""
        if self._exact_seeds is None:
            s, t = self.s, self.t

            def triple(side: _Side, i: int) -> tuple:
                return (
                    side.con_lemma[side.subj[i]] if side.subj[i] >= 0 else None,
                    side.rel_lemma[i],
                    side.con_lemma[side.obj[i]] if side.obj[i] >= 0 else None,
                    side.signature[i],
                )

            index: dict[tuple, list[int]] = {}
            for k in range(len(t.relations)):
                if t.order[k] == 1:
                    index.setdefault(triple(t, k), []).append(k)
            out = []
            for i in range(len(s.relations)):
                if s.order[i] != 1:
                    continue
                trip = triple(s, i)
                same = 1 + (trip[0] is not None) + (trip[2] is not None and not trip[3][3])
                for k in index.get(trip, ()):
                    out.append((0, -1.0, -same, i, k) if not self.structure else (0, 0, -1.0, -same, i, k))
            out.sort()
            self._exact_seeds = out
        return self._exact_seeds

    def run(self, first: tuple | None) -> list[tuple[str, int, int]]:
        """One greedy search, optionally forced to start from seed ``first``."""
        s, t = self.s, self.t
        cmap, cinv = [-1] * len(s.concepts), [-1] * len(t.concepts)
        rmap, rinv = [-1] * len(s.relations), [-1] * len(t.relations)
        order: list[tuple[str, int, int]] = []
        heap: list[tuple] = []
        exact = [] if self.structure else self.exact_seeds()
        seed_lists: list[tuple[list[int], list[int]] | None] = [
            ([key[-2] for key in exact], [key[-1] for key in exact]),
            None,
        ]
        seed_pos = [0, 0]

        def push_pairs(pairs: tuple) -> None:
            for mine, theirs in pairs:
                for i in mine:
                    if rmap[i] >= 0:
                        continue
                    for k in theirs:
                        if rinv[k] >= 0:
                            continue
                        ok, anchors, new, new_r = self._args(i, k, cmap, cinv, rmap, rinv)
                        if ok:
                            heapq.heappush(heap, self._key(i, k, anchors, new, new_r))

        mapped = [0]

        def take(i: int, k: int, new: tuple, new_r: tuple) -> None:
            relation_pairs = ((i, k), *new_r)
            for a, b in relation_pairs:
                mapped[0] += 1
                rmap[a], rinv[b] = b, a
                order.append((RELATION, a, b))
            for a, b in new:
                cmap[a], cinv[b] = b, a
                order.append((CONCEPT, a, b))
            for a, b in new:
                push_pairs(((s.subj_of[a], t.subj_of[b]), (s.obj_of[a], t.obj_of[b])))
            for a, b in relation_pairs:
                if s.rsubj_of[a] or s.robj_of[a]:
                    push_pairs(((s.rsubj_of[a], t.rsubj_of[b]), (s.robj_of[a], t.robj_of[b])))

        def untouched(side: _Side, i: int, m: list[int], cm: list[int]) -> bool:
            # Unmapped, and so are its arguments: a pair of two such relations is
            # never met by the growth around mapped pairs, only as a seed.
            if m[i] >= 0:
                return False
            args = cm if side.order[i] == 1 else m
            return all(a < 0 or args[a] < 0 for a in (side.subj[i], side.obj[i]))

        # Without a floor any two relations of one type may pair (the paper):
        # after the candidate seeds, fresh pairs in node order, similarity aside.
        by_type: dict[tuple, list[int]] = {}
        if self.candidates is not None and self.floor <= 0.0:
            for k in range(len(t.relations)):
                by_type.setdefault(t.signature[k], []).append(k)
        loose = [0, dict.fromkeys(by_type, 0)]

        def next_loose() -> tuple | None:
            while loose[0] < len(s.relations):
                i = loose[0]
                if untouched(s, i, rmap, cmap):
                    sig = s.signature[i]
                    ks = by_type.get(sig, ())
                    pos = loose[1].get(sig, 0)
                    while pos < len(ks) and not untouched(t, ks[pos], rinv, cinv):
                        pos += 1
                    if sig in loose[1]:
                        loose[1][sig] = pos
                    if pos < len(ks):
                        ok, _anchors, new, new_r = self._args(i, ks[pos], cmap, cinv, rmap, rinv)
                        if ok:
                            return (i, ks[pos], new, new_r)
                loose[0] += 1
            return None

        s_order, s_subj, s_obj, t_subj, t_obj = s.order, s.subj, s.obj, t.subj, t.obj

        def next_seed() -> tuple | None:
            # The first seed still feasible. Seeds are compatible pairs (type and floor,
            # which do not depend on the state), so for order 1 _args reduces to the
            # argument checks below, inlined: the scan meets most seeds of a big graph.
            for tier in (0, 1):
                listed = seed_lists[tier]
                if listed is None:
                    listed = seed_lists[tier] = self.seeds()
                rows, cols = listed
                pos, end = seed_pos[tier], len(rows)
                while pos < end:
                    i, k = rows[pos], cols[pos]
                    pos += 1
                    if rmap[i] >= 0 or rinv[k] >= 0:
                        continue
                    if s_order[i] != 1:
                        ok, _anchors, new, new_r = self._args(i, k, cmap, cinv, rmap, rinv)
                        if ok:
                            seed_pos[tier] = pos
                            return (i, k, new, new_r)
                        continue
                    self.work += 1  # one feasibility check, as _args counts it
                    a, b = s_subj[i], t_subj[k]
                    fresh = []
                    if a >= 0:
                        there = cmap[a]
                        if there >= 0:
                            if there != b:
                                continue
                        elif cinv[b] >= 0:
                            continue
                        else:
                            fresh.append((a, b))
                    o = s_obj[i]
                    if o >= 0 and o != a:
                        b = t_obj[k]
                        there = cmap[o]
                        if there >= 0:
                            if there != b:
                                continue
                        elif cinv[b] >= 0:
                            continue
                        else:
                            fresh.append((o, b))
                    seed_pos[tier] = pos
                    return (i, k, tuple(fresh), ())
                seed_pos[tier] = pos
            return next_loose() if by_type else None

        if first is not None:
            ok, _, new, new_r = self._args(first[-2], first[-1], cmap, cinv, rmap, rinv)
            if ok:
                take(first[-2], first[-1], new, new_r)
        limit = min(len(s.relations), len(t.relations))
        while mapped[0] < limit:
            if heap:
                key = heapq.heappop(heap)
                i, k = key[-2], key[-1]
                if rmap[i] >= 0 or rinv[k] >= 0:
                    continue
                ok, anchors, new, new_r = self._args(i, k, cmap, cinv, rmap, rinv)
                if not ok:
                    continue
                fresh = self._key(i, k, anchors, new, new_r)
                if fresh != key:
                    heapq.heappush(heap, fresh)
                    continue
                take(i, k, new, new_r)
                continue
            seed = next_seed()
            if seed is None:
                break
            take(*seed)
        return order


def _pairs_of(search: _Search) -> Iterator[tuple[int, int]]:
    """``search``'s seeds as (i, k) pairs, best first, ordered only when first asked."""
    rows, cols = search.seeds()
    yield from zip(rows, cols)
