"""SME's structural evaluation of a mapping, and the loose concept pairs a profile may add.

:func:`structural_evaluation` scores a mapping (or a graph mapped onto itself) by
trickle-down evidence, as SME does (Falkenhainer, Forbus and Gentner 1989;
see :mod:`mapping.profiles`): each mapped pair's local score plus a share of
the evidence of the pairs it is an argument of. :func:`loose_concept_pairs` pairs
the concepts the structure leaves unmapped, most similar first.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.matrices import per_pair
from dri.mapping.profiles import Profile
from dri.mapping.search import Search
from dri.mapping.sides import Side

__all__ = ["loose_concept_pairs", "structural_evaluation"]


def structural_evaluation(
    s: Side,
    t: Side | None,
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
    ``concept_weight`` x ``con_lin`` (Lin, times its clause context under ``sme``:
    :mod:`mapping.abstract_sentences`), times ``loose_concepts`` when no mapped relation
    pair has it as an argument. The evaluation is the sum of all evidence.
    ``evidence_out``, if given, receives each mapped pair's evidence by (kind, source index): the score of that match hypothesis,
    which candidate inferences sum (:mod:`mapping.inference`).
    """
    rl: Callable[[int, int], float]
    cl: Callable[[int, int], float]
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
    order_of, subj, obj = s.order, s.subj, s.obj
    # How many mapped order-1 relations each mapped concept is an argument of.
    uses: dict[int, int] = {}
    for i in rels:
        if order_of[i] == 1:
            a, o = subj[i], obj[i]
            if a >= 0:
                uses[a] = uses.get(a, 0) + 1
            if o >= 0 and o != a:
                uses[o] = uses.get(o, 0) + 1
    evidence: dict[int, float] = {}
    total = 0.0
    arcs = _arcs(s, t or s, rels, profile.valence) if profile.valence else None
    rsubj_of, robj_of = s.rsubj_of, s.robj_of
    # Higher orders first, so a relation pair's parents are done before it.
    ranked = sorted(rels, key=lambda r: -order_of[r]) if any(order_of[i] != 1 for i in rels) else rels
    for i in ranked:
        local = rl(i, rels[i])
        if arcs is not None:
            local *= arcs(i)
        if conn and order_of[i] == 1:
            a, o = subj[i], obj[i]
            shared = (a >= 0 and uses.get(a, 0) > 1) + (o >= 0 and o != a and uses.get(o, 0) > 1)
            local *= 1.0 + conn * shared
        parents_s, parents_o = rsubj_of[i], robj_of[i]
        if parents_s or parents_o:
            local += trickle * sum(evidence.get(p, 0.0) for p in (*parents_s, *parents_o))
        # (else no support: local + trickle x 0 is local)
        evidence[i] = local
        total += local
    if evidence_out is not None:
        for i, value in evidence.items():
            evidence_out[(RELATION, i)] = value
    weight, loose = profile.concept_weight, profile.loose_concepts
    subj_of, obj_of = s.subj_of, s.obj_of
    for a, b in cons.items():
        local = weight * cl(a, b)
        if loose and not uses.get(a):
            local *= loose
        concept = local + trickle * sum(evidence.get(r, 0.0) for r in {*subj_of[a], *obj_of[a]})
        total += concept
        if evidence_out is not None:
            evidence_out[(CONCEPT, a)] = concept
    return total


def _arcs(s: Side, t: Side, rels: dict[int, int], bonus: float) -> Callable[[int], float]:
    """The factor on a mapped relation pair's local evidence for matching narrative arcs.

    An order-1 pair whose two events have the same clear valence
    (:mod:`mapping.valence`) counts 1 + ``bonus``, opposite valences 1 -
    ``bonus``; a higher-order pair (cause, before, contrast ...) whose two
    argument pairs both match in valence -- the same turn of fortune in the
    same order -- counts 1 + ``bonus``. Everything else counts 1.
    """
    vs, vt = s.valence(), t.valence()

    def matched(i: int) -> bool:
        return i >= 0 and vs[i] != 0 and vs[i] == vt[rels[i]]

    def factor(i: int) -> float:
        if s.order[i] == 1:
            a, b = vs[i], vt[rels[i]]
            if a == 0 or b == 0:
                return 1.0
            return 1.0 + bonus if a == b else 1.0 - bonus
        return 1.0 + bonus if matched(s.subj[i]) and matched(s.obj[i]) else 1.0

    return factor


def loose_concept_pairs(
    s: Side, t: Side, order: list[tuple[str, int, int]], search: Search, floor: float
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
        lin = per_pair(a * max(1, len(t.concepts)) + b, a, b, search.con_lin)
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
