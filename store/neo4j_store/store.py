"""The Neo4j store: the connection, documents, search and comparisons put
together behind :class:`dri.store.Store`, with evaluations and housekeeping.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from dri.store.base import Store, evaluation_id, now
from dri.store.neo4j_store.comparisons import Neo4jComparisons
from dri.store.neo4j_store.schema import LABELS, RELATIONSHIP_TYPES, create_schema
from dri.store.neo4j_store.search import Neo4jSearch
from dri.store.neo4j_store.settings import Neo4jSettings
from dri.store.records import EvaluationRecord, clean_meta

__all__ = ["Neo4jStore"]

log = logging.getLogger(__name__)


class Neo4jStore(Neo4jSearch, Neo4jComparisons, Store):
    """The store in a Neo4j 5 database, over Bolt with the official driver."""

    backend = "neo4j"

    def __init__(self, settings: Neo4jSettings):
        super().__init__(settings)
        try:
            self.first_contact()
            create_schema(self)
        except BaseException:
            self._driver.close()
            raise
        log.debug("opened %s (database %s)", self.location, self.database)

    # -- evaluations -----------------------------------------------------------------

    def save_evaluation(self, kind: str, corpus: str, rows: Sequence[dict[str, Any]]) -> str:
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
            EvaluationRecord(e["id"], e["kind"], e["corpus"], e["created"], json.loads(e["rows"]))
            for e in (r["e"] for r in rows)
        ]

    # -- housekeeping ----------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        # Counts by a single label or type come from Neo4j's count store, not a scan.
        parts = [f"COUNT {{ MATCH (:{label}) }} AS `{label}`" for label in LABELS]
        parts += [f"COUNT {{ MATCH ()-[:{t}]->() }} AS `{t}`" for t in RELATIONSHIP_TYPES]
        parts += ["COUNT { MATCH (n) } AS nodes", "COUNT { MATCH ()-[r]->() } AS relationships"]
        row = self._read("RETURN " + ", ".join(parts))[0]
        return {k: int(v) for k, v in dict(row).items()}

    def clear(self) -> None:
        with self._errors(), self._driver.session(database=self.database) as session:
            # An implicit transaction: CALL IN TRANSACTIONS cannot run in a managed one.
            session.run("MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
