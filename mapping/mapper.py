"""Structure mapping between two ROS graphs.

Dr Inventor maps a *source* ROS graph onto a *target* with a customised VF2
search (Cordella et al. 2004) under the constraints of Gentner's Structure
Mapping Theory (Hurley et al., EGPAI 2016, "ROS Mapping"):

1. the mapping is 1-to-1;
2. types match: concept to concept, relation to relation of the same order
   (``order`` 2: a higher-order relation whose arguments are relations) and
   the same arguments (a one-argument relation, subject only, pairs only with
   another one-argument relation);
3. parallel connectivity: when two relations are mapped, their subjects are
   mapped to each other and so are their objects (edge labels are kept); for
   order-2 relations the arguments are relations, whose own arguments are
   then forced in turn.

A :class:`~mapping.profiles.Profile` adds tiered identicality (relation pairs
below its ``relation_floor`` are never mapped) and says which of the
mappings found is kept (``objective``): the most relation pairs (the paper)
or the greatest structural evaluation (SME; :func:`_evaluation`).

Because a relation node has one ``subj`` and at most one ``obj`` edge, the
search state grows one *relation pair* at a time, together with the
argument pairs that parallel connectivity forces. A concept is therefore
mapped only as an argument of a mapped relation; isolated concepts and
relation-less graphs map nothing. The result is always a common induced
subgraph of the two graphs.

The search (VF2's state-space growth, greedy with bounded restarts):

* Candidates come from the current state's neighbourhood: relation pairs
  sharing an already-mapped argument pair in the same role. Candidates that
  close the structure (both arguments already mapped) go first, which favours
  connected, systematic structure; among the rest, the candidate with the
  greatest similarity wins -- Dr Inventor's rule. The similarity of a
  candidate is the mean Lin score over the node pairs it adds (the relation
  pair and its newly mapped arguments).
* When the neighbourhood is exhausted the search continues from the best
  unmapped *seed*: the feasible relation pair with the greatest mean Lin over
  relation, subject and object. Seeds are not the cross product of the two
  graphs' relations: the target's relation labels are indexed by the WordNet
  verb synsets through which they can reach the profile's floor (or
  ``SEED_FLOOR`` when it has none; see :func:`_reach`), so each
  source label meets only identical labels and WordNet neighbours at or above
  it. Without a floor (the paper) any two relations of one type may still
  pair: after the seeds, the search takes untouched pairs in node order.
* Remaining ties go to the pair with more identical lemmas, then to the
  lowest node ids (``r:2`` before ``r:10``), source first, so results are
  deterministic.
* Bounded restarts: if the first run (Dr Inventor's rule above) leaves
  relations unmapped, the search runs again with a VF2-style look-ahead
  ordering (prefer new argument pairs that can anchor the most further
  relation pairs, then similarity) and then from the next-best seeds of both
  orderings, up to ``restarts`` runs and ``work_limit`` feasibility checks
  (a count, so results do not depend on the machine; scoring the seeds is
  set-up and does not count, so big graphs still get their restarts). Under the paper's
  objective the mapping with the most relation pairs wins -- each is two
  mapped edges, so this is the largest common subgraph by edges -- then the
  one with most nodes, then the greatest total Lin; under the evaluation
  objective, the greatest structural evaluation. A graph mapped to its clone
  is complete after the first run.

Swapping the inputs: the constraints, Lin similarity (symmetric) and every
score are symmetric, and so is the search except for its last tie-break by
node id, which looks at the source's ids first. Swapping source and target
therefore gives the inverse mapping unless two candidates tie exactly on
structure, similarity and identical lemmas; then a different but equally
scored pair may be chosen, and the greedy search may end with a different
size. ``metrics`` computes Jaccard and the means symmetrically, so any
difference in the scores comes from the mapping alone.

Identical lemmas always count as similarity 1.0, whatever ``similarity`` says;
otherwise concepts are compared by their ``wordnet_lemma`` (a name's entity
class, e.g. ``person``), falling back to ``lemma``.
"""

from __future__ import annotations

import heapq
import math
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import networkx as nx

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.profiles import Profile, get_profile
from dri.mapping.wordnet import (
    lin_and_generic,
    relation_generic_space,
    relation_heads,
    relation_similarity,
    wordnet,
)

