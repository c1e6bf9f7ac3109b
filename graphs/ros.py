"""Research Object Skeleton (ROS) graphs.

A ROS graph is Dr Inventor's noun-verb-noun representation of one document
(Hurley, Abgaz, Ali and O'Donoghue, EGPAI 2016, "Generating the ROS Graphs"):

* one **concept** node per distinct lemma in the document, matched
  case-insensitively, so that every mention of a concept is the same node;
* one **relation** node per verb occurrence; relations are never merged;
* directed edges ``subject -> relation`` labelled ``subj`` and
  ``relation -> object`` labelled ``obj``.

Two extensions follow ``docs/extraction.md`` (and the paper's remark that
the ROS format "was chosen to allow relationships between relations, i.e.
second-order or causal relationships"):

* a **one-argument** relation ("the wall collapsed") has a ``subj`` edge and
  no ``obj`` edge;
* a **higher-order** relation (``order=2``; lemma ``cause``, ``purpose``,
  ``before``, ``after`` or ``contrast``) links two first-order relation
  nodes: ``first relation -subj-> r -obj-> second relation``.

The graph is a plain :class:`networkx.DiGraph`, so every networkx algorithm
works on it. Node ids are stable strings: ``c:<lemma>`` for concepts and
``r:<n>`` for the n-th relation (0-based, in extraction order).

Node attributes: ``type`` (``concept`` or ``relation``), ``lemma``, ``pos``
(``n`` for noun concepts, ``a`` for adjective concepts of copular predicates,
``v`` for relations), ``sentences`` (sorted sentence ids), ``sections``
(sorted section names); for concepts ``mentions`` (the surface forms the node
stands for, pronouns included once resolved) and, for named entities and the
narrators ``i``/``we``/``you``, ``entity`` (the NER class, ``PERSON`` for
narrators) and ``wordnet_lemma`` (the WordNet noun to compare it by, e.g.
``person``); for relations ``order`` (1 or 2; missing means 1). Graph
attributes: ``doc_id`` (content hash of the source bytes), ``graph_id`` (hash
of the source bytes plus the extractor version), ``name``,
``extractor_version`` and ``sentences`` (the number of sentences read).

Example
-------
>>> g = new_graph("d1", name="solar")
>>> rel = add_triple(g, "sun", "attract", "planet", sentence=0)
>>> triples(g)
[('sun', 'attract', 'planet')]
>>> from_json(to_json(g)).nodes[rel]["lemma"]
'attract'
>>> weak = add_relation(g, "be", add_concept(g, "wall"), add_concept(g, "weak", pos="a"))
>>> _ = add_relation(g, "cause", weak, rel, order=2)
>>> higher_order_relations(g)
[('cause', ('wall', 'be', 'weak'), ('sun', 'attract', 'planet'))]
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from dri import atomic
from dri.literal import storable, storable_json

__all__ = [
    "CONCEPT",
    "HIGHER_ORDER_LEMMAS",
    "OBJ",
    "RELATION",
    "SCHEMA_VERSION",
    "SUBJ",
    "GraphSummary",
    "add_concept",
    "add_relation",
    "add_triple",
    "concept_id",
    "concept_nodes",
    "from_json",
    "higher_order_relations",
    "new_graph",
    "relation_nodes",
    "restrict_to_sections",
    "save_json",
    "summary",
    "to_json",
    "triples",
    "unary_relations",
]

SCHEMA_VERSION = 1
CONCEPT = "concept"
RELATION = "relation"
SUBJ = "subj"
OBJ = "obj"
#: The lemmas of higher-order (order 2) relations.
HIGHER_ORDER_LEMMAS = ("cause", "purpose", "before", "after", "contrast")


@dataclass(frozen=True)
class GraphSummary:
    concepts: int
    relations: int
    triples: int
    sentences: int
    unary: int = 0
    higher_order: int = 0

    def __str__(self) -> str:
        parts = [f"{self.concepts} concepts", f"{self.relations} relations", f"{self.triples} triples"]
        if self.unary:
            parts.append(f"{self.unary} one-argument")
        if self.higher_order:
            parts.append(f"{self.higher_order} higher-order")
        return ", ".join([*parts, f"{self.sentences} sentences"])


def new_graph(doc_id: str, name: str = "", **meta: Any) -> nx.DiGraph:
    """An empty ROS graph for the document ``doc_id``. Its text attributes
    (a file's name and path) are kept :func:`~dri.literal.storable`: a name
    that is not UTF-8 holds ``\\udcff`` escapes, never lone surrogates."""
    g = nx.DiGraph()
    g.graph.update({"doc_id": doc_id, "name": name, "sentences": 0})
    g.graph.update(meta)
    for key, value in g.graph.items():
        if isinstance(value, str):
            g.graph[key] = storable(value)
    return g


def concept_id(lemma: str) -> str:
    return f"c:{lemma.lower()}"


def _note_occurrence(attrs: dict[str, Any], sentence: int | None, section: str | None) -> None:
    if sentence is not None and sentence not in attrs["sentences"]:
        attrs["sentences"].append(sentence)
        attrs["sentences"].sort()
    if section and section not in attrs["sections"]:
        attrs["sections"].append(section)
        attrs["sections"].sort()


def add_concept(
    g: nx.DiGraph,
    lemma: str,
    *,
    pos: str = "n",
    entity: str | None = None,
    wordnet_lemma: str | None = None,
    mention: str | None = None,
    sentence: int | None = None,
    section: str | None = None,
) -> str:
    """Add (or reuse) the concept node for ``lemma``; returns its node id.

    A node keeps the ``pos`` it was created with (a noun and an adjective of
    the same spelling share the node ``c:<lemma>``); ``entity`` and
    ``wordnet_lemma`` are set by the first mention that has them.
    """
    lemma = lemma.lower()
    node = concept_id(lemma)
    if node not in g:
        g.add_node(node, type=CONCEPT, lemma=lemma, pos=pos, sentences=[], sections=[], mentions=[])
    attrs = g.nodes[node]
    if entity and "entity" not in attrs:
        attrs["entity"] = entity
        if wordnet_lemma:
            attrs["wordnet_lemma"] = wordnet_lemma
    _note_occurrence(attrs, sentence, section)
    if mention and mention not in attrs["mentions"]:
        attrs["mentions"].append(mention)
    return node


def add_relation(
    g: nx.DiGraph,
    lemma: str,
    subject: str,
    obj: str | None = None,
    *,
    order: int = 1,
    sentence: int | None = None,
    section: str | None = None,
) -> str:
    """Add a relation node between existing nodes; returns its id.

    ``subject`` and ``obj`` are node ids: concepts for ``order=1``, relations
    for ``order=2``. ``obj=None`` makes a one-argument relation.
    """
    # A counter rather than a count of relation nodes keeps ids unique after deletions.
    index = g.graph.get("next_relation", 0)
    g.graph["next_relation"] = index + 1
    rel = f"r:{index}"
    g.add_node(rel, type=RELATION, lemma=lemma.lower(), pos="v", order=order, sentences=[], sections=[])
    _note_occurrence(g.nodes[rel], sentence, section)
    g.add_edge(subject, rel, label=SUBJ)
    if obj is not None:
        g.add_edge(rel, obj, label=OBJ)
    return rel


def add_triple(
    g: nx.DiGraph,
    subject: str,
    verb: str,
    obj: str | None,
    *,
    sentence: int | None = None,
    section: str | None = None,
    subject_mention: str | None = None,
    object_mention: str | None = None,
) -> str:
    """Add ``subject -verb-> obj`` (noun concepts by lemma) with a new relation
    node; ``obj=None`` gives a one-argument relation. Returns the relation id."""
    s = add_concept(g, subject, mention=subject_mention or subject, sentence=sentence, section=section)
    o = None
    if obj is not None:
        o = add_concept(g, obj, mention=object_mention or obj, sentence=sentence, section=section)
    return add_relation(g, verb, s, o, sentence=sentence, section=section)


def concept_nodes(g: nx.DiGraph) -> list[str]:
    return [n for n, t in g.nodes(data="type") if t == CONCEPT]


def relation_nodes(g: nx.DiGraph) -> list[str]:
    return [n for n, t in g.nodes(data="type") if t == RELATION]


def _argument(g: nx.DiGraph, rel: str, label: str) -> str | None:
    if label == SUBJ:
        edges = g.in_edges(rel, data="label")
        return next((u for u, _, lab in edges if lab == SUBJ), None)
    edges = g.out_edges(rel, data="label")
    return next((v for _, v, lab in edges if lab == OBJ), None)


def _order(g: nx.DiGraph, rel: str) -> int:
    return int(g.nodes[rel].get("order", 1))


def _in_order(g: nx.DiGraph, order: int) -> list[str]:
    rels = [r for r in relation_nodes(g) if _order(g, r) == order]
    return sorted(rels, key=lambda r: int(r.split(":", 1)[1]))


def _statement(g: nx.DiGraph, rel: str) -> tuple[str, str, str | None] | None:
    s, o = _argument(g, rel, SUBJ), _argument(g, rel, OBJ)
    if s is None:
        return None
    return (g.nodes[s]["lemma"], g.nodes[rel]["lemma"], None if o is None else g.nodes[o]["lemma"])


def triples(g: nx.DiGraph) -> list[tuple[str, str, str]]:
    """``(subject lemma, relation lemma, object lemma)`` per first-order
    relation with both arguments, in order."""
    out = []
    for rel in _in_order(g, 1):
        found = _statement(g, rel)
        if found is not None:
            subject, relation, obj = found
            if obj is not None:
                out.append((subject, relation, obj))
    return out


def unary_relations(g: nx.DiGraph) -> list[tuple[str, str]]:
    """``(subject lemma, relation lemma)`` per one-argument relation, in order."""
    out = []
    for rel in _in_order(g, 1):
        found = _statement(g, rel)
        if found is not None and found[2] is None:
            out.append(found[:2])
    return out


def higher_order_relations(
    g: nx.DiGraph,
) -> list[tuple[str, tuple[str, str, str | None], tuple[str, str, str | None]]]:
    """``(lemma, first statement, second statement)`` per order-2 relation, in
    order; a statement is ``(subject, relation, object or None)``."""
    out = []
    for rel in _in_order(g, 2):
        first, second = _argument(g, rel, SUBJ), _argument(g, rel, OBJ)
        if first is None or second is None:
            continue
        a, b = _statement(g, first), _statement(g, second)
        if a is not None and b is not None:
            out.append((g.nodes[rel]["lemma"], a, b))
    return out


def summary(g: nx.DiGraph) -> GraphSummary:
    return GraphSummary(
        concepts=len(concept_nodes(g)),
        relations=len(relation_nodes(g)),
        triples=len(triples(g)),
        sentences=int(g.graph.get("sentences", 0)),
        unary=len(unary_relations(g)),
        higher_order=len(_in_order(g, 2)),
    )


def restrict_to_sections(g: nx.DiGraph, sections: Iterable[str]) -> nx.DiGraph:
    """The subgraph of relations found in ``sections`` (case-insensitive).

    Used to compare e.g. abstract plus background only, as the paper did.
    """
    wanted = {s.lower() for s in sections}
    keep: set[str] = set()

    def take(rel: str) -> None:
        keep.add(rel)
        keep.update(n for n in nx.all_neighbors(g, rel) if g.nodes[n].get("type") == CONCEPT)

    for rel in relation_nodes(g):
        if wanted & {s.lower() for s in g.nodes[rel]["sections"]}:
            take(rel)
            if _order(g, rel) == 2:
                # A higher-order relation needs its argument relations (and theirs).
                for arg in (_argument(g, rel, SUBJ), _argument(g, rel, OBJ)):
                    if arg is not None:
                        take(arg)
    sub = g.subgraph(keep).copy()
    sub.graph.update(g.graph)
    sub.graph["sections"] = sorted(wanted)
    # The text and its encoder vectors are the whole document's: the content of
    # the sections is then read back from their clauses (mapping/content.py).
    for attribute in ("text", "encoder_vector", "encoder_sentences"):
        sub.graph.pop(attribute, None)
    return sub


def to_json(g: nx.DiGraph) -> dict[str, Any]:
    """A JSON-ready dict with the schema version; inverse of :func:`from_json`."""
    return {
        "schema_version": SCHEMA_VERSION,
        "graph": dict(g.graph),
        "nodes": [{"id": n, **attrs} for n, attrs in g.nodes(data=True)],
        "edges": [{"source": u, "target": v, "label": lab} for u, v, lab in g.edges(data="label")],
    }


def from_json(data: dict[str, Any]) -> nx.DiGraph:
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"unsupported ROS graph schema version {version!r} (expected {SCHEMA_VERSION})")
    g = nx.DiGraph()
    g.graph.update(data.get("graph", {}))
    for node in data["nodes"]:
        attrs = dict(node)
        g.add_node(attrs.pop("id"), **attrs)
    for edge in data["edges"]:
        g.add_edge(edge["source"], edge["target"], label=edge["label"])
    return g


def save_json(g: nx.DiGraph, path: str | Path) -> None:
    # A lone surrogate (a name that is not UTF-8) is written as the text "\udcff"
    # (dri.literal.storable): the file is UTF-8 and every reader takes it.
    text = storable_json(json.dumps(to_json(g), ensure_ascii=False, indent=1))
    # Whole or not at all: `dri compare` reading it while `dri graph --out` rewrites it sees a graph.
    atomic.write_text(path, text)
