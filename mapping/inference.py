"""Candidate inferences: what the source of an analogy suggests about its target.

An analogy is used by carrying knowledge across it. In the Structure-Mapping
Engine (SME; Falkenhainer, Forbus and Gentner 1989, "The Structure-Mapping
Engine: algorithm and examples", section 3.4) a *candidate inference* is a
source expression that is not in the mapping but is connected to it: it is
rewritten in the target's terms by replacing each mapped part with its
counterpart, and whatever has no counterpart is posited as a new entity (a
*skolem*). "The sun is more massive than the planet" and "the sun attracts
the planet", with sun -> nucleus and planet -> electron mapped, suggest "the
nucleus is more massive than the electron" for an atom text that lacks it.

On ROS graphs (one relation node per verb occurrence, see :mod:`graphs.ros`):

* every **order-1 relation** of the source that the mapping leaves out and
  that has at least one argument in the mapped structure is projected: a
  mapped argument becomes its counterpart concept, an unmapped one a new
  entity (shown ``[new: light]``);
* an **order-2 relation** (a relation between relations: ``cause``,
  ``before``, ...) that the mapping leaves out is projected when each of its
  argument relations is mapped or is itself a candidate inference;
* only the structure counts: loose concept pairs (``MappedPair.loose``,
  paired for their similarity alone) neither anchor an inference nor give an
  argument its counterpart;
* a projection that the target already states (the same label over the same
  target nodes) is dropped: it suggests nothing new; one that the source
  states several times (a relation node per occurrence) is kept once.

**Support** is SME's score of how much mapped structure stands behind an
inference (Forbus, Ferguson, Lovett and Gentner 2017, "Extending SME to
handle large-scale cognitive modeling", Cognitive Science 41(5)): the sum of
the structural evaluation scores of the match hypotheses the inference rests
on. Here a match hypothesis is a mapped pair and its score is its *evidence*
in the structural evaluation of the mapping (``MappedPair.evidence``: the
pair's local score plus the trickle-down share of the evidence of every
mapped pair it is an argument of; :func:`mapping.evaluation.structural_evaluation`).
The support of an inference is the sum of the evidence of the distinct
mapped pairs in its expression: its mapped arguments, the arguments of a
mapped argument relation (mapped with it), and, through an argument that is
itself an inference, that inference's mapped pairs. An inference anchored to
systematic structure (arguments shared by several mapped relations, under
mapped causal relations) therefore ranks above one hanging off a single
weakly similar pair, and a causal inference over two mapped relations above
either relation's own. *Extrapolation* (also SME's) is the share of the
nodes in the inference's expression that are new in the target (itself, its
unmapped arguments, nested inferences; the rest are the mapped pairs it
rests on): an order-1 inference whose arguments are both mapped has 1/3, one
with a new entity 2/3, a cause between two mapped relations 1/5.
"""

from __future__ import annotations

from collections.abc import Mapping as MappingType
from dataclasses import dataclass
from typing import Any

import networkx as nx

from dri.graphs.ros import CONCEPT, OBJ, RELATION, SUBJ
from dri.mapping.mapper import MappedPair, Mapping

__all__ = ["CandidateInference", "InferenceArgument", "candidate_inferences"]

#: The argument roles of a relation, in the order a statement reads them.
ROLES = (SUBJ, OBJ)


@dataclass(frozen=True)
class InferenceArgument:
    """One argument of a candidate inference, in the source and in the target."""

    role: str  # "subj" or "obj"
    source: str  # the source node id of the argument (a concept, or a relation for order 2)
    source_lemma: str
    target: str | None  # its mapped counterpart in the target; None when new (SME's skolem)
    target_lemma: str | None
    kind: str = CONCEPT  # "concept", or "relation" for the arguments of an order-2 inference
    #: How the argument reads in the target's terms: the counterpart's lemma, ``[new: lemma]``
    #: for a new entity, a parenthesised statement for a relation.
    phrase: str = ""
    #: The same in the source's terms: its lemma, or a parenthesised statement for a relation.
    source_phrase: str = ""

    @property
    def new(self) -> bool:
        return self.target is None


