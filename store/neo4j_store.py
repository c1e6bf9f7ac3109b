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
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import networkx as nx

from dri.graphs import from_json
from dri.graphs.ros import SCHEMA_VERSION as GRAPH_SCHEMA_VERSION
from dri.mapping.features import FEATURES_VERSION, content_features
from dri.store.base import Store, check_k, env, evaluation_id, now, resolved_path, to_json_text
from dri.store.records import (
    PAIR_FIELDS,
    STORED_SCORES,
    Analogue,
    ComparisonRecord,
    DocumentRecord,
    EvaluationRecord,
    RunRecord,
    StoreError,
    StoreUnavailable,
    clean_meta,
    document_fields,
    member_name,
    register_secret,
    safe_uri,
    scalar_meta,
    version_key,
)
from dri.store.vectors import DENSE_DIMENSIONS, StructureIndex, combine, dense_vector

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

log = logging.getLogger(__name__)

VECTOR_INDEX = "document_content"

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
#: How long one transaction is retried on transient errors, by default (seconds).
DEFAULT_RETRY_SECONDS = 60.0
DEFAULT_CONNECTION_TIMEOUT = 10.0
#: After giving up on a server, operations fail at once for this long before
#: checking the connection again (seconds).
DOWN_RECHECK_SECONDS = 5.0

# Per process: the servers whose schema is known to exist, and the servers
# this process gave up on (monotonic time of the last failed check).
_state_lock = threading.Lock()
_schema_ready: set[tuple[str, str]] = set()
_down_since: dict[tuple[str, str], float] = {}

SCHEMA_STATEMENTS = (
    "CREATE CONSTRAINT corpus_name IF NOT EXISTS FOR (c:Corpus) REQUIRE c.name IS UNIQUE",
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE",
    "CREATE CONSTRAINT graph_id IF NOT EXISTS FOR (g:Graph) REQUIRE g.id IS UNIQUE",
    "CREATE CONSTRAINT concept_doc_lemma IF NOT EXISTS FOR (n:Concept) REQUIRE (n.doc_id, n.lemma) IS UNIQUE",
    "CREATE CONSTRAINT relation_doc_key IF NOT EXISTS FOR (n:Relation) REQUIRE (n.doc_id, n.key) IS UNIQUE",
    "CREATE CONSTRAINT mapping_id IF NOT EXISTS FOR (m:Mapping) REQUIRE m.id IS UNIQUE",
    "CREATE CONSTRAINT pair_id IF NOT EXISTS FOR (p:Pair) REQUIRE p.id IS UNIQUE",
    "CREATE CONSTRAINT generic_name IF NOT EXISTS FOR (g:Generic) REQUIRE g.name IS UNIQUE",
    "CREATE CONSTRAINT evaluation_id IF NOT EXISTS FOR (e:Evaluation) REQUIRE e.id IS UNIQUE",
    "CREATE INDEX concept_doc_key IF NOT EXISTS FOR (n:Concept) ON (n.doc_id, n.key)",
    "CREATE INDEX concept_lemma IF NOT EXISTS FOR (n:Concept) ON (n.lemma)",
    "CREATE INDEX relation_lemma IF NOT EXISTS FOR (n:Relation) ON (n.lemma)",
    "CREATE INDEX document_name IF NOT EXISTS FOR (d:Document) ON (d.name)",
    "CREATE INDEX document_path IF NOT EXISTS FOR (d:Document) ON (d.path)",
    "CREATE INDEX contains_name IF NOT EXISTS FOR ()-[m:CONTAINS]-() ON (m.name)",
    "CREATE INDEX mapping_run IF NOT EXISTS FOR (m:Mapping) ON (m.run_id)",
    "CREATE INDEX similar_run IF NOT EXISTS FOR ()-[r:SIMILAR]-() ON (r.run_id)",
    "CREATE INDEX similar_score IF NOT EXISTS FOR ()-[r:SIMILAR]-() ON (r.analogy_similarity)",
    # Stage 1 of analogy search: each document's content vector, hashed to a fixed length.
    f"CREATE VECTOR INDEX {VECTOR_INDEX} IF NOT EXISTS FOR (d:Document) ON d.content_vector "
    f"OPTIONS {{indexConfig: {{`vector.dimensions`: {DENSE_DIMENSIONS}, `vector.similarity_function`: 'cosine'}}}}",
)

LABELS = ("Corpus", "Document", "Graph", "Concept", "Relation", "Mapping", "Pair", "Generic", "Evaluation")
RELATIONSHIP_TYPES = (
    "CONTAINS",
    "HAS_GRAPH",
    "HAS_NODE",
    "SUBJ",
    "OBJ",
    "LINK",
    "SIMILAR",
    "HAS_PAIR",
    "SOURCE",
    "TARGET",
    "GENERIC",
)

