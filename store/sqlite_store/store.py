"""The SQLite store: the connection, documents, search, comparisons and
evaluations put together behind :class:`dri.store.Store`, with housekeeping.
"""

from __future__ import annotations

from pathlib import Path

from dri.store.base import Store
from dri.store.sqlite_store.comparisons import SQLiteComparisons
from dri.store.sqlite_store.evaluations import SQLiteEvaluations
from dri.store.sqlite_store.members import SQLiteMembers
from dri.store.sqlite_store.schema import create_schema, refuse_unusable
from dri.store.sqlite_store.search import SQLiteSearch

__all__ = ["SQLiteStore"]


class SQLiteStore(SQLiteSearch, SQLiteComparisons, SQLiteMembers, SQLiteEvaluations, Store):
    """The store in one SQLite file (default ``data/dri.sqlite``)."""

    backend = "sqlite"

    def __init__(self, path: str | Path, *, timeout: float = 60.0, create: bool = True):
        super().__init__(path, timeout=timeout, create=create)
        if self.writable:
            try:
                with self._opening():
                    create_schema(self)
            except BaseException:
                self.close()
                raise

    def _refuse_unusable(self, create: bool) -> None:
        with self._opening():
            refuse_unusable(self, create=create, writable=self.writable)

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
