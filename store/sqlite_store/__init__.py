"""The embedded default store: one SQLite file, no server.

Used when no Neo4j is configured, so that the README's main job runs on a
fresh machine. Graphs are kept whole, as the JSON of :func:`graphs.to_json`,
one row per graph version; documents, corpus memberships, comparisons and
mapping pairs and candidate inferences are plain tables (an inference's
arguments as JSON). The file is opened in WAL mode with a busy
timeout, so several worker processes of a flow can write to it at once.

The package splits the store by job, as :mod:`store.neo4j_store` does:
:mod:`.connection` (the file, its errors and transactions), :mod:`.schema`
(tables, indexes and migrations), :mod:`.rows` (records as rows and back),
:mod:`.documents`, :mod:`.search` (stage 1 of analogy search),
:mod:`.comparisons`, :mod:`.members` (memberships that end), :mod:`.evaluations`, and :mod:`.store`, which puts
them together.
"""

from dri.store.sqlite_store.schema import SCHEMA, SCHEMA_VERSION
from dri.store.sqlite_store.store import SQLiteStore

__all__ = ["SCHEMA", "SCHEMA_VERSION", "SQLiteStore"]
