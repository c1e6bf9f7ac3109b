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
mapped by the search only as an argument of a mapped relation. A profile
with ``loose_concepts`` then pairs the concepts left over on both sides, one
to one and most similar first, at or above its ``concept_floor``
(:func:`_loose_concepts`); none of their relations is mapped, so the result
is still a common induced subgraph of the two graphs.

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
  it; under max-over-senses the similarity of every label pair is instead one
  matrix (:class:`_LabelMatrix`), which gives the same pairs. Without a floor
  (the paper) any two relations of one type may still
  pair: after the seeds, the search takes untouched pairs in node order.
  The seeds are scored once for both orderings below, over arrays
  (:class:`_SeedTable`), in exactly the order of the search's own keys.
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

import gc
import heapq
import itertools
import math
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import networkx as nx
import numpy as np

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.profiles import Profile, get_profile
from dri.mapping.wordnet import (
    NON_WORDNET_RELATIONS,
    RULES,
    relation_heads,
    relation_similarity_matrix,
    similarity_functions,
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
    #: A concept pair outside the matched structure (``Profile.loose_concepts``).
    loose: bool = False
    #: The pair's evidence in the structural evaluation of the mapping: its local score plus
    #: the trickle-down share of the pairs it is an argument of (SME's match-hypothesis score).
    evidence: float = 0.0


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


@dataclass(frozen=True)
class _Arrays:
    """Arguments by relation and argument counts by node, as arrays (see :class:`_Side`)."""

    subj: np.ndarray
    obj: np.ndarray
    order: np.ndarray
    n_subj: np.ndarray  # concept -> how many order-1 relations have it as subject
    n_obj: np.ndarray
    n_rsubj: np.ndarray  # relation -> how many order-2 relations have it as subject
    n_robj: np.ndarray


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
    _arrays: _Arrays | None = None
    _information: tuple[list[float], list[float]] | None = None

    def information(self) -> tuple[list[float], list[float]]:
        """How informative each relation's head verb and each concept is (WordNet.information).

        A concept counts by its own lemma, so a name by its words (mostly 1.0:
        WordNet does not list them), not by its entity class; the extractor's
        ``isa`` counts as "be".
        """
        if self._information is None:
            wn = wordnet()
            rels = []
            for label in self.rel_lemma:
                heads = relation_heads(label)
                head = heads[0][0] if heads else label
                rels.append(wn.information("be" if head in NON_WORDNET_RELATIONS else head, "v"))
            cons = [wn.information(lemma, pos) for lemma, pos in zip(self.con_lemma, self.con_pos)]
            self._information = (rels, cons)
        return self._information

    def arrays(self) -> _Arrays:
        """The same graph as numpy arrays, for scoring many pairs at once."""
        if self._arrays is None:
            self._arrays = _Arrays(
                subj=np.array(self.subj, dtype=np.int64),
                obj=np.array(self.obj, dtype=np.int64),
                order=np.array(self.order, dtype=np.int64),
                n_subj=np.array([len(x) for x in self.subj_of], dtype=np.int64),
                n_obj=np.array([len(x) for x in self.obj_of], dtype=np.int64),
                n_rsubj=np.array([len(x) for x in self.rsubj_of], dtype=np.int64),
                n_robj=np.array([len(x) for x in self.robj_of], dtype=np.int64),
            )
        return self._arrays

    @classmethod
    def of(cls, g: nx.DiGraph) -> _Side:
        nodes = dict(g.nodes(data=True))  # node -> attributes, a plain dict (NodeView lookups are slow)
        rels, cons = [], []
        for n, data in nodes.items():
            kind = data.get("type")
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
) -> tuple[tuple[np.ndarray, np.ndarray], set[tuple[str, str]]]:
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
    groups: list[tuple[list[int], list[int]]] = []
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
                groups.append((mine, by_label_t[(sig, other)]))
    return _cross(groups), allowed


def _cross(groups: list[tuple[list[int], list[int]]]) -> tuple[np.ndarray, np.ndarray]:
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


