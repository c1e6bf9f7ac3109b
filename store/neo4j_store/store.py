"""The Neo4j store: the connection, documents, search, comparisons and
evaluations put together behind :class:`dri.store.Store`, with housekeeping.
"""

from __future__ import annotations

import logging

from dri.store.base import Store
from dri.store.neo4j_store.comparisons import Neo4jComparisons
from dri.store.neo4j_store.evaluations import Neo4jEvaluations
from dri.store.neo4j_store.members import Neo4jMembers
from dri.store.neo4j_store.schema import LABELS, RELATIONSHIP_TYPES, create_schema
from dri.store.neo4j_store.search import Neo4jSearch
from dri.store.neo4j_store.settings import Neo4jSettings

__all__ = ["Neo4jStore"]

log = logging.getLogger(__name__)


class Neo4jStore(Neo4jSearch, Neo4jComparisons, Neo4jMembers, Neo4jEvaluations, Store):
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
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
