"""What only the embedded SQLite store has: its default place, its file
errors and several processes writing one file."""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import sqlite3
from pathlib import Path

import pytest
from store_test_helpers import ATOM, READS, SOLAR, comparison, make_graph

from dri.errors import error_line, one_line
from dri.graphs import to_json
from dri.store import StoreError, open_store
from dri.store.records import DamagedRow
from dri.store.sqlite_store import SQLiteStore


def test_without_neo4j_settings_the_store_is_sqlite_in_the_data_folder(tmp_path, monkeypatch):
    for name in ("NEO4J_URI", "DRI_NEO4J_SECRET_BLOCK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    with open_store() as store:
        assert isinstance(store, SQLiteStore) and store.backend == "sqlite"
        assert store.location == str(tmp_path / "data" / "dri.sqlite")
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
    with open_store(str(tmp_path / "data" / "dri.sqlite")) as again:
        assert again.corpora() == ["c"]


@pytest.mark.parametrize("login", ["user:s3cret-never-shown", ":s3cret-never-shown", "s3cret-never-shown"])
def test_a_sqlite_uri_with_a_login_is_refused_without_showing_it(tmp_path, login):
    uri = f"sqlite://{login}@{tmp_path / 'x.sqlite'}"
    with pytest.raises(StoreError, match="takes no user or password") as err:
        open_store(uri)
    assert "s3cret" not in str(err.value) and str(tmp_path / "x.sqlite") in str(err.value)
    assert not (tmp_path / "x.sqlite").exists()


def test_a_file_that_is_not_a_store_gives_one_line_naming_it(tmp_path):
    folder = tmp_path / "a folder"
    folder.mkdir()
    with pytest.raises(StoreError) as err:
        open_store(str(folder))
    assert (
        str(err.value) == f"{folder}: a folder, not a store file; move it away, or point the store elsewhere"
    )
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(StoreError) as err:
        open_store(str(junk))
    assert str(err.value).startswith(f"{junk}: ") and "\n" not in str(err.value)


def _foreign_database(path: Path) -> bytes:
    """A SQLite file of someone else's, and its bytes."""
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("CREATE TABLE x(a)")
    db.execute("INSERT INTO x VALUES (1)")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("create", [True, False])
def test_a_foreign_sqlite_database_is_refused_and_left_unchanged(tmp_path, create):
    foreign = tmp_path / "theirs.db"
    before = _foreign_database(foreign)
    with pytest.raises(StoreError) as err:
        SQLiteStore(foreign, create=create)
    assert str(err.value) == (
        f"{foreign}: not a dri store (a SQLite database of other tables: x); left unchanged"
    )
    assert foreign.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.db"]  # no -wal or -shm beside it


def test_an_empty_file_becomes_a_store(tmp_path):
    empty = tmp_path / "new.sqlite"
    empty.touch()
    with SQLiteStore(empty) as store:
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
    with SQLiteStore(empty, create=False) as again:
        assert again.corpora() == ["c"]


@pytest.mark.parametrize(
    "damage, reason",
    [
        ("DROP TABLE documents", "no table documents"),
        ("DROP TABLE pairs", "no table pairs"),
        # With the version row gone too, the store was taken for a new one and made again.
        ("DELETE FROM store_info; DROP TABLE pairs", "no table pairs"),
        ("DROP TABLE store_info; DROP TABLE members", "no table members"),
        ("ALTER TABLE documents DROP COLUMN title", "table documents has no column title"),
    ],
)
def test_a_store_whose_tables_or_columns_were_removed_is_refused_not_made_again_empty(
    tmp_path, damage, reason
):
    # A dropped table was made again, empty: `dri run` said "3 already stored" and every
    # lookup failed for ever; a dropped column was SQLite's "no such column" in `store top`.
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path) as store:
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("PRAGMA foreign_keys=OFF")
        db.executescript(damage)
    for create in (True, False):  # dri run, and the look-only dri store
        with pytest.raises(StoreError) as err:
            SQLiteStore(path, create=create)
    assert str(err.value) == (
        f"{path}: damaged store: {reason}; restore the file from a backup, "
        "or move it away (the next `dri run` starts a new store)"
    )
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "DROP TABLE" in damage:
        assert damage.split()[-1] not in tables  # not made again