__all__ = ["SIMILARITIES", "Generic", "MappedPair", "Mapping", "Similarity", "map_graphs", "relation_reach"]

Similarity = Callable[[str, str, str], float]
Generic = Callable[[str, str, str], "str | None"]


@dataclass(frozen=True)
class MappedPair:
    """One node of the source paired with one node of the target."""

    source: str
    target: str
    kind: str  # "concept" or "relation"
    source_lemma: str
    target_lemma: str
    lin: float
    generic: str | None


@dataclass
class Mapping:
    """The result of :func:`map_graphs`; ``pairs`` are in the order they were mapped."""

    pairs: list[MappedPair]
    source_size: int
    target_size: int
    seconds: float
    source_name: str = ""
    target_name: str = ""
    source_relations: int = 0
    target_relations: int = 0
    runs: int = 0
    checks: int = 0
    similarity: str = "lin-max"
    profile: str = ""
    #: Structural evaluation of the mapping and of each graph mapped onto itself
    #: (see :func:`_evaluation`); :mod:`metrics.scores` turns them into a weighted Jaccard.
    evaluation: float = 0.0
    source_evaluation: float = 0.0
    target_evaluation: float = 0.0

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def concept_pairs(self) -> list[MappedPair]:
        return [p for p in self.pairs if p.kind == CONCEPT]

    @property
    def relation_pairs(self) -> list[MappedPair]:
        return [p for p in self.pairs if p.kind == RELATION]

    def as_dict(self) -> dict[str, str]:
        """Source node id -> target node id."""
        return {p.source: p.target for p in self.pairs}

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["pairs"] = [asdict(p) for p in self.pairs]
        return data


# -- the graphs as arrays ---------------------------------------------------

_NUMBER = re.compile(r"(\d+)")


def _natural(node: Any) -> tuple:
    text = str(node)
    if text.startswith("r:") and text[2:].isdigit():  # the common case, fast
        return ("r:", int(text[2:]))
    return tuple(int(part) if part.isdigit() else part for part in _NUMBER.split(text))


@dataclass
class _Side:
    """One graph: relations and concepts by index, in natural node-id order.

    ``subj[i]``/``obj[i]`` index a concept for an order-1 relation and a
    relation for an order-2 one (-1: no such argument).
    """

    relations: list[str]
    concepts: list[str]
    subj: list[int]
    obj: list[int]
    order: list[int]
    rel_lemma: list[str]
    con_lemma: list[str]
    con_word: list[str]  # the lemma looked up in WordNet (``wordnet_lemma``, else ``lemma``)
    con_pos: list[str]
    subj_of: list[list[int]]  # concept -> order-1 relations having it as subject
    obj_of: list[list[int]]
    rsubj_of: list[list[int]]  # relation -> order-2 relations having it as subject
    robj_of: list[list[int]]
    signature: list[tuple]  # (order, has subject, has object, subject is object)
    reachable_concepts: int = 0

    @classmethod
    def of(cls, g: nx.DiGraph) -> _Side:
        nodes = g.nodes
        rels, cons = [], []
        for n, kind in nodes(data="type"):
            if kind == RELATION:
                rels.append(n)
            elif kind == CONCEPT:
                cons.append(n)
        rels.sort(key=_natural)
        cons.sort(key=_natural)
        rindex = {r: i for i, r in enumerate(rels)}
        cindex = {c: j for j, c in enumerate(cons)}
        order = [2 if nodes[r].get("order", 1) == 2 else 1 for r in rels]
        subj, obj = [-1] * len(rels), [-1] * len(rels)
        for u, v, label in g.edges(data="label"):
            # The first subj/obj edge wins, as graphs.ros reads them; an order-1
            # relation takes concept arguments, an order-2 one relation arguments.
            if label == "subj" and v in rindex and subj[rindex[v]] < 0:
                i = rindex[v]
                arg = (cindex if order[i] == 1 else rindex).get(u, -1)
                subj[i] = arg
            elif label == "obj" and u in rindex and obj[rindex[u]] < 0:
                i = rindex[u]
                obj[i] = (cindex if order[i] == 1 else rindex).get(v, -1)
        subj_of: list[list[int]] = [[] for _ in cons]
        obj_of: list[list[int]] = [[] for _ in cons]
        rsubj_of: list[list[int]] = [[] for _ in rels]
        robj_of: list[list[int]] = [[] for _ in rels]
        for i in range(len(rels)):
            by_subj, by_obj = (subj_of, obj_of) if order[i] == 1 else (rsubj_of, robj_of)
            if subj[i] >= 0:
                by_subj[subj[i]].append(i)
            if obj[i] >= 0:
                by_obj[obj[i]].append(i)
        side = cls(
            relations=rels,
            concepts=cons,
            subj=subj,
            obj=obj,
            order=order,
            rel_lemma=[str(nodes[r].get("lemma", r)) for r in rels],
            con_lemma=[str(nodes[c].get("lemma", c)) for c in cons],
            con_word=[str(nodes[c].get("wordnet_lemma") or nodes[c].get("lemma", c)) for c in cons],
            con_pos=[str(nodes[c].get("pos", "n")) for c in cons],
            subj_of=subj_of,
            obj_of=obj_of,
            rsubj_of=rsubj_of,
            robj_of=robj_of,
            signature=[
                (order[i], subj[i] >= 0, obj[i] >= 0, subj[i] == obj[i] and subj[i] >= 0)
                for i in range(len(rels))
            ],
        )
        side.reachable_concepts = sum(1 for j in range(len(cons)) if subj_of[j] or obj_of[j])
        return side


