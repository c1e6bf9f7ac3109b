"""The VF2-style greedy search of a mapping (:class:`Search`), one run at a time.

The state (:class:`Maps`) grows one relation pair at a time, together with
the argument pairs parallel connectivity forces (:meth:`Search.extension`);
candidates come from the neighbourhood of the mapped pairs, structure-closing
first, then by similarity (or, in look-ahead mode, by how many further pairs
they can anchor), and when the neighbourhood is exhausted from the best
feasible seed (:mod:`mapping.seeds`). What both orderings of one mapping share
(the two sides, the similarities, the candidate seeds and their table) is one
:class:`SearchInputs`. :mod:`mapping.mapper` runs the search with bounded
restarts; its docstring gives the rules in full.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.matrices import ConceptMatrix, LabelMatrix
from dri.mapping.seeds import Candidates, Key, Pair, Pairs, SeedScore, SeedTable
from dri.mapping.sides import Side

__all__ = ["Extension", "Maps", "Search", "SearchInputs", "Step", "seed_pairs"]

#: A feasible relation pair's (anchors, new concept pairs, new relation pairs):
#: how many of its arguments are already mapped to each other, and the pairs
#: parallel connectivity adds with it (below an order-2 pair, its argument relations).
Extension = tuple[int, Pairs, Pairs]
#: One pair of a mapping, in the order the search took it: (kind, source index, target index).
Step = tuple[str, int, int]
#: (relation index, concept lists of its arguments' roles) pairs to look among, see _Run.push.
_Neighbours = tuple[tuple[Sequence[int], Sequence[int]], ...]
#: What checking a relation pair needs besides the state (:meth:`Search.entry`): True,
#: order 2 (:meth:`Search.extension` checks it); False, never compatible; else an order-1
#: pair's [subject, its partner, object, its partner (-1: none, or the subject again)],
#: then per variant (bit 1: the subject pair is new, bit 2: the object pair) its
#: extension and key, filled on first use.
_Entry = bool | list[Any]
#: A feasible relation pair's extension and key.
_Found = tuple[Extension, Key]


@dataclass(frozen=True)
class SearchInputs:
    """What the searches of one mapping share: the two sides, how similar their nodes
    are, the relation floor and the candidate seeds with their scores."""

    s: Side
    t: Side
    #: ``sim(a, b, pos)``: the similarity of two lemmas in [0, 1].
    sim: Callable[[str, str, str], float]
    #: Relation pairs less similar than this are not compatible (0: any pair of one type).
    floor: float = 0.0
    #: The relation pairs that may start a search (see mapping.seeds); None: every pair.
    candidates: Candidates | None = None
    #: Seeds scored once for both orderings (see SeedTable); by default, of ``candidates``.
    table: SeedTable | None = None
    #: Concept and relation-label similarities computed together; None: one by one.
    concepts: ConceptMatrix | None = None
    labels: LabelMatrix | None = None
    #: Factor of each relation pair's evidence (``[i][k]``, :mod:`mapping.abstract_sentences`); None: 1.
    context: Sequence[list[float]] | None = None
    #: Factor of each concept pair's evidence (``[a][b]``, the same module); None: 1.
    concept_context: Sequence[list[float]] | None = None


@dataclass(slots=True)
class Maps:
    """The state of a search: each node's partner on the other side (-1: unmapped)."""

    cmap: list[int]  # source concept -> target concept
    cinv: list[int]  # target concept -> source concept
    rmap: list[int]  # source relation -> target relation
    rinv: list[int]  # target relation -> source relation

    @classmethod
    def empty(cls, s: Side, t: Side) -> Maps:
        return cls(
            [-1] * len(s.concepts), [-1] * len(t.concepts), [-1] * len(s.relations), [-1] * len(t.relations)
        )