def _label_pairs(s: _Side, t: _Side, labels: _LabelMatrix, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Relation pairs of one type whose labels' similarity (from the label matrix,
    identical labels 1.0) reaches ``floor``: the pairs :func:`_candidate_pairs` finds."""
    ok = labels.matrix() >= floor - 1e-12
    # Relations grouped by (signature, label): each allowed pair of groups gives a block of pairs.
    groups_s: dict[tuple, list[int]] = {}
    for i in range(len(s.relations)):
        groups_s.setdefault((s.signature[i], labels.id_s[i]), []).append(i)
    groups_t: dict[tuple, list[int]] = {}
    for k in range(len(t.relations)):
        groups_t.setdefault((t.signature[k], labels.id_t[k]), []).append(k)
    by_sig_t: dict[tuple, tuple[np.ndarray, list[list[int]]]] = {}
    for sig in dict.fromkeys(sig for sig, _ in groups_t):
        keys = [label for sg, label in groups_t if sg == sig]
        by_sig_t[sig] = (np.array(keys, dtype=np.int64), [groups_t[(sig, label)] for label in keys])
    blocks: list[tuple[list[int], list[int]]] = []
    for (sig, label), mine in groups_s.items():
        theirs = by_sig_t.get(sig)
        if theirs is not None:
            others, members = theirs
            blocks += [(mine, members[n]) for n in np.flatnonzero(ok[label, others]).tolist()]
    return _cross(blocks)


class _Candidates:
    """The relation pairs that may seed a search, computed on first use (a clone never
    needs them): from the label matrix when there is one, else :func:`_candidate_pairs`."""

    def __init__(
        self,
        s: _Side,
        t: _Side,
        rel_sim: Callable[[str, str], float],
        floor: float,
        labels: _LabelMatrix | None = None,
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


class _SeedTable:
    """Every seed scored once on the empty state, for both orderings of the search.

    A seed's key (:meth:`_Search._key` on an empty state) is its mean
    similarity over the relation pair and its argument pairs, the number of
    identical lemmas and, for the look-ahead ordering, its potential. For
    order-1 pairs these are computed over arrays of all candidate pairs at
    once, with each distinct label pair and concept pair scored once; order-2
    pairs (which force pairs below them) go through :meth:`_Search._args`. The
    same floating-point operations in the same order as :meth:`_Search._key`
    give the same keys, so the order is the same as sorting the keys (tested).
    """

    def __init__(self, candidates: _Candidates | None):
        self.candidates = candidates
        self._columns: tuple | None = None
        self._orders: dict[bool, tuple[list[int], list[int]]] = {}

    def order(self, search: _Search) -> tuple[list[int], list[int]]:
        """The feasible seed pairs, best first, for ``search``'s ordering."""
        hit = self._orders.get(search.structure)
        if hit is None:
            if self._columns is None:
                self._columns = self._score(search)
            rows, cols, rscore, same, potential, anchors = self._columns
            # _Search._key's fields; np.lexsort sorts by the last key first. The
            # integer fields after the score (identical lemmas, then i, then k) are
            # packed into one key when they fit in 62 bits, which sorts faster.
            bits = [max(1, int(x.max(initial=0)).bit_length()) for x in (same, rows, cols)]
            if sum(bits) <= 62 and same.min(initial=0) >= 0:
                tail = [((same.max(initial=0) - same) << (bits[1] + bits[2])) | (rows << bits[2]) | cols]
            else:
                tail = [cols, rows, -same]
            keys = (*tail, -rscore, -potential) if search.structure else (*tail, -rscore)
            if anchors.any():
                keys = (*keys, -anchors)
            ranked = np.lexsort(keys)
            hit = (rows[ranked].tolist(), cols[ranked].tolist())
            self._orders[search.structure] = hit
        return hit

    def _score(self, search: _Search) -> tuple[np.ndarray, ...]:
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
            rel = _per_pair(lab_s * len(labels) + lab_t, rows, cols, search.rel_lin)
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
                lin[present] = _per_pair(a * width + b, a, b, search.con_lin)
            total = total + lin  # the same additions, in the same order, as _key
            count += present
            same += present & (con_s[np.where(present, args_s, 0)] == con_t[np.where(present, args_t, 0)])
            potential[present] += np.minimum(sa.n_subj[a], ta.n_subj[b]) + np.minimum(
                sa.n_obj[a], ta.n_obj[b]
            )
        score = total / count
        rscore = _round12(score)
        # Order 2: parallel connectivity forces pairs below, which may conflict.
        extra: list[tuple[int, int, float, int, int]] = []
        empty_s, empty_t = [-1] * len(s.concepts), [-1] * len(t.concepts)
        rempty_s, rempty_t = [-1] * len(s.relations), [-1] * len(t.relations)
        for i, k in zip(rows[~first].tolist(), cols[~first].tolist()):
            ok, anchors, new, new_r = search._args(i, k, empty_s, empty_t, rempty_s, rempty_t)
            if ok:
                parts = search._parts(i, k, new, new_r)
                extra.append((i, k, *parts, search._potential(i, k, new, new_r), anchors))
        anchors = np.zeros(len(r1), dtype=np.int64)
        if extra:
            ei, ek, es, esame, epot, eanch = (np.array(column) for column in zip(*extra))
            r1, c1 = np.concatenate([r1, ei]), np.concatenate([c1, ek])
            rscore = np.concatenate([rscore, es.astype(np.float64)])
            same = np.concatenate([same, esame.astype(np.int64)])
            potential = np.concatenate([potential, epot.astype(np.int64)])
            anchors = np.concatenate([anchors, eanch.astype(np.int64)])
        return r1, c1, rscore, same, potential, anchors