# -- the search -------------------------------------------------------------

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
    ):
        self.s, self.t, self.sim = s, t, sim
        self.floor = floor
        # Look-ahead mode: prefer candidates whose new argument pairs can anchor
        # the most further relation pairs (VF2's look-ahead), then similarity.
        self.structure = structure
        # The relation pairs that may start a search (see _candidate_pairs);
        # None means every pair (the full cross product).
        self.candidates = candidates
        self.work = 0  # feasibility checks made, a machine-independent effort count
        self._seeds: list[tuple] | None = None
        self._exact_seeds: list[tuple] | None = None

    # similarity of two lemmas, identical lemmas fixed at 1.0
    def lin(self, a: str, b: str, pos: str) -> float:
        return 1.0 if a == b else self.sim(a, b, pos)

    def rel_lin(self, i: int, k: int) -> float:
        a, b = self.s.rel_lemma[i], self.t.rel_lemma[k]
        return 1.0 if a == b else self.sim(a, b, "v")

    def con_lin(self, a: int, b: int) -> float:
        s, t = self.s, self.t
        if s.con_lemma[a] == t.con_lemma[b]:
            return 1.0
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
        s, t = self.s, self.t
        total = self.rel_lin(i, k)
        same = int(s.rel_lemma[i] == t.rel_lemma[k])
        for a, b in new_r:
            total += self.rel_lin(a, b)
            same += s.rel_lemma[a] == t.rel_lemma[b]
        for a, b in new:
            total += self.con_lin(a, b)
            same += s.con_lemma[a] == t.con_lemma[b]
        score = total / (1 + len(new) + len(new_r))
        if self.structure:
            potential = 0
            for a, b in new:
                potential += min(len(s.subj_of[a]), len(t.subj_of[b])) + min(
                    len(s.obj_of[a]), len(t.obj_of[b])
                )
            for a, b in ((i, k), *new_r):
                potential += min(len(s.rsubj_of[a]), len(t.rsubj_of[b])) + min(
                    len(s.robj_of[a]), len(t.robj_of[b])
                )
            return (-anchors, -potential, -round(score, 12), -same, i, k)
        return (-anchors, -round(score, 12), -same, i, k)

    def seeds(self) -> list[tuple]:
        """The candidate relation pairs keyed as seeds on an empty state, best first.

        Scoring them is set-up, not search: it does not count against the
        restart budget (``work``).
        """
        if self._seeds is None:
            s, t = self.s, self.t
            work = self.work
            empty_s, empty_t = [-1] * len(s.concepts), [-1] * len(t.concepts)
            rempty_s, rempty_t = [-1] * len(s.relations), [-1] * len(t.relations)
            pairs = self.candidates.get() if self.candidates is not None else None
            if pairs is None:
                pairs = [(i, k) for i in range(len(s.relations)) for k in range(len(t.relations))]
            keys = []
            for i, k in pairs:
                ok, anchors, new, new_r = self._args(i, k, empty_s, empty_t, rempty_s, rempty_t)
                if ok:
                    keys.append(self._key(i, k, anchors, new, new_r))
            keys.sort()
            self._seeds = keys
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
        seed_lists = [[] if self.structure else self.exact_seeds(), None]
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

        def next_seed() -> tuple | None:
            for tier in (0, 1):
                if seed_lists[tier] is None:
                    seed_lists[tier] = self.seeds()
                keys = seed_lists[tier]
                while seed_pos[tier] < len(keys):
                    key = keys[seed_pos[tier]]
                    seed_pos[tier] += 1
                    i, k = key[-2], key[-1]
                    if rmap[i] < 0 and rinv[k] < 0:
                        ok, _anchors, new, new_r = self._args(i, k, cmap, cinv, rmap, rinv)
                        if ok:
                            return (i, k, new, new_r)
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


