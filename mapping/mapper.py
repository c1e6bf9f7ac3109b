"""Structure mapping between two ROS graphs.

Dr Inventor maps a *source* ROS graph onto a *target* with a customised VF2
search (Cordella et al. 2004) under the constraints of Gentner's Structure
Mapping Theory (Hurley et al., EGPAI 2016, "ROS Mapping"):

1. the mapping is 1-to-1;
2. types match: concept to concept, relation to relation;
3. parallel connectivity: when two relations are mapped, their subjects are
   mapped to each other and so are their objects (edge labels are kept).

Because a relation node has exactly one ``subj`` and one ``obj`` edge, the
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
  relation, subject and object.
* Remaining ties go to the pair with more identical lemmas, then to the
  lowest node ids (``r:2`` before ``r:10``), source first, so results are
  deterministic.
* Bounded restarts: if the first run (Dr Inventor's rule above) leaves
  relations unmapped, the search runs again with a VF2-style look-ahead
  ordering (prefer new argument pairs that can anchor the most further
  relation pairs, then similarity) and then from the next-best seeds of both
  orderings, up to ``restarts`` runs and ``work_limit`` feasibility checks
  (a count, so results do not depend on the machine). The mapping with the
  most relation pairs wins -- each is two mapped edges, so this is the
  largest common subgraph by edges, i.e. the most systematic structure --
  then the one with most nodes, then the greatest total Lin. A graph mapped
  to its clone is complete after the first run.

Swapping the inputs: the constraints, Lin similarity (symmetric) and every
score are symmetric, and so is the search except for its last tie-break by
node id, which looks at the source's ids first. Swapping source and target
therefore gives the inverse mapping unless two candidates tie exactly on
structure, similarity and identical lemmas; then a different but equally
scored pair may be chosen, and the greedy search may end with a different
size. ``metrics`` computes Jaccard and the means symmetrically, so any
difference in the scores comes from the mapping alone.

Identical lemmas always count as similarity 1.0, whatever ``similarity`` says.
"""

from __future__ import annotations

import heapq
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.wordnet import lin_and_generic, relation_generic_space, relation_similarity, wordnet

__all__ = ["Generic", "MappedPair", "Mapping", "Similarity", "map_graphs"]

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
    similarity: str = "wordnet-lin"

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
    """One graph: relations and concepts by index, in natural node-id order."""

    relations: list[str]
    concepts: list[str]
    subj: list[int]
    obj: list[int]
    rel_lemma: list[str]
    con_lemma: list[str]
    con_pos: list[str]
    subj_of: list[list[int]]
    obj_of: list[list[int]]
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
        subj, obj = [-1] * len(rels), [-1] * len(rels)
        for u, v, label in g.edges(data="label"):
            # The first subj/obj edge wins, as graphs.ros reads them.
            if label == "subj" and v in rindex and u in cindex and subj[rindex[v]] < 0:
                subj[rindex[v]] = cindex[u]
            elif label == "obj" and u in rindex and v in cindex and obj[rindex[u]] < 0:
                obj[rindex[u]] = cindex[v]
        subj_of: list[list[int]] = [[] for _ in cons]
        obj_of: list[list[int]] = [[] for _ in cons]
        for i in range(len(rels)):
            if subj[i] >= 0:
                subj_of[subj[i]].append(i)
            if obj[i] >= 0:
                obj_of[obj[i]].append(i)
        side = cls(
            relations=rels,
            concepts=cons,
            subj=subj,
            obj=obj,
            rel_lemma=[str(nodes[r].get("lemma", r)) for r in rels],
            con_lemma=[str(nodes[c].get("lemma", c)) for c in cons],
            con_pos=[str(nodes[c].get("pos", "n")) for c in cons],
            subj_of=subj_of,
            obj_of=obj_of,
        )
        side.reachable_concepts = sum(1 for j in range(len(cons)) if subj_of[j] or obj_of[j])
        return side


# -- the search -------------------------------------------------------------


