"""Evaluations in Neo4j: an Evaluation node per evaluation, its rows as
JSON, under an id made from their content.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dri.literal import storable
from dri.store.base import evaluation_id, now
from dri.store.neo4j_store.connection import Neo4jConnection
from dri.store.records import EvaluationRecord, clean_meta, stored_json

__all__ = ["Neo4jEvaluations"]


class Neo4jEvaluations(Neo4jConnection):
    """Saving and reading evaluations."""

    def save_evaluation(self, kind: str, corpus: str, rows: Sequence[dict[str, Any]]) -> str:
        kind, corpus = storable(kind), storable(corpus)  # a folder name that is not UTF-8
        rows = clean_meta({"rows": list(rows)})["rows"]
        ident = evaluation_id(kind, corpus, rows)

        def work(tx: Any) -> None:
            tx.run(
                "MERGE (e:Evaluation {id: $id}) ON CREATE SET e.kind = $kind, e.corpus = $corpus, "
                "e.created = $created, e.rows = $rows",
                id=ident,
                kind=kind,
                corpus=corpus,
                created=now(),
                rows=json.dumps(rows, ensure_ascii=False),
            ).consume()

        self._write(work)
        return ident

    def evaluations(self, kind: str | None = None) -> list[EvaluationRecord]:
        rows = self._read(
            "MATCH (e:Evaluation) WHERE $kind IS NULL OR e.kind = $kind RETURN e ORDER BY e.created, e.id",
            kind=kind,
        )
        return [
            EvaluationRecord(
                e["id"],
                e["kind"],
                e["corpus"],
                e["created"],
                stored_json(self.location, f"evaluation {e['id']}, rows", e["rows"], list),
            )
            for e in (r["e"] for r in rows)
        ]