# Graph edge labels and the relationship types that hold them; any other
# label is kept as a LINK relationship with a ``label`` property.
_EDGE_TYPES = {"subj": "SUBJ", "obj": "OBJ"}
# Document properties a caller's meta may not overwrite.
_DOCUMENT_PROPS = frozenset(
    {
        "id",
        "graph_id",
        "name",
        "path",
        "kind",
        "extractor_version",
        "title",
        "concepts",
        "relations",
        "sentences",
        "meta",
        "graph",
        "updated",
        "features",
        "features_version",
        "content_vector",
    }
)


@dataclass(frozen=True)
class Neo4jSettings:
    """How to reach Neo4j. The password never appears in ``repr`` or logs."""

    uri: str
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    database: str = "neo4j"
    #: Upper bound on the driver's retries of one transaction, in seconds.
    retry_seconds: float = DEFAULT_RETRY_SECONDS
    connection_timeout: float = DEFAULT_CONNECTION_TIMEOUT
    #: Rows per ``UNWIND $rows`` statement; 1 gives one write per row (for benchmarks).
    batch_size: int = 10_000

    @classmethod
    def from_env(cls, uri: str | None = None) -> Neo4jSettings | None:
        """Settings from ``NEO4J_URI``/``USER``/``PASSWORD``/``DATABASE``, completed
        by the Prefect Secret block named in ``DRI_NEO4J_SECRET_BLOCK``;
        ``None`` when no URI is configured anywhere."""
        secret = _secret_block(env("DRI_NEO4J_SECRET_BLOCK"))
        register_secret(env("NEO4J_PASSWORD"))
        register_secret(secret.get("password"))
        where = "store URI" if uri else "NEO4J_URI" if env("NEO4J_URI") else "the Secret block's uri"
        uri = uri or env("NEO4J_URI") or secret.get("uri")
        if not uri:
            return None
        uri, uri_user, uri_password = split_userinfo(str(uri))
        check_uri(uri, where)
        return cls(
            uri=uri,
            user=env("NEO4J_USER") or uri_user or secret.get("user") or secret.get("username"),
            password=env("NEO4J_PASSWORD") or uri_password or secret.get("password"),
            database=env("NEO4J_DATABASE") or secret.get("database") or "neo4j",
            retry_seconds=_env_seconds("DRI_NEO4J_RETRY_SECONDS", DEFAULT_RETRY_SECONDS, zero=True),
            connection_timeout=_env_seconds("DRI_NEO4J_CONNECTION_TIMEOUT", DEFAULT_CONNECTION_TIMEOUT),
        )


def schema_name(statement: str) -> str:
    """The name a schema statement gives its index or constraint
    (``CREATE [VECTOR ]INDEX name …``, ``CREATE CONSTRAINT name …``)."""
    words = statement.split()
    return words[words.index("CONSTRAINT" if "CONSTRAINT" in words else "INDEX") + 1]


def _env_seconds(name: str, default: float, *, zero: bool = False) -> float:
    """A duration from the environment; a one-line :class:`StoreError` naming
    the variable if it is not a finite, non-negative number."""
    raw = env(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
        least = "0 or more" if zero else "more than 0"
        raise StoreError(name, f"must be a number of seconds, {least}, not {raw!r}")
    return value


def check_uri(uri: str, where: str = "NEO4J_URI") -> None:
    """Raise a one-line :class:`StoreError` naming ``where`` unless the driver
    can use ``uri``: a Neo4j scheme, ``//``, a host and a numeric port. The
    message shows the URI without its user info, however malformed."""
    shown = safe_uri(uri)
    scheme = uri.split("://", 1)[0].lower() if "://" in uri else ""
    hint = "expected bolt://HOST:PORT or neo4j://HOST:PORT (+s or +ssc for TLS)"
    if scheme not in NEO4J_SCHEMES:
        raise StoreError(where, f"{shown!r} is not a Neo4j URI; {hint}")
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        raise StoreError(where, f"{shown!r}: the port must be a number from 1 to 65535") from None
    if not parts.hostname:
        raise StoreError(where, f"{shown!r} names no host; {hint}")
    if port == 0:
        raise StoreError(where, f"{shown!r}: the port must be a number from 1 to 65535")


def split_userinfo(uri: str) -> tuple[str, str | None, str | None]:
    """``(uri without user:password@, user, password)``. The driver refuses
    user info in a URI, and its error message would quote the password."""
    try:
        parts = urlsplit(uri)
        if "@" not in parts.netloc:
            return uri, None, None
        user, password = parts.username, parts.password
        host = parts.netloc.rsplit("@", 1)[1]
    except ValueError:
        return uri, None, None
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return clean, unquote(user) if user else None, unquote(password) if password else None


def _secret_block(name: str | None) -> dict[str, Any]:
    """The content of a Prefect Secret block: a JSON object with any of uri,
    user, password and database, or a bare password."""
    if not name:
        return {}
    try:
        # Prefect only when a Secret block is named.
        from prefect.blocks.system import Secret

        value = Secret.load(name).get()
    except Exception as err:
        raise StoreError(f"Prefect Secret block {name!r}", f"cannot load it: {err}") from None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"password": value}
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    return {"password": str(value)}


