"""An upper bound on the Analogy Similarity of two graphs, without mapping them.

Stage 2 of analogy search (:mod:`flows.search`) maps the candidates of stage
1 in order and may skip every candidate whose AS cannot reach the ``k``-th
best found so far; :func:`analogy_bound` says how high a candidate's AS can
be, from what can map at all:

* a relation maps only onto a relation of the same type (order, arguments)
  whose label is identical or at least the profile's ``relation_floor``
  similar -- the mapper's own test, on the same label matrix
  (:class:`mapping.matrices.LabelMatrix`);
* a concept maps as an argument of a mapped relation pair or, under a
  profile with loose concepts, on its own.

Under the paper's AS (Jaccard x semantic, semantic at most 1) the bound is the
Jaccard of the most pairs that could map: a maximum matching of the
relations by type, plus at most the concepts that are arguments of mappable
relations. Under the weighted Jaccard (``sme``) every mapped pair's evidence
(:func:`mapping.evaluation.structural_evaluation`) is at most, on each side,
its label similarity times the largest arc and connectivity factors its node
can get, plus the trickle-down of the largest evidence its mappable parents
can get (similarity 1, valence matched, every argument shared); so the
mapping's evaluation is at most a maximum-weight matching of the relations
under these weights plus a pairing of the concepts by theirs, and the weighted
Jaccard is increasing in the evaluation. Both bounds are admissible (never
below the real AS; checked on the AnaloBench story bank and the CSFCube
pools in ``bench/bench_bound.py``, and on random graphs in the tests).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from dri.mapping.evaluation import structural_evaluation
from dri.mapping.mapper import SIMILARITIES
from dri.mapping.matrices import LabelMatrix
from dri.mapping.profiles import Profile, get_profile
from dri.mapping.sides import Side
from dri.mapping.wordnet import similarity_functions

__all__ = ["BoundSide", "analogy_bound"]

#: Added to a bound (relative and absolute) so that a sum taken in another
#: order than the mapper's never puts the bound a rounding error below the AS.
_MARGIN = 1e-9
#: Largest relation matching solved exactly (source x target relations);
#: above it relations pair by type only, which is still a bound.
_ASSIGNMENT_LIMIT = 250_000


class BoundSide:
    """One graph as the bound needs it; built once per graph (the target of a
    search is reused against every candidate)."""

    def __init__(self, graph: nx.DiGraph, profile: Profile):
        self.side = Side.of(graph)
        self.nodes = graph.number_of_nodes()
        self.profile = profile
        self.evaluation = structural_evaluation(self.side, None, None, _one, _one, profile)


def _one(_a: int, _b: int) -> float:
    return 1.0


def analogy_bound(
    source: nx.DiGraph | BoundSide,
    target: nx.DiGraph | BoundSide,
    profile: str | Profile | None = None,
) -> float:
    """An upper bound on ``compare(source, target, profile=profile)``'s Analogy Similarity."""
    prof = get_profile(profile)
    s = source if isinstance(source, BoundSide) else BoundSide(source, prof)
    t = target if isinstance(target, BoundSide) else BoundSide(target, prof)
    sim = _relation_similarity(s.side, t.side, prof)
    ok = sim > 0.0
    if prof.score == "weighted":
        mapped = _evaluation_bound(s.side, t.side, sim, ok, prof)
        whole = s.evaluation + t.evaluation - mapped
        value = mapped / whole if np.isfinite(mapped) and whole > 0 else 1.0
    else:
        pairs = _pairs_bound(s.side, t.side, ok)
        union = s.nodes + t.nodes - pairs
        value = pairs / union if union > 0 else 1.0
    return min(1.0, value * (1.0 + _MARGIN) + _MARGIN)