def test_a_sqlite_file_without_tables_is_no_store_to_look_into(tmp_path):
    # dri store corpora wrote the whole schema into it, and said nothing.
    path = tmp_path / "empty.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA user_version = 1")  # a valid SQLite file of no tables
    with pytest.raises(StoreError, match="no store here \\(a SQLite file without tables"):
        SQLiteStore(path, create=False)
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
    with SQLiteStore(path) as store:  # the first run makes it a store
        assert store.corpora() == []


@pytest.mark.parametrize("version", ["abc", "", "2.0", "99"])
def test_a_schema_version_this_dri_does_not_read_is_one_line_naming_it(tmp_path, version):
    # A hand-edited 'abc' was int()'s ValueError in every command (exit 70).
    path = tmp_path / "s.sqlite"
    SQLiteStore(path).close()
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE store_info SET value = ? WHERE key = 'schema_version'", (version,))
        db.execute("DROP TABLE pairs")
    for create in (True, False):
        with pytest.raises(StoreError) as err:
            SQLiteStore(path, create=create)
        assert str(err.value) == f"{path}: store schema version {version}, this dri reads 2"
    # Refused before anything was written: the tables were made first, the file changed.
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'pairs'").fetchone() == (0,)


def test_a_closed_store_says_so(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 's.sqlite'}")
    store.close()
    with pytest.raises(StoreError, match="the store is closed"):
        store.corpora()


def _writer(path: str, worker: int, documents: int) -> None:
    with SQLiteStore(Path(path)) as store:
        for i in range(documents):
            doc = f"w{worker}-d{i}"
            store.put_document("shared", make_graph(doc, f"{doc}.txt", SOLAR))
            store.put_document("shared", make_graph("common", "common.txt", SOLAR))
            store.put_comparison(comparison(doc, "common", f"run-{worker}", i / documents))


def test_worker_processes_can_write_one_file_at_once(tmp_path):
    path = tmp_path / "shared.sqlite"
    SQLiteStore(path).close()
    ctx = mp.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(str(path), w, 15)) for w in range(3)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
    assert [p.exitcode for p in workers] == [0, 0, 0]
    with SQLiteStore(path) as store:
        counts = store.counts()
        assert (counts["documents"], counts["comparisons"], counts["members"]) == (46, 45, 46)
        assert to_json(store.get_graph("w2-d14")) == to_json(make_graph("w2-d14", "w2-d14.txt", SOLAR))
        assert [r.comparisons for r in store.runs()] == [15, 15, 15]


def _stored_pair(path: Path) -> None:
    """A store of two documents, one comparison of them and one evaluation."""
    with SQLiteStore(path) as store:
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
        store.put_document("c", make_graph("atom", "atom.txt", ATOM))
        store.put_comparison(comparison("solar", "atom", "run-1", 0.5))
        store.save_evaluation("plagiarism", "c", [{"pair": 1}])