# -- candidate generation -----------------------------------------------------

#: Without a relation floor, seeds still need this much relation similarity;
#: weaker pairs are reached by growth or as fresh pairs after the seeds.
SEED_FLOOR = 0.3
#: Without a floor, graphs with at most this many relation pairs get every pair
#: as a seed (cheap there, and more varied restarts); larger ones use the index.
FULL_SEEDS = 5_000


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
    s: _Side, t: _Side, rel_sim: Callable[[str, str], float], floor: float
) -> tuple[list[tuple[int, int]], set[tuple[str, str]]]:
    """Relation pairs of one type whose labels are identical or WordNet neighbours
    with similarity >= ``floor``, found through an index of the target's labels
    instead of the cross product of relations; and those label pairs.

    Through the index each pair of labels gets the best Lin of their head verbs
    (max over shared ancestors c of 2 IC(c) / (IC(x) + IC(y))), an upper bound
    of their similarity; only pairs whose bound reaches ``floor`` are scored.
    """
    ic = wordnet()._icv["v"]  # read only
    by_label_t: dict[tuple, list[int]] = {}
    for k in range(len(t.relations)):
        by_label_t.setdefault((t.signature[k], t.rel_lemma[k]), []).append(k)
    by_label_s: dict[tuple, list[int]] = {}
    for i in range(len(s.relations)):
        by_label_s.setdefault((s.signature[i], s.rel_lemma[i]), []).append(i)
    # Target labels by the synsets they can reach the floor through, least IC first.
    index: dict[tuple, list[tuple[float, str]]] = {}
    for sig, label in by_label_t:
        for c, least in _reach(label, floor).items():
            index.setdefault((sig, c), []).append((least, label))
    for bucket in index.values():
        bucket.sort()
    pairs = []
    allowed: set[tuple[str, str]] = set()
    for (sig, label), mine in by_label_s.items():
        bound: dict[str, float] = {}
        for c, least in _reach(label, floor).items():
            bucket = index.get((sig, c))
            if not bucket:
                continue
            twice = 2.0 * ic[c]
            limit = twice / floor - least
            for other_ic, other in bucket:
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
                theirs = by_label_t[(sig, other)]
                pairs += [(i, k) for i in mine for k in theirs]
    pairs.sort()
    return pairs, allowed


class _Candidates:
    """:func:`_candidate_pairs`, computed on first use: a clone never needs them."""

    def __init__(self, s: _Side, t: _Side, rel_sim: Callable[[str, str], float], floor: float):
        self.s, self.t, self.rel_sim, self.floor = s, t, rel_sim, floor
        self.pairs: list[tuple[int, int]] | None = None
        self.allowed: set[tuple[str, str]] | None = None

    def get(self) -> list[tuple[int, int]]:
        if self.pairs is None:
            self.pairs, self.allowed = _candidate_pairs(self.s, self.t, self.rel_sim, self.floor)
        return self.pairs


# -- structural evaluation --------------------------------------------------