def _relation_similarity(s: Side, t: Side, prof: Profile) -> np.ndarray:
    """Source x target relations: the label similarity of each pair that may map
    (same type, tiered identicality), 0 where it may not. Without a floor, or
    where the label matrix is too big, every pair of one type may map at 1."""
    same_type = np.array([[a == b for b in t.signature] for a in s.signature], dtype=bool).reshape(
        len(s.relations), len(t.relations)
    )
    if prof.relation_floor <= 0.0 or not len(s.relations) or not len(t.relations):
        return same_type.astype(float)
    similarity, _ = similarity_functions(SIMILARITIES[prof.similarity])
    labels = LabelMatrix(s, t, SIMILARITIES[prof.similarity], similarity, prof.relation_meaning)
    if not labels.usable:
        return same_type.astype(float)
    values = labels.matrix()[np.ix_(labels.id_s, labels.id_t)].astype(float)
    identical = np.array([[a == b for b in t.rel_lemma] for a in s.rel_lemma], dtype=bool).reshape(
        values.shape
    )
    values[identical] = 1.0
    values[values < prof.relation_floor - 1e-12] = 0.0
    values[~same_type] = 0.0
    return values


def _pairs_bound(s: Side, t: Side, ok: np.ndarray) -> int:
    """The most node pairs a mapping can have: relations matched by type, and
    concepts that are arguments of mappable relations (two per relation pair at most)."""
    relations = _matching_size(ok)
    arguments = [
        {
            a
            for i in np.flatnonzero(mappable)
            if side.order[i] == 1
            for a in (side.subj[i], side.obj[i])
            if a >= 0
        }
        for side, mappable in ((s, ok.any(axis=1)), (t, ok.any(axis=0)))
    ]
    return relations + min(len(arguments[0]), len(arguments[1]), 2 * relations)


def _matching_size(ok: np.ndarray) -> int:
    if not ok.size:
        return 0
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    matched = maximum_bipartite_matching(csr_matrix(ok.astype(np.int8)), perm_type="column")
    return int((matched >= 0).sum())


def _evaluation_bound(s: Side, t: Side, sim: np.ndarray, ok: np.ndarray, prof: Profile) -> float:
    """An upper bound on the structural evaluation of any mapping of ``s`` onto ``t``.

    Each relation pair's evidence is at most its similarity times the largest
    arc and connectivity factors plus the largest trickle from its parents, on
    either side (``weights``). A mapped order-1 relation pair forces its
    argument pairs, which are one to one: so its evidence and the trickle it
    passes down are shared out over the concept pairs of its arguments, and
    the evaluation is at most a maximum-weight matching of the concepts under
    those shares and the concepts' own local scores, plus a matching of the
    relations that have no concept argument.
    """
    best_s = sim.max(axis=1) if sim.size else np.zeros(len(s.relations))
    best_t = sim.max(axis=0) if sim.size else np.zeros(len(t.relations))
    fs, ts = _node_bounds(s, best_s, prof)
    ft, tt = _node_bounds(t, best_t, prof)
    weights = np.minimum(sim * fs[:, None] + ts[:, None], sim * ft[None, :] + tt[None, :])
    weights[~ok] = 0.0
    arguments = [
        len({a for a in (s.subj[i], s.obj[i]) if a >= 0}) if s.order[i] == 1 else 0
        for i in range(len(s.relations))
    ]
    shares = np.array([1.0 / n + prof.trickle if n else 0.0 for n in arguments])
    concepts = _concept_weights(s, t, (weights * shares[:, None]).tolist(), prof)
    rest = np.array([n == 0 for n in arguments], dtype=bool)
    others = weights.copy()
    others[~rest] = 0.0
    return _matching_weight(concepts) + _matching_weight(others)


def _roles(side: Side) -> list[dict[int, int]]:
    """Per concept: the order-1 relations it is an argument of, with its role (1 subject, 2 object, 3 both)."""
    roles: list[dict[int, int]] = [{} for _ in side.concepts]
    for a in range(len(side.concepts)):
        for i in side.subj_of[a]:
            roles[a][i] = roles[a].get(i, 0) | 1
        for i in side.obj_of[a]:
            roles[a][i] = roles[a].get(i, 0) | 2
    return roles


