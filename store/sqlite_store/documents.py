"""Documents in SQLite: each graph version kept whole as JSON, corpus
memberships, and the lookups by id, name or path.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx

from dri.literal import storable
from dri.mapping.content import graph_text
from dri.store.base import now, resolved_path, to_json_text
from dri.store.encoder_vectors import attach_vector, graph_json, graph_vector, vector_blob
from dri.store.records import (
    DocumentRecord,
    document_input,
    member_name,
    merged_meta,
    stored_graph,
    stored_text,
    version_key,
)
from dri.store.sqlite_store.connection import SQLiteConnection
from dri.store.sqlite_store.members import settle_name
from dri.store.sqlite_store.rows import DOC_COLUMNS, document
from dri.store.vectors import encode_features

__all__ = ["SQLiteDocuments"]


#: Document ids per ``IN (...)`` of one query (SQLite takes at most 32,766 parameters).
_IN_CHUNK = 500


class SQLiteDocuments(SQLiteConnection):
    """Writing and reading documents and their graphs."""

    def put_document(
        self, corpus: str, graph: nx.DiGraph, *, meta: dict[str, Any] | None = None
    ) -> DocumentRecord:
        # First: the features compute the abstracted sentences' vectors if the graph has
        # none yet, and the stored graph keeps them too (the mapper reads them there).
        features = encode_features(graph)
        fields, meta, data = document_input(corpus, graph, meta, graph_json)
        corpus = storable(corpus)
        encoder = vector_blob(graph_vector(graph))
        stamp = now()
        with self._write() as db:
            old = db.execute(
                "SELECT extractor_version, meta FROM documents WHERE doc_id = ?", (fields["doc_id"],)
            ).fetchone()
            merged = {**merged_meta(old[1]), **meta} if old else meta
            newest = old is None or version_key(fields["extractor_version"]) >= version_key(old[0])
            db.execute("INSERT OR IGNORE INTO corpora (name) VALUES (?)", (corpus,))
            if old is None:
                db.execute(
                    f"INSERT INTO documents ({DOC_COLUMNS}, meta, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (*(fields[k] for k in DOC_COLUMNS.split(", ")), to_json_text(merged), stamp),
                )
            elif newest:
                # The document keeps the name and path it was first stored under;
                # each membership has its own (below).
                db.execute(
                    "UPDATE documents SET graph_id=?, kind=?, extractor_version=?, title=?, "
                    "concepts=?, relations=?, meta=?, updated=? WHERE doc_id=?",
                    (
                        *(fields[k] for k in DOC_COLUMNS.split(", ")[1:] if k not in ("name", "path")),
                        to_json_text(merged),
                        stamp,
                        fields["doc_id"],
                    ),
                )
            else:
                db.execute(
                    "UPDATE documents SET meta=?, updated=? WHERE doc_id=?",
                    (to_json_text(merged), stamp, fields["doc_id"]),
                )
            held_before = db.execute(
                "SELECT doc_id FROM members WHERE corpus = ? AND name = ?", (corpus, member_name(fields))
            ).fetchone()
            db.execute(
                "INSERT INTO members (corpus, name, doc_id, path, meta) VALUES (?,?,?,?,?) "
                "ON CONFLICT (corpus, name) DO UPDATE SET "
                "doc_id = excluded.doc_id, path = excluded.path, meta = excluded.meta",
                (corpus, member_name(fields), fields["doc_id"], fields["path"], to_json_text(meta)),
            )
            for moved in {fields["doc_id"], *(held_before or ())}:
                settle_name(db, moved, corpus)
            db.execute(
                "INSERT INTO graphs (graph_id, doc_id, extractor_version, data, stored, features, encoder) "
                "VALUES (?,?,?,?,?,?,?) "
                "ON CONFLICT (graph_id) DO UPDATE SET data = excluded.data, features = excluded.features, "
                # A graph put again without its vector keeps the one stored.
                "encoder = coalesce(excluded.encoder, graphs.encoder)",
                (
                    fields["graph_id"],
                    fields["doc_id"],
                    fields["extractor_version"],
                    data,
                    stamp,
                    features,
                    encoder,
                ),
            )
        return self._member(corpus, member_name(fields))  # type: ignore[return-value]

    def _member(self, corpus: str, name: str) -> DocumentRecord | None:
        found = self._records(
            "doc_id IN (SELECT doc_id FROM members WHERE corpus = ? AND name = ?)",
            (corpus, name),
            member=(corpus, name),
        )
        return found[0] if found else None

    def is_member(self, corpus: str, name: str, doc_id: str) -> bool:
        return bool(
            self._query(
                "SELECT 1 FROM members WHERE corpus = ? AND name = ? AND doc_id = ?", (corpus, name, doc_id)
            )
        )

    def has_graph(self, graph_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM graphs WHERE graph_id = ?", (graph_id,)))

    def get_graph(self, doc_id: str) -> nx.DiGraph | None:
        rows = self._query(
            "SELECT extractor_version, stored, data, encoder FROM graphs WHERE doc_id = ?", (doc_id,)
        )
        if not rows:
            return None
        latest = max(rows, key=lambda r: (version_key(r[0]), r[1]))
        return attach_vector(stored_graph(self.location, doc_id, latest[2]), latest[3])

    def document_texts(self, doc_ids: Iterable[str]) -> dict[str, tuple[str, list[float] | None]]:
        """As :meth:`Store.document_texts`: the text read out of the graph's JSON by
        SQLite, not through the whole graph (1.6 ms a 30-sentence story); a graph
        stored without its text is read whole, as its clauses make its text."""
        wanted = list(dict.fromkeys(doc_ids))
        latest: dict[str, tuple[Any, ...]] = {}
        for start in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[start : start + _IN_CHUNK]
            rows = self._query(
                "SELECT doc_id, extractor_version, stored, json_extract(data, '$.graph.text'), encoder "
                f"FROM graphs WHERE doc_id IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            for row in rows:
                old = latest.get(row[0])
                if old is None or (version_key(row[1]), row[2]) > (version_key(old[1]), old[2]):
                    latest[row[0]] = row
        found = {}
        for doc_id in wanted:
            newest = latest.get(doc_id)
            if newest is None:
                continue
            text = newest[3]
            if isinstance(text, str) and text.strip():
                found[doc_id] = (text, graph_vector(attach_vector(nx.DiGraph(), newest[4])))
            elif (graph := self.get_graph(doc_id)) is not None:
                found[doc_id] = (graph_text(graph), graph_vector(graph))
        return found

    def _records(
        self, where: str, params: Sequence[Any], member: tuple[str, str] | None = None
    ) -> list[DocumentRecord]:
        """Documents matching ``where``; with ``member=(corpus, name)``, named
        and placed as that membership has them."""
        rows = self._query(
            f"SELECT {DOC_COLUMNS}, meta, "
            "(SELECT json_group_array(DISTINCT corpus) FROM (SELECT corpus FROM members m "
            " WHERE m.doc_id = documents.doc_id ORDER BY corpus)) "
            f"FROM documents WHERE {where} ORDER BY name, doc_id",
            params,
        )
        records = [document(r[:9], r[9], json.loads(r[10]), self.location) for r in rows]
        if member is not None:
            path = self._query("SELECT path FROM members WHERE corpus = ? AND name = ?", member)
            records = [
                dataclasses.replace(r, name=member[1], path=path[0][0] if path else r.path) for r in records
            ]
        return records

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        found = self._records("doc_id = ?", (doc_id,))
        return found[0] if found else None

    def _document_candidates(self, text: str, corpus: str | None) -> list[DocumentRecord]:
        # Every membership whose name or path matches, named as that membership
        # has it, and documents matched by id (named as first stored).
        resolved = resolved_path(text)
        rows = self._query(
            "SELECT corpus, name FROM members WHERE (doc_id = ? OR path IN (?, ?) OR name = ?) "
            "AND (? IS NULL OR corpus = ?) ORDER BY corpus, name",
            (text, text, resolved, text, corpus, corpus),
        )
        found = [
            r
            for member in rows
            for r in self._records(
                "doc_id IN (SELECT doc_id FROM members WHERE corpus = ? AND name = ?)", member, member=member
            )
        ]
        if corpus is None:
            found += self._records("doc_id = ? OR path IN (?, ?) OR name = ?", (text, text, resolved, text))
        return found

    def corpora(self) -> list[str]:
        return [
            stored_text(self.location, "a corpus's name", r[0])
            for r in self._query("SELECT name FROM corpora ORDER BY name")
        ]

    def documents(self, corpus: str) -> list[DocumentRecord]:
        columns = ", ".join(
            {"name": "m.name", "path": "m.path"}.get(c, "d." + c) for c in DOC_COLUMNS.split(", ")
        )
        rows = self._query(
            f"SELECT {columns}, m.meta, "
            "(SELECT json_group_array(DISTINCT corpus) FROM (SELECT corpus FROM members x "
            " WHERE x.doc_id = d.doc_id ORDER BY corpus)) "
            "FROM members m JOIN documents d ON d.doc_id = m.doc_id WHERE m.corpus = ? ORDER BY m.name, d.doc_id",
            (corpus,),
        )
        return [document(r[:9], r[9], json.loads(r[10]), self.location) for r in rows]