def _round12(values: np.ndarray) -> np.ndarray:
    """Python's ``round(x, 12)`` of every value, as :meth:`_Search._key` takes it.

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


def _per_pair(
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


class _ConceptMatrix:
    """The similarity of every source noun concept with every target concept word,
    computed with :meth:`WordNet.score_matrix` when the seeds are scored (the same
    floats as asking pair by pair, tested): the seeds and the search then ask for
    most of these pairs, and under max-over-senses one matrix costs less than the
    pairs one by one. Before that (a clone never scores seeds), other rules,
    adjectives and matrices above :data:`MATRIX_LIMIT` entries ask ``sim`` pair
    by pair."""

    def __init__(self, s: _Side, t: _Side, rule: str, sim: Callable[[str, str, str], float]):
        self.s, self.t, self.rule, self.sim = s, t, rule, sim
        self.rows: list[list[float] | None] | None = None
        self.column: list[int] = []
        self._column = self._row = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0))
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
        """``_Search.con_lin(a[j], b[j])`` for every j: 1.0 for identical lemmas, else the matrix."""
        if self.rows is None:
            self._compute()
        s, t = self.s, self.t
        lemmas = {x: n for n, x in enumerate(dict.fromkeys(s.con_lemma + t.con_lemma))}
        same = (
            np.array([lemmas[x] for x in s.con_lemma], dtype=np.int64)[a]
            == np.array([lemmas[x] for x in t.con_lemma], dtype=np.int64)[b]
        )
        out = np.ones(len(a))
        row = self._row[a]
        gather = ~same & (row >= 0)
        out[gather] = self._matrix[row[gather], self._column[b[gather]]]
        rest = ~same & (row < 0)
        if rest.any():
            ra, rb = a[rest], b[rest]
            out[rest] = _per_pair(ra * max(1, len(t.concepts)) + rb, ra, rb, self.get)
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
        mine = [j for j in range(len(s.concepts)) if s.con_pos[j] == "n"]
        words = list(dict.fromkeys(s.con_word[j] for j in mine))
        if self.rule == "max" and words and len(words) * len(columns) <= MATRIX_LIMIT:
            self._matrix = wordnet().score_matrix(words, columns, "n", self.rule)
            matrix = self._matrix.tolist()
            index = {w: n for n, w in enumerate(words)}
            for j in mine:
                rows[j] = matrix[index[s.con_word[j]]]
                self._row[j] = index[s.con_word[j]]
        self.rows = rows
        return rows


class _LabelMatrix:
    """:func:`mapping.wordnet.relation_similarity` of every source relation label with
    every target label, computed with
    :func:`~mapping.wordnet.relation_similarity_matrix` (the same floats, tested) when
    the candidates are first needed, under max-over-senses and up to
    :data:`MATRIX_LIMIT` entries (``usable``); before that, pair by pair with ``sim``.
    It replaces the label index of :func:`_candidate_pairs` there: one matrix of all
    label pairs costs less than the index and the pairs it finds, scored one by one."""

    def __init__(self, s: _Side, t: _Side, rule: str, sim: Callable[[str, str, str], float]):
        self.rule, self.sim = rule, sim
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

    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = relation_similarity_matrix(self.labels_s, self.labels_t, self.rule)
        return self._matrix

    def get(self, i: int, k: int) -> float:
        # As _ConceptMatrix.get: pair by pair until the matrix is needed or pays off.
        if self._rows is None:
            if self._matrix is None:
                self.asked += 1
                if self.asked * _MATRIX_SHARE <= len(self.labels_s) * len(self.labels_t):
                    return self.sim(self.labels_s[self.id_s[i]], self.labels_t[self.id_t[k]], "v")
            self._rows = self.matrix().tolist()
        return self._rows[self.id_s[i]][self.id_t[k]]

    def values(self, i: np.ndarray, k: np.ndarray) -> np.ndarray:
        """``_Search.rel_lin(i[j], k[j])`` for every j (identical labels are 1.0 in the matrix)."""
        return self.matrix()[np.array(self.id_s, dtype=np.int64)[i], np.array(self.id_t, dtype=np.int64)[k]]


# -- structural evaluation --------------------------------------------------


def _evaluation(
    s: _Side,
    t: _Side | None,
    order: list[tuple[str, int, int]] | None,
    rel_lin: Callable[[int, int], float],
    con_lin: Callable[[int, int], float],
    profile: Profile,
    evidence_out: dict[tuple[str, int], float] | None = None,
) -> float:
    """SME's structural evaluation of a mapping (``t``, ``order``) or of ``s`` mapped onto itself.

    Evidence of a pair = its local score + ``trickle`` x the evidence of every
    mapped pair it is an argument of. Local scores: a relation pair's
    similarity, times (1 + ``connectivity`` x its arguments shared with
    another mapped relation pair) for order 1; a concept pair's
    ``concept_weight`` x Lin, times ``loose_concepts`` when no mapped relation
    pair has it as an argument. Under ``information``, each local score is
    also weighted by how informative the pair's words are. The evaluation is
    the sum of all evidence. ``evidence_out``, if given, receives each mapped
    pair's evidence by (kind, source index): the score of that match hypothesis,
    which candidate inferences sum (:mod:`mapping.inference`).
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
    trickle, conn, share = profile.trickle, profile.connectivity, profile.information
    gated = profile.gated_trickle
    if share:
        s_rel, s_con = s.information()
        t_rel, t_con = (t or s).information()

        def rel_weight(i: int, k: int) -> float:
            return 1.0 - share + share * 0.5 * (s_rel[i] + t_rel[k])

        def con_weight(a: int, b: int) -> float:
            return 1.0 - share + share * 0.5 * (s_con[a] + t_con[b])

    else:

        def rel_weight(i: int, k: int) -> float:
            return 1.0

        con_weight = rel_weight
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
        local = rl(i, rels[i]) * rel_weight(i, rels[i])
        if s.order[i] == 1 and conn:
            shared = sum(1 for a in {s.subj[i], s.obj[i]} if a >= 0 and uses.get(a, 0) > 1)
            local *= 1.0 + conn * shared
        support = sum(evidence.get(p, 0.0) for p in (*s.rsubj_of[i], *s.robj_of[i]))
        if gated:
            support *= rl(i, rels[i])
        evidence[i] = local + trickle * support
        total += evidence[i]
        if evidence_out is not None:
            evidence_out[(RELATION, i)] = evidence[i]
    for a, b in cons.items():
        local = profile.concept_weight * cl(a, b) * con_weight(a, b)
        if profile.loose_concepts and not uses.get(a):
            local *= profile.loose_concepts
        support = sum(evidence.get(r, 0.0) for r in {*s.subj_of[a], *s.obj_of[a]})
        if gated:
            support *= cl(a, b)
        concept = local + trickle * support
        total += concept
        if evidence_out is not None:
            evidence_out[(CONCEPT, a)] = concept
    return total