def _concept_weights(s: Side, t: Side, shares: list[list[float]], prof: Profile) -> np.ndarray:
    """Source x target concepts: the most evidence a concept pair can bring, its own
    local score and the shares of the relation pairs whose arguments it can be
    (those relations one to one, in the same role: bounded by pairing the
    largest share of each)."""
    roles_s, roles_t = _roles(s), _roles(t)
    out = np.zeros((len(s.concepts), len(t.concepts)))
    loose = prof.concept_weight * prof.loose_concepts
    for a, mine in enumerate(roles_s):
        for b, theirs in enumerate(roles_t):
            rows: dict[int, float] = {}
            cols: dict[int, float] = {}
            for i, role in mine.items():
                row = shares[i]
                for k, other in theirs.items():
                    value = row[k]
                    if role & other and value > 0.0:
                        rows[i] = max(rows.get(i, 0.0), value)
                        cols[k] = max(cols.get(k, 0.0), value)
            if rows:
                out[a, b] = prof.concept_weight + _sorted_pairing(
                    np.fromiter(rows.values(), float), np.fromiter(cols.values(), float)
                )
            elif loose and s.con_pos[a] == t.con_pos[b]:
                out[a, b] = loose
    return out


def _node_bounds(side: Side, best: np.ndarray, prof: Profile) -> tuple[np.ndarray, np.ndarray]:
    """Per relation: the largest local factor (arcs x connectivity) and the
    largest trickle-down from its parents. Only relations with a possible
    partner (``best`` > 0) count."""
    n = len(side.relations)
    mappable = best > 0.0
    uses = [0] * len(side.concepts)
    for r in np.flatnonzero(mappable).tolist():
        if side.order[r] == 1:
            for a in {side.subj[r], side.obj[r]}:
                if a >= 0:
                    uses[a] += 1
    valence = side.valence() if prof.valence else [0] * n
    factor = np.ones(n)
    for i in range(n):
        arcs = 1.0
        if prof.valence:
            if side.order[i] == 1:
                arcs = 1.0 + prof.valence if valence[i] != 0 else 1.0
            else:
                both = all(a >= 0 and valence[a] != 0 for a in (side.subj[i], side.obj[i]))
                arcs = 1.0 + prof.valence if both else 1.0
        if side.order[i] == 1 and prof.connectivity:
            shared = sum(1 for a in {side.subj[i], side.obj[i]} if a >= 0 and uses[a] > 1)
            arcs *= 1.0 + prof.connectivity * shared
        factor[i] = arcs
    most = _most_evidence(side, best * factor, mappable, prof.trickle)
    trickle = np.array(
        [
            prof.trickle * sum(most[p] for p in (*side.rsubj_of[i], *side.robj_of[i]) if mappable[p])
            for i in range(n)
        ]
    )
    return factor, trickle


def _most_evidence(side: Side, local: np.ndarray, mappable: np.ndarray, trickle: float) -> np.ndarray:
    """The largest evidence each relation can get: its largest local score plus
    ``trickle`` times the largest evidence of each mappable parent (recursively;
    infinite on a cycle of relations, which makes the bound 1)."""
    most = np.full(len(side.relations), np.nan)
    busy: set[int] = set()

    def value(i: int) -> float:
        if not np.isnan(most[i]):
            return float(most[i])
        if i in busy:
            return float("inf")
        busy.add(i)
        parents = (p for p in (*side.rsubj_of[i], *side.robj_of[i]) if mappable[p])
        result = float(local[i]) + trickle * sum(value(p) for p in parents)
        busy.discard(i)
        most[i] = result
        return result

    for i in range(len(side.relations)):
        value(i)
    return most


def _matching_weight(weights: np.ndarray) -> float:
    """The maximum weight of a one-to-one matching of rows and columns; above
    :data:`_ASSIGNMENT_LIMIT` entries, the pairing of the rows' and columns'
    largest weights (larger still)."""
    if not weights.size or not (weights > 0.0).any():
        return 0.0
    if not np.isfinite(weights).all():
        return float("inf")
    if weights.size <= _ASSIGNMENT_LIMIT:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment(weights, maximize=True)
        return float(weights[rows, cols].sum())
    return _sorted_pairing(weights.max(axis=1), weights.max(axis=0))


def _sorted_pairing(a: np.ndarray, b: np.ndarray) -> float:
    """The most a one-to-one pairing can sum of ``min(a_i, b_j)``: both sorted, largest first."""
    n = min(len(a), len(b))
    if not n:
        return 0.0
    return float(np.minimum(np.sort(a)[::-1][:n], np.sort(b)[::-1][:n]).sum())
