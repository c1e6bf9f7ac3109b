"""What only the Neo4j backend has: its schema, its errors, its credentials."""

from __future__ import annotations

import dataclasses
import logging
import socket
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_test_helpers import ATOM, READS, SOLAR, comparison, corpus_graphs, make_graph

from dri.store import StoreError, open_store
from dri.store.neo4j_store import SCHEMA_STATEMENTS, Neo4jSettings, Neo4jStore

PASSWORD = "s3cret-Pa55word-never-logged"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def neo4j_store(neo4j_uri):
    with open_store(neo4j_uri) as store:
        store.clear()
        yield store


def test_constraints_and_indexes_exist_after_start_up(neo4j_store):
    import re

    names = {re.search(r"(?:CONSTRAINT|INDEX) (\w+) IF NOT EXISTS", s).group(1) for s in SCHEMA_STATEMENTS}
    with neo4j_store._driver.session(database=neo4j_store.database) as session:
        found = {r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name RETURN name")}
        found |= {
            r["name"]
            for r in session.run("SHOW INDEXES YIELD name, state WHERE state = 'ONLINE' RETURN name")
        }
    assert names <= found
    # Opening again finds them in place and changes nothing.
    with open_store(neo4j_store.settings.uri) as again:
        assert again.counts() == neo4j_store.counts()


def test_the_graph_is_queryable_as_subject_relation_object(neo4j_store):
    neo4j_store.put_document("tiny", make_graph("solar", "solar.txt", SOLAR))
    with neo4j_store._driver.session(database=neo4j_store.database) as session:
        rows = session.run(
            "MATCH (:Document {id: 'solar'})-[:HAS_NODE]->(r:Relation) "
            "MATCH (s:Concept)-[:SUBJ]->(r)-[:OBJ]->(o:Concept) "
            "RETURN s.lemma AS s, r.lemma AS v, o.lemma AS o ORDER BY r.ord"
        ).data()
    assert [(r["s"], r["v"], r["o"]) for r in rows] == SOLAR


def test_a_mapping_is_linked_to_the_mapped_nodes_and_its_generic_space(neo4j_store):
    for g in corpus_graphs():
        neo4j_store.put_document("tiny", g)
    neo4j_store.put_comparison(
        comparison(
            "solar",
            "atom",
            "run-1",
            0.8,
            pairs=[
                {
                    "source": "c:sun",
                    "target": "c:nucleus",
                    "kind": "concept",
                    "source_lemma": "sun",
                    "target_lemma": "nucleus",
                    "lin": 0.3,
                    "generic": "entity.n.01",
                },
                {
                    "source": "r:0",
                    "target": "r:0",
                    "kind": "relation",
                    "source_lemma": "attract",
                    "target_lemma": "attract",
                    "lin": 1.0,
                    "generic": "attract.v.01",
                },
            ],
        )
    )
    with neo4j_store._driver.session(database=neo4j_store.database) as session:
        rows = session.run(
            "MATCH (:Document {id: 'solar'})-[s:SIMILAR {run_id: 'run-1'}]->(:Document {id: 'atom'}) "
            "MATCH (:Mapping {id: s.mapping_id})-[:HAS_PAIR]->(p)-[:SOURCE]->(a), (p)-[:TARGET]->(b), "
            "      (p)-[:GENERIC]->(g) "
            "RETURN labels(a)[0] AS label, a.lemma AS a, b.lemma AS b, g.name AS g, s.analogy_similarity AS score "
            "ORDER BY p.idx"
        ).data()
    assert rows == [
        {"label": "Concept", "a": "sun", "b": "nucleus", "g": "entity.n.01", "score": 0.8},
        {"label": "Relation", "a": "attract", "b": "attract", "g": "attract.v.01", "score": 0.8},
    ]


def test_an_inference_is_linked_to_its_source_relation_and_the_target_nodes_it_is_about(neo4j_store):
    from dri.metrics import compare

    source, target = make_graph("solar", "solar.txt", SOLAR), make_graph("atom", "atom.txt", ATOM)
    result = compare(source, target)
    neo4j_store.put_document("tiny", source)
    neo4j_store.put_document("tiny", target)
    # sun heat planet -> nucleus heat electron
    record = dataclasses.replace(comparison("solar", "atom", "run-1", 0.8), inferences=result.inferences)
    neo4j_store.put_comparison(record)
    neo4j_store.put_comparison(record)  # again: nothing doubles
    with neo4j_store._driver.session(database=neo4j_store.database) as session:
        rows = session.run(
            "MATCH (:Mapping {id: $mid})-[:SUGGESTS]->(i:Inference)-[:FROM_RELATION]->(r:Relation) "
            "MATCH (i)-[a:ABOUT]->(c:Concept) "
            "RETURN i.text AS text, r.lemma AS relation, r.doc_id AS doc, a.role AS role, c.lemma AS concept, "
            "       c.doc_id AS about ORDER BY a.role DESC",
            mid=record.key,
        ).data()
    assert rows == [
        {
            "text": "nucleus heat electron",
            "relation": "heat",
            "doc": "solar",
            "role": "subj",
            "concept": "nucleus",
            "about": "atom",
        },
        {
            "text": "nucleus heat electron",
            "relation": "heat",
            "doc": "solar",
            "role": "obj",
            "concept": "electron",
            "about": "atom",
        },
    ]


def test_a_dead_server_gives_one_line_naming_the_server_without_credentials(monkeypatch):
    port = _free_port()
    monkeypatch.setenv("DRI_NEO4J_RETRY_SECONDS", "2")
    monkeypatch.setenv("DRI_NEO4J_CONNECTION_TIMEOUT", "2")
    started = time.monotonic()
    with pytest.raises(StoreError) as err:
        open_store(f"bolt://neo4j:{PASSWORD}@127.0.0.1:{port}")
    message = str(err.value)
    assert (
        message
        == f"Neo4j at bolt://127.0.0.1:{port}: cannot connect: connection refused (is the server running?)"
    )
    assert "\n" not in message and PASSWORD not in message and "neo4j:" not in message.split(": ", 1)[0]
    assert time.monotonic() - started < 30


def test_an_unknown_scheme_is_a_clear_error():
    with pytest.raises(StoreError, match="unknown store URI scheme 'postgres'") as err:
        open_store(f"postgres://user:{PASSWORD}@db/x")
    assert PASSWORD not in str(err.value)


def test_credentials_are_never_logged_nor_shown(neo4j_uri, monkeypatch, caplog):
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    monkeypatch.setenv("NEO4J_USER", "neo4j")
    monkeypatch.setenv("NEO4J_PASSWORD", PASSWORD)
    caplog.set_level(logging.DEBUG)  # the driver's own debug log included
    with open_store() as store:  # the project's server has auth off, so any password is accepted
        assert store.backend == "neo4j" and store.settings.password == PASSWORD
        store.put_document("tiny", make_graph("solar", "solar.txt", SOLAR))
        shown = " ".join([repr(store), repr(store.settings), store.location])
    assert caplog.records, "the driver should have logged its debug messages"
    assert PASSWORD not in caplog.text and PASSWORD not in shown


@pytest.mark.slow
def test_the_connection_can_come_from_a_prefect_secret_block(prefect_server, neo4j_uri, monkeypatch):
    from prefect.blocks.system import Secret

    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        monkeypatch.delenv(name, raising=False)
    # The block is saved to the session's Prefect test server (prefect_server).
    Secret(value={"uri": neo4j_uri, "user": "neo4j", "password": PASSWORD}).save("dri-test-neo4j")
    monkeypatch.setenv("DRI_NEO4J_SECRET_BLOCK", "dri-test-neo4j")
    settings = Neo4jSettings.from_env()
    assert (settings.uri, settings.user, settings.password) == (neo4j_uri, "neo4j", PASSWORD)
    with open_store() as store:
        assert isinstance(store, Neo4jStore) and store.location == f"Neo4j at {neo4j_uri}"
    monkeypatch.setenv("DRI_NEO4J_SECRET_BLOCK", "no-such-block")
    with pytest.raises(StoreError, match="Prefect Secret block 'no-such-block': cannot load it"):
        open_store()


def test_one_write_per_row_stores_the_same_as_unwind_batches(neo4j_uri):
    """The benchmark's baseline mode must write exactly what the batched mode writes."""
    counts = {}
    for batch in (10_000, 1):
        settings = Neo4jSettings(neo4j_uri, batch_size=batch)
        with Neo4jStore(settings) as store:
            store.clear()
            for g in corpus_graphs():
                store.put_document("tiny", g)
            store.put_comparison(comparison("solar", "atom", "run-1", 0.5))
            counts[batch] = (store.counts(), store.get_comparison("solar", "atom", "run-1").pairs)
    assert counts[1] == counts[10_000]


_edges = st.lists(
    st.tuples(
        st.sampled_from(["solar", "atom", "water", "heat"]),
        st.sampled_from(["solar", "atom", "water", "heat"]),
        st.sampled_from(["run-1", "run-2", "run-3"]),
        st.sampled_from([0.1, 0.5, 0.9]),
    ),
    max_size=14,
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=_edges, k=st.integers(1, 4))
def test_both_backends_rank_analogues_alike(neo4j_store, tmp_path_factory, edges, k):
    """Ties, both directions, repeated runs: SQL and Cypher must agree exactly."""
    neo4j_store.clear()
    with open_store(f"sqlite:///{tmp_path_factory.mktemp('rank') / 's.sqlite'}") as lite:
        for store in (lite, neo4j_store):
            for g in corpus_graphs():
                store.put_document("tiny", g)
            for source, target, run, score in edges:
                store.put_comparison(comparison(source, target, run, score))
        for doc in ("solar", "atom"):
            for run in (None, "run-2"):
                assert lite.top_analogues(doc, k, run) == neo4j_store.top_analogues(doc, k, run)
        assert [c.key for c in lite.comparisons()] == [c.key for c in neo4j_store.comparisons()]
        assert [(r.run_id, r.comparisons) for r in lite.runs()] == [
            (r.run_id, r.comparisons) for r in neo4j_store.runs()
        ]


def test_concurrent_writers_of_the_same_documents_leave_one_copy(neo4j_store):
    """Flows write from several workers; the same documents and generic-space
    concepts arrive from all of them at once."""
    from concurrent.futures import ThreadPoolExecutor

    def job(worker: int) -> None:
        for g in corpus_graphs():
            neo4j_store.put_document(f"corpus-{worker % 2}", g)
        for source, target in (("solar", "atom"), ("water", "heat"), ("heat", "solar")):
            neo4j_store.put_comparison(comparison(source, target, "run-1", 0.5))

    job(0)
    job(1)
    expected = neo4j_store.counts()
    neo4j_store.clear()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(job, range(8)))
    assert neo4j_store.counts() == expected