class Neo4jStore(Store):
    """The store in a Neo4j 5 database, over Bolt with the official driver."""

    backend = "neo4j"

    def __init__(self, settings: Neo4jSettings):
        # The driver only when a Neo4j store is opened, not for SQLite.
        import neo4j

        clean, user, password = split_userinfo(settings.uri)
        if clean != settings.uri:
            settings = dataclasses.replace(
                settings, uri=clean, user=settings.user or user, password=settings.password or password
            )
        register_secret(settings.password)
        check_uri(settings.uri, "store URI")
        self.settings = settings
        self.location = f"Neo4j at {safe_uri(settings.uri)}"
        self._key = (safe_uri(settings.uri), settings.database)
        self.database = settings.database
        self.batch_size = max(1, int(settings.batch_size))
        auth = (settings.user, settings.password) if settings.user and settings.password else None
        with self._errors():
            self._driver = neo4j.GraphDatabase.driver(
                settings.uri,
                auth=auth,
                max_transaction_retry_time=settings.retry_seconds,
                connection_timeout=settings.connection_timeout,
                connection_acquisition_timeout=settings.connection_timeout + settings.retry_seconds,
                notifications_min_severity="OFF",
                user_agent="dri-store",
            )
        try:
            self._create_schema()
        except BaseException:
            self._driver.close()
            raise
        log.debug("opened %s (database %s)", self.location, self.database)

    # -- plumbing --------------------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Driver and server errors as one-line :class:`StoreError`s naming the server."""
        from neo4j import exceptions as ex

        try:
            yield
        except StoreError:
            raise
        except ex.AuthError as err:
            raise StoreError(
                self.location, f"authentication failed ({_message(err)}); check NEO4J_USER and NEO4J_PASSWORD"
            ) from None
        except (
            ex.ServiceUnavailable,
            ex.SessionExpired,
            ex.TransientError,
            ex.ConnectionAcquisitionTimeoutError,
        ) as err:
            if not isinstance(err, ex.TransientError):  # a busy server is not a down one
                with _state_lock:
                    _down_since[self._key] = time.monotonic()
            raise StoreUnavailable(
                self.location,
                f"unavailable after retrying for up to {self.settings.retry_seconds:g} s: {_message(err)}",
            ) from None
        except ex.Neo4jError as err:
            raise StoreError(self.location, f"{err.code or 'error'}: {_message(err)}") from None
        except (ex.DriverError, ValueError) as err:
            if isinstance(err, ValueError) and "URI" not in str(err) and "scheme" not in str(err):
                raise
            raise StoreError(self.location, _message(err)) from None
        except OSError as err:
            raise StoreError(self.location, f"connection failed: {err}") from None

    def _check_down(self) -> None:
        """Fail at once if this process gave up on the server, unless a quick
        connection check (at most every DOWN_RECHECK_SECONDS) finds it back."""
        with _state_lock:
            since = _down_since.get(self._key)
        if since is None:
            return
        reason = (
            f"unavailable: gave up after retrying for up to {self.settings.retry_seconds:g} s "
            "and it is still not answering"
        )
        if time.monotonic() - since < DOWN_RECHECK_SECONDS:
            raise StoreUnavailable(self.location, reason)
        try:
            self._driver.verify_connectivity()
        except Exception:
            with _state_lock:
                _down_since[self._key] = time.monotonic()
            raise StoreUnavailable(self.location, reason) from None
        with _state_lock:
            _down_since.pop(self._key, None)
        log.info("%s answers again", self.location)

    def _write(self, work: Callable[..., Any], *args: Any) -> Any:
        self._check_down()
        with self._errors(), self._driver.session(database=self.database) as session:
            return session.execute_write(work, *args)

    def _read(self, query: str, **params: Any) -> list[Any]:
        def work(tx: Any) -> list[Any]:
            return list(tx.run(query, params))

        self._check_down()
        with self._errors(), self._driver.session(database=self.database) as session:
            return session.execute_read(work)

    def _unwind(self, tx: Any, query: str, rows: Sequence[dict[str, Any]], **params: Any) -> None:
        """``query`` (which reads ``$rows``) over ``rows`` in batches of ``batch_size``."""
        for start in range(0, len(rows), self.batch_size):
            tx.run(query, {**params, "rows": list(rows[start : start + self.batch_size])}).consume()

    def _create_schema(self) -> None:
        """The constraints and indexes, once per process and server; tolerant of
        other processes creating them at the same time."""
        from neo4j import exceptions as ex

        def work(tx: Any, statement: str) -> None:
            tx.run(statement).consume()

        with _state_lock:
            if self._key in _schema_ready:
                return
        existing = {r["name"] for r in self._read("SHOW INDEXES YIELD name RETURN name")}
        existing |= {r["name"] for r in self._read("SHOW CONSTRAINTS YIELD name RETURN name")}
        for statement in SCHEMA_STATEMENTS:
            if schema_name(statement) in existing:
                continue
            # Schema changes cannot share a transaction with each other or with writes.
            with self._errors(), self._driver.session(database=self.database) as session:
                try:
                    session.execute_write(work, statement)
                except ex.ClientError as err:
                    if "AlreadyExists" not in (err.code or ""):
                        raise
        # Memberships stored before they had names of their own take the document's.
        self._write(
            lambda tx: tx.run(
                "MATCH (:Corpus)-[m:CONTAINS]->(d:Document) WHERE m.name IS NULL "
                "SET m.name = coalesce(d.name, d.id), m.path = coalesce(d.path, '')"
            ).consume()
        )
        with _state_lock:
            _schema_ready.add(self._key)

    def close(self) -> None:
        self._driver.close()

    def available(self) -> bool:
        try:
            self._driver.verify_connectivity()
        except Exception:
            with _state_lock:
                _down_since[self._key] = time.monotonic()
            return False
        with _state_lock:
            _down_since.pop(self._key, None)
        return True

    # -- documents -------------------------------------------------------------------

    def put_document(
        self, corpus: str, graph: nx.DiGraph, *, meta: dict[str, Any] | None = None
    ) -> DocumentRecord:
        if not isinstance(corpus, str) or not corpus:
            raise ValueError("corpus must be a non-empty string")
        fields = document_fields(graph, meta)
        meta = clean_meta(meta)
        nodes, edges = _graph_rows(graph)
        try:
            graph_attrs = json.dumps(dict(graph.graph), ensure_ascii=False)
        except (TypeError, ValueError) as err:
            raise ValueError(f"graph {fields['doc_id']} cannot be stored as JSON: {err}") from None
        doc_id = fields["doc_id"]
        name = member_name(fields)

        def work(tx: Any) -> DocumentRecord:
            old = tx.run(
                "MATCH (d:Document {id: $id}) RETURN d.graph_id AS graph_id, "
                "d.extractor_version AS version, d.meta AS meta",
                id=doc_id,
            ).single()
            newest = old is None or version_key(fields["extractor_version"]) >= version_key(
                old["version"] or ""
            )
            merged = {**(json.loads(old["meta"]) if old and old["meta"] else {}), **meta}
            props = {k: v for k, v in scalar_meta(merged).items() if k not in _DOCUMENT_PROPS}
            props.update(meta=to_json_text(merged), updated=now())
            if newest:
                props.update(
                    {
                        k: fields[k]
                        for k in ("graph_id", "kind", "extractor_version", "title", "concepts", "relations")
                    }
                )
                props.update(sentences=int(graph.graph.get("sentences", 0) or 0), graph=graph_attrs)
                props.update(_vector_props(graph))
            member = {k: v for k, v in scalar_meta(meta).items() if k != "meta"}
            member.update(meta=to_json_text(meta), name=name, path=fields["path"])
            tx.run(
                "MERGE (c:Corpus {name: $corpus}) "
                # The document keeps the name it was first stored under; each
                # membership (one per corpus and name) has its own.
                "MERGE (d:Document {id: $id}) SET d += $props, "
                "d.name = coalesce(d.name, $name), d.path = coalesce(d.path, $path) "
                "WITH c, d "
                "CALL { WITH c, d OPTIONAL MATCH (c)-[old:CONTAINS {name: $name}]->(other) "
                "       WHERE other <> d DELETE old } "
                "MERGE (c)-[m:CONTAINS {name: $name}]->(d) SET m = $member "
                "MERGE (g:Graph {id: $graph_id}) "
                "ON CREATE SET g.extractor_version = $version, g.stored = $stored "
                "MERGE (d)-[:HAS_GRAPH]->(g) "
                # The stored graph becomes exactly this one: nodes it lacks go,
                # its edges are laid anew, and nodes it shares stay, so the
                # SOURCE/TARGET links of stored mapping pairs survive a re-put.
                "WITH d WHERE $newest "
                "CALL { WITH d MATCH (d)-[:HAS_NODE]->(n) WHERE NOT n.key IN $keys DETACH DELETE n } "
                "CALL { WITH d MATCH (d)-[:HAS_NODE]->()-[e:SUBJ|OBJ|LINK]->() DELETE e }",
                corpus=corpus,
                id=doc_id,
                props=props,
                member=member,
                name=name,
                path=fields["path"],
                graph_id=fields["graph_id"],
                version=fields["extractor_version"],
                stored=now(),
                newest=newest,
                keys=[n["key"] for n in nodes],
            ).consume()
            if not newest:
                return self._document_in(tx, doc_id, name, fields["path"])
            self._unwind(
                tx,
                "MATCH (d:Document {id: $id}) UNWIND $rows AS row "
                "MERGE (n:Concept {doc_id: $id, lemma: row.lemma}) SET n = row.props "
                "MERGE (d)-[:HAS_NODE]->(n)",
                [n for n in nodes if n["label"] == "Concept"],
                id=doc_id,
            )
            self._unwind(
                tx,
                "MATCH (d:Document {id: $id}) UNWIND $rows AS row "
                "MERGE (n:Relation {doc_id: $id, key: row.key}) SET n = row.props "
                "MERGE (d)-[:HAS_NODE]->(n)",
                [n for n in nodes if n["label"] == "Relation"],
                id=doc_id,
            )
            for (source_label, target_label, rel_type), rows in _group_edges(edges).items():
                # Labels and types come from fixed sets (see _graph_rows), never from data.
                self._unwind(
                    tx,
                    f"UNWIND $rows AS row "
                    f"MATCH (a:{source_label} {{doc_id: $id, key: row.source}}) "
                    f"MATCH (b:{target_label} {{doc_id: $id, key: row.target}}) "
                    f"MERGE (a)-[e:{rel_type}]->(b) SET e.label = row.label, e.ord = row.ord",
                    rows,
                    id=doc_id,
                )
            return self._document_in(tx, doc_id, name, fields["path"])

        return self._write(work)

    def _document_in(self, tx: Any, doc_id: str, name: str, path: str) -> DocumentRecord:
        """The document as the membership just written names it."""
        query = "MATCH (d:Document {id: $id}) " + _returning()
        record = _document(tx.run(query, id=doc_id).single())
        return dataclasses.replace(record, name=name, path=path)

    def is_member(self, corpus: str, name: str, doc_id: str) -> bool:
        return bool(
            self._read(
                "MATCH (:Corpus {name: $corpus})-[:CONTAINS {name: $name}]->(:Document {id: $id}) "
                "RETURN 1 LIMIT 1",
                corpus=corpus,
                name=name,
                id=doc_id,
            )
        )

    def has_graph(self, graph_id: str) -> bool:
        return bool(self._read("MATCH (g:Graph {id: $id}) RETURN 1 LIMIT 1", id=graph_id))

    def get_graph(self, doc_id: str) -> nx.DiGraph | None:
        def work(tx: Any) -> tuple[Any, list[Any], list[Any]]:
            head = tx.run("MATCH (d:Document {id: $id}) RETURN d.graph AS graph", id=doc_id).single()
            nodes = list(
                tx.run(
                    "MATCH (:Document {id: $id})-[:HAS_NODE]->(n) "
                    "RETURN n.key AS key, n.attrs AS attrs ORDER BY n.ord",
                    id=doc_id,
                )
            )
            edges = list(
                tx.run(
                    "MATCH (:Document {id: $id})-[:HAS_NODE]->(a)-[e:SUBJ|OBJ|LINK]->(b) "
                    "WHERE b.doc_id = $id "
                    "RETURN a.key AS source, b.key AS target, e.label AS label ORDER BY e.ord",
                    id=doc_id,
                )
            )
            return head, nodes, edges

        with self._errors(), self._driver.session(database=self.database) as session:
            head, nodes, edges = session.execute_read(work)
        if head is None or head["graph"] is None:
            return None
        return from_json(
            {
                "schema_version": GRAPH_SCHEMA_VERSION,
                "graph": json.loads(head["graph"]),
                "nodes": [{"id": r["key"], **json.loads(r["attrs"])} for r in nodes],
                "edges": [{"source": r["source"], "target": r["target"], "label": r["label"]} for r in edges],
            }
        )

    # -- stage 1 of analogy search ----------------------------------------------------

    def _fill_vectors(self) -> None:
        """Content vectors for documents stored before them (or with older features)."""
        stale = self._read(
            "MATCH (d:Document) WHERE d.graph IS NOT NULL AND coalesce(d.features_version, '') <> $v "
            "RETURN d.id AS id",
            v=FEATURES_VERSION,
        )
        for row in stale:
            graph = self.get_graph(row["id"])
            if graph is not None:
                self._write(
                    lambda tx, i, p: tx.run(
                        "MATCH (d:Document {id: $id}) SET d += $props", id=i, props=p
                    ).consume(),
                    row["id"],
                    _vector_props(graph),
                )

    def content_vectors(
        self, corpus: str | None = None
    ) -> tuple[list[str], list[dict[str, float]], list[int]]:
        self._fill_vectors()
        rows = self._read(
            "MATCH (d:Document) WHERE d.features IS NOT NULL "
            "AND ($corpus IS NULL OR EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(d) }) "
            "RETURN d.id AS id, d.features AS features, d.concepts + d.relations AS size ORDER BY d.id",
            corpus=corpus,
        )
        return (
            [r["id"] for r in rows],
            [json.loads(r["features"]) for r in rows],
            [int(r["size"] or 0) for r in rows],
        )

    def similar_documents(
        self, doc_id: str, k: int | None = 100, *, corpus: str | None = None
    ) -> list[tuple[str, float]]:
        """Stage 1 through the server's vector index (HNSW, approximate) on the
        hashed content vectors, without idf weighting: the ``3 k`` nearest (all,
        with a corpus filter) are re-ranked by :func:`store.vectors.combine` of
        their structural estimate (:class:`store.vectors.StructureIndex` over
        those documents) and the index's score mapped back to a cosine."""
        self._fill_vectors()
        head = self._read(
            "MATCH (d:Document {id: $id}) RETURN d.content_vector AS v, d.features AS features",
            id=doc_id,
        )
        if not head:
            raise StoreError(self.location, f"no stored graph for document {doc_id}")
        if head[0]["v"] is None:
            return []
        total = self._read("MATCH (d:Document) WHERE d.content_vector IS NOT NULL RETURN count(d) AS n")[0][
            "n"
        ]
        wanted = total if k is None else min(total, 3 * k + 1)
        if corpus is not None:
            wanted = total  # the index cannot filter by corpus first, so ask for all of them
        rows = self._read(
            f"CALL db.index.vector.queryNodes('{VECTOR_INDEX}', $wanted, $vector) YIELD node, score "
            "WHERE node.id <> $id "
            "AND ($corpus IS NULL OR EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(node) }) "
            "RETURN node.id AS id, score, node.features AS features",
            wanted=max(1, wanted),
            vector=head[0]["v"],
            id=doc_id,
            corpus=corpus,
        )
        if not rows:
            return []
        pool = StructureIndex.build([json.loads(r["features"] or "{}") for r in rows])
        share = pool.share(json.loads(head[0]["features"] or "{}"))
        scores = combine(share, [2.0 * float(r["score"]) - 1.0 for r in rows])
        found = sorted(((r["id"], float(x)) for r, x in zip(rows, scores)), key=lambda x: (-x[1], x[0]))
        return found if k is None else found[:k]

    def _records(self, match: str, member: bool = False, **params: Any) -> list[DocumentRecord]:
        """Documents matched by ``match`` (which binds ``d``, and ``m``, a
        CONTAINS membership, when ``member``: then named as ``m`` names them)."""
        rows = self._read(match + " " + _returning(member), **params)
        return [_document(r) for r in rows]

    def get_document(self, doc_id: str) -> DocumentRecord | None:
        found = self._records("MATCH (d:Document {id: $id})", id=doc_id)
        return found[0] if found else None

    def _document_candidates(self, text: str, corpus: str | None) -> list[DocumentRecord]:
        params: dict[str, Any] = {"text": text, "resolved": resolved_path(text), "corpus": corpus}
        found = self._records(
            "MATCH (c:Corpus)-[m:CONTAINS]->(d:Document) WHERE ($corpus IS NULL OR c.name = $corpus) "
            "AND (d.id = $text OR m.path IN [$text, $resolved] OR m.name = $text)",
            member=True,
            **params,
        )
        if corpus is None:
            found += self._records(
                "MATCH (d:Document) WHERE d.id = $text OR d.path IN [$text, $resolved] OR d.name = $text",
                **params,
            )
        return found

    def corpora(self) -> list[str]:
        return [r["name"] for r in self._read("MATCH (c:Corpus) RETURN c.name AS name ORDER BY name")]

    def documents(self, corpus: str) -> list[DocumentRecord]:
        return self._records(
            "MATCH (:Corpus {name: $corpus})-[m:CONTAINS]->(d:Document)", member=True, corpus=corpus
        )

    # -- comparisons -----------------------------------------------------------------

    def put_comparison(self, result: ComparisonRecord) -> None:
        self.put_comparisons([result])

    def put_comparisons(self, results: Sequence[ComparisonRecord]) -> None:
        def work(tx: Any) -> None:
            for result in results:
                self._write_comparison(tx, result)

        self._write(work)

    def stored_pairs(self, pairs: Sequence[tuple[str, str]], run_id: str) -> set[tuple[str, str]]:
        keys = {ComparisonRecord(s, t, run_id).key: (s, t) for s, t in pairs}
        rows = self._read("MATCH (m:Mapping) WHERE m.id IN $ids RETURN m.id AS id", ids=list(keys))
        return {keys[r["id"]] for r in rows}

    def _write_comparison(self, tx: Any, result: ComparisonRecord) -> None:
        mapping_id = result.key
        scores = {f: result.scores[f] for f in STORED_SCORES}
        scores.update(
            mapped_concepts=result.scores.get("mapped_concepts", 0),
            mapped_relations=result.scores.get("mapped_relations", 0),
        )
        pairs = [{"id": f"{mapping_id}#{i}", "idx": i, **p} for i, p in enumerate(result.pairs)]
        created = result.created or now()

        found = tx.run(
            "MATCH (s:Document {id: $source}) MATCH (t:Document {id: $target}) "
            "MERGE (m:Mapping {id: $mid}) "
            "ON CREATE SET m.created = $created "
            "SET m += $scores, m.source_id = $source, m.target_id = $target, m.run_id = $run, "
            "    m.params = $params, m.scores = $scores_json, m.pairs = $npairs "
            "MERGE (m)-[:SOURCE]->(s) MERGE (m)-[:TARGET]->(t) "
            "MERGE (s)-[r:SIMILAR {run_id: $run}]->(t) "
            "ON CREATE SET r.created = $created "
            "SET r += $scores, r.params = $params, r.mapping_id = $mid "
            "RETURN count(*) AS n",
            source=result.source_id,
            target=result.target_id,
            run=result.run_id,
            mid=mapping_id,
            scores=scores,
            scores_json=to_json_text(result.scores_to_store()),
            params=to_json_text(result.params),
            npairs=len(pairs),
            created=created,
        ).single()
        if not found or not found["n"]:
            missing = [
                d
                for d in (result.source_id, result.target_id)
                if tx.run("MATCH (d:Document {id: $id}) RETURN 1", id=d).single() is None
            ]
            raise StoreError(
                self.location,
                f"comparison of unknown document "
                f"{missing[0] if missing else result.source_id} "
                f"(store the documents first)",
            )
        tx.run(
            "MATCH (:Mapping {id: $mid})-[:HAS_PAIR]->(p:Pair) WHERE p.idx >= $n DETACH DELETE p",
            mid=mapping_id,
            n=len(pairs),
        ).consume()
        self._unwind(
            tx,
            "MATCH (m:Mapping {id: $mid}) UNWIND $rows AS row "
            "MERGE (p:Pair {id: row.id}) "
            "SET p.idx = row.idx, p.kind = row.kind, p.source = row.source, p.target = row.target, "
            "    p.source_lemma = row.source_lemma, p.target_lemma = row.target_lemma, p.lin = row.lin, "
            "    p.generic = row.generic, p.run_id = $run, p.source_id = $source, p.target_id = $target "
            "MERGE (m)-[:HAS_PAIR]->(p)",
            pairs,
            mid=mapping_id,
            run=result.run_id,
            source=result.source_id,
            target=result.target_id,
        )
        for label, kind in (("Concept", "concept"), ("Relation", "relation")):
            self._unwind(
                tx,
                f"UNWIND $rows AS row MATCH (p:Pair {{id: row.id}}) "
                f"OPTIONAL MATCH (x:{label} {{doc_id: $source, key: row.source}}) "
                f"OPTIONAL MATCH (y:{label} {{doc_id: $target, key: row.target}}) "
                "FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END | MERGE (p)-[:SOURCE]->(x)) "
                "FOREACH (_ IN CASE WHEN y IS NULL THEN [] ELSE [1] END | MERGE (p)-[:TARGET]->(y))",
                [p for p in pairs if p["kind"] == kind],
                source=result.source_id,
                target=result.target_id,
            )
        self._unwind(
            tx,
            "UNWIND $rows AS row MATCH (p:Pair {id: row.id}) "
            "OPTIONAL MATCH (p)-[old:GENERIC]->() DELETE old "
            "WITH p, row WHERE row.generic IS NOT NULL "
            "MERGE (g:Generic {name: row.generic}) MERGE (p)-[:GENERIC]->(g)",
            pairs,
        )

    def has_comparison(self, source_id: str, target_id: str, run_id: str) -> bool:
        key = ComparisonRecord(source_id, target_id, run_id).key
        return bool(self._read("MATCH (m:Mapping {id: $id}) RETURN 1 LIMIT 1", id=key))

    def _comparisons(self, where: str, pairs: bool, **params: Any) -> list[ComparisonRecord]:
        rows = self._read(
            f"MATCH (m:Mapping) WHERE {where} "
            "RETURN m.id AS id, m.source_id AS source_id, m.target_id AS target_id, m.run_id AS run_id, "
            "m.params AS params, m.scores AS scores, m.created AS created, "
            + (
                "COLLECT { MATCH (m)-[:HAS_PAIR]->(p:Pair) RETURN p ORDER BY p.idx } AS pairs "
                if pairs
                else "[] AS pairs "
            )
            + "ORDER BY source_id, target_id, run_id",
            **params,
        )
        return [
            ComparisonRecord(
                r["source_id"],
                r["target_id"],
                r["run_id"],
                json.loads(r["params"] or "{}"),
                json.loads(r["scores"] or "{}"),
                [{f: p.get(f) for f in PAIR_FIELDS} for p in r["pairs"]],
                r["created"] or "",
            )
            for r in rows
        ]

    def get_comparison(self, source_id: str, target_id: str, run_id: str) -> ComparisonRecord | None:
        key = ComparisonRecord(source_id, target_id, run_id).key
        found = self._comparisons("m.id = $id", True, id=key)
        return found[0] if found else None

    def comparisons(
        self, run_id: str | None = None, corpus: str | None = None, *, pairs: bool = False
    ) -> list[ComparisonRecord]:
        return self._comparisons(
            "($run IS NULL OR m.run_id = $run) AND ($corpus IS NULL OR ("
            " EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(:Document {id: m.source_id}) } AND"
            " EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(:Document {id: m.target_id}) }))",
            pairs,
            run=run_id,
            corpus=corpus,
        )

    TOP_ANALOGUES = (
        "MATCH (d:Document {id: $id})-[r:SIMILAR]-(o:Document) "
        "WHERE o.id <> $id AND ($run IS NULL OR r.run_id = $run) "
        "WITH o, r, CASE WHEN startNode(r) = d THEN 'out' ELSE 'in' END AS direction "
        "ORDER BY r.analogy_similarity DESC, r.run_id ASC, direction DESC "
        "WITH o, collect({r: r, direction: direction})[0] AS best "
        "RETURN o.id AS doc_id, coalesce(o.name, '') AS name, "
        "best.r.analogy_similarity AS analogy_similarity, best.r.jaccard AS jaccard, "
        "best.r.semantic AS semantic, best.r.conceptual AS conceptual, best.r.relational AS relational, "
        "best.r.run_id AS run_id, best.direction AS direction "
        "ORDER BY analogy_similarity DESC, name ASC, doc_id ASC LIMIT $k"
    )

    def top_analogues(self, doc_id: str, k: int = 10, run_id: str | None = None) -> list[Analogue]:
        rows = self._read(self.TOP_ANALOGUES, id=doc_id, run=run_id, k=check_k(k))
        return [Analogue(**dict(r)) for r in rows]

    def runs(self) -> list[RunRecord]:
        rows = self._read(
            "MATCH (m:Mapping) WITH m.run_id AS run_id, count(*) AS n, min(m.created) AS first, "
            "max(m.created) AS last RETURN run_id, n, first, last ORDER BY first, run_id"
        )
        return [RunRecord(r["run_id"], r["n"], r["first"] or "", r["last"] or "") for r in rows]

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


