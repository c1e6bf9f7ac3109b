"""Research Object Skeleton (ROS) graphs.

A ROS graph is Dr Inventor's noun-verb-noun representation of one document
(Hurley, Abgaz, Ali and O'Donoghue, EGPAI 2016, "Generating the ROS Graphs"):

* one **concept** node per distinct noun lemma in the document, matched
  case-insensitively, so that every mention of a concept is the same node;
* one **relation** node per verb occurrence; relations are never merged;
* directed edges ``subject -> relation`` labelled ``subj`` and
  ``relation -> object`` labelled ``obj``.

The graph is a plain :class:`networkx.DiGraph`, so every networkx algorithm
works on it. Node ids are stable strings: ``c:<lemma>`` for concepts and
``r:<n>`` for the n-th relation (0-based, in extraction order).

Node attributes: ``type`` (``concept`` or ``relation``), ``lemma``, ``pos``
(``n`` or ``v``), ``sentences`` (sorted sentence ids), ``sections`` (sorted
section names) and, for concepts, ``mentions`` (the surface forms the node
stands for, pronouns included once resolved). Graph attributes: ``doc_id``
(content hash of the source bytes), ``graph_id`` (hash of the source bytes
plus the extractor version), ``name``, ``extractor_version`` and
``sentences`` (the number of sentences read).

Example
-------
>>> g = new_graph("d1", name="solar")
>>> rel = add_triple(g, "sun", "attract", "planet", sentence=0)
>>> triples(g)
[('sun', 'attract', 'planet')]
>>> from_json(to_json(g)).nodes[rel]["lemma"]
'attract'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

__all__ = [
    "CONCEPT",
    "OBJ",
    "RELATION",
    "SCHEMA_VERSION",
    "SUBJ",
    "GraphSummary",
    "add_concept",
    "add_triple",
    "concept_id",
    "concept_nodes",
    "from_json",
    "load_json",
    "new_graph",
    "relation_nodes",
    "restrict_to_sections",
    "save_json",
    "summary",
    "to_json",
    "triples",
]

SCHEMA_VERSION = 1
CONCEPT = "concept"
RELATION = "relation"
SUBJ = "subj"
OBJ = "obj"


@dataclass(frozen=True)
class GraphSummary:
    concepts: int
    relations: int
    triples: int
    sentences: int

    def __str__(self) -> str:
        return (
            f"{self.concepts} concepts, {self.relations} relations, "
            f"{self.triples} triples, {self.sentences} sentences"
        )


def new_graph(doc_id: str, name: str = "", **meta: Any) -> nx.DiGraph:
    """An empty ROS graph for the document ``doc_id``."""
    g = nx.DiGraph()
    g.graph.update({"doc_id": doc_id, "name": name, "sentences": 0})
    g.graph.update(meta)
    return g


def concept_id(lemma: str) -> str:
    return f"c:{lemma.lower()}"


def _note_occurrence(attrs: dict, sentence: int | None, section: str | None) -> None:
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
    mention: str | None = None,
    sentence: int | None = None,
    section: str | None = None,
) -> str:
    """Add (or reuse) the concept node for ``lemma``; returns its node id."""
    lemma = lemma.lower()
    node = concept_id(lemma)
    if node not in g:
        g.add_node(node, type=CONCEPT, lemma=lemma, pos="n", sentences=[], sections=[], mentions=[])
    attrs = g.nodes[node]
    _note_occurrence(attrs, sentence, section)
    if mention and mention not in attrs["mentions"]:
        attrs["mentions"].append(mention)
    return node


def add_triple(
    g: nx.DiGraph,
    subject: str,
    verb: str,
    obj: str,
    *,
    sentence: int | None = None,
    section: str | None = None,
    subject_mention: str | None = None,
    object_mention: str | None = None,
) -> str:
    """Add ``subject -verb-> obj`` with a new relation node; returns its id."""
    s = add_concept(g, subject, mention=subject_mention or subject, sentence=sentence, section=section)
    o = add_concept(g, obj, mention=object_mention or obj, sentence=sentence, section=section)
    # A counter rather than a count of relation nodes keeps ids unique after deletions.
    index = g.graph.get("next_relation", 0)
    g.graph["next_relation"] = index + 1
    rel = f"r:{index}"
    g.add_node(rel, type=RELATION, lemma=verb.lower(), pos="v", sentences=[], sections=[])
    _note_occurrence(g.nodes[rel], sentence, section)
    g.add_edge(s, rel, label=SUBJ)
    g.add_edge(rel, o, label=OBJ)
    return rel


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


def triples(g: nx.DiGraph) -> list[tuple[str, str, str]]:
    """``(subject lemma, relation lemma, object lemma)`` per relation, in order."""
    out = []
    for rel in sorted(relation_nodes(g), key=lambda r: int(r.split(":", 1)[1])):
        s, o = _argument(g, rel, SUBJ), _argument(g, rel, OBJ)
        if s is not None and o is not None:
            out.append((g.nodes[s]["lemma"], g.nodes[rel]["lemma"], g.nodes[o]["lemma"]))
    return out


def summary(g: nx.DiGraph) -> GraphSummary:
    return GraphSummary(
        concepts=len(concept_nodes(g)),
        relations=len(relation_nodes(g)),
        triples=len(triples(g)),
        sentences=int(g.graph.get("sentences", 0)),
    )


def restrict_to_sections(g: nx.DiGraph, sections: Iterable[str]) -> nx.DiGraph:
    """The subgraph of relations found in ``sections`` (case-insensitive).

    Used to compare e.g. abstract plus background only, as the paper did.
    """
    wanted = {s.lower() for s in sections}
    keep: set[str] = set()
    for rel in relation_nodes(g):
        if wanted & {s.lower() for s in g.nodes[rel]["sections"]}:
            keep.add(rel)
            keep.update(g.predecessors(rel))
            keep.update(g.successors(rel))
    sub = g.subgraph(keep).copy()
    sub.graph.update(g.graph)
    sub.graph["sections"] = sorted(wanted)
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
    Path(path).write_text(json.dumps(to_json(g), ensure_ascii=False, indent=1), encoding="utf-8")


def load_json(path: str | Path) -> nx.DiGraph:
    return from_json(json.loads(Path(path).read_text(encoding="utf-8")))