@dataclass(frozen=True)
class CandidateInference:
    """An unmapped source relation carried over into the target's terms."""

    source_relation: str  # the unmapped source relation's node id
    lemma: str  # its label
    order: int  # 1, or 2 for a relation between relations
    arguments: tuple[InferenceArgument, ...]
    support: float  # SME's support: summed evidence of the mapped pairs it rests on
    extrapolation: float = 0.0  # the share of its nodes that are new in the target
    #: The mapped source/target node ids it rests on (through nested inferences too).
    anchors: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        """The inference in the target's terms, e.g. ``electron revolve_around [new: sun]``."""
        words = {a.role: a.phrase for a in self.arguments}
        return " ".join(w for w in (words.get(SUBJ), self.lemma, words.get(OBJ)) if w)

    def source_text(self) -> str:
        """The relation as the source states it, e.g. ``planet revolve_around sun``."""
        words = {a.role: a.source_phrase or a.source_lemma for a in self.arguments}
        return " ".join(w for w in (words.get(SUBJ), self.lemma, words.get(OBJ)) if w)

    def to_dict(self) -> dict[str, object]:
        return {
            "source_relation": self.source_relation,
            "lemma": self.lemma,
            "order": self.order,
            "text": self.text(),
            "source_text": self.source_text(),
            "support": self.support,
            "extrapolation": self.extrapolation,
            "arguments": [
                {
                    "role": a.role,
                    "kind": a.kind,
                    "source": a.source,
                    "source_lemma": a.source_lemma,
                    "target": a.target,
                    "target_lemma": a.target_lemma,
                    "phrase": a.phrase,
                    "source_phrase": a.source_phrase,
                }
                for a in self.arguments
            ],
            "anchors": [list(pair) for pair in self.anchors],
        }

    @classmethod
    def from_dict(cls, data: MappingType[str, Any]) -> CandidateInference:
        """The inference back from :meth:`to_dict` or from a store (which keeps no anchors)."""
        names = InferenceArgument.__dataclass_fields__
        return cls(
            source_relation=str(data["source_relation"]),
            lemma=str(data["lemma"]),
            order=int(data.get("order") or 1),
            arguments=tuple(
                InferenceArgument(**{k: v for k, v in a.items() if k in names})
                for a in data.get("arguments") or ()
            ),
            support=float(data.get("support") or 0.0),
            extrapolation=float(data.get("extrapolation") or 0.0),
            anchors=tuple((str(a), str(b)) for a, b in data.get("anchors") or ()),
        )


def _arguments(g: nx.DiGraph, rel: str) -> dict[str, str]:
    """``{"subj": node, "obj": node}`` of a relation (the first edge of each label, as the mapper reads them)."""
    # The adjacency dicts themselves, in the order in_edges/out_edges give them: the
    # views cost ten times as much, and a whole paper asks for thousands of relations.
    out: dict[str, str] = {}
    for u, data in g._pred[rel].items():
        if data.get("label") == SUBJ:
            out[SUBJ] = u
            break
    for v, data in g._succ[rel].items():
        if data.get("label") == OBJ:
            out[OBJ] = v
            break
    return out


def _lemma(g: nx.DiGraph, node: str) -> str:
    return str(g._node[node].get("lemma", node))


def _statement(g: nx.DiGraph, rel: str) -> str:
    args = _arguments(g, rel)
    words = [_lemma(g, args[SUBJ])] if SUBJ in args else []
    words.append(_lemma(g, rel))
    if OBJ in args:
        words.append(_lemma(g, args[OBJ]))
    return "(" + " ".join(words) + ")"


def _natural(node: str) -> tuple[int, str]:
    head, _, number = node.partition(":")
    return (int(number), head) if number.isdigit() else (-1, node)


@dataclass
class _Draft:
    """An inference being built: its arguments, anchors and node counts."""

    arguments: tuple[InferenceArgument, ...]
    anchors: dict[str, MappedPair]  # source node -> mapped pair it rests on
    new: set[
        str
    ]  # its source nodes that are new in the target: itself, unmapped arguments, nested inferences

    def statement(self, lemma: str) -> str:
        words = {a.role: a.phrase for a in self.arguments}
        return " ".join(w for w in (words.get(SUBJ), lemma, words.get(OBJ)) if w)


