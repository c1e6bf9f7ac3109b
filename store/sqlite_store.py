"""The embedded default store: one SQLite file, no server.

Used when no Neo4j is configured, so that the README's main job runs on a
fresh machine. Graphs are kept whole, as the JSON of :func:`graphs.to_json`,
one row per graph version; documents, corpus memberships, comparisons and
mapping pairs and candidate inferences are plain tables (an inference's
arguments as JSON). The file is opened in WAL mode with a busy
timeout, so several worker processes of a flow can write to it at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import networkx as nx

from dri.graphs import from_json, to_json
from dri.store.base import Store, check_k, evaluation_id, now, resolved_path, to_json_text
from dri.store.records import (
    INFERENCE_FIELDS,
    PAIR_FIELDS,
    STORED_SCORES,
    Analogue,
    ComparisonRecord,
    DocumentRecord,
    EvaluationRecord,
    RunRecord,
    StoreError,
    clean_meta,
    document_fields,
    member_name,
    version_key,
)
from dri.store.vectors import decode_features, encode_features

__all__ = ["SCHEMA", "SQLiteStore"]

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS corpora (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    graph_id TEXT NOT NULL,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    title TEXT NOT NULL,
    concepts INTEGER NOT NULL,
    relations INTEGER NOT NULL,
    meta TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_name ON documents (name);
CREATE INDEX IF NOT EXISTS documents_path ON documents (path);
CREATE TABLE IF NOT EXISTS members (
    corpus TEXT NOT NULL REFERENCES corpora (name),
    name TEXT NOT NULL,
    doc_id TEXT NOT NULL REFERENCES documents (doc_id),
    path TEXT NOT NULL,
    meta TEXT NOT NULL,
    PRIMARY KEY (corpus, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS members_doc ON members (doc_id);
CREATE INDEX IF NOT EXISTS members_name ON members (name);
CREATE INDEX IF NOT EXISTS members_path ON members (path);
CREATE TABLE IF NOT EXISTS graphs (
    graph_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents (doc_id),
    extractor_version TEXT NOT NULL,
    data TEXT NOT NULL,
    stored TEXT NOT NULL,
    features TEXT
);
CREATE INDEX IF NOT EXISTS graphs_doc ON graphs (doc_id);
CREATE TABLE IF NOT EXISTS comparisons (
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    analogy_similarity REAL NOT NULL,
    jaccard REAL NOT NULL,
    semantic REAL NOT NULL,
    conceptual REAL NOT NULL,
    relational REAL NOT NULL,
    scores TEXT NOT NULL,
    params TEXT NOT NULL,
    created TEXT NOT NULL,
    PRIMARY KEY (source_id, target_id, run_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS comparisons_target ON comparisons (target_id);
CREATE INDEX IF NOT EXISTS comparisons_run ON comparisons (run_id);
CREATE TABLE IF NOT EXISTS pairs (
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    source_lemma TEXT NOT NULL,
    target_lemma TEXT NOT NULL,
    lin REAL NOT NULL,
    generic TEXT,
    PRIMARY KEY (source_id, target_id, run_id, idx)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pairs_generic ON pairs (generic);
CREATE TABLE IF NOT EXISTS inferences (
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    source_relation TEXT NOT NULL,
    lemma TEXT NOT NULL,
    relation_order INTEGER NOT NULL,
    text TEXT NOT NULL,
    source_text TEXT NOT NULL,
    support REAL NOT NULL,
    extrapolation REAL NOT NULL,
    arguments TEXT NOT NULL,
    PRIMARY KEY (source_id, target_id, run_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS evaluations (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    corpus TEXT NOT NULL,
    created TEXT NOT NULL,
    rows TEXT NOT NULL
);
"""