# -- rows ----------------------------------------------------------------------------


def _vector_props(graph: nx.DiGraph) -> dict[str, Any]:
    """The document properties that hold its content vector: the counts as JSON
    and their dense hashed projection for the vector index (absent when empty,
    since a zero vector has no cosine)."""
    features = content_features(graph)
    dense = dense_vector(features)
    return {
        "features": json.dumps(features, sort_keys=True),
        "features_version": FEATURES_VERSION,
        "content_vector": dense if any(dense) else None,
    }


def _property(value: Any) -> Any:
    """``value`` if Neo4j can hold it as a property, else ``None`` (the full
    attributes are kept as JSON in ``attrs`` anyway)."""
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and value:
        kinds = {type(v) for v in value}
        if len(kinds) == 1 and kinds <= {str, int, float, bool}:
            return list(value)
    if isinstance(value, (list, tuple)):
        return [] if not value else None
    return None


def _graph_rows(graph: nx.DiGraph) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes, labels = [], {}
    for ord_, (node, attrs) in enumerate(graph.nodes(data=True)):
        label = "Relation" if attrs.get("type") == "relation" else "Concept"
        key = str(node)
        labels[node] = label
        try:
            attrs_json = json.dumps(attrs, ensure_ascii=False)
        except (TypeError, ValueError) as err:
            raise ValueError(f"node {key!r} has attributes JSON cannot hold: {err}") from None
        props = {
            name: _property(attrs.get(name))
            for name in (
                "type",
                "pos",
                "order",
                "entity",
                "wordnet_lemma",
                "sentences",
                "sections",
                "mentions",
            )
            if name in attrs
        }
        props = {k: v for k, v in props.items() if v is not None}
        lemma = str(attrs.get("lemma", key))
        props.update(doc_id=str(graph.graph["doc_id"]), key=key, lemma=lemma, ord=ord_, attrs=attrs_json)
        nodes.append({"label": label, "key": key, "lemma": lemma, "props": props})
    edges = []
    for ord_, (u, v, label) in enumerate(graph.edges(data="label")):
        edges.append(
            {
                "source": str(u),
                "target": str(v),
                "source_label": labels[u],
                "target_label": labels[v],
                "type": _EDGE_TYPES.get(label, "LINK"),
                "label": label,
                "ord": ord_,
            }
        )
    return nodes, edges