def _evaluation(
    s: _Side,
    t: _Side | None,
    order: list[tuple[str, int, int]] | None,
    rel_lin: Callable[[int, int], float],
    con_lin: Callable[[int, int], float],
    profile: Profile,
) -> float:
    """SME's structural evaluation of a mapping (``t``, ``order``) or of ``s`` mapped onto itself.

    Evidence of a pair = its local score + ``trickle`` x the evidence of every
    mapped pair it is an argument of. Local scores: a relation pair's
    similarity, times (1 + ``connectivity`` x its arguments shared with
    another mapped relation pair) for order 1; a concept pair's
    ``concept_weight`` x Lin. The evaluation is the sum of all evidence.
    """
    if order is None:  # the graph onto itself: every node, similarity 1
        rels = {i: i for i in range(len(s.relations))}
        cons = {j: j for j in range(len(s.concepts))}

        def rl(i: int, k: int) -> float:
            return 1.0

        cl = rl
    else:
        rels = {a: b for kind, a, b in order if kind == RELATION}
        cons = {a: b for kind, a, b in order if kind == CONCEPT}
        rl, cl = rel_lin, con_lin
    trickle, conn = profile.trickle, profile.connectivity
    # How many mapped order-1 relations each mapped concept is an argument of.
    uses: dict[int, int] = {}
    for i in rels:
        if s.order[i] == 1:
            for a in {s.subj[i], s.obj[i]}:
                if a >= 0:
                    uses[a] = uses.get(a, 0) + 1
    evidence: dict[int, float] = {}
    total = 0.0
    # Higher orders first, so a relation pair's parents are done before it.
    for i in sorted(rels, key=lambda r: -s.order[r]):
        local = rl(i, rels[i])
        if s.order[i] == 1 and conn:
            shared = sum(1 for a in {s.subj[i], s.obj[i]} if a >= 0 and uses.get(a, 0) > 1)
            local *= 1.0 + conn * shared
        support = sum(evidence.get(p, 0.0) for p in (*s.rsubj_of[i], *s.robj_of[i]))
        evidence[i] = local + trickle * support
        total += evidence[i]
    for a, b in cons.items():
        support = sum(evidence.get(r, 0.0) for r in {*s.subj_of[a], *s.obj_of[a]})
        total += profile.concept_weight * cl(a, b) + trickle * support
    return total


# -- similarity -------------------------------------------------------------


def _relation_or_lin(a: str, b: str, pos: str) -> float:
    # Relations ("v") are labels such as base_on; they compare by head verb.
    return relation_similarity(a, b) if pos == "v" else wordnet().lin(a, b, pos)[0]


def _relation_or_lin_generic(a: str, b: str, pos: str) -> str | None:
    return relation_generic_space(a, b) if pos == "v" else lin_and_generic(a, b, pos)[1]


#: Named similarities a profile may choose: name -> (similarity, generic space).
SIMILARITIES: dict[str, tuple[Similarity, Generic]] = {
    "lin-max": (_relation_or_lin, _relation_or_lin_generic),
}


