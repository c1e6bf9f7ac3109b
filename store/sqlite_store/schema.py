"""The schema: the tables and indexes (``docs/store.md`` lists them), its
version, and the migration of stores made by older versions.
"""

from __future__ import annotations

import functools
import sqlite3

from dri.store.records import StoreError
from dri.store.sqlite_store.connection import SQLiteConnection

__all__ = ["SCHEMA", "SCHEMA_VERSION", "create_schema", "refuse_no_tables", "refuse_unusable"]

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
    features TEXT,
    encoder BLOB
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
    loose INTEGER,
    evidence REAL,
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


#: The tables every store has had since the first version: one missing from a
#: store is damage (a hand-made ``DROP TABLE``), not age.
_FIRST_TABLES = frozenset(
    {"corpora", "documents", "members", "graphs", "comparisons", "pairs", "evaluations"}
)
_ADVICE = "restore the file from a backup, or move it away (the next `dri run` starts a new store)"


@functools.cache
@functools.cache
def _columns_of_schema() -> dict[str, frozenset[str]]:
    """Each table's columns as :data:`SCHEMA` makes them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return {table: _columns(db, table) for table in _tables(db)}
    finally:
        db.close()


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _columns(db: sqlite3.Connection, table: str) -> frozenset[str]:
    return frozenset(row[1] for row in db.execute(f'PRAGMA table_info("{table}")'))


def _stored_version(db: sqlite3.Connection, tables: set[str]) -> int | None:
    """The store's schema version, None for a new store (or an unreadable version)."""
    if "store_info" not in tables:
        return None
    row = db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
    return None if row is None else _version(row[0])


def _refuse_missing_tables(conn: SQLiteConnection, db: sqlite3.Connection) -> None:
    """A :class:`StoreError` for a store whose tables were dropped: made again
    empty, they lost what they held without a word. A store of this version
    lacks none of :data:`_FIRST_TABLES`; one without a version lacks all of
    them (a new store) or none (its version row deleted with a table, it was
    taken for a new store). An older store is migrated, not judged by today's
    tables."""
    tables = _tables(db)
    missing = sorted(_FIRST_TABLES - tables)
    version = _stored_version(db, tables)
    if missing and (version == SCHEMA_VERSION or (version is None and _FIRST_TABLES & tables)):
        raise StoreError(conn.location, f"damaged store: no table {', '.join(missing)}; {_ADVICE}")


def refuse_no_tables(conn: SQLiteConnection) -> None:
    """A :class:`StoreError` ("no store here") for a SQLite file without tables,
    opened to be looked into: looking must not make it a store (the tables
    were written into it, and ``dri store corpora`` said nothing)."""
    with conn._lock:
        if not _tables(conn._open_db()):
            raise StoreError(
                conn.location, "no store here (a SQLite file without tables; the first `dri run` makes one)"
            )


#: Columns a store of this version made before them lacks, added when it is
#: next opened for writing (:func:`create_schema`).
ADDED_LATER = {"graphs": {"features", "encoder"}, "pairs": {"loose", "evidence"}}


def _missing_columns(db: sqlite3.Connection, tables: set[str]) -> dict[str, set[str]]:
    """Each table's columns of :data:`SCHEMA` that the store's table lacks."""
    return {
        table: set(expected - _columns(db, table))
        for table, expected in _columns_of_schema().items()
        if table in tables
    }


def _refuse_missing_columns(conn: SQLiteConnection, db: sqlite3.Connection) -> None:
    """A :class:`StoreError` for a store whose columns were dropped (a query of one
    failed with SQLite's own ``no such column``); run once :data:`SCHEMA` made
    every table and the migrations added their columns."""
    for table, gone in _missing_columns(db, _tables(db)).items():
        if gone:
            raise StoreError(
                conn.location,
                f"damaged store: table {table} has no column {', '.join(sorted(gone))}; {_ADVICE}",
            )