def _group_edges(edges: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for e in edges:
        groups.setdefault((e["source_label"], e["target_label"], e["type"]), []).append(
            {"source": e["source"], "target": e["target"], "label": e["label"], "ord": e["ord"]}
        )
    return groups


def _returning(member: bool = False) -> str:
    """The RETURN clause of document records; names, paths and meta from the
    membership ``m`` when ``member``."""
    owner = "m" if member else "d"
    return (
        f"RETURN d.id AS doc_id, d.graph_id AS graph_id, {owner}.name AS name, {owner}.path AS path, "
        "d.kind AS kind, d.extractor_version AS extractor_version, d.title AS title, d.concepts AS concepts, "
        "d.relations AS relations, "
        "COLLECT { MATCH (c:Corpus)-[:CONTAINS]->(d) RETURN DISTINCT c.name AS name ORDER BY name } AS corpora, "
        f"{owner}.meta AS meta ORDER BY name, doc_id"
    )


def _document(row: Any) -> DocumentRecord:
    return DocumentRecord(
        doc_id=row["doc_id"],
        graph_id=row["graph_id"] or "",
        name=row["name"] or "",
        path=row["path"] or "",
        kind=row["kind"] or "",
        extractor_version=row["extractor_version"] or "",
        title=row["title"] or "",
        concepts=int(row["concepts"] or 0),
        relations=int(row["relations"] or 0),
        corpora=tuple(row["corpora"]),
        meta=json.loads(row["meta"] or "{}"),
    )


def _message(err: BaseException) -> str:
    text = getattr(err, "message", None) or str(err) or type(err).__name__
    return " ".join(str(text).split())
