"""Faults of the store: bad settings, a server that is down, schema races.

Every bad setting gives one line naming the variable or option and never the
password; a server that does not answer costs the retry window once per
process, then fails at once; the schema is created once per process and
survives other processes creating it at the same moment.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dri.store import StoreError, StoreUnavailable, open_store
from dri.store.neo4j_store import SCHEMA_STATEMENTS, Neo4jSettings, Neo4jStore, schema_name
from dri.store.records import safe_uri

PASSWORD = "Sup3r-Secret-Pw"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_line_without_password(err: BaseException) -> str:
    text = str(err)
    assert "\n" not in text and PASSWORD not in text and "Secret-Pw" not in text
    return text


@pytest.mark.parametrize(
    "uri, says",
    [
        (f"neo4j:{PASSWORD}@127.0.0.1:7711", "is not a Neo4j URI"),
        (f"neo4j:neo4j:{PASSWORD}@127.0.0.1:7711", "is not a Neo4j URI"),
        (f"bolt://neo4j:{PASSWORD}@127.0.0.1:notaport", "the port must be a number"),
        (f"http://neo4j:{PASSWORD}@127.0.0.1:7474", "is not a Neo4j URI"),
        ("bolt://", "names no host"),
        # A routing context on a direct connection: the server's "50N42: Unexpected error" before.
        (f"bolt://neo4j:{PASSWORD}@127.0.0.1:7711?routing=x", "takes no path or ?query"),
        ("bolt+s://127.0.0.1:7711/db", "takes no path or ?query"),
        # A routing context the server cannot take: "50N42: Unexpected error", the query not shown.
        (f"neo4j://neo4j:{PASSWORD}@127.0.0.1:7711?foo", "the routing context 'foo' is not key=value"),
        ("neo4j://127.0.0.1:7711?a=1&a=2", "the routing context names 'a' twice"),
        ("neo4j+s://127.0.0.1:7711?address=x", "names 'address', which the driver sets itself"),
        # A "/" in the password ends the host part there: the rest was read as a port.
        (f"bolt://neo4j:ab/{PASSWORD}@127.0.0.1:7711", "written percent-encoded: / as %2F"),
        # ... and shown with its login hidden: the host alone, with its right port, read as a contradiction.
        (f"bolt://neo4j:ab/{PASSWORD}@127.0.0.1:7711", "'bolt://***@127.0.0.1:7711': the port must be"),
        (f"neo4j://neo4j:{PASSWORD}@[::1", "an IPv6 host opens with [ and is not closed with ]"),
        # The driver's IDNA encoding raised UnicodeError when it connected: exit 70.
        (
            f"bolt://neo4j:{PASSWORD}@a..b:7687",
            "not a host name (each dot-separated part 1 to 63 characters)",
        ),
        ("bolt://" + "a" * 64 + ":7687", "not a host name"),
        ("bolt://.:7687", "not a host name"),
    ],
)
def test_a_malformed_neo4j_uri_is_one_line_naming_the_variable_without_the_password(monkeypatch, uri, says):
    monkeypatch.setenv("NEO4J_URI", uri)
    with pytest.raises(StoreError) as err:
        open_store()
    text = _one_line_without_password(err.value)
    assert text.startswith("NEO4J_URI: ") and says in text


@pytest.mark.parametrize("uri", [f"neo4j:{PASSWORD}@127.0.0.1:7711", f"bolt://u:{PASSWORD}@h:x"])
def test_a_malformed_uri_given_explicitly_creates_no_file(tmp_path, monkeypatch, uri):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError) as err:
        open_store(uri)
    _one_line_without_password(err.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["DRI_NEO4J_RETRY_SECONDS", "DRI_NEO4J_CONNECTION_TIMEOUT"])
# 1e10 was an OverflowError in the driver's socket (exit 70).
@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "1e10", "86401", "1e-300", "\u0663", "1_0"])
def test_a_bad_duration_names_its_variable(monkeypatch, name, value):
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:7687")
    monkeypatch.setenv(name, value)
    if name == "DRI_NEO4J_RETRY_SECONDS" and value == "1e-300":
        assert Neo4jSettings.from_env().retry_seconds == 1e-300  # a retry window may be (about) none
        return
    with pytest.raises(StoreError, match=f"^{name}: must be a number of seconds"):
        Neo4jSettings.from_env()


def test_looking_at_a_missing_sqlite_store_creates_nothing(tmp_path):
    target = tmp_path / "nonexistent" / "deep" / "x.sqlite"
    with pytest.raises(StoreError, match="no store here"):
        open_store(str(target), create=False)
    assert not (tmp_path / "nonexistent").exists()


@pytest.mark.parametrize("k", [-5, 0, 10**20, 2.5])
def test_k_out_of_range_is_the_same_error_on_both_backends(store, k):
    with pytest.raises(ValueError, match="k must be a whole number"):
        store.top_analogues("x", k=k)


def test_a_server_never_reached_fails_at_first_contact_without_the_retry_window():
    uri = f"bolt://neo4j:{PASSWORD}@127.0.0.1:{_free_port()}"
    settings = Neo4jSettings(uri, retry_seconds=30, connection_timeout=2)
    t0 = time.monotonic()
    for _ in range(6):  # six "documents"
        with pytest.raises(StoreUnavailable) as refused:
            Neo4jStore(settings)
        line = _one_line_without_password(refused.value)
        assert "cannot connect: connection refused (is the server running?)" in line
        assert "scripts/neo4j start" in refused.value.advice
    assert time.monotonic() - t0 < 10.0  # one retry window would be 30 s


def test_a_port_that_never_answers_the_handshake_fails_within_the_connection_timeout():
    # An HTTP server waits for a request line and Bolt's handshake for a reply: the first
    # contact waited for the acquisition timeout (connection timeout + retry window, 70 s).
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    settings = Neo4jSettings(
        f"bolt://neo4j:{PASSWORD}@127.0.0.1:{listener.getsockname()[1]}",
        retry_seconds=60,
        connection_timeout=1,
    )
    try:
        t0 = time.monotonic()
        with pytest.raises(StoreUnavailable) as silent:
            Neo4jStore(settings)
        assert "not a Neo4j Bolt port" in _one_line_without_password(silent.value)
        assert time.monotonic() - t0 < 30.0  # the retry window is 60 s
        # The same process opening it again (a run's plan, then its run) waited again.
        t1 = time.monotonic()
        with pytest.raises(StoreUnavailable) as again:
            Neo4jStore(settings)
        assert str(again.value) == str(silent.value)
        assert time.monotonic() - t1 < 0.9  # not one more connection timeout (1 s)
    finally:
        listener.close()
        for conn in accepted:
            conn.close()


def _open_and_count(uri: str, barrier) -> int:
    barrier.wait(60)
    with open_store(uri) as store:
        return store.counts()["nodes"]


def test_a_routing_context_of_pairs_is_taken_and_an_ipv6_host_keeps_its_brackets(monkeypatch):
    monkeypatch.setenv("NEO4J_URI", "neo4j://127.0.0.1:7711?region=eu&zone=a")
    assert Neo4jSettings.from_env() is not None
    # It was shown as "bolt://::1:7711", which is no URI.
    assert safe_uri(f"bolt://neo4j:{PASSWORD}@[::1]:7711") == "bolt://[::1]:7711"


def test_a_database_that_is_not_there_names_the_variable_and_blanks_around_one_are_dropped(
    neo4j_uri, monkeypatch
):
    # "DatabaseNotFound: Graph not found: nosuch", and "neo4j " was not found though there.
    monkeypatch.setenv("NEO4J_DATABASE", "nosuch")
    with pytest.raises(StoreError) as err, open_store(neo4j_uri) as store:
        store.corpora()
    assert str(err.value).endswith(
        ": no database 'nosuch' on this server (NEO4J_DATABASE names it); create it, "
        "or set NEO4J_DATABASE to one that is there"
    )
    monkeypatch.setenv("NEO4J_DATABASE", " neo4j ")
    with open_store(neo4j_uri) as store:
        assert isinstance(store.corpora(), list)


def test_schema_creation_is_safe_when_processes_race_for_it(neo4j_uri):
    with open_store(neo4j_uri) as store:
        store.clear()
        for statement in SCHEMA_STATEMENTS:
            name = schema_name(statement)
            kind = "CONSTRAINT" if statement.startswith("CREATE CONSTRAINT") else "INDEX"
            store._write(lambda tx, q: tx.run(q).consume(), f"DROP {kind} {name} IF EXISTS")
    ctx = multiprocessing.get_context("spawn")
    workers = 4
    barrier = ctx.Manager().Barrier(workers)
    with ctx.Pool(workers) as pool:
        results = [pool.apply_async(_open_and_count, (neo4j_uri, barrier)) for _ in range(workers)]
        assert [r.get(120) for r in results] == [0] * workers
    with open_store(neo4j_uri) as store:
        names = {r["name"] for r in store._read("SHOW INDEXES YIELD name RETURN name")}
    assert {schema_name(s) for s in SCHEMA_STATEMENTS} <= names


@pytest.mark.parametrize(
    "variables, says",
    [
        ({"NEO4J_URI": f"bolt://neo4j:{PASSWORD}@127.0.0.1:7711"}, "the login in NEO4J_URI"),
        (
            {"NEO4J_URI": "bolt://127.0.0.1:7711", "NEO4J_USER": "neo4j", "NEO4J_PASSWORD": PASSWORD},
            "NEO4J_USER and NEO4J_PASSWORD",
        ),
    ],
)
def test_a_failed_login_is_advised_where_the_login_came_from(monkeypatch, variables, says):
    # A login in NEO4J_URI was told "check NEO4J_USER and NEO4J_PASSWORD", both unset.
    from dri.store.neo4j_store.settings import Neo4jSettings

    for name in ("NEO4J_USER", "NEO4J_PASSWORD", "DRI_NEO4J_SECRET_BLOCK"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    settings = Neo4jSettings.from_env()
    assert settings is not None and settings.login_from == says and PASSWORD not in repr(settings)


def test_the_drivers_words_are_said_as_a_user_can_act_on_them():
    # "Failed to read four byte Bolt handshake response from server
    # ResolvedIPv4Address(('127.0.0.1', 7799)) (deadline Deadline(timeout=10.0))" for a
    # port that is not Neo4j's, its timeout not the one set.
    from neo4j.exceptions import ServiceUnavailable

    from dri.store.neo4j_store.connection import NOT_BOLT, _message

    handshake = ServiceUnavailable(
        "Failed to read four byte Bolt handshake response from server "
        "ResolvedIPv4Address(('127.0.0.1', 7799)) (deadline Deadline(timeout=10.0))"
    )
    assert _message(handshake) == NOT_BOLT
    late = ServiceUnavailable("Timed out trying to establish connection (deadline Deadline(timeout=15.0))")
    assert _message(late) == "Timed out trying to establish connection"


@contextlib.contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or a folder) read-only while the block runs. Root ignores
    permission bits: a read-only bind mount of it then."""
    if os.geteuid() == 0 and shutil.which("mount"):
        subprocess.run(["mount", "--bind", str(path), str(path)], check=True)
        try:
            subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)
            yield
        finally:
            subprocess.run(["umount", str(path)], check=True)
    else:
        mode = path.stat().st_mode & 0o777
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)


