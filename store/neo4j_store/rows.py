"""Graphs and documents as the rows the Cypher statements take and give:
nodes and edges for ``UNWIND $rows``, content vectors, document records.
"""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from dri.mapping.features import content_features, label_vectors
from dri.store.records import DocumentRecord, stored_json, stored_number
from dri.store.vectors import STORED_VERSION, dense_vector, pack_label_vectors, pack_sentence_rows

__all__ = [
    "DOCUMENT_PROPS",
    "document_record",
    "graph_rows",
    "group_edges",
    "returning",
    "vector_props",
]

# Graph edge labels and the relationship types that hold them; any other
# label is kept as a LINK relationship with a ``label`` property.
EDGE_TYPES = {"subj": "SUBJ", "obj": "OBJ"}
# Document properties a caller's meta may not overwrite.
DOCUMENT_PROPS = frozenset(
    {
        "id",
        "graph_id",
        "name",
        "path",
        "kind",
        "extractor_version",
        "title",
        "concepts",
        "relations",
        "sentences",
        "meta",
        "graph",
        "updated",
        "features",
        "features_version",
        "label_vectors",
        "abstract_sentences",
        "content_vector",
        "encoder_vector",
    }
)


def vector_props(graph: nx.DiGraph) -> dict[str, Any]:
    """The document properties that hold its content vector: the counts as JSON,
    their dense hashed projection for the vector index (absent when empty,
    since a zero vector has no cosine) and the clause vectors of the relation
    labels as JSON (:func:`store.vectors.pack_label_vectors`) and the vectors of its
    abstracted sentences (:func:`store.vectors.pack_sentence_rows`)."""
    features = content_features(graph)
    dense = dense_vector(features)
    packed = pack_label_vectors(label_vectors(features))
    return {
        "features": json.dumps(features, sort_keys=True),
        "features_version": STORED_VERSION,
        "content_vector": dense if any(dense) else None,
        "label_vectors": json.dumps(packed, sort_keys=True) if packed else None,
        "abstract_sentences": pack_sentence_rows(graph),
    }


def property_value(value: Any) -> Any:
    """``value`` if Neo4j can hold it as a property, else ``None`` (the full
    attributes are kept as JSON in ``attrs`` anyway)."""
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and value:
        kinds = {type(v) for v in value}
        if len(kinds) == 1 and kinds <= {str, int, float, bool}:
            return list(value)
    if isinstance(value, (list, tuple)):
        return [] if not value else None
    return None


def graph_rows(graph: nx.DiGraph) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes, labels = [], {}
    for ord_, (node, attrs) in enumerate(graph.nodes(data=True)):
        label = "Relation" if attrs.get("type") == "relation" else "Concept"
        key = str(node)
        labels[node] = label
        try:
            attrs_json = json.dumps(attrs, ensure_ascii=False)
        except (TypeError, ValueError) as err:
            raise ValueError(f"node {key!r} has attributes JSON cannot hold: {err}") from None
        props = {
            name: property_value(attrs.get(name))
            for name in (
                "type",
                "pos",
                "order",
                "entity",
                "wordnet_lemma",
                "sentences",
                "sections",
                "mentions",
            )
            if name in attrs
        }
        props = {k: v for k, v in props.items() if v is not None}
        lemma = str(attrs.get("lemma", key))
        props.update(doc_id=str(graph.graph["doc_id"]), key=key, lemma=lemma, ord=ord_, attrs=attrs_json)
        nodes.append({"label": label, "key": key, "lemma": lemma, "props": props})
    edges = []
    for ord_, (u, v, label) in enumerate(graph.edges(data="label")):
        edges.append(
            {
                "source": str(u),
                "target": str(v),
                "source_label": labels[u],
                "target_label": labels[v],
                "type": EDGE_TYPES.get(label, "LINK"),
                "label": label,
                "ord": ord_,
            }
        )
    return nodes, edges


def group_edges(edges: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for e in edges:
        groups.setdefault((e["source_label"], e["target_label"], e["type"]), []).append(
            {"source": e["source"], "target": e["target"], "label": e["label"], "ord": e["ord"]}
        )
    return groups


def returning(member: bool = False) -> str:
    """The RETURN clause of document records; names, paths and meta from the
    membership ``m`` when ``member``."""
    owner = "m" if member else "d"
    return (
        f"RETURN d.id AS doc_id, d.graph_id AS graph_id, {owner}.name AS name, {owner}.path AS path, "
        "d.kind AS kind, d.extractor_version AS extractor_version, d.title AS title, d.concepts AS concepts, "
        "d.relations AS relations, "
        "COLLECT { MATCH (c:Corpus)-[:CONTAINS]->(d) RETURN DISTINCT c.name AS name ORDER BY name } AS corpora, "
        f"{owner}.meta AS meta ORDER BY name, doc_id"
    )


def document_record(row: Any, where: str) -> DocumentRecord:
    """A document record from its row of the store at ``where``; a damaged
    node is a :class:`dri.store.records.DamagedRow` naming it."""
    what = f"document {row['doc_id']}"
    return DocumentRecord(
        doc_id=row["doc_id"],
        graph_id=row["graph_id"] or "",
        name=row["name"] or "",
        path=row["path"] or "",
        kind=row["kind"] or "",
        extractor_version=row["extractor_version"] or "",
        title=row["title"] or "",
        concepts=int(stored_number(where, f"{what}, concepts", row["concepts"] or 0)),
        relations=int(stored_number(where, f"{what}, relations", row["relations"] or 0)),
        corpora=tuple(row["corpora"]),
        meta=stored_json(where, f"{what}, meta", row["meta"] or "{}"),
    )