_MIGRATE_1_TO_2 = (
    """CREATE TABLE members_v2 (
        corpus TEXT NOT NULL REFERENCES corpora (name),
        name TEXT NOT NULL,
        doc_id TEXT NOT NULL REFERENCES documents (doc_id),
        path TEXT NOT NULL,
        meta TEXT NOT NULL,
        PRIMARY KEY (corpus, name)
    ) WITHOUT ROWID""",
    """INSERT OR IGNORE INTO members_v2 (corpus, name, doc_id, path, meta)
        SELECT m.corpus, COALESCE(json_extract(m.meta, '$.name'), d.name), m.doc_id,
               COALESCE(json_extract(m.meta, '$.path'), d.path), m.meta
        FROM members m JOIN documents d USING (doc_id)""",
    "DROP TABLE members",
    "ALTER TABLE members_v2 RENAME TO members",
    "UPDATE store_info SET value = '2' WHERE key = 'schema_version'",
)

_DOC_COLUMNS = "doc_id, graph_id, name, path, kind, extractor_version, title, concepts, relations"


class SQLiteStore(Store):
    """The store in one SQLite file (default ``data/dri.sqlite``)."""

    backend = "sqlite"

    def __init__(self, path: str | Path, *, timeout: float = 60.0, create: bool = True):
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        if not create and str(path) != ":memory:" and not self.path.is_file():
            raise StoreError(self.location, "no store here (it is created by the first `dri run`)")
        try:
            if (
                str(path) != ":memory:"
                and self.path.parent.is_dir()
                and not os.access(self.path.parent, os.W_OK)
            ):
                if create:  # every write would fail, one by one
                    raise StoreError(self.location, "cannot write to its folder (read-only)")
                # A read-only folder (or file system) can still be looked into.
                self._db = _read_only_connection(self.path, timeout)
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One connection shared by the threads of this process, serialised by _lock.
            self._db = sqlite3.connect(
                self.path, timeout=timeout, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._create_schema()
        except sqlite3.Error as err:
            raise StoreError(self.location, f"cannot open the SQLite store: {err}") from None
        except OSError as err:
            raise StoreError(self.location, f"cannot open the SQLite store: {err.strerror or err}") from None

    # -- plumbing --------------------------------------------------------------------

    def _create_schema(self) -> None:
        with self._lock:
            self._migrate()
            db = self._open_db()
            db.executescript(SCHEMA)
            columns = {r[1] for r in db.execute("PRAGMA table_info(graphs)")}
            if "features" not in columns:  # a store made before content vectors: filled on first search
                db.execute("ALTER TABLE graphs ADD COLUMN features TEXT")
            row = db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
            if row is None:
                db.execute(
                    "INSERT OR IGNORE INTO store_info VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                )
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(
                    self.location, f"store schema version {row[0]}, this dri reads {SCHEMA_VERSION}"
                )

    def _migrate(self) -> None:
        """Version 1 kept one membership per corpus and content, named by the
        document; version 2 keys memberships by (corpus, name), each with its
        own path. The names come from the membership's meta (the flows put
        them there), else from the document."""
        db = self._open_db()
        has_info = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_info'"
        ).fetchone()
        row = has_info and db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
        if not row or row[0] != "1":
            return
        db.execute("BEGIN IMMEDIATE")  # another process may be migrating too
        try:
            version = db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
            if version[0] == "1":
                for statement in _MIGRATE_1_TO_2:
                    db.execute(statement)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; BEGIN IMMEDIATE takes the file's write lock
        up front, so concurrent writers wait instead of failing mid-way."""
        with self._lock:
            db = self._open_db()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as err:
                raise StoreError(self.location, str(err)) from None

    def _query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            db = self._open_db()
            try:
                return db.execute(sql, params).fetchall()
            except sqlite3.Error as err:
                raise StoreError(self.location, str(err)) from None

    def _open_db(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(self.location, "the store is closed")
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- documents -------------------------------------------------------------------

    def put_document(
        self, corpus: str, graph: nx.DiGraph, *, meta: dict[str, Any] | None = None
    ) -> DocumentRecord:
        if not isinstance(corpus, str) or not corpus:
            raise ValueError("corpus must be a non-empty string")
        fields = document_fields(graph, meta)
        meta = clean_meta(meta)
        try:
            data = json.dumps(to_json(graph), ensure_ascii=False)
        except (TypeError, ValueError) as err:
            raise ValueError(f"graph {fields['doc_id']} cannot be stored as JSON: {err}") from None
        features = encode_features(graph)
        stamp = now()
        with self._write() as db:
            old = db.execute(
                "SELECT extractor_version, meta FROM documents WHERE doc_id = ?", (fields["doc_id"],)
            ).fetchone()
            merged = {**json.loads(old[1]), **meta} if old else meta
            newest = old is None or version_key(fields["extractor_version"]) >= version_key(old[0])
            db.execute("INSERT OR IGNORE INTO corpora (name) VALUES (?)", (corpus,))
            if old is None:
                db.execute(
                    f"INSERT INTO documents ({_DOC_COLUMNS}, meta, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (*(fields[k] for k in _DOC_COLUMNS.split(", ")), to_json_text(merged), stamp),
                )
            elif newest:
                # The document keeps the name and path it was first stored under;
                # each membership has its own (below).
                db.execute(
                    "UPDATE documents SET graph_id=?, kind=?, extractor_version=?, title=?, "
                    "concepts=?, relations=?, meta=?, updated=? WHERE doc_id=?",
                    (
                        *(fields[k] for k in _DOC_COLUMNS.split(", ")[1:] if k not in ("name", "path")),
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
            db.execute(
                "INSERT INTO members (corpus, name, doc_id, path, meta) VALUES (?,?,?,?,?) "
                "ON CONFLICT (corpus, name) DO UPDATE SET "
                "doc_id = excluded.doc_id, path = excluded.path, meta = excluded.meta",
                (corpus, member_name(fields), fields["doc_id"], fields["path"], to_json_text(meta)),
            )
            db.execute(
                "INSERT INTO graphs (graph_id, doc_id, extractor_version, data, stored, features) "
                "VALUES (?,?,?,?,?,?) "
                "ON CONFLICT (graph_id) DO UPDATE SET data = excluded.data, features = excluded.features",
                (fields["graph_id"], fields["doc_id"], fields["extractor_version"], data, stamp, features),
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
        rows = self._query("SELECT extractor_version, stored, data FROM graphs WHERE doc_id = ?", (doc_id,))
        if not rows:
            return None
        latest = max(rows, key=lambda r: (version_key(r[0]), r[1]))
        return from_json(json.loads(latest[2]))

    def _records(
        self, where: str, params: Sequence[Any], member: tuple[str, str] | None = None
    ) -> list[DocumentRecord]:
        """Documents matching ``where``; with ``member=(corpus, name)``, named
        and placed as that membership has them."""
        rows = self._query(
            f"SELECT {_DOC_COLUMNS}, meta, "
            "(SELECT json_group_array(DISTINCT corpus) FROM (SELECT corpus FROM members m "
            " WHERE m.doc_id = documents.doc_id ORDER BY corpus)) "
            f"FROM documents WHERE {where} ORDER BY name, doc_id",
            params,
        )
        records = [_document(r[:9], r[9], json.loads(r[10])) for r in rows]
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
        return [r[0] for r in self._query("SELECT name FROM corpora ORDER BY name")]

    def documents(self, corpus: str) -> list[DocumentRecord]:
        columns = ", ".join(
            {"name": "m.name", "path": "m.path"}.get(c, "d." + c) for c in _DOC_COLUMNS.split(", ")
        )
        rows = self._query(
            f"SELECT {columns}, m.meta, "
            "(SELECT json_group_array(DISTINCT corpus) FROM (SELECT corpus FROM members x "
            " WHERE x.doc_id = d.doc_id ORDER BY corpus)) "
            "FROM members m JOIN documents d ON d.doc_id = m.doc_id WHERE m.corpus = ? ORDER BY m.name, d.doc_id",
            (corpus,),
        )
        return [_document(r[:9], r[9], json.loads(r[10])) for r in rows]

    # -- content vectors -------------------------------------------------------------

    def content_vectors(
        self, corpus: str | None = None
    ) -> tuple[list[str], list[dict[str, float]], list[int]]:
        where, params = (
            ("", ())
            if corpus is None
            else ("JOIN members m ON m.doc_id = d.doc_id AND m.corpus = ?", (corpus,))
        )
        rows = self._query(
            "SELECT d.doc_id, g.graph_id, g.features, d.concepts + d.relations "
            "FROM documents d JOIN graphs g ON g.graph_id = d.graph_id "
            f"{where} ORDER BY d.doc_id",
            params,
        )
        ids: list[str] = []
        vectors: list[dict[str, float]] = []
        sizes: list[int] = []
        stale: list[tuple[str, str]] = []
        for doc_id, graph_id, text, size in rows:
            features = decode_features(text)
            if features is None:  # stored before content vectors, or by other features: compute once
                data = self._query("SELECT data FROM graphs WHERE graph_id = ?", (graph_id,))[0][0]
                text = encode_features(from_json(json.loads(data)))
                stale.append((text, graph_id))
                features = decode_features(text)
            ids.append(doc_id)
            vectors.append(features or {})
            sizes.append(int(size))
        if stale:
            with self._write() as db:
                db.executemany("UPDATE graphs SET features = ? WHERE graph_id = ?", stale)
        return ids, vectors, sizes

    def _vectors_state(self, corpus: str | None) -> tuple:
        return tuple(
            self._query(
                "SELECT (SELECT COUNT(*) FROM graphs), (SELECT MAX(stored) FROM graphs), "
                "(SELECT COUNT(*) FROM members), (SELECT MAX(updated) FROM documents)"
            )[0]
        )

    # -- comparisons -----------------------------------------------------------------

    def put_comparison(self, result: ComparisonRecord) -> None:
        self.put_comparisons([result])

    def put_comparisons(self, results: Sequence[ComparisonRecord]) -> None:
        with self._write() as db:
            for result in results:
                self._insert_comparison(db, result)

    def drop_comparisons(self, run_id: str, doc_ids: Iterable[str]) -> int:
        ids = sorted(set(doc_ids))
        dropped = 0
        with self._write() as db:
            # Every table keyed by a comparison (comparisons, pairs, inferences, ...).
            tables = [
                name
                for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
                if {"source_id", "target_id", "run_id"}
                <= {r[1] for r in db.execute(f'PRAGMA table_info("{name}")')}
            ]
            for start in range(0, len(ids), 400):
                chunk = ids[start : start + 400]
                marks = ", ".join("?" * len(chunk))
                for table in tables:
                    gone = db.execute(
                        f'DELETE FROM "{table}" WHERE run_id = ? AND (source_id IN ({marks}) OR target_id IN ({marks}))',
                        (run_id, *chunk, *chunk),
                    ).rowcount
                    dropped += gone if table == "comparisons" else 0
        return dropped

    def stored_pairs(self, pairs: Sequence[tuple[str, str]], run_id: str) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        pairs = list(pairs)
        # 300 pairs = 600 parameters, well under SQLite's 999-variable floor.
        for start in range(0, len(pairs), 300):
            chunk = pairs[start : start + 300]
            # A join from the asked pairs looks each one up by key; `(source_id,
            # target_id) IN (VALUES ...)` scanned the whole run (1.4 s a batch
            # at 500,000 stored pairs).
            rows = self._query(
                f"WITH asked(s, t) AS (VALUES {', '.join(['(?, ?)'] * len(chunk))}) "
                "SELECT c.source_id, c.target_id FROM asked JOIN comparisons c "
                "ON c.source_id = asked.s AND c.target_id = asked.t AND c.run_id = ?",
                (*(x for pair in chunk for x in pair), run_id),
            )
            found.update((r[0], r[1]) for r in rows)
        return found

    def _insert_comparison(self, db: sqlite3.Connection, result: ComparisonRecord) -> None:
        key = (result.source_id, result.target_id, result.run_id)
        known = {r[0] for r in db.execute("SELECT doc_id FROM documents WHERE doc_id IN (?, ?)", key[:2])}
        missing = [d for d in key[:2] if d not in known]
        if missing:
            raise StoreError(
                self.location, f"comparison of unknown document {missing[0]} (store the documents first)"
            )
        db.execute(
            f"INSERT INTO comparisons (source_id, target_id, run_id, {', '.join(STORED_SCORES)}, "
            f"scores, params, created) VALUES ({', '.join('?' * (len(STORED_SCORES) + 6))}) "
            "ON CONFLICT (source_id, target_id, run_id) DO UPDATE SET "
            + "".join(f"{f}=excluded.{f}, " for f in STORED_SCORES)
            + "scores=excluded.scores, params=excluded.params",
            (
                *key,
                *(result.scores[f] for f in STORED_SCORES),
                to_json_text(result.scores_to_store()),
                to_json_text(result.params),
                result.created or now(),
            ),
        )
        db.execute("DELETE FROM pairs WHERE source_id = ? AND target_id = ? AND run_id = ?", key)
        db.executemany(
            f"INSERT INTO pairs (source_id, target_id, run_id, idx, {', '.join(PAIR_FIELDS)}) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(*key, i, *(p[f] for f in PAIR_FIELDS)) for i, p in enumerate(result.pairs)],
        )
        db.execute("DELETE FROM inferences WHERE source_id = ? AND target_id = ? AND run_id = ?", key)
        db.executemany(
            f"INSERT INTO inferences (source_id, target_id, run_id, idx, {_INFERENCE_COLUMNS}) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(*key, i, *_inference_row(x)) for i, x in enumerate(result.inferences)],
        )

    def has_comparison(self, source_id: str, target_id: str, run_id: str) -> bool:
        return bool(
            self._query(
                "SELECT 1 FROM comparisons WHERE source_id = ? AND target_id = ? AND run_id = ?",
                (source_id, target_id, run_id),
            )
        )

    def _comparisons(self, where: str, params: Sequence[Any], pairs: bool) -> list[ComparisonRecord]:
        rows = self._query(
            f"SELECT source_id, target_id, run_id, params, scores, created FROM comparisons c WHERE {where} "
            "ORDER BY source_id, target_id, run_id",
            params,
        )
        found = [
            ComparisonRecord(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), [], r[5]) for r in rows
        ]
        if pairs and found:
            by_key = {(c.source_id, c.target_id, c.run_id): c for c in found}
            pair_rows = self._query(
                f"SELECT p.source_id, p.target_id, p.run_id, {', '.join('p.' + f for f in PAIR_FIELDS)} "
                f"FROM pairs p JOIN comparisons c USING (source_id, target_id, run_id) WHERE {where} "
                "ORDER BY p.source_id, p.target_id, p.run_id, p.idx",
                params,
            )
            for r in pair_rows:
                by_key[r[:3]].pairs.append(dict(zip(PAIR_FIELDS, r[3:])))
            inference_rows = self._query(
                f"SELECT i.source_id, i.target_id, i.run_id, "
                f"{', '.join('i.' + f for f in _INFERENCE_COLUMNS.split(', '))} "
                f"FROM inferences i JOIN comparisons c USING (source_id, target_id, run_id) WHERE {where} "
                "ORDER BY i.source_id, i.target_id, i.run_id, i.idx",
                params,
            )
            for r in inference_rows:
                by_key[r[:3]].inferences.append(_inference(r[3:]))
        return found

    def get_comparison(self, source_id: str, target_id: str, run_id: str) -> ComparisonRecord | None:
        found = self._comparisons(
            "c.source_id = ? AND c.target_id = ? AND c.run_id = ?", (source_id, target_id, run_id), pairs=True
        )
        return found[0] if found else None

    def comparisons(
        self, run_id: str | None = None, corpus: str | None = None, *, pairs: bool = False
    ) -> list[ComparisonRecord]:
        clauses, params = ["1 = 1"], []
        if run_id is not None:
            clauses.append("c.run_id = ?")
            params.append(run_id)
        if corpus is not None:
            clauses.append("c.source_id IN (SELECT doc_id FROM members WHERE corpus = ?)")
            clauses.append("c.target_id IN (SELECT doc_id FROM members WHERE corpus = ?)")
            params += [corpus, corpus]
        return self._comparisons(" AND ".join(clauses), params, pairs)

    def top_analogues(self, doc_id: str, k: int = 10, run_id: str | None = None) -> list[Analogue]:
        scores = ", ".join(STORED_SCORES)
        rows = self._query(
            f"""
            WITH candidates AS (
                SELECT target_id AS other, run_id, 'out' AS direction, {scores} FROM comparisons
                WHERE source_id = :doc AND target_id <> :doc AND (:run IS NULL OR run_id = :run)
                UNION ALL
                SELECT source_id AS other, run_id, 'in' AS direction, {scores} FROM comparisons
                WHERE target_id = :doc AND source_id <> :doc AND (:run IS NULL OR run_id = :run)
            ), best AS (
                SELECT *, ROW_NUMBER() OVER (
                    PARTITION BY other ORDER BY analogy_similarity DESC, run_id ASC, direction DESC) AS rank
                FROM candidates
            )
            SELECT b.other, COALESCE(d.name, ''), {", ".join("b." + f for f in STORED_SCORES)}, b.run_id, b.direction
            FROM best b LEFT JOIN documents d ON d.doc_id = b.other
            WHERE b.rank = 1
            ORDER BY b.analogy_similarity DESC, COALESCE(d.name, '') ASC, b.other ASC
            LIMIT :k
            """,
            {"doc": doc_id, "run": run_id, "k": check_k(k)},
        )
        return [Analogue(*r) for r in rows]

    def runs(self) -> list[RunRecord]:
        rows = self._query(
            "SELECT run_id, COUNT(*), MIN(created), MAX(created) FROM comparisons "
            "GROUP BY run_id ORDER BY MIN(created), run_id"
        )
        return [RunRecord(*r) for r in rows]

    # -- evaluations -----------------------------------------------------------------

    def save_evaluation(self, kind: str, corpus: str, rows: Sequence[dict[str, Any]]) -> str:
        rows = clean_meta({"rows": list(rows)})["rows"]
        ident = evaluation_id(kind, corpus, rows)
        with self._write() as db:
            db.execute(
                "INSERT OR IGNORE INTO evaluations (id, kind, corpus, created, rows) VALUES (?,?,?,?,?)",
                (ident, kind, corpus, now(), json.dumps(rows, ensure_ascii=False)),
            )
        return ident

    def evaluations(self, kind: str | None = None) -> list[EvaluationRecord]:
        rows = self._query(
            "SELECT id, kind, corpus, created, rows FROM evaluations "
            "WHERE (? IS NULL OR kind = ?) ORDER BY created, id",
            (kind, kind),
        )
        return [EvaluationRecord(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    # -- housekeeping ----------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        tables = (
            "corpora",
            "documents",
            "members",
            "graphs",
            "comparisons",
            "pairs",
            "inferences",
            "evaluations",
        )
        row = self._query("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {t})" for t in tables))[0]
        return dict(zip(tables, row))

    def clear(self) -> None:
        with self._write() as db:
            for table in (
                "pairs",
                "inferences",
                "comparisons",
                "graphs",
                "members",
                "corpora",
                "documents",
                "evaluations",
            ):
                db.execute(f"DELETE FROM {table}")


# The inference columns in INFERENCE_FIELDS order ("order" is an SQL keyword).
_INFERENCE_COLUMNS = ", ".join("relation_order" if f == "order" else f for f in INFERENCE_FIELDS)


def _inference_row(inference: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(to_json_text(inference[f]) if f == "arguments" else inference[f] for f in INFERENCE_FIELDS)


def _inference(row: Sequence[Any]) -> dict[str, Any]:
    return {f: json.loads(v) if f == "arguments" else v for f, v in zip(INFERENCE_FIELDS, row)}


def _document(row: Sequence[Any], meta: str, corpora: list[str]) -> DocumentRecord:
    doc_id, graph_id, name, path, kind, version, title, concepts, relations = row
    return DocumentRecord(
        doc_id,
        graph_id,
        name,
        path,
        kind,
        version,
        title,
        int(concepts),
        int(relations),
        tuple(corpora),
        json.loads(meta),
    )


def _read_only_connection(path: Path, timeout: float) -> sqlite3.Connection:
    """``path`` opened for reading, in a folder this process cannot write to.
    A WAL database needs its shared-memory file, which cannot be made there,
    so the file is then read as immutable: nobody can change it meanwhile."""
    db = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout, check_same_thread=False
    )
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.Error:
        db.close()
    return sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro&immutable=1",
        uri=True,
        timeout=timeout,
        check_same_thread=False,
        isolation_level=None,
    )
