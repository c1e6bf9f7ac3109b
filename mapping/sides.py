"""One graph of a mapping as index lists and arrays (:class:`Side`).

The mapper works on integers, not node ids: relations and concepts are
numbered in natural node-id order (``r:2`` before ``r:10``), each relation
knows the index of its subject and object (a concept for an order-1
relation, a relation for an order-2 one), and each node the relations it is
an argument of. :meth:`Side.arrays` gives the same as numpy arrays for
scoring many pairs at once (:mod:`mapping.seeds`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.valence import relation_valences

__all__ = ["Side", "SideArrays", "Signature"]

#: A relation's type: (order, has a subject, has an object, subject is object).
Signature = tuple[int, bool, bool, bool]

_NUMBER = re.compile(r"(\d+)")


def _natural(node: Any) -> tuple[str | int, ...]:
    text = str(node)
    if text.startswith("r:") and text[2:].isdigit():  # the common case, fast
        return ("r:", int(text[2:]))
    return tuple(int(part) if part.isdigit() else part for part in _NUMBER.split(text))


@dataclass(frozen=True)
class SideArrays:
    """Arguments by relation and argument counts by node, as arrays (see :class:`Side`)."""

    subj: np.ndarray
    obj: np.ndarray
    order: np.ndarray
    n_subj: np.ndarray  # concept -> how many order-1 relations have it as subject
    n_obj: np.ndarray
    n_rsubj: np.ndarray  # relation -> how many order-2 relations have it as subject
    n_robj: np.ndarray


@dataclass
class Side:
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
    signature: list[Signature]
    reachable_concepts: int = 0
    _arrays: SideArrays | None = None
    _valence: list[int] | None = None

    def valence(self) -> list[int]:
        """The valence sign (-1, 0, 1) of each relation (:func:`mapping.valence.relation_valences`)."""
        if self._valence is None:
            objects = [
                self.con_lemma[o] if order == 1 and o >= 0 else None for o, order in zip(self.obj, self.order)
            ]
            self._valence = relation_valences(self.rel_lemma, objects, self.order)
        return self._valence

    def arrays(self) -> SideArrays:
        """The same graph as numpy arrays, for scoring many pairs at once."""
        if self._arrays is None:
            self._arrays = SideArrays(
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
    def of(cls, g: nx.DiGraph) -> Side:
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
