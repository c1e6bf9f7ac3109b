"""Evaluations in SQLite: the rows of each, as JSON, under an id made from
their content.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dri.literal import storable
from dri.store.base import evaluation_id, now
from dri.store.records import EvaluationRecord, clean_meta, stored_json
from dri.store.sqlite_store.connection import SQLiteConnection

__all__ = ["SQLiteEvaluations"]


class SQLiteEvaluations(SQLiteConnection):
    """Saving and reading evaluations."""

    def save_evaluation(self, kind: str, corpus: str, rows: Sequence[dict[str, Any]]) -> str:
        kind, corpus = storable(kind), storable(corpus)  # a folder name that is not UTF-8
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
        return [
            EvaluationRecord(
                r[0],
                r[1],
                r[2],
                r[3],
                stored_json(self.location, f"evaluation {r[0]}, rows", r[4], list),
            )
            for r in rows
        ]