_READS = {**READS, "vectors": lambda s: s.content_vectors("c")}


@pytest.mark.parametrize(
    ("damage", "read", "says"),
    [
        (
            "MATCH (d:Document {id: 'solar'}) SET d.meta = '{bad'",
            "document",
            "document solar, meta: not JSON (",
        ),
        ("MATCH (d:Document {id: 'solar'}) SET d.meta = 5", "document", "document solar, meta: not JSON ("),
        (
            "MATCH (d:Document {id: 'solar'}) SET d.concepts = 'many'",
            "document",
            "concepts: 'many' is not a number",
        ),
        (
            "MATCH (m:Mapping) SET m.params = '[]'",
            "comparison",
            "run-1, params: JSON an array, not an object",
        ),
        ("MATCH (m:Mapping) SET m.scores = '{}'", "comparison", "run-1, scores' analogy_similarity: 'None'"),
        (
            "MATCH ()-[r:SIMILAR]->() SET r.analogy_similarity = 'high'",
            "top",
            "analogy_similarity: 'high' is not a",
        ),
        ("MATCH (p:Pair) SET p.lin = 'x'", "comparison", "run-1, a pair's lin: 'x' is not a number"),
        ("MATCH (p:Pair) SET p.kind = 3", "comparison", "run-1, a pair's kind: int 3, not text"),
        (
            "MATCH (d:Document {id: 'solar'}) SET d.graph = '{bad'",
            "graph",
            "the stored graph of document solar",
        ),
        (
            "MATCH (n:Concept {doc_id: 'solar'}) SET n.attrs = 'x'",
            "graph",
            "the stored graph of document solar, node",
        ),
        (
            "MATCH (d:Document {id: 'solar'}) SET d.features = '{bad'",
            "vectors",
            "document solar, features: not JSON",
        ),
        ("MATCH (e:Evaluation) SET e.rows = '{bad'", "evaluations", ", rows: not JSON ("),
        ("CREATE (:Corpus {name: 5})", "corpora", "a corpus's name: int 5, not text"),
    ],
)
def test_a_damaged_node_is_one_line_naming_the_store_and_the_row(neo4j_store, damage, read, says):
    # Each was the decoder's or the formatter's traceback (exit 70), as in SQLite.
    from dri.errors import error_line
    from dri.store.records import DamagedRow

    neo4j_store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
    neo4j_store.put_document("c", make_graph("atom", "atom.txt", ATOM))
    neo4j_store.put_comparison(comparison("solar", "atom", "run-1", 0.5))
    neo4j_store.save_evaluation("plagiarism", "c", [{"pair": 1}])
    with neo4j_store._driver.session(database=neo4j_store.database) as session:
        session.run(damage).consume()
    with pytest.raises(DamagedRow) as err:
        _READS[read](neo4j_store)
    line = error_line(err.value)
    assert line.startswith(f"error: {neo4j_store.location}: damaged row: ") and says in line, line
    assert "\n" not in line


