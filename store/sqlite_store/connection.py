"""The connection to the SQLite file: opening it (read-only in a folder
this process cannot write to), its errors as one-line store errors, and
write transactions that take the file's lock up front.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dri.store.records import StoreError

log = logging.getLogger(__name__)

__all__ = ["SQLiteConnection"]

#: The table that marks a store (schema version 1 on); a store made before
#: there were schema versions is known by its first tables.
_OWN_TABLE = "store_info"
_EARLY_TABLES = frozenset({"documents", "graphs", "comparisons"})


def _read_only(path: Path) -> str | None:
    """What of a store file cannot be written to: ``"its folder"``, ``"the file"``
    (a store whose folder can be written to failed every document and pair one
    by one), or ``None``."""
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK):
        return "its folder"
    if path.is_file() and not os.access(path, os.W_OK):
        return "the file"
    return None


class SQLiteConnection:
    """One connection to one SQLite file, shared by the threads of this process."""

    def __init__(self, path: str | Path, *, timeout: float = 60.0, create: bool = True):
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        self.timeout = timeout
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        #: False when the file was opened read-only (it or its folder cannot be written to).
        self.writable = True
        if str(path) != ":memory:" and self.path.exists() and not self.path.is_file():
            # A folder or a FIFO where the file goes: "no store here", or SQLite's
            # "unable to open database file", said nothing of what was in the way.
            kind = "a folder" if self.path.is_dir() else "not a plain file"
            raise StoreError(
                self.location, f"{kind}, not a store file; move it away, or point the store elsewhere"
            )
        if not create and str(path) != ":memory:" and not _has_content(self.path):
            # An empty file would become a store as soon as it is opened (the WAL
            # mode and the tables are written then): looking into it must not.
            raise StoreError(self.location, "no store here (it is created by the first `dri run`)")
        with self._opening():
            read_only = _read_only(self.path) if str(path) != ":memory:" else None
            if read_only:
                if create:  # every write would fail, one by one
                    raise StoreError(self.location, f"cannot write to {read_only} (read-only)")
                # A read-only folder (or file system) can still be looked into.
                self._db = _read_only_connection(self.path, timeout)
                self.writable = False
                self._refuse_foreign()
                self._refuse_or_close(create)
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One connection shared by the threads of this process, serialised by _lock.
            self._db = sqlite3.connect(
                self.path, timeout=timeout, check_same_thread=False, isolation_level=None
            )
            self._refuse_foreign()
            # Before the WAL mode, which changes the file: a file refused is left as it was.
            self._refuse_or_close(create)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")

    def _refuse_foreign(self) -> None:
        """A :class:`StoreError` for a SQLite database that is not a store, before
        anything is written to it: the WAL mode and the store's tables would
        change someone else's file. An empty (new) file is a store to be."""
        db = self._open_db()
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and not (_OWN_TABLE in tables or tables >= _EARLY_TABLES):
            self.close()
            others = ", ".join(sorted(tables)[:3]) + (", …" if len(tables) > 3 else "")
            raise StoreError(
                self.location,
                f"not a dri store (a SQLite database of other tables: {others}); left unchanged",
            )

    def _refuse_or_close(self, create: bool) -> None:
        """:meth:`_refuse_unusable`, the file closed if it is refused (held open,
        it kept its folder busy, and a refused store cannot be used anyway)."""
        try:
            self._refuse_unusable(create)
        except BaseException:
            self.close()
            raise

    def _refuse_unusable(self, create: bool) -> None:
        """A :class:`StoreError` for a file this store cannot use as it is (the
        store's schema checks); run before anything is written to it, and on a
        file opened read-only too. Nothing here: a connection has no schema."""

    @contextmanager
    def _opening(self) -> Iterator[None]:
        """Errors while opening the file as one-line :class:`StoreError`s naming it."""
        try:
            yield
        except sqlite3.Error as err:
            raise StoreError(
                self.location, f"cannot open the SQLite store: {_reason(err, self.timeout)}"
            ) from None
        except OSError as err:
            raise StoreError(self.location, f"cannot open the SQLite store: {err.strerror or err}") from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; BEGIN IMMEDIATE takes the file's write lock
        up front, so concurrent writers wait instead of failing mid-way."""
        if not self.writable:  # opened to be looked into: SQLite's "attempt to write a readonly database"
            raise StoreError(self.location, f"cannot write to {_read_only(self.path) or 'it'} (read-only)")
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
                raise StoreError(self.location, _reason(err, self.timeout)) from None

    def _query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            db = self._open_db()
            try:
                return db.execute(sql, params).fetchall()
            except sqlite3.Error as err:
                raise StoreError(self.location, _reason(err, self.timeout)) from None

    def _open_db(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(self.location, "the store is closed")
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _has_content(path: Path) -> bool:
    """A file of at least one byte (an empty one is no store yet)."""
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def _read_only_connection(path: Path, timeout: float) -> sqlite3.Connection:
    """``path`` opened for reading, when it or its folder cannot be written to.

    Read as immutable (nobody can change it meanwhile), so that looking makes
    no file beside it: SQLite's read-only mode makes the WAL's shared-memory
    file, with the store file's own mode, and a store made writable again then
    failed every write ("attempt to write a readonly database"). Changes still
    in a ``-wal`` file beside it are read through that mode when SQLite can
    make or use the shared-memory file; when it cannot, the store is read
    without them, with a warning (they were left out without a word).
    """
    wal = Path(f"{path}-wal")
    if _has_content(wal):
        _shared_memory_file(path)
        db = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout, check_same_thread=False
        )
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.Error:
            db.close()
        log.warning(
            "%s: changes in %s are not yet in the store file and cannot be read from a "
            "read-only folder; shown without them (a dri command that can write there keeps them)",
            path,
            wal.name,
        )
    return sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro&immutable=1",
        uri=True,
        timeout=timeout,
        check_same_thread=False,
        isolation_level=None,
    )


def _shared_memory_file(path: Path) -> None:
    """Make the WAL's shared-memory file (``-shm``) beside ``path`` with the
    folder's usual mode, if it is missing and the folder can be written to:
    made by SQLite for a read-only store file, it took that file's read-only
    mode, and the store made writable again failed every write."""
    # There already, or the folder is read-only: SQLite does as it can.
    with contextlib.suppress(OSError):
        os.close(os.open(f"{path}-shm", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))


def _reason(err: sqlite3.Error, timeout: float) -> str:
    """SQLite's words, and for a lock that outlasted the wait, what holds it."""
    if "database is locked" in str(err):
        return (
            f"database is locked: another process held it for writing for {timeout:g} s "
            "(a dri run, or a program with the file open in a transaction); run again when it is done"
        )
    return str(err)