class _Search:
    def __init__(self, s: _Side, t: _Side, sim: Callable[[str, str, str], float], structure: bool = False):
        self.s, self.t, self.sim = s, t, sim
        # Look-ahead mode: prefer candidates whose new argument pairs can anchor
        # the most further relation pairs (VF2's look-ahead), then similarity.
        self.structure = structure
        self.work = 0  # feasibility checks made, a machine-independent effort count
        self._seeds: list[tuple] | None = None
        self._exact_seeds: list[tuple] | None = None

    # similarity of two lemmas, identical lemmas fixed at 1.0
    def lin(self, a: str, b: str, pos: str) -> float:
        return 1.0 if a == b else self.sim(a, b, pos)

    def _args(self, i: int, k: int, cmap: list[int], cinv: list[int]):
        """(feasible, anchors, new concept pairs) for relation pair (i, k)."""
        self.work += 1
        s, t = self.s, self.t
        si, oi, sk, ok = s.subj[i], s.obj[i], t.subj[k], t.obj[k]
        if (si == oi) != (sk == ok):
            return False, 0, ()
        anchors = 0
        new = []
        for a, b in ((si, sk), (oi, ok)) if si != oi else ((si, sk),):
            if a < 0 or b < 0:
                if a != b:
                    return False, 0, ()
                continue
            mapped = cmap[a]
            if mapped >= 0:
                if mapped != b:
                    return False, 0, ()
                anchors += 1
            elif cinv[b] >= 0:
                return False, 0, ()
            else:
                new.append((a, b))
        return True, anchors, tuple(new)

    def _key(self, i: int, k: int, anchors: int, new: tuple) -> tuple:
        s, t = self.s, self.t
        va, vb = s.rel_lemma[i], t.rel_lemma[k]
        total = self.lin(va, vb, "v")
        same = int(va == vb)
        for a, b in new:
            la, lb = s.con_lemma[a], t.con_lemma[b]
            total += self.lin(la, lb, s.con_pos[a])
            same += la == lb
        score = total / (1 + len(new))
        if self.structure:
            potential = 0
            for a, b in new:
                potential += min(len(s.subj_of[a]), len(t.subj_of[b])) + min(
                    len(s.obj_of[a]), len(t.obj_of[b])
                )
            return (-anchors, -potential, -round(score, 12), -same, i, k)
        return (-anchors, -round(score, 12), -same, i, k)

    def seeds(self) -> list[tuple]:
        """Every relation pair keyed as a seed on an empty state, best first.

        Exact triple matches (score 1, all lemmas identical) come first and are
        found through an index, so clone mapping never scores all pairs.
        """
        if self._seeds is None:
            s, t = self.s, self.t
            empty_s, empty_t = [-1] * len(s.concepts), [-1] * len(t.concepts)
            keys = []
            for i in range(len(s.relations)):
                for k in range(len(t.relations)):
                    ok, anchors, new = self._args(i, k, empty_s, empty_t)
                    if ok:
                        keys.append(self._key(i, k, anchors, new))
            keys.sort()
            self._seeds = keys
        return self._seeds

    def exact_seeds(self) -> list[tuple]:
        if self._exact_seeds is None:
            s, t = self.s, self.t

            def triple(side: _Side, i: int) -> tuple:
                return (
                    side.con_lemma[side.subj[i]] if side.subj[i] >= 0 else None,
                    side.rel_lemma[i],
                    side.con_lemma[side.obj[i]] if side.obj[i] >= 0 else None,
                    side.subj[i] == side.obj[i],
                )

            index: dict[tuple, list[int]] = {}
            for k in range(len(t.relations)):
                index.setdefault(triple(t, k), []).append(k)
            out = []
            for i in range(len(s.relations)):
                trip = triple(s, i)
                same = 1 + (trip[0] is not None) + (trip[2] is not None and not trip[3])
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

        def push_around(a: int, b: int) -> None:
            for mine, theirs in ((s.subj_of[a], t.subj_of[b]), (s.obj_of[a], t.obj_of[b])):
                for i in mine:
                    if rmap[i] >= 0:
                        continue
                    for k in theirs:
                        if rinv[k] >= 0:
                            continue
                        ok, anchors, new = self._args(i, k, cmap, cinv)
                        if ok:
                            heapq.heappush(heap, self._key(i, k, anchors, new))

        mapped = [0]

        def take(i: int, k: int, new: tuple) -> None:
            mapped[0] += 1
            rmap[i], rinv[k] = k, i
            order.append((RELATION, i, k))
            for a, b in new:
                cmap[a], cinv[b] = b, a
                order.append((CONCEPT, a, b))
            for a, b in new:
                push_around(a, b)

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
                        ok, _anchors, new = self._args(i, k, cmap, cinv)
                        if ok:
                            return (i, k, new)
            return None

        if first is not None:
            ok, _, new = self._args(first[-2], first[-1], cmap, cinv)
            if ok:
                take(first[-2], first[-1], new)
        limit = min(len(s.relations), len(t.relations))
        while mapped[0] < limit:
            if heap:
                key = heapq.heappop(heap)
                i, k = key[-2], key[-1]
                if rmap[i] >= 0 or rinv[k] >= 0:
                    continue
                ok, anchors, new = self._args(i, k, cmap, cinv)
                if not ok:
                    continue
                fresh = self._key(i, k, anchors, new)
                if fresh != key:
                    heapq.heappush(heap, fresh)
                    continue
                take(i, k, new)
                continue
            seed = next_seed()
            if seed is None:
                break
            take(*seed)
        return order