def _refuse_other_versions(conn: SQLiteConnection, db: sqlite3.Connection) -> None:
    """A :class:`StoreError` for a store of a version this dri neither reads nor
    migrates, before anything is written: the tables were made first, so a
    store refused had changed (``dri store info`` too)."""
    row = (
        db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
        if "store_info" in _tables(db)
        else None
    )
    if row is not None and _version(row[0]) not in (1, SCHEMA_VERSION):
        raise StoreError(conn.location, f"store schema version {row[0]}, this dri reads {SCHEMA_VERSION}")


def refuse_unusable(conn: SQLiteConnection, *, create: bool, writable: bool) -> None:
    """The checks made before anything is written to a store file, and on a file
    opened read-only (which skipped them all: a store of version 99 was read,
    and one with a table dropped said SQLite's "no such table"): without
    ``create``, a file without tables is no store; a version this dri neither
    reads nor migrates, or tables dropped, are refused. A store of version 1
    is migrated when it is first written; read-only, it is refused."""
    with conn._lock:
        db = conn._open_db()
        if not create:
            refuse_no_tables(conn)
        _refuse_other_versions(conn, db)
        _refuse_missing_tables(conn, db)
        tables = _tables(db)
        current = _stored_version(db, tables) == SCHEMA_VERSION
        gone: dict[str, set[str]] = {}
        if current:
            # Before the WAL mode (a damaged store refused after it had changed) and read-only too.
            gone = _missing_columns(db, tables)
            dropped = {table: names - ADDED_LATER.get(table, set()) for table, names in gone.items()}
            for table, names in dropped.items():
                if names:
                    raise StoreError(
                        conn.location,
                        f"damaged store: table {table} has no column {', '.join(sorted(names))}; {_ADVICE}",
                    )
        if not writable and tables and (not current or any(gone.values())):
            raise StoreError(
                conn.location,
                f"a store of an earlier version, which a dri command that can write to it "
                f"brings up to version {SCHEMA_VERSION}; it is read-only",
            )


def create_schema(conn: SQLiteConnection) -> None:
    """The tables and indexes, after migrating a store of an older version;
    a :class:`StoreError` for a store whose columns were removed. Run on a
    store :func:`refuse_unusable` let through (its version and tables)."""
    with conn._lock:
        db = conn._open_db()
        _migrate(conn)
        db.executescript(SCHEMA)
        columns = {r[1] for r in db.execute("PRAGMA table_info(graphs)")}
        if "features" not in columns:  # a store made before content vectors: filled on first search
            db.execute("ALTER TABLE graphs ADD COLUMN features TEXT")
        if "encoder" not in columns:  # a store made before encoder vectors: they come with new graphs
            db.execute("ALTER TABLE graphs ADD COLUMN encoder BLOB")
        columns = {r[1] for r in db.execute("PRAGMA table_info(pairs)")}
        # A store made before loose pairs and evidence were kept: NULL in its pairs. Each
        # on its own (one dropped alone was "duplicate column name: evidence").
        if "loose" not in columns:
            db.execute("ALTER TABLE pairs ADD COLUMN loose INTEGER")
        if "evidence" not in columns:
            db.execute("ALTER TABLE pairs ADD COLUMN evidence REAL")
        _refuse_missing_columns(conn, db)
        row = db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
        if row is None:
            db.execute(
                "INSERT OR IGNORE INTO store_info VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        elif _version(row[0]) != SCHEMA_VERSION:
            raise StoreError(conn.location, f"store schema version {row[0]}, this dri reads {SCHEMA_VERSION}")


def _version(value: object) -> int | None:
    """The stored schema version as a number; None for one that is not (a
    hand-edited 'abc' was a ValueError of every command, exit 70)."""
    try:
        return int(str(value))
    except ValueError:
        return None


def _migrate(conn: SQLiteConnection) -> None:
    """Version 1 kept one membership per corpus and content, named by the
    document; version 2 keys memberships by (corpus, name), each with its
    own path. The names come from the membership's meta (the flows put
    them there), else from the document."""
    db = conn._open_db()
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