class Search:
    """Greedy runs of one ordering over shared :class:`SearchInputs`; ``structure``
    selects the look-ahead ordering. It is the :class:`~mapping.seeds.SeedScorer` of
    its seed table."""

    def __init__(self, inputs: SearchInputs, structure: bool = False):
        self.inputs = inputs
        self.s, self.t, self.sim = inputs.s, inputs.t, inputs.sim
        self.floor = inputs.floor
        # Look-ahead mode: prefer candidates whose new argument pairs can anchor
        # the most further relation pairs (VF2's look-ahead), then similarity.
        self.structure = structure
        self.candidates = inputs.candidates
        self.table = inputs.table if inputs.table is not None else SeedTable(inputs.candidates)
        self.concepts = inputs.concepts
        self.labels = inputs.labels
        self.context = inputs.context
        self.concept_context = inputs.concept_context
        self.work = 0  # feasibility checks made, a machine-independent effort count
        # Relation pair (i, k) by i * len(t.relations) + k: what its checks need that
        # does not depend on the state (see _entry), shared by the runs of this ordering.
        self.entries: dict[int, _Entry] = {}
        self.width = len(self.t.relations)
        self._seeds: tuple[list[int], list[int]] | None = None
        self._exact_seeds: list[Key] | None = None
        self._empty: Maps | None = None  # read only: the state seeds are scored on

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

    def rel_evidence(self, i: int, k: int) -> float:
        """A relation pair's similarity as evidence: :meth:`rel_lin`, times its clause context if any."""
        if self.context is None:
            return self.rel_lin(i, k)
        return self.rel_lin(i, k) * self.context[i][k]

    def con_evidence(self, a: int, b: int) -> float:
        """A concept pair's similarity as evidence: :meth:`con_lin`, times its clause context if any."""
        if self.concept_context is None:
            return self.con_lin(a, b)
        return self.con_lin(a, b) * self.concept_context[a][b]

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

    def extension(self, i: int, k: int, maps: Maps) -> Extension | None:
        """What mapping relation pair (i, k) in state ``maps`` adds (None: infeasible).

        The new relation pairs are those parallel connectivity forces below an
        order-2 pair (its argument relations), not (i, k) itself.
        """
        self.work += 1
        if not self.compatible(i, k):
            return None
        s, t = self.s, self.t
        si, oi, sk, ok = s.subj[i], s.obj[i], t.subj[k], t.obj[k]
        if s.order[i] == 1:  # the common case: concept arguments only
            cmap, cinv = maps.cmap, maps.cinv
            anchors = 0
            new = []
            for a, b in ((si, sk), (oi, ok)) if si != oi else ((si, sk),):
                if a < 0:
                    continue
                mapped = cmap[a]
                if mapped >= 0:
                    if mapped != b:
                        return None
                    anchors += 1
                elif cinv[b] >= 0:
                    return None
                else:
                    new.append((a, b))
            return anchors, tuple(new), ()
        return self._extension_below(i, k, maps)

    def _extension_below(self, i: int, k: int, maps: Maps) -> Extension | None:
        # Order 2: the argument relations map onto each other, and so on down.
        s, t = self.s, self.t
        cmap, cinv, rmap, rinv = maps.cmap, maps.cinv, maps.rmap, maps.rinv
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
            # Order 1: concept arguments, order 2: relation arguments (checked for
            # compatibility and followed down in turn).
            concepts = s.order[x] == 1
            known, known_inv, new, new_inv = (
                (cmap, cinv, new_c, new_c_inv) if concepts else (rmap, rinv, new_r, new_r_inv)
            )
            for a, b in roles:
                if a < 0:
                    continue
                mapped = known[a] if known[a] >= 0 else new.get(a, -1)
                if mapped >= 0:
                    if mapped != b:
                        return None
                    anchors += (x, y) == (i, k)
                elif known_inv[b] >= 0 or b in new_inv:
                    return None
                elif concepts:
                    new[a], new_inv[b] = b, a
                else:
                    self.work += 1
                    if not self.compatible(a, b):
                        return None
                    new[a], new_inv[b] = b, a
                    stack.append((a, b))
        del new_r[i]
        return anchors, tuple(new_c.items()), tuple(new_r.items())

    def settled(self) -> bool:
        """Whether what is kept for a pair stays true. Before the label matrix exists,
        each relation pair asked is scored on its own and counted towards computing the
        matrix (:class:`~mapping.matrices.LabelMatrix`): a pair is then checked and keyed
        anew each time, as the similarity asks come and the floats they give."""
        return self.labels is None or self.labels.settled

    def entry(self, i: int, k: int) -> _Entry:
        """What checking (i, k) needs that no state changes (see :data:`_Entry`), kept
        once :meth:`settled`."""
        entry: _Entry
        if self.s.order[i] != 1:
            entry = True  # extension() checks its compatibility, each time
        elif not self.compatible(i, k):
            entry = False
        else:
            s, t = self.s, self.t
            si, oi = s.subj[i], s.obj[i]
            # The signatures match: an argument missing or repeated on one side is on the other.
            two = oi >= 0 and oi != si
            entry = [si, t.subj[k], oi if two else -1, t.obj[k] if two else -1, None, None, None, None]
        if self.settled():
            self.entries[i * self.width + k] = entry
        return entry

    def found(self, i: int, k: int, entry: list[Any], variant: int) -> _Found:
        """The extension and key of order-1 pair (i, k) when the argument pairs
        ``variant`` names are new and the others already mapped to each other, kept
        in ``entry`` (which is kept itself once :meth:`settled`)."""
        si, sk, oi, ok = entry[0], entry[1], entry[2], entry[3]
        new = []
        if variant & 1:
            new.append((si, sk))
        if variant & 2:
            new.append((oi, ok))
        extension = ((si >= 0) + (oi >= 0) - len(new), tuple(new), ())
        found = entry[4 + variant] = (extension, self.key(i, k, extension))
        return found

    def check(self, i: int, k: int, maps: Maps) -> _Found | None:
        """:meth:`extension` of (i, k) in state ``maps`` and its :meth:`key` (None: infeasible),
        counted as :meth:`extension` counts; an order-1 pair's from what is kept for it."""
        entry = self.entries.get(i * self.width + k)
        if entry is None:
            entry = self.entry(i, k)
        if entry is True:
            extension = self.extension(i, k, maps)
            return None if extension is None else (extension, self.key(i, k, extension))
        self.work += 1
        if entry is False:
            return None
        cmap, cinv = maps.cmap, maps.cinv
        variant = 0
        a, b = entry[0], entry[1]
        if a >= 0:
            there = cmap[a]
            if there >= 0:
                if there != b:
                    return None
            elif cinv[b] >= 0:
                return None
            else:
                variant = 1
        a, b = entry[2], entry[3]
        if a >= 0:
            there = cmap[a]
            if there >= 0:
                if there != b:
                    return None
            elif cinv[b] >= 0:
                return None
            else:
                variant |= 2
        found: _Found | None = entry[4 + variant]
        return found if found is not None else self.found(i, k, entry, variant)

    def key(self, i: int, k: int, extension: Extension) -> Key:
        """The order of candidates (least first): anchors, in look-ahead mode the
        potential, mean similarity, identical lemmas, then node ids."""
        anchors, new, new_r = extension
        rscore, same = self.parts(i, k, new, new_r)
        if self.structure:
            return (-anchors, -self.potential(i, k, new, new_r), -rscore, -same, i, k)
        return (-anchors, -rscore, -same, i, k)

    def parts(self, i: int, k: int, new: Pairs, new_r: Pairs) -> tuple[float, int]:
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

    def potential(self, i: int, k: int, new: Pairs, new_r: Pairs) -> int:
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

    def seed_score(self, i: int, k: int) -> SeedScore | None:
        """The fields of :meth:`key` for seed (i, k) on the empty state (None: infeasible)."""
        if self._empty is None:
            self._empty = Maps.empty(self.s, self.t)
        extension = self.extension(i, k, self._empty)
        if extension is None:
            return None
        anchors, new, new_r = extension
        rscore, same = self.parts(i, k, new, new_r)
        return SeedScore(rscore, same, self.potential(i, k, new, new_r), anchors)

    def seeds(self) -> tuple[list[int], list[int]]:
        """The feasible candidate relation pairs, best first, as :meth:`key` orders them
        on an empty state (see :class:`SeedTable`): source and target relation indices.

        Scoring them is set-up, not search: it does not count against the
        restart budget (``work``).
        """
        if self._seeds is None:
            work = self.work
            self._seeds = self.table.order(self)
            self.work = work
        return self._seeds

    def exact_seeds(self) -> list[Key]:
        """Exact order-1 triple matches (score 1, all lemmas identical), found through an index,
        so clone mapping never scores all pairs."""
        if self._exact_seeds is None:
            s, t = self.s, self.t

            def triple(
                side: Side, i: int
            ) -> tuple[str | None, str, str | None, tuple[int, bool, bool, bool]]:
                return (
                    side.con_lemma[side.subj[i]] if side.subj[i] >= 0 else None,
                    side.rel_lemma[i],
                    side.con_lemma[side.obj[i]] if side.obj[i] >= 0 else None,
                    side.signature[i],
                )

            index: dict[tuple[str | None, str, str | None, tuple[int, bool, bool, bool]], list[int]] = {}
            for k in range(len(t.relations)):
                if t.order[k] == 1:
                    index.setdefault(triple(t, k), []).append(k)
            out: list[Key] = []
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

    def run(self, first: Pair | None) -> list[Step]:
        """One greedy run, optionally forced to start from relation pair ``first``."""
        return _Run(self).grow(first)