def test_a_read_only_store_file_is_refused_for_writing_and_opened_for_reading(tmp_path):
    # Its folder writable, a run opened it, then failed every document and pair one by one.
    path = tmp_path / "dri.sqlite"
    with open_store(str(path)) as store:
        assert store.counts()["documents"] == 0
    beside = sorted(p.name for p in tmp_path.iterdir())
    with _read_only(path):
        with pytest.raises(StoreError) as refused:
            open_store(str(path))
        assert str(refused.value) == f"{path}: cannot write to the file (read-only)"
        with open_store(str(path), create=False) as store:  # looking into it still works
            assert store.counts()["documents"] == 0
            with pytest.raises(StoreError) as cleared:  # SQLite's "attempt to write a readonly database"
                store.clear()
            assert str(cleared.value) == f"{path}: cannot write to the file (read-only)"
    # Looking made a -shm with the file's read-only mode: the store, writable again, failed every write.
    assert sorted(p.name for p in tmp_path.iterdir()) == beside


def test_a_store_in_a_read_only_folder_is_checked_as_any_other(tmp_path):
    # Opened read-only, a store skipped every check: version 99 was read with exit 0.
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "dri.sqlite"
    with open_store(str(path)):
        pass
    db = sqlite3.connect(path)  # closed: held open, it kept the folder's mount busy
    db.execute("UPDATE store_info SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with _read_only(folder), pytest.raises(StoreError) as refused:
        open_store(str(path), create=False)
    assert str(refused.value) == f"{path}: store schema version 99, this dri reads 2"
    # A column dropped: SQLite's own "no such column: d.title", read-only.
    db = sqlite3.connect(path)
    db.execute("UPDATE store_info SET value = '2' WHERE key = 'schema_version'")
    db.execute("ALTER TABLE documents DROP COLUMN title")
    db.commit()
    db.close()
    with _read_only(folder), pytest.raises(StoreError) as refused:
        open_store(str(path), create=False)
    assert "damaged store: table documents has no column title" in str(refused.value)


def test_changes_left_in_the_wal_of_a_read_only_folder_are_named_not_dropped_silently(tmp_path, caplog):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "dri.sqlite"
    with open_store(str(path)) as store:
        assert store.corpora() == []
    # A writer killed before its log was folded into the file: the change is only in dri.sqlite-wal.
    script = (
        "import os, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('PRAGMA wal_autocheckpoint=0')\n"
        "db.execute(\"INSERT INTO corpora VALUES ('only_in_wal')\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True)
    Path(f"{path}-shm").unlink()
    assert Path(f"{path}-wal").stat().st_size > 0
    with _read_only(folder), open_store(str(path), create=False) as store:
        assert store.corpora() == []
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"{path}: changes in dri.sqlite-wal are not yet in the store file and cannot be read from a "
        "read-only folder; shown without them (a dri command that can write there keeps them)"
    ]
    with open_store(str(path), create=False) as store:  # where it can write, they are read
        assert store.corpora() == ["only_in_wal"]


def test_a_line_break_in_a_store_path_is_shown_escaped(tmp_path):
    # It was shown as a space ("st/full.sqlite x"), though file names are escaped elsewhere.
    path = tmp_path / "full.sqlite\nx"
    with pytest.raises(StoreError) as err:
        open_store(str(path), create=False)
    assert (
        str(err.value)
        == f"{tmp_path}/full.sqlite\\u000ax: no store here (it is created by the first `dri run`)"
    )