def _wordnet_similarity() -> tuple[Similarity, Generic]:
    wn = wordnet()

    # Relations ("v") are labels such as base_on; they compare by head verb.
    def similarity(a: str, b: str, pos: str) -> float:
        return relation_similarity(a, b) if pos == "v" else wn.lin(a, b, pos)[0]

    def generic(a: str, b: str, pos: str) -> str | None:
        return relation_generic_space(a, b) if pos == "v" else lin_and_generic(a, b, pos)[1]

    return similarity, generic


def map_graphs(
    source: nx.DiGraph,
    target: nx.DiGraph,
    *,
    similarity: Similarity | None = None,
    generic: Generic | None = None,
    restarts: int = 64,
    work_limit: int = 300_000,
) -> Mapping:
    """Map ``source`` onto ``target``; see the module docstring for the rules.

    ``similarity(a, b, pos)`` scores two lemmas in [0, 1]; ``None`` means
    WordNet Lin (:func:`mapping.wordnet.lin_similarity`), and then ``generic``
    defaults to :func:`mapping.wordnet.generic_space`. With a custom
    similarity and no ``generic``, pairs have no generic space. ``restarts``
    bounds the extra greedy runs (0 for one run) and ``work_limit`` the
    feasibility checks they may spend in all (a count, not a clock, so
    results do not depend on the machine).
    """
    name = "wordnet-lin"
    if similarity is None:
        # Loading WordNet is a one-off per process, not part of the mapping time.
        similarity, default_generic = _wordnet_similarity()
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
    search = _Search(s, t, cached)
    relation_bound = min(len(s.relations), len(t.relations))
    bound = (
        relation_bound,
        relation_bound + min(s.reachable_concepts, t.reachable_concepts, 2 * relation_bound),
    )

    def quality(order: list) -> tuple[int, int, float]:
        # Relation pairs first (each is two mapped edges: the largest common
        # subgraph by edges, i.e. systematic structure), then nodes, then Lin.
        total, relations = 0.0, 0
        for kind, a, b in order:
            if kind == RELATION:
                relations += 1
                total += search.lin(s.rel_lemma[a], t.rel_lemma[b], "v")
            else:
                total += search.lin(s.con_lemma[a], t.con_lemma[b], s.con_pos[a])
        return relations, len(order), round(total, 9)

    best = search.run(None)
    best_quality = quality(best)
    runs = 1
    if best and best_quality[:2] < bound and restarts > 0:
        # Bounded restarts: the look-ahead search from its best seed, then both
        # searches from their next-best seeds in turn; the largest mapping wins.
        ahead = _Search(s, t, cached, structure=True)
        tried: list[set] = [{best[0][1:]}, set()]
        queues = [iter(search.exact_seeds() + search.seeds()), iter(ahead.seeds())]
        plans = [(1, None)]
        while runs <= restarts and best_quality[:2] < bound and search.work + ahead.work < work_limit:
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

    pairs = []
    for kind, a, b in best:
        if kind == RELATION:
            sn, tn, sl, tl, pos = s.relations[a], t.relations[b], s.rel_lemma[a], t.rel_lemma[b], "v"
        else:
            sn, tn, sl, tl, pos = s.concepts[a], t.concepts[b], s.con_lemma[a], t.con_lemma[b], s.con_pos[a]
        pairs.append(
            MappedPair(
                sn, tn, kind, sl, tl, search.lin(sl, tl, pos), generic(sl, tl, pos) if generic else None
            )
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
        similarity=name,
    )
