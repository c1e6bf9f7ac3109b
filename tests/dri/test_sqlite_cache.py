"""dri/sqlite_cache.py: a cache file used until its first error, then a miss for the process."""

import sqlite3

from dri.sqlite_cache import SqliteCache

_SCHEMA = "CREATE TABLE IF NOT EXISTS kept (k TEXT PRIMARY KEY, v TEXT NOT NULL)"


def _put(db: sqlite3.Connection, key: str, value: str) -> None:
    with db:
        db.execute("INSERT OR REPLACE INTO kept (k, v) VALUES (?, ?)", (key, value))


def _get(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT v FROM kept WHERE k = ?", (key,)).fetchone()
    return None if row is None else row[0]


def test_a_value_kept_by_one_process_is_read_by_the_next(tmp_path):
    path = tmp_path / "made" / "here" / "cache.sqlite"  # the folders are made on first use
    SqliteCache(path, _SCHEMA, name="test cache").run(lambda db: _put(db, "a", "one"), None)
    later = SqliteCache(path, _SCHEMA, name="test cache")
    assert later.run(lambda db: _get(db, "a"), "missing") == "one"
    assert later.run(lambda db: _get(db, "b"), "missing") is None


def test_a_damaged_file_is_a_miss_and_is_not_touched_again(tmp_path):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"not a database at all, " * 100)
    cache = SqliteCache(path, _SCHEMA, name="test cache")
    calls = []

    def work(db: sqlite3.Connection) -> str:
        calls.append(db)
        return "read"

    assert cache.run(work, "missing") == "missing"
    assert cache.run(work, "missing") == "missing"
    assert calls == []  # given up when opening: the work never ran
    assert path.read_bytes() == b"not a database at all, " * 100


def test_an_error_during_the_work_gives_the_file_up_for_the_process(tmp_path, caplog):
    cache = SqliteCache(tmp_path / "cache.sqlite", _SCHEMA, name="test cache")
    assert cache.run(lambda db: _put(db, "a", "one"), "failed") is None

    def broken(db: sqlite3.Connection) -> str:
        db.execute("SELECT v FROM no_such_table")
        return "read"

    with caplog.at_level("DEBUG", logger="dri.sqlite_cache"):
        assert cache.run(broken, "missing") == "missing"
    assert "test cache" in caplog.text and "no_such_table" in caplog.text
    assert cache.run(lambda db: _get(db, "a"), "missing") == "missing"  # no more use after the error
    assert (
        SqliteCache(tmp_path / "cache.sqlite", _SCHEMA, name="test cache").run(lambda db: _get(db, "a"), None)
        == "one"
    )


def test_a_folder_that_cannot_be_made_is_a_miss(tmp_path):
    (tmp_path / "file").write_text("a file where the folder should be")
    cache = SqliteCache(tmp_path / "file" / "cache.sqlite", _SCHEMA, name="test cache")
    assert cache.run(lambda db: _get(db, "a"), "missing") == "missing"
