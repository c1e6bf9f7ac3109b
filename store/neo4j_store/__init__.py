"""The Neo4j store: ROS graphs and similarity results as a property graph.

The schema (documented with ready queries in ``docs/store.md`` and
``docs/cypher.md``) follows Dr Inventor's ROS graphs:

* ``(:Corpus {name})-[:CONTAINS {meta...}]->(:Document {id, name, path, ...})``;
* ``(:Document)-[:HAS_NODE]->(:Concept {doc_id, lemma, key, ...})`` and
  ``(:Relation {doc_id, key, lemma, ...})``, with
  ``(:Concept)-[:SUBJ]->(:Relation)-[:OBJ]->(:Concept)``;
* ``(:Document)-[:HAS_GRAPH]->(:Graph {id, extractor_version})`` per graph version seen;
* ``(:Document)-[:SIMILAR {run_id, analogy_similarity, jaccard, semantic,
  conceptual, relational, params, mapping_id}]->(:Document)``;
* ``(:Mapping {id, source_id, target_id, run_id, ...})-[:HAS_PAIR]->(:Pair {kind,
  source_lemma, target_lemma, lin, generic})``, each pair linked ``-[:SOURCE]->``
  and ``-[:TARGET]->`` to the mapped Concept/Relation nodes and
  ``-[:GENERIC]->(:Generic {name})`` to its generic-space concept.

Every write is a managed transaction (``session.execute_write``), which the
driver retries on transient errors (ServiceUnavailable, SessionExpired,
TransientError) with exponential backoff for up to ``retry_seconds``
(``DRI_NEO4J_RETRY_SECONDS``, default 60 s: longer than a server restart);
the rows go in with ``UNWIND $rows`` and every value is a parameter. No
Cypher text is ever built from data: the only variable parts of a query are
labels and relationship types chosen from fixed sets.

**Faults.** The schema is created once per process and server, and a
statement that finds its index or constraint already made by another
process (``EquivalentSchemaRuleAlreadyExists``) counts as done. When an
operation gives up after the retry window, the server is marked down in
this process: later operations fail at once with :class:`StoreUnavailable`
instead of waiting the window again, after a quick connection check at most
every :data:`DOWN_RECHECK_SECONDS`; the first check that connects clears the
mark. A run against a server that is down for good therefore waits the
retry window once, not once per document. See ``docs/store.md``.

The package splits the store by job: :mod:`.settings` (how to reach the
server), :mod:`.connection` (the driver, errors and retries), :mod:`.schema`
(constraints and indexes), :mod:`.rows` (graphs as rows and back),
:mod:`.documents`, :mod:`.search` (stage 1 of analogy search),
:mod:`.comparisons`, :mod:`.members` (memberships that end), :mod:`.evaluations`, and :mod:`.store`, which puts
them together; :mod:`store.sqlite_store` has the same parts (with no
settings: a file path is all it needs).
"""

from dri.store.neo4j_store.connection import DOWN_RECHECK_SECONDS
from dri.store.neo4j_store.schema import LABELS, RELATIONSHIP_TYPES, SCHEMA_STATEMENTS, schema_name
from dri.store.neo4j_store.settings import (
    DEFAULT_RETRY_SECONDS,
    NEO4J_SCHEMES,
    Neo4jSettings,
    check_uri,
    split_userinfo,
)
from dri.store.neo4j_store.store import Neo4jStore

__all__ = [
    "DEFAULT_RETRY_SECONDS",
    "DOWN_RECHECK_SECONDS",
    "LABELS",
    "NEO4J_SCHEMES",
    "RELATIONSHIP_TYPES",
    "SCHEMA_STATEMENTS",
    "Neo4jSettings",
    "Neo4jStore",
    "check_uri",
    "schema_name",
    "split_userinfo",
]
