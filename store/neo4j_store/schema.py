"""The schema: constraints and indexes (``docs/store.md`` lists them), the
labels and relationship types the store uses, and their creation.

The schema is created once per process and server, and a statement that
finds its index or constraint already made by another process
(``EquivalentSchemaRuleAlreadyExists``) counts as done.
"""

from __future__ import annotations

from typing import Any

from dri.mapping.encoder import DIMENSION as ENCODER_DIMENSION
from dri.store.encoder_vectors import ENCODER_INDEX
from dri.store.neo4j_store.connection import Neo4jConnection, state_lock
from dri.store.vectors import DENSE_DIMENSIONS

__all__ = [
    "LABELS",
    "RELATIONSHIP_TYPES",
    "SCHEMA_STATEMENTS",
    "VECTOR_INDEX",
    "create_schema",
    "schema_name",
]

VECTOR_INDEX = "document_content"

SCHEMA_STATEMENTS = (
    "CREATE CONSTRAINT corpus_name IF NOT EXISTS FOR (c:Corpus) REQUIRE c.name IS UNIQUE",
    "CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE",
    "CREATE CONSTRAINT graph_id IF NOT EXISTS FOR (g:Graph) REQUIRE g.id IS UNIQUE",
    "CREATE CONSTRAINT concept_doc_lemma IF NOT EXISTS FOR (n:Concept) REQUIRE (n.doc_id, n.lemma) IS UNIQUE",
    "CREATE CONSTRAINT relation_doc_key IF NOT EXISTS FOR (n:Relation) REQUIRE (n.doc_id, n.key) IS UNIQUE",
    "CREATE CONSTRAINT mapping_id IF NOT EXISTS FOR (m:Mapping) REQUIRE m.id IS UNIQUE",
    "CREATE CONSTRAINT pair_id IF NOT EXISTS FOR (p:Pair) REQUIRE p.id IS UNIQUE",
    "CREATE CONSTRAINT inference_id IF NOT EXISTS FOR (i:Inference) REQUIRE i.id IS UNIQUE",
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
    # Each document's sentence-encoder vector (store/encoder_vectors.py): what it is about.
    f"CREATE VECTOR INDEX {ENCODER_INDEX} IF NOT EXISTS FOR (d:Document) ON d.encoder_vector "
    f"OPTIONS {{indexConfig: {{`vector.dimensions`: {ENCODER_DIMENSION}, `vector.similarity_function`: 'cosine'}}}}",
)

LABELS = (
    "Corpus",
    "Document",
    "Graph",
    "Concept",
    "Relation",
    "Mapping",
    "Pair",
    "Generic",
    "Inference",
    "Evaluation",
)
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
    "SUGGESTS",
    "FROM_RELATION",
    "ABOUT",
)


# Per process: the servers whose schema is known to exist.
_schema_ready: set[tuple[str, str]] = set()


def schema_name(statement: str) -> str:
    """The name a schema statement gives its index or constraint
    (``CREATE [VECTOR ]INDEX name …``, ``CREATE CONSTRAINT name …``)."""
    words = statement.split()
    return words[words.index("CONSTRAINT" if "CONSTRAINT" in words else "INDEX") + 1]


def create_schema(conn: Neo4jConnection) -> None:
    """The constraints and indexes, once per process and server; tolerant of
    other processes creating them at the same time."""
    from neo4j import exceptions as ex

    def work(tx: Any, statement: str) -> None:
        tx.run(statement).consume()

    with state_lock:
        if conn._key in _schema_ready:
            return
    existing = {r["name"] for r in conn._read("SHOW INDEXES YIELD name RETURN name")}
    existing |= {r["name"] for r in conn._read("SHOW CONSTRAINTS YIELD name RETURN name")}
    for statement in SCHEMA_STATEMENTS:
        if schema_name(statement) in existing:
            continue
        # Schema changes cannot share a transaction with each other or with writes.
        with conn._errors(), conn._driver.session(database=conn.database) as session:
            try:
                session.execute_write(work, statement)
            except ex.ClientError as err:
                if "AlreadyExists" not in (err.code or ""):
                    raise
    # Memberships stored before they had names of their own take the document's.
    conn._write(
        lambda tx: tx.run(
            "MATCH (:Corpus)-[m:CONTAINS]->(d:Document) WHERE m.name IS NULL "
            "SET m.name = coalesce(d.name, d.id), m.path = coalesce(d.path, '')"
        ).consume()
    )
    with state_lock:
        _schema_ready.add(conn._key)