@pytest.mark.parametrize(
    ("damage", "read", "says"),
    [
        ("UPDATE documents SET meta = '{bad'", "document", "document solar, meta: not JSON ("),
        ("UPDATE members SET meta = 'null'", "documents", "document atom, meta: JSON null, not an object"),
        (
            "UPDATE documents SET concepts = 'many'",
            "documents",
            "document atom, concepts: 'many' is not a number",
        ),
        (
            "UPDATE comparisons SET params = 'x'",
            "comparison",
            "the comparison of solar and atom in run run-1, params",
        ),
        (
            "UPDATE comparisons SET scores = '[1]'",
            "comparison",
            "run-1, scores: JSON an array, not an object",
        ),
        (
            "UPDATE comparisons SET analogy_similarity = 'high'",
            "top",
            "analogy_similarity: 'high' is not a number",
        ),
        (
            "UPDATE comparisons SET scores = '{}'",
            "comparison",
            "run-1, scores' analogy_similarity: 'None' is not",
        ),
        (
            "UPDATE comparisons SET scores = json_set(scores, '$.jaccard', 'x')",
            "comparison",
            "run-1, scores' jaccard: 'x' is not a number",
        ),
        (
            "UPDATE comparisons SET scores = json_set(scores, '$.content', 'x')",
            "comparison",
            "run-1, scores' content: 'x' is not a number",
        ),
        ("UPDATE pairs SET lin = 'x'", "comparison", "run-1, a pair's lin: 'x' is not a number"),
        # A BLOB kind was bytes.__format__'s TypeError in dri store mapping (exit 70).
        ("UPDATE pairs SET kind = x'41'", "comparison", "run-1, a pair's kind: bytes b'A', not text"),
        (
            "UPDATE pairs SET generic = x'42'",
            "comparison",
            "run-1, a pair's generic space: bytes b'B', not text",
        ),
        ("UPDATE pairs SET evidence = 'x'", "comparison", "run-1, a pair's evidence: 'x' is not a number"),
        ("UPDATE pairs SET loose = 7", "comparison", "run-1, a pair's loose: '7' is not 0 or 1"),
        (
            "UPDATE graphs SET data = '{bad' WHERE doc_id = 'solar'",
            "graph",
            "the stored graph of document solar",
        ),
        (
            "UPDATE graphs SET data = '{}' WHERE doc_id = 'solar'",
            "graph",
            "unsupported ROS graph schema version",
        ),
        ("UPDATE evaluations SET rows = '{bad'", "evaluations", ", rows: not JSON ("),
        # Listed as inf by dri store top, and int() of a count an OverflowError (exit 70).
        (
            "UPDATE comparisons SET analogy_similarity = 9e999",
            "top",
            "analogy_similarity: inf is not a finite",
        ),
        ("UPDATE documents SET concepts = -9e999", "documents", "concepts: -inf is not a finite number"),
        # dri store info joined the names: a TypeError, exit 70.
        ("INSERT INTO corpora VALUES (NULL)", "corpora", "a corpus's name: NULL, not text"),
        ("INSERT INTO corpora VALUES (x'ff00')", "corpora", "a corpus's name: bytes b'\\xff\\x00', not text"),
        (
            "INSERT INTO inferences VALUES ('solar', 'atom', 'run-1', 0, 'r:0', 'orbit', 'z', 't', 's', 1, 1, '[]')",
            "comparison",
            "run-1, an inference's order: 'z' is not a number",
        ),
        (
            "INSERT INTO inferences VALUES ('solar', 'atom', 'run-1', 0, 'r:0', 'orbit', 1, 't', 's', 1, 1, '[1]')",
            "comparison",
            "run-1, an inference's arguments: not objects of",
        ),
    ],
)
def test_a_damaged_row_is_one_line_naming_the_store_and_the_row(tmp_path, damage, read, says):
    # Each was the decoder's or the formatter's traceback of dri store, run or evaluate (exit 70).
    path = tmp_path / "s.sqlite"
    _stored_pair(path)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(damage)
    with SQLiteStore(path) as store, pytest.raises(DamagedRow) as err:
        READS[read](store)
    line = error_line(err.value)
    assert line.startswith(f"error: {path}: damaged row: ") and says in line and "\n" not in line
    assert "what to do: the store was changed outside dri" in line


def test_a_damaged_meta_is_replaced_when_the_document_is_stored_again(tmp_path):
    path = tmp_path / "s.sqlite"
    _stored_pair(path)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE documents SET meta = '{bad'")
    with SQLiteStore(path) as store:
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR), meta={"level": 2})
        assert store.get_document("solar").meta["level"] == 2