def _loose_concepts(
    s: _Side, t: _Side, order: list[tuple[str, int, int]], search: _Search, floor: float
) -> list[tuple[str, int, int]]:
    """Concept pairs outside the structure: the concepts ``order`` leaves unmapped, paired
    one to one, most similar first (then identical lemmas, then node order), at or above
    ``floor`` and of the same part of speech. Similarities come as the seeds' do: from the
    concept matrix when there is one, else once per pair."""
    taken_s = {a for kind, a, _ in order if kind == CONCEPT}
    taken_t = {b for kind, _, b in order if kind == CONCEPT}
    free_s = np.array([a for a in range(len(s.concepts)) if a not in taken_s], dtype=np.int64)
    free_t = np.array([b for b in range(len(t.concepts)) if b not in taken_t], dtype=np.int64)
    a, b = np.repeat(free_s, len(free_t)), np.tile(free_t, len(free_s))
    same_pos = np.asarray(s.con_pos, dtype=object)[a] == np.asarray(t.con_pos, dtype=object)[b]
    a, b = a[same_pos], b[same_pos]
    if not len(a):
        return []
    if search.concepts is not None:
        lin = search.concepts.values(a, b)
    else:
        lin = _per_pair(a * max(1, len(t.concepts)) + b, a, b, search.con_lin)
    keep = lin >= floor - 1e-12
    options = sorted(
        (-value, s.con_lemma[i] != t.con_lemma[k], i, k)
        for value, i, k in zip(lin[keep].tolist(), a[keep].tolist(), b[keep].tolist())
    )
    added: list[tuple[str, int, int]] = []
    for _, _, i, k in options:
        if i not in taken_s and k not in taken_t:
            taken_s.add(i)
            taken_t.add(k)
            added.append((CONCEPT, i, k))
    return added


