"""One SQLite file used as a cache: every failure is a miss.

The data folder keeps what is costly to make again and cheap to look up: the
graphs of files read before (:mod:`extract.kept_graphs`) and the relation
labels' clause vectors (:mod:`mapping.clause_cache`). Both are caches, never
a source of truth, so they share one rule, kept here: the file is opened on
first use (its folder made, WAL mode so that several processes may write,
its table created), and the first error of any kind (a folder that cannot
be written, a full disk, a damaged file, a lock held too long) ends its use
for the rest of the process. The caller then does the work it would have
looked up, as without a cache; nothing is raised.

>>> file = SqliteCache(Path("/tmp/x.sqlite"), "CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v BLOB)",
...                    name="example cache")                                     # doctest: +SKIP
>>> file.run(lambda db: db.execute("SELECT v FROM t WHERE k = ?", ("a",)).fetchone(), None)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["SqliteCache", "in_data_folder"]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds a writer waits for another process's lock before the cache is given up.
LOCK_TIMEOUT = 2.0


class SqliteCache:
    """A SQLite file opened on first use and given up at its first error.

    ``schema`` is the ``CREATE TABLE IF NOT EXISTS`` statement of its table;
    ``name`` says what the file is in the debug line that records giving up.
    Calls from several threads are serialised.
    """

    def __init__(self, path: Path, schema: str, *, name: str) -> None:
        self.path = path
        self.schema = schema
        self.name = name
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._broken = False

    def run(self, work: Callable[[sqlite3.Connection], T], default: T) -> T:
        """``work(connection)``, or ``default`` if the file cannot be used or fails now."""
        with self._lock:
            db = self._connection()
            if db is None:
                return default
            try:
                return work(db)
            except sqlite3.Error as err:
                self._give_up(err)
                return default

    def close(self) -> None:
        with self._lock:
            self._close()

    def _connection(self) -> sqlite3.Connection | None:
        if self._broken:
            return None
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(self.schema)
                self._db = db
            except (sqlite3.Error, OSError) as err:
                self._give_up(err)
        return self._db

    def _give_up(self, err: BaseException) -> None:
        """No more use of the file in this process: the caller does the work instead."""
        log.debug("%s %s not used: %s", self.name, self.path, err)
        self._broken = True
        self._close()

    def _close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None


_IN_DATA_FOLDER: dict[tuple[int, Path], Any] = {}
_IN_DATA_FOLDER_LOCK = threading.Lock()


def in_data_folder(file_name: str, make: Callable[[Path], T]) -> T | None:
    """The process's object for ``<data folder>/cache/<file_name>``, made by
    ``make(path)`` on first use (again in a forked child: a SQLite connection
    must not cross a fork), or None if there is no data folder to use."""
    from dri.settings import data_dir

    try:
        path = data_dir() / "cache" / file_name
    except Exception as err:  # a data folder that cannot be made: the caller works without a cache
        log.debug("no cache %s: %s", file_name, err)
        return None
    key = (os.getpid(), path)
    with _IN_DATA_FOLDER_LOCK:
        made = _IN_DATA_FOLDER.get(key)
        if made is None:
            made = _IN_DATA_FOLDER[key] = make(path)
    return made