def candidate_inferences(
    source: nx.DiGraph, target: nx.DiGraph, mapping: Mapping
) -> list[CandidateInference]:
    """The candidate inferences of ``mapping`` (source onto target), best support first.

    Ties keep the lower order first, then the source's node order. See the
    module docstring for the rules.
    """
    structure = [p for p in mapping.pairs if not p.loose]
    by_source = {p.source: p for p in structure}
    mapped_relations = {p.source for p in structure if p.kind == RELATION}
    stated: set[tuple[str, ...]] | None = None

    def already_stated(lemma: str, args: tuple[InferenceArgument, ...]) -> bool:
        nonlocal stated
        if any(a.target is None for a in args):
            return False
        if stated is None:
            stated = set()
            for rel, kind in target.nodes(data="type"):
                if kind == RELATION:
                    found = _arguments(target, rel)
                    stated.add((_lemma(target, rel), *(f"{r}={found[r]}" for r in ROLES if r in found)))
        return (lemma, *(f"{a.role}={a.target}" for a in args)) in stated

    drafts: dict[str, _Draft] = {}
    relations = sorted(
        (n for n, kind in source.nodes(data="type") if kind == RELATION and n not in mapped_relations),
        key=_natural,
    )
    for order in (1, 2):
        for rel in relations:
            if (2 if source.nodes[rel].get("order", 1) == 2 else 1) != order:
                continue
            draft = _project(source, target, rel, order, by_source, drafts)
            if draft is not None and not already_stated(_lemma(source, rel), draft.arguments):
                drafts[rel] = draft
    out = [
        CandidateInference(
            source_relation=rel,
            lemma=_lemma(source, rel),
            order=2 if source.nodes[rel].get("order", 1) == 2 else 1,
            arguments=draft.arguments,
            support=_support(draft),
            extrapolation=len(draft.new) / (len(draft.new) + len(draft.anchors)),
            anchors=tuple((p.source, p.target) for p in draft.anchors.values()),
        )
        for rel, draft in drafts.items()
    ]
    out.sort(key=lambda ci: (-ci.support, ci.order, _natural(ci.source_relation)))
    # A statement the source repeats (one relation node per occurrence) is suggested once.
    seen: set[tuple[str, ...]] = set()
    unique = []
    for ci in out:
        key = (ci.lemma, *(f"{a.role}={a.target or 'new ' + a.source}" for a in ci.arguments))
        if key not in seen:
            seen.add(key)
            unique.append(ci)
    return unique


def _support(draft: _Draft) -> float:
    total = 0.0
    for pair in draft.anchors.values():  # in a fixed order, so the float is reproducible
        total += pair.evidence
    return total


def _project(
    source: nx.DiGraph,
    target: nx.DiGraph,
    rel: str,
    order: int,
    by_source: dict[str, MappedPair],
    drafts: dict[str, _Draft],
) -> _Draft | None:
    """The projection of one unmapped source relation, or None when nothing anchors it."""
    found = _arguments(source, rel)
    if not found:
        return None
    arguments: list[InferenceArgument] = []
    anchors: dict[str, MappedPair] = {}
    new = {rel}  # the relation itself is new in the target
    for role in ROLES:
        if role not in found:
            continue
        node = found[role]
        lemma = _lemma(source, node)
        pair = by_source.get(node)
        if order == 1:
            if pair is not None and pair.kind == CONCEPT:
                anchors.setdefault(node, pair)
                arguments.append(
                    InferenceArgument(
                        role, node, lemma, pair.target, pair.target_lemma, CONCEPT, pair.target_lemma, lemma
                    )
                )
            else:
                arguments.append(
                    InferenceArgument(role, node, lemma, None, None, CONCEPT, f"[new: {lemma}]", lemma)
                )
                new.add(node)
            continue
        stated = _statement(source, node)
        if pair is not None and pair.kind == RELATION:
            anchors.setdefault(node, pair)
            for below in _arguments(source, node).values():  # mapped with it (parallel connectivity)
                if below in by_source:
                    anchors.setdefault(below, by_source[below])
            phrase = _statement(target, pair.target)
            arguments.append(
                InferenceArgument(role, node, lemma, pair.target, pair.target_lemma, RELATION, phrase, stated)
            )
        elif node in drafts:
            inner = drafts[node]
            for key, anchor in inner.anchors.items():
                anchors.setdefault(key, anchor)
            phrase = "(" + inner.statement(lemma) + ")"
            arguments.append(InferenceArgument(role, node, lemma, None, None, RELATION, phrase, stated))
            new |= inner.new
        else:
            return None  # an argument relation neither mapped nor inferred: nothing carries it over
    if not anchors:
        return None
    return _Draft(tuple(arguments), anchors, new)