# -- similarity -------------------------------------------------------------


#: Named similarities a profile may choose: name -> WordNet sense rule, whose
#: ``(similarity, generic space)`` functions :func:`mapping.wordnet.similarity_functions` gives.
SIMILARITIES: dict[str, str] = {f"lin-{rule}": rule for rule in RULES}


def map_graphs(
    source: nx.DiGraph,
    target: nx.DiGraph,
    *,
    profile: str | Profile | None = None,
    similarity: Similarity | None = None,
    generic: Generic | None = None,
    restarts: int | None = None,
    work_limit: int = 60_000,
) -> Mapping:
    """Map ``source`` onto ``target``; see the module docstring for the rules.

    ``profile`` (a name of :data:`mapping.profiles.PROFILES` or a
    :class:`Profile`; None is the default profile) sets the similarity, the
    relation floor and what the search maximises. ``similarity(a, b, pos)``
    scores two lemmas in [0, 1] instead of the profile's; with a custom
    similarity and no ``generic``, pairs have no generic space. ``restarts``
    (default: the profile's)
    bounds the extra greedy runs (0 for one run) and ``work_limit`` the
    feasibility checks they may spend in all (a count, not a clock, so
    results do not depend on the machine).
    """
    with _collector_paused():
        return _map_graphs(source, target, profile, similarity, generic, restarts, work_limit)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while mapping.

    A mapping allocates many small objects and makes no reference cycles, yet
    the allocations trigger collections that scan every object the process
    holds (WordNet's tables among them): a tenth to a fifth of a cold mapping's
    time. Reference counting still frees everything. Mappings in other threads
    may overlap: whichever found the collector on turns it back on.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _map_graphs(
    source: nx.DiGraph,
    target: nx.DiGraph,
    profile: str | Profile | None,
    similarity: Similarity | None,
    generic: Generic | None,
    restarts: int | None,
    work_limit: int,
) -> Mapping:
    prof = get_profile(profile)
    if restarts is None:
        restarts = prof.restarts
    name = prof.similarity
    # Candidate seeds come from a WordNet index of the relation labels when the
    # similarity is WordNet's; a custom similarity gets every pair.
    wordnet_labels = similarity is None
    if similarity is None:
        if prof.similarity not in SIMILARITIES:
            raise ValueError(
                f"profile {prof.name!r}: unknown similarity {prof.similarity!r}; "
                f"known: {', '.join(SIMILARITIES)}"
            )
        # Loading WordNet is a one-off per process, not part of the mapping time.
        similarity, default_generic = similarity_functions(SIMILARITIES[prof.similarity])
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
    # Under a named WordNet rule, similarities come in matrices (computed on first use).
    rule = SIMILARITIES[prof.similarity] if wordnet_labels else None
    concepts = _ConceptMatrix(s, t, rule, cached) if rule else None
    labels = _LabelMatrix(s, t, rule, cached) if rule else None
    candidates = None
    if wordnet_labels and (floor > 0.0 or len(s.relations) * len(t.relations) > FULL_SEEDS):
        candidates = _Candidates(s, t, lambda a, b: cached(a, b, "v"), max(floor, SEED_FLOOR), labels)
    shared: dict[str, Any] = {
        "floor": floor,
        "candidates": candidates,
        "table": _SeedTable(candidates),
        "concepts": concepts,
        "labels": labels,
    }
    search = _Search(s, t, cached, **shared)
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
            return relations >= candidates.mappable()
        return False

    best = search.run(None)
    best_quality = quality(best)
    runs = 1
    ahead: _Search | None = None
    if best and not complete(best) and restarts > 0:
        # Bounded restarts: the look-ahead search from its best seed, then both
        # searches from their next-best seeds in turn; the best mapping wins.
        ahead = _Search(s, t, cached, structure=True, **shared)
        tried: list[set] = [{best[0][1:]}, set()]
        queues = [
            itertools.chain(search.exact_seeds(), _pairs_of(search)),
            _pairs_of(ahead),
        ]
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

    structural = len(best)
    if prof.loose_concepts > 0.0:
        best = best + _loose_concepts(s, t, best, search, prof.concept_floor)
    evidence: dict[tuple[str, int], float] = {}
    total = _evaluation(s, t, best, search.rel_lin, search.con_lin, prof, evidence)
    pairs = []
    for n, (kind, a, b) in enumerate(best):
        if kind == RELATION:
            sn, tn, sl, tl = s.relations[a], t.relations[b], s.rel_lemma[a], t.rel_lemma[b]
            lin, gen = search.rel_lin(a, b), (generic(sl, tl, "v") if generic else None)
        else:
            sn, tn, sl, tl = s.concepts[a], t.concepts[b], s.con_lemma[a], t.con_lemma[b]
            lin = search.con_lin(a, b)
            gen = generic(s.con_word[a], t.con_word[b], s.con_pos[a]) if generic else None
        pairs.append(
            MappedPair(sn, tn, kind, sl, tl, lin, gen, loose=n >= structural, evidence=evidence[(kind, a)])
        )
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
        evaluation=total,
        source_evaluation=_evaluation(s, None, None, search.rel_lin, search.con_lin, prof),
        target_evaluation=_evaluation(t, None, None, search.rel_lin, search.con_lin, prof),
    )