@dataclass(slots=True)
class _Run:
    """One greedy run: the state, the pairs taken in order, the candidate heap and the
    cursors of the seed lists (exact matches first, then the scored seeds) and of the
    fresh pairs taken in node order after them."""

    search: Search
    maps: Maps = field(init=False)
    order: list[Step] = field(default_factory=list)
    heap: list[Key] = field(default_factory=list)
    relations: int = 0  # relation pairs mapped
    seed_lists: list[tuple[list[int], list[int]] | None] = field(init=False)
    seed_pos: list[int] = field(default_factory=lambda: [0, 0])
    # Without a floor any two relations of one type may pair (the paper): after
    # the candidate seeds, fresh pairs in node order, similarity aside.
    by_type: dict[tuple[int, bool, bool, bool], list[int]] = field(default_factory=dict)
    loose_source: int = 0
    loose_target: dict[tuple[int, bool, bool, bool], int] = field(init=False)

    def __post_init__(self) -> None:
        search, s, t = self.search, self.search.s, self.search.t
        self.maps = Maps.empty(s, t)
        exact = [] if search.structure else search.exact_seeds()
        self.seed_lists = [([key[-2] for key in exact], [key[-1] for key in exact]), None]
        if search.candidates is not None and search.floor <= 0.0:
            for k in range(len(t.relations)):
                self.by_type.setdefault(t.signature[k], []).append(k)
        self.loose_target = dict.fromkeys(self.by_type, 0)

    def grow(self, first: Pair | None) -> list[Step]:
        search, maps, heap = self.search, self.maps, self.heap
        rmap, rinv = maps.rmap, maps.rinv
        if first is not None:
            extension = search.extension(first[0], first[1], maps)
            if extension is not None:
                self.take(first[0], first[1], extension)
        limit = min(len(search.s.relations), len(search.t.relations))
        while self.relations < limit:
            if heap:
                key = heapq.heappop(heap)
                i, k = key[-2], key[-1]
                if rmap[i] >= 0 or rinv[k] >= 0:
                    continue
                found = search.check(i, k, maps)
                if found is None:
                    continue
                if found[1] != key:
                    heapq.heappush(heap, found[1])
                    continue
                self.take(i, k, found[0])
                continue
            seed = self.next_seed()
            if seed is None:
                break
            self.take(*seed)
        return self.order

    def push(self, neighbours: _Neighbours) -> None:
        """Every feasible pair among ``neighbours`` (source relations x target relations)
        onto the heap, by its key."""
        # Search.check, inlined for order-1 pairs: most of a mapping's checks are made here.
        search, maps, heap = self.search, self.maps, self.heap
        rmap, rinv, cmap, cinv = maps.rmap, maps.rinv, maps.cmap, maps.cinv
        entries, width, push = search.entries, search.width, heapq.heappush
        checks = 0
        for mine, theirs in neighbours:
            for i in mine:
                if rmap[i] >= 0:
                    continue
                row = i * width
                for k in theirs:
                    if rinv[k] >= 0:
                        continue
                    entry = entries.get(row + k)
                    if entry is None:
                        entry = search.entry(i, k)
                    if entry is True:
                        found = search.check(i, k, maps)
                        if found is not None:
                            push(heap, found[1])
                        continue
                    checks += 1
                    if entry is False:
                        continue
                    variant = 0
                    a, b = entry[0], entry[1]
                    if a >= 0:
                        there = cmap[a]
                        if there >= 0:
                            if there != b:
                                continue
                        elif cinv[b] >= 0:
                            continue
                        else:
                            variant = 1
                    a, b = entry[2], entry[3]
                    if a >= 0:
                        there = cmap[a]
                        if there >= 0:
                            if there != b:
                                continue
                        elif cinv[b] >= 0:
                            continue
                        else:
                            variant |= 2
                    found = entry[4 + variant]
                    if found is None:
                        found = search.found(i, k, entry, variant)
                    push(heap, found[1])
        search.work += checks

    def take(self, i: int, k: int, extension: Extension) -> None:
        """Map (i, k) and what it adds, and push the candidates around the new pairs."""
        s, t, maps, order = self.search.s, self.search.t, self.maps, self.order
        _, new, new_r = extension
        relation_pairs = ((i, k), *new_r)
        self.relations += len(relation_pairs)
        for a, b in relation_pairs:
            maps.rmap[a], maps.rinv[b] = b, a
            order.append((RELATION, a, b))
        for a, b in new:
            maps.cmap[a], maps.cinv[b] = b, a
            order.append((CONCEPT, a, b))
        for a, b in new:
            self.push(((s.subj_of[a], t.subj_of[b]), (s.obj_of[a], t.obj_of[b])))
        for a, b in relation_pairs:
            if s.rsubj_of[a] or s.robj_of[a]:
                self.push(((s.rsubj_of[a], t.rsubj_of[b]), (s.robj_of[a], t.robj_of[b])))

    def next_seed(self) -> tuple[int, int, Extension] | None:
        """The first seed still feasible, exact matches first, then fresh pairs."""
        for tier in (0, 1):
            listed = self.seed_lists[tier]
            if listed is None:
                listed = self.seed_lists[tier] = self.search.seeds()
            seed = self._scan(tier, *listed)
            if seed is not None:
                return seed
        return self.next_loose() if self.by_type else None

    def _scan(self, tier: int, rows: list[int], cols: list[int]) -> tuple[int, int, Extension] | None:
        # Seeds are compatible pairs (type and floor, which do not depend on the
        # state), so for order 1 extension() reduces to the argument checks below,
        # inlined: the scan meets most seeds of a big graph. The subject's and
        # the object's checks stay two copies: one loop over both made
        # compare() 5-9% slower in CPU time (120 pairs, both profiles).
        search, maps = self.search, self.maps
        cmap, cinv, rmap, rinv = maps.cmap, maps.cinv, maps.rmap, maps.rinv
        s_order, s_subj, s_obj, t_subj, t_obj = (
            search.s.order,
            search.s.subj,
            search.s.obj,
            search.t.subj,
            search.t.obj,
        )
        start = self.seed_pos[tier]
        # pos: the place after seed (i, k), where the next scan starts.
        for pos, i in enumerate(islice(rows, start, None), start + 1):
            if rmap[i] >= 0:
                continue
            k = cols[pos - 1]
            if rinv[k] >= 0:
                continue
            if s_order[i] != 1:
                extension = search.extension(i, k, maps)
                if extension is not None:
                    self.seed_pos[tier] = pos
                    return i, k, extension
                continue
            search.work += 1  # one feasibility check, as extension() counts it
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
            self.seed_pos[tier] = pos
            return i, k, (0, tuple(fresh), ())
        self.seed_pos[tier] = len(rows)
        return None

    def untouched(self, side: Side, i: int, m: list[int], cm: list[int]) -> bool:
        # Unmapped, and so are its arguments: a pair of two such relations is
        # never met by the growth around mapped pairs, only as a seed.
        if m[i] >= 0:
            return False
        args = cm if side.order[i] == 1 else m
        return all(a < 0 or args[a] < 0 for a in (side.subj[i], side.obj[i]))

    def next_loose(self) -> tuple[int, int, Extension] | None:
        """The next fresh pair of two untouched relations of one type, in node order."""
        search, maps = self.search, self.maps
        s, t = search.s, search.t
        while self.loose_source < len(s.relations):
            i = self.loose_source
            if self.untouched(s, i, maps.rmap, maps.cmap):
                sig = s.signature[i]
                ks = self.by_type.get(sig, [])
                pos = self.loose_target.get(sig, 0)
                while pos < len(ks) and not self.untouched(t, ks[pos], maps.rinv, maps.cinv):
                    pos += 1
                if sig in self.loose_target:
                    self.loose_target[sig] = pos
                if pos < len(ks):
                    extension = search.extension(i, ks[pos], maps)
                    if extension is not None:
                        return i, ks[pos], extension
            self.loose_source += 1
        return None


def seed_pairs(search: Search) -> Iterator[Pair]:
    """``search``'s seeds as (i, k) pairs, best first, ordered only when first asked."""
    rows, cols = search.seeds()
    yield from zip(rows, cols)