def map_graphs(
    source: nx.DiGraph,
    target: nx.DiGraph,
    *,
    profile: str | Profile | None = None,
    similarity: Similarity | None = None,
    generic: Generic | None = None,
    restarts: int = 64,
    work_limit: int = 60_000,
) -> Mapping:
    """Map ``source`` onto ``target``; see the module docstring for the rules.

    ``profile`` (a name of :data:`mapping.profiles.PROFILES` or a
    :class:`Profile`; None is the default profile) sets the similarity, the
    relation floor and what the search maximises. ``similarity(a, b, pos)``
    scores two lemmas in [0, 1] instead of the profile's; with a custom
    similarity and no ``generic``, pairs have no generic space. ``restarts``
    bounds the extra greedy runs (0 for one run) and ``work_limit`` the
    feasibility checks they may spend in all (a count, not a clock, so
    results do not depend on the machine).
    """
    prof = get_profile(profile)
    name = prof.similarity
    # Candidate seeds come from a WordNet index of the relation labels when the
    # similarity is WordNet's; a custom similarity gets every pair.
    wordnet_labels = similarity is None
    if similarity is None:
        if prof.similarity not in SIMILARITIES:
            raise ValueError(f"profile {prof.name!r}: unknown similarity {prof.similarity!r}")
        # Loading WordNet is a one-off per process, not part of the mapping time.
        wordnet()
        similarity, default_generic = SIMILARITIES[prof.similarity]
        generic = generic or default_generic
    else:
        name = getattr(similarity, "__name__", "custom")
    started = time.perf_counter()

    cache: dict[tuple[str, str, str], float] = {}

    def cached(a: str, b: str, pos: str) -> float:
        key = (a, b, pos)
        value = cache.get(key)
        if value is None:
            value = float(similarity(a, b, pos))
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"similarity({a!r}, {b!r}, {pos!r}) = {value}, outside [0, 1]")
            cache[key] = value
        return value

    s, t = _Side.of(source), _Side.of(target)
    floor = prof.relation_floor
    candidates = None
    if wordnet_labels and (floor > 0.0 or len(s.relations) * len(t.relations) > FULL_SEEDS):
        candidates = _Candidates(s, t, lambda a, b: cached(a, b, "v"), max(floor, SEED_FLOOR))
    search = _Search(s, t, cached, floor=floor, candidates=candidates)
    relation_bound = min(len(s.relations), len(t.relations))
    bound = (
        relation_bound,
        relation_bound + min(s.reachable_concepts, t.reachable_concepts, 2 * relation_bound),
    )

    def evaluation(order: list) -> float:
        return _evaluation(s, t, order, search.rel_lin, search.con_lin, prof)

    def quality(order: list) -> tuple:
        relations, total = 0, 0.0
        for kind, a, b in order:
            if kind == RELATION:
                relations += 1
                total += search.rel_lin(a, b)
            else:
                total += search.con_lin(a, b)
        if prof.objective == "evaluation":
            # The greatest structural evaluation: systematic, similar structure.
            return round(evaluation(order), 9), relations, len(order)
        # Relation pairs first (each is two mapped edges: the largest common
        # subgraph by edges, i.e. systematic structure), then nodes, then Lin.
        return relations, len(order), round(total, 9)

    def complete(order: list) -> bool:
        relations = sum(1 for kind, _, _ in order if kind == RELATION)
        if (relations, len(order)) >= bound:
            return True
        if floor > 0.0 and candidates is not None:
            # Under a floor no pair outside the candidates is feasible, so fewer
            # relations may already be all there are.
            pairs = candidates.get()
            mappable = min(len({i for i, _ in pairs}), len({k for _, k in pairs}))
            return relations >= mappable
        return False

    best = search.run(None)
    best_quality = quality(best)
    runs = 1
    ahead: _Search | None = None
    if best and not complete(best) and restarts > 0:
        # Bounded restarts: the look-ahead search from its best seed, then both
        # searches from their next-best seeds in turn; the best mapping wins.
        ahead = _Search(s, t, cached, floor=floor, structure=True, candidates=candidates)
        tried: list[set] = [{best[0][1:]}, set()]
        queues = [iter(search.exact_seeds() + search.seeds()), iter(ahead.seeds())]
        plans = [(1, None)]
        while runs <= restarts and search.work + ahead.work < work_limit:
            if not plans:
                for mode in (0, 1):
                    for key in queues[mode]:
                        if (key[-2], key[-1]) not in tried[mode]:
                            plans.append((mode, key))
                            break
                if not plans:
                    break
            mode, key = plans.pop(0)
            order = (search, ahead)[mode].run(key)
            runs += 1
            if order:
                tried[mode].add(order[0][1:])
            q = quality(order)
            if q > best_quality:
                best, best_quality = order, q
            if complete(best):
                break

    pairs = []
    for kind, a, b in best:
        if kind == RELATION:
            sn, tn, sl, tl = s.relations[a], t.relations[b], s.rel_lemma[a], t.rel_lemma[b]
            lin, gen = search.rel_lin(a, b), (generic(sl, tl, "v") if generic else None)
        else:
            sn, tn, sl, tl = s.concepts[a], t.concepts[b], s.con_lemma[a], t.con_lemma[b]
            lin = search.con_lin(a, b)
            gen = generic(s.con_word[a], t.con_word[b], s.con_pos[a]) if generic else None
        pairs.append(MappedPair(sn, tn, kind, sl, tl, lin, gen))
    return Mapping(
        pairs=pairs,
        source_size=source.number_of_nodes(),
        target_size=target.number_of_nodes(),
        seconds=time.perf_counter() - started,
        source_name=str(source.graph.get("name", "")),
        target_name=str(target.graph.get("name", "")),
        source_relations=len(s.relations),
        target_relations=len(t.relations),
        runs=runs,
        checks=search.work + (ahead.work if ahead else 0),
        similarity=name,
        profile=prof.name,
        evaluation=evaluation(best),
        source_evaluation=_evaluation(s, None, None, search.rel_lin, search.con_lin, prof),
        target_evaluation=_evaluation(t, None, None, search.rel_lin, search.con_lin, prof),
    )
