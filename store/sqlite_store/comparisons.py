"""Comparisons in SQLite: the scores of each in one row, its mapping pairs
and candidate inferences in rows of their own; the analogues of a document
ranked by their scores.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from dri.store.base import check_k, now, to_json_text
from dri.store.records import (
    PAIR_FIELDS,
    STORED_SCORES,
    Analogue,
    ComparisonRecord,
    RunRecord,
    StoreError,
    stored_json,
    stored_number,
    stored_pair,
    stored_scores,
)
from dri.store.sqlite_store.connection import SQLiteConnection
from dri.store.sqlite_store.rows import INFERENCE_COLUMNS, inference, inference_row

__all__ = ["SQLiteComparisons", "delete_comparisons"]


def _row(row: Sequence[Any]) -> str:
    """The comparison a row of (source_id, target_id, run_id, ...) holds, for messages."""
    return f"the comparison of {row[0]} and {row[1]} in run {row[2]}"


def delete_comparisons(db: sqlite3.Connection, doc_ids: Iterable[str], run_id: str | None) -> int:
    """Delete the comparisons (of run ``run_id``; of every run if ``None``) in
    which any of ``doc_ids`` is source or target, with every row keyed by them
    (pairs, inferences, ...); how many comparisons went. Inside a write."""
    ids = sorted(set(doc_ids))
    tables = [
        name
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        if {"source_id", "target_id", "run_id"} <= {r[1] for r in db.execute(f'PRAGMA table_info("{name}")')}
    ]
    in_run, run = ("run_id = ? AND ", (run_id,)) if run_id is not None else ("", ())
    dropped = 0
    for start in range(0, len(ids), 400):
        chunk = ids[start : start + 400]
        marks = ", ".join("?" * len(chunk))
        for table in tables:
            gone = db.execute(
                f'DELETE FROM "{table}" WHERE {in_run}(source_id IN ({marks}) OR target_id IN ({marks}))',
                (*run, *chunk, *chunk),
            ).rowcount
            dropped += gone if table == "comparisons" else 0
    return dropped


class SQLiteComparisons(SQLiteConnection):
    """Writing and reading comparisons, runs and analogues."""

    def put_comparison(self, result: ComparisonRecord) -> None:
        self.put_comparisons([result])

    def put_comparisons(self, results: Sequence[ComparisonRecord]) -> None:
        with self._write() as db:
            for result in results:
                self._insert_comparison(db, result)

    def drop_comparisons(self, run_id: str, doc_ids: Iterable[str]) -> int:
        with self._write() as db:
            return delete_comparisons(db, doc_ids, run_id)

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
            f"VALUES ({', '.join('?' * (4 + len(PAIR_FIELDS)))})",
            [(*key, i, *(p[f] for f in PAIR_FIELDS)) for i, p in enumerate(result.pairs)],
        )
        db.execute("DELETE FROM inferences WHERE source_id = ? AND target_id = ? AND run_id = ?", key)
        db.executemany(
            f"INSERT INTO inferences (source_id, target_id, run_id, idx, {INFERENCE_COLUMNS}) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [(*key, i, *inference_row(x)) for i, x in enumerate(result.inferences)],
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
            ComparisonRecord(
                r[0],
                r[1],
                r[2],
                stored_json(self.location, f"{_row(r)}, params", r[3]),
                stored_scores(self.location, _row(r), r[4]),
                [],
                r[5],
            )
            for r in rows
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
                pair = stored_pair(self.location, _row(r), dict(zip(PAIR_FIELDS, r[3:])))
                by_key[r[:3]].pairs.append(pair)
            inference_rows = self._query(
                f"SELECT i.source_id, i.target_id, i.run_id, "
                f"{', '.join('i.' + f for f in INFERENCE_COLUMNS.split(', '))} "
                f"FROM inferences i JOIN comparisons c USING (source_id, target_id, run_id) WHERE {where} "
                "ORDER BY i.source_id, i.target_id, i.run_id, i.idx",
                params,
            )
            for r in inference_rows:
                by_key[r[:3]].inferences.append(inference(r[3:], self.location, _row(r)))
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
        return [Analogue(*self._analogue_row(doc_id, r)) for r in rows]

    def _analogue_row(self, doc_id: str, row: Sequence[Any]) -> list[Any]:
        """A row of :meth:`top_analogues` with its scores checked to be numbers."""
        what = f"the comparison of {doc_id} and {row[0]} in run {row[7]}"
        scores = [stored_number(self.location, f"{what}, {f}", v) for f, v in zip(STORED_SCORES, row[2:7])]
        return [row[0], row[1], *scores, row[7], row[8]]

    def runs(self) -> list[RunRecord]:
        rows = self._query(
            "SELECT run_id, COUNT(*), MIN(created), MAX(created) FROM comparisons "
            "GROUP BY run_id ORDER BY MIN(created), run_id"
        )
        return [RunRecord(*r) for r in rows]
