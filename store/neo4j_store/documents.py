"""Documents in Neo4j: ROS graphs written as Concept and Relation nodes with
their SUBJ/OBJ/LINK edges, corpus memberships, and the lookups by id, name
or path. A document stored again is updated in place: nodes it lacks go,
nodes it shares stay, so the mapping pairs linked to them survive.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import networkx as nx

from dri.graphs.ros import SCHEMA_VERSION as GRAPH_SCHEMA_VERSION
from dri.literal import storable
from dri.mapping.abstract_sentences import abstract_sentence_vectors
from dri.store.base import now, resolved_path, to_json_text
from dri.store.encoder_vectors import attach_vector, graph_json, graph_vector
from dri.store.neo4j_store.connection import Neo4jConnection
from dri.store.neo4j_store.members import settle_name
from dri.store.neo4j_store.rows import (
    DOCUMENT_PROPS,
    document_record,
    graph_rows,
    group_edges,
    returning,
    vector_props,
)
from dri.store.records import (
    DocumentRecord,
    checked_graph,
    document_input,
    member_name,
    merged_meta,
    scalar_meta,
    stored_json,
    stored_text,
    version_key,
)

__all__ = ["Neo4jDocuments"]


class Neo4jDocuments(Neo4jConnection):
    """Writing and reading documents and their graphs."""

    def put_document(
        self, corpus: str, graph: nx.DiGraph, *, meta: dict[str, Any] | None = None
    ) -> DocumentRecord:
        # First, so that the stored graph keeps them as its vector properties do.
        abstract_sentence_vectors(graph)
        fields, meta, graph_attrs = document_input(corpus, graph, meta, lambda g: graph_json(g)["graph"])
        corpus = storable(corpus)
        nodes, edges = graph_rows(graph)
        doc_id = fields["doc_id"]
        name = member_name(fields)

        def work(tx: Any) -> DocumentRecord:
            held_before = tx.run(
                "MATCH (:Corpus {name: $corpus})-[:CONTAINS {name: $name}]->(d:Document) RETURN d.id AS id",
                corpus=corpus,
                name=name,
            ).single()
            newest = self._merge_document(
                tx, corpus, graph, fields, meta, graph_attrs, [n["key"] for n in nodes]
            )
            for moved in {doc_id, *([held_before["id"]] if held_before else [])}:
                settle_name(tx, moved, corpus)
            if newest:
                self._merge_graph(tx, doc_id, nodes, edges)
            return self._document_in(tx, doc_id, name, fields["path"])

        return self._write(work)

    def _merge_document(
        self,
        tx: Any,
        corpus: str,
        graph: nx.DiGraph,
        fields: dict[str, Any],
        meta: dict[str, Any],
        graph_attrs: str,
        keys: list[str],
    ) -> bool:
        """The Document node, its membership of ``corpus`` and its Graph node;
        whether ``graph`` is the newest version stored (then the document's
        old nodes not in ``keys`` and all its edges are gone, for
        :meth:`_merge_graph` to lay anew)."""
        doc_id = fields["doc_id"]
        name = member_name(fields)
        old = tx.run(
            "MATCH (d:Document {id: $id}) RETURN d.graph_id AS graph_id, "
            "d.extractor_version AS version, d.meta AS meta",
            id=doc_id,
        ).single()
        newest = old is None or version_key(fields["extractor_version"]) >= version_key(old["version"] or "")
        merged = {**(merged_meta(old["meta"]) if old and old["meta"] else {}), **meta}
        props = {k: v for k, v in scalar_meta(merged).items() if k not in DOCUMENT_PROPS}
        props.update(meta=to_json_text(merged), updated=now())
        if newest:
            props.update(
                {
                    k: fields[k]
                    for k in ("graph_id", "kind", "extractor_version", "title", "concepts", "relations")
                }
            )
            props.update(sentences=int(graph.graph.get("sentences", 0) or 0), graph=graph_attrs)
            props.update(vector_props(graph))
            encoder = graph_vector(graph)
            if encoder is not None:  # a graph put again without its vector keeps the one stored
                props.update(encoder_vector=encoder)
        member = {k: v for k, v in scalar_meta(meta).items() if k != "meta"}
        member.update(meta=to_json_text(meta), name=name, path=fields["path"])
        tx.run(
            "MERGE (c:Corpus {name: $corpus}) "
            # The document keeps the name it was first stored under; each
            # membership (one per corpus and name) has its own.
            "MERGE (d:Document {id: $id}) SET d += $props, "
            "d.name = coalesce(d.name, $name), d.path = coalesce(d.path, $path) "
            "WITH c, d "
            "CALL (c, d) { OPTIONAL MATCH (c)-[old:CONTAINS {name: $name}]->(other) "
            "       WHERE other <> d DELETE old } "
            "MERGE (c)-[m:CONTAINS {name: $name}]->(d) SET m = $member "
            "MERGE (g:Graph {id: $graph_id}) "
            "ON CREATE SET g.extractor_version = $version, g.stored = $stored "
            "MERGE (d)-[:HAS_GRAPH]->(g) "
            # The stored graph becomes exactly this one: nodes it lacks go,
            # its edges are laid anew, and nodes it shares stay, so the
            # SOURCE/TARGET links of stored mapping pairs survive a re-put.
            "WITH d WHERE $newest "
            "CALL (d) { MATCH (d)-[:HAS_NODE]->(n) WHERE NOT n.key IN $keys DETACH DELETE n } "
            "CALL (d) { MATCH (d)-[:HAS_NODE]->()-[e:SUBJ|OBJ|LINK]->() DELETE e }",
            corpus=corpus,
            id=doc_id,
            props=props,
            member=member,
            name=name,
            path=fields["path"],
            graph_id=fields["graph_id"],
            version=fields["extractor_version"],
            stored=now(),
            newest=newest,
            keys=keys,
        ).consume()
        return newest

    def _merge_graph(
        self, tx: Any, doc_id: str, nodes: list[dict[str, Any]], edges: list[dict[str, Any]]
    ) -> None:
        """The graph's Concept and Relation nodes under the document, and their edges."""
        self._unwind(
            tx,
            "MATCH (d:Document {id: $id}) UNWIND $rows AS row "
            "MERGE (n:Concept {doc_id: $id, lemma: row.lemma}) SET n = row.props "
            "MERGE (d)-[:HAS_NODE]->(n)",
            [n for n in nodes if n["label"] == "Concept"],
            id=doc_id,
        )
        self._unwind(
            tx,
            "MATCH (d:Document {id: $id}) UNWIND $rows AS row "
            "MERGE (n:Relation {doc_id: $id, key: row.key}) SET n = row.props "
            "MERGE (d)-[:HAS_NODE]->(n)",
            [n for n in nodes if n["label"] == "Relation"],
            id=doc_id,
        )
        for (source_label, target_label, rel_type), rows in group_edges(edges).items():
            # Labels and types come from fixed sets (see graph_rows), never from data.
            self._unwind(
                tx,
                f"UNWIND $rows AS row "
                f"MATCH (a:{source_label} {{doc_id: $id, key: row.source}}) "
                f"MATCH (b:{target_label} {{doc_id: $id, key: row.target}}) "
                f"MERGE (a)-[e:{rel_type}]->(b) SET e.label = row.label, e.ord = row.ord",
                rows,
                id=doc_id,
            )

    def _document_in(self, tx: Any, doc_id: str, name: str, path: str) -> DocumentRecord:
        """The document as the membership just written names it."""
        query = "MATCH (d:Document {id: $id}) " + returning()
        record = document_record(tx.run(query, id=doc_id).single(), self.location)
        return dataclasses.replace(record, name=name, path=path)

    def is_member(self, corpus: str, name: str, doc_id: str) -> bool:
        return bool(
            self._read(
                "MATCH (:Corpus {name: $corpus})-[:CONTAINS {name: $name}]->(:Document {id: $id}) "
                "RETURN 1 LIMIT 1",
                corpus=corpus,
                name=name,
                id=doc_id,
            )
        )

    def has_graph(self, graph_id: str) -> bool:
        return bool(self._read("MATCH (g:Graph {id: $id}) RETURN 1 LIMIT 1", id=graph_id))

    def get_graph(self, doc_id: str) -> nx.DiGraph | None:
        def work(tx: Any) -> tuple[Any, list[Any], list[Any]]:
            head = tx.run(
                "MATCH (d:Document {id: $id}) RETURN d.graph AS graph, d.encoder_vector AS encoder", id=doc_id
            ).single()
            nodes = list(
                tx.run(
                    "MATCH (:Document {id: $id})-[:HAS_NODE]->(n) "
                    "RETURN n.key AS key, n.attrs AS attrs ORDER BY n.ord",
                    id=doc_id,
                )
            )
            edges = list(
                tx.run(
                    "MATCH (:Document {id: $id})-[:HAS_NODE]->(a)-[e:SUBJ|OBJ|LINK]->(b) "
                    "WHERE b.doc_id = $id "
                    "RETURN a.key AS source, b.key AS target, e.label AS label ORDER BY e.ord",
                    id=doc_id,
                )
            )
            return head, nodes, edges

        with self._errors(), self._driver.session(database=self.database) as session:
            head, nodes, edges = session.execute_read(work)
        if head is None or head["graph"] is None:
            return None
        what = f"the stored graph of document {doc_id}"
        graph = checked_graph(
            self.location,
            doc_id,
            {
                "schema_version": GRAPH_SCHEMA_VERSION,
                "graph": stored_json(self.location, what, head["graph"]),
                "nodes": [
                    {"id": r["key"], **stored_json(self.location, f"{what}, node {r['key']}", r["attrs"])}
                    for r in nodes
                ],
                "edges": [{"source": r["source"], "target": r["target"], "label": r["label"]} for r in edges],
            },
        )
        return attach_vector(graph, head["encoder"])

    def _records(self, match: str, member: bool = False, **params: Any) -> list[DocumentRecord]:
        """Documents matched by ``match`` (which binds ``d``, and ``m``, a
        CONTAINS membership, when ``member``: then named as ``m`` names them)."""
        rows = self._read(match + " " + returning(member), **params)
        return [document_record(r, self.location) for r in rows]

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        found = self._records("MATCH (d:Document {id: $id})", id=doc_id)
        return found[0] if found else None

    def _document_candidates(self, text: str, corpus: str | None) -> list[DocumentRecord]:
        params: dict[str, Any] = {"text": text, "resolved": resolved_path(text), "corpus": corpus}
        found = self._records(
            "MATCH (c:Corpus)-[m:CONTAINS]->(d:Document) WHERE ($corpus IS NULL OR c.name = $corpus) "
            "AND (d.id = $text OR m.path IN [$text, $resolved] OR m.name = $text)",
            member=True,
            **params,
        )
        if corpus is None:
            found += self._records(
                "MATCH (d:Document) WHERE d.id = $text OR d.path IN [$text, $resolved] OR d.name = $text",
                **params,
            )
        return found

    def corpora(self) -> list[str]:
        return [
            stored_text(self.location, "a corpus's name", r["name"])
            for r in self._read("MATCH (c:Corpus) RETURN c.name AS name ORDER BY name")
        ]

    def documents(self, corpus: str) -> list[DocumentRecord]:
        return self._records(
            "MATCH (:Corpus {name: $corpus})-[m:CONTAINS]->(d:Document)", member=True, corpus=corpus
        )