def test_damaged_content_vectors_are_computed_again(tmp_path):
    path = tmp_path / "s.sqlite"
    _stored_pair(path)
    with SQLiteStore(path) as store:
        before = store.content_vectors("c")
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE graphs SET features = '{bad' WHERE doc_id = 'solar'")
        db.execute("UPDATE graphs SET features = '{\"v\": 99}' WHERE doc_id = 'atom'")
    with SQLiteStore(path) as store:
        again = store.content_vectors("c")
    assert again.doc_ids == before.doc_ids and again.features == before.features
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert all(json.loads(f) for (f,) in db.execute("SELECT features FROM graphs"))


@pytest.mark.parametrize("uri", ["sqlite://", "sqlite://  "])
def test_a_sqlite_uri_without_a_file_says_so(tmp_path, monkeypatch, uri):
    # Path("") is ".": the message was ".: no store here".
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError) as err:
        open_store(uri, create=True)
    assert str(err.value) == f"{uri.strip()}: names no file; use sqlite:///FILE (or sqlite://:memory:)"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("create", [True, False])
def test_a_folder_or_fifo_where_the_store_file_goes_says_so(tmp_path, create):
    # "no store here (it is created by the first dri run)" or SQLite's "unable to open database file".
    folder, fifo = tmp_path / "dri.sqlite", tmp_path / "fifo.sqlite"
    folder.mkdir()
    os.mkfifo(fifo)
    for path, kind in ((folder, "a folder"), (fifo, "not a plain file")):
        with pytest.raises(StoreError) as err:
            open_store(str(path), create=create)
        assert (
            str(err.value) == f"{path}: {kind}, not a store file; move it away, or point the store elsewhere"
        )


def test_a_store_locked_past_the_wait_says_what_holds_it_without_an_exception_name(tmp_path):
    path = tmp_path / "s.sqlite"
    SQLiteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program's write transaction, left open
    try:
        store = SQLiteStore(path, timeout=0.2, create=False)
        with pytest.raises(StoreError) as err:
            store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
        store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert str(err.value) == (
        f"{path}: database is locked: another process held it for writing for 0.2 s "
        "(a dri run, or a program with the file open in a transaction); run again when it is done"
    )
    assert error_line(err.value) == f"error: {err.value}"
    assert one_line(err.value) == str(err.value)  # "StoreError: …" in a run's failure line before


@pytest.mark.parametrize(
    "schema, says",
    [
        ("CREATE VIEW v AS SELECT 1", "no store here (a SQLite file without tables"),
        (
            "CREATE TABLE documents (x); CREATE TABLE graphs (x); CREATE TABLE comparisons (x)",
            "damaged store: no table",
        ),
    ],
)
def test_a_file_refused_when_looked_into_is_left_as_it_was(tmp_path, schema, says):
    # Switched to the WAL mode before it was refused: someone else's file changed.
    path = tmp_path / "other.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript(schema)
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        SQLiteStore(path, create=False)
    assert says in str(refused.value)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


def test_a_store_with_a_column_dropped_is_refused_unchanged(tmp_path):
    # Refused after the WAL mode had been set (the file changed), and read-only
    # it was SQLite's own "no such column: d.title".
    path = tmp_path / "s.sqlite"
    _stored_pair(path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("ALTER TABLE documents DROP COLUMN title")
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        SQLiteStore(path, create=False)
    assert "damaged store: table documents has no column title" in str(refused.value)
    assert path.read_bytes() == before


@pytest.mark.parametrize("gone", ["loose", "evidence"])
def test_a_store_lacking_one_later_column_gets_it_back(tmp_path, gone):
    # Added only together: a store lacking "loose" alone was "duplicate column name: evidence".
    path = tmp_path / "s.sqlite"
    _stored_pair(path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"ALTER TABLE pairs DROP COLUMN {gone}")
    with SQLiteStore(path, create=False) as store:
        assert store.counts()["pairs"] > 0
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert gone in {row[1] for row in db.execute("PRAGMA table_info(pairs)")}