def test_a_damaged_meta_is_replaced_when_the_document_is_stored_again(neo4j_store):
    neo4j_store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
    with neo4j_store._driver.session(database=neo4j_store.database) as session:
        session.run("MATCH (d:Document) SET d.meta = '{bad'").consume()
    neo4j_store.put_document("c", make_graph("solar", "solar.txt", SOLAR), meta={"level": 2})
    assert neo4j_store.get_document("solar").meta["level"] == 2


def test_the_store_sends_no_cypher_that_neo4j_calls_deprecated(neo4j_uri, monkeypatch, caplog):
    # "CALL { WITH d ... }" (an importing WITH) is deprecated in Neo4j 5 and gone
    # from Cypher 25; the store turns the server's notifications off, so this
    # test turns them back on and puts, replaces, drops and clears documents.
    import neo4j

    made = neo4j.GraphDatabase.driver

    def driver(*args, **kwargs):
        return made(*args, **{**kwargs, "notifications_min_severity": "INFORMATION"})

    monkeypatch.setattr(neo4j.GraphDatabase, "driver", driver)
    caplog.set_level(logging.INFO, logger="neo4j.notifications")
    with open_store(neo4j_uri) as store:
        store.clear()
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
        store.put_document("c", make_graph("solar", "solar.txt", SOLAR))  # put again: its nodes replaced
        store.put_document("c", make_graph("atom", "solar.txt", ATOM))  # the name taken by another document
        store.put_document("d", make_graph("atom", "atom.txt", ATOM))
        store.drop_members("c", ["solar.txt"], "run-1")
        store.clear()
        deprecated = [r.getMessage()[:300] for r in caplog.records if "deprecat" in r.getMessage().lower()]
        assert not deprecated
        # The notifications do reach this log: the old form is reported.
        with store._driver.session(database=store.database) as session:
            session.run("MATCH (n) CALL { WITH n RETURN 1 AS one } RETURN one").consume()
    assert any("deprecat" in r.getMessage().lower() for r in caplog.records)
