"""Each document's sentence-encoder vector, stored beside its graph in both stores."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from store_test_helpers import SOLAR, make_graph

from dri.graphs import to_json
from dri.mapping.content import (
    CONTENT_VECTOR,
    SENTENCE_VECTORS,
    content_similarity,
    content_vector,
    sentence_vectors,
)
from dri.store import open_store
from dri.store.encoder_vectors import ENCODER_INDEX, graph_json, vector_blob, vector_from_blob


def _with_vector(doc_id: str = "solar"):
    g = make_graph(doc_id, f"{doc_id}.txt", SOLAR, text="The sun attracts the planets, which orbit the sun.")
    content_vector(g)
    return g


def test_the_vector_round_trips_and_survives_a_put_without_it(store) -> None:
    g = _with_vector()
    store.put_document("tiny", g)
    back = store.get_graph("solar")
    assert np.allclose(back.graph[CONTENT_VECTOR], g.graph[CONTENT_VECTOR], atol=1e-6)
    # The rest of the graph is exactly what was put.
    assert to_json(back)["nodes"] == to_json(g)["nodes"]
    assert {k: v for k, v in back.graph.items() if k != CONTENT_VECTOR} == {
        k: v for k, v in g.graph.items() if k != CONTENT_VECTOR
    }
    bare = g.copy()
    del bare.graph[CONTENT_VECTOR]
    store.put_document("other", bare)
    assert np.allclose(store.get_graph("solar").graph[CONTENT_VECTOR], g.graph[CONTENT_VECTOR], atol=1e-6)


def test_the_sentence_vectors_are_stored_with_the_graph_and_score_as_fresh(store) -> None:
    g = make_graph(
        "solar", "solar.txt", SOLAR, text="The sun attracts the planets. The planets orbit the sun."
    )
    other = make_graph("atom", "atom.txt", SOLAR, text="The nucleus attracts the electrons.")
    sentence_vectors(g)
    store.put_document("tiny", g)
    back = store.get_graph("solar")
    assert back.graph[SENTENCE_VECTORS] == g.graph[SENTENCE_VECTORS]
    assert content_similarity(back, other) == pytest.approx(content_similarity(g, other), abs=1e-6)


def test_a_graph_without_a_vector_is_stored_without_one(store) -> None:
    store.put_document("tiny", make_graph("solar", "solar.txt", SOLAR))
    assert CONTENT_VECTOR not in store.get_graph("solar").graph


def test_neo4j_indexes_the_vectors(neo4j_uri) -> None:
    with open_store(neo4j_uri) as store:
        store.clear()
        store.put_document("tiny", _with_vector())
        stored = store._read(
            "MATCH (d:Document {id: 'solar'}) RETURN d.encoder_vector AS v, d.graph AS graph"
        )[0]
        assert len(stored["v"]) == 384 and CONTENT_VECTOR not in stored["graph"]
        indexes = store._read("SHOW VECTOR INDEXES YIELD name, properties RETURN name, properties")
        assert {"name": ENCODER_INDEX, "properties": ["encoder_vector"]} in [dict(r) for r in indexes]
        store.clear()


def test_a_sqlite_store_made_before_the_vectors_gets_their_column(tmp_path) -> None:
    path = tmp_path / "old.sqlite"
    with open_store(str(path)) as store:
        store.put_document("tiny", make_graph("solar", "solar.txt", SOLAR))
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE graphs DROP COLUMN encoder")
    with open_store(str(path)) as store:
        assert CONTENT_VECTOR not in store.get_graph("solar").graph
        store.put_document("tiny", _with_vector("atom"))
        assert len(store.get_graph("atom").graph[CONTENT_VECTOR]) == 384
    with sqlite3.connect(path) as db:
        blob = db.execute("SELECT encoder FROM graphs WHERE doc_id = 'atom'").fetchone()[0]
        data = db.execute("SELECT data FROM graphs WHERE doc_id = 'atom'").fetchone()[0]
    assert len(blob) == 4 * 384 and CONTENT_VECTOR not in data


def test_blobs_and_graph_json() -> None:
    g = _with_vector()
    vector = g.graph[CONTENT_VECTOR]
    assert np.allclose(vector_from_blob(vector_blob(vector)), vector, atol=1e-6)
    assert vector_from_blob(b"\x00" * 12) is None and vector_blob(None) is None
    assert CONTENT_VECTOR not in graph_json(g)["graph"] and CONTENT_VECTOR in g.graph


def test_document_texts_are_the_stored_graphs_text_and_vector(store) -> None:
    """What the encoder baseline reads (evaluate.core): the text and vector of each
    stored graph, as graph_text and graph_vector of get_graph give them, also for a
    graph without its text (its clauses) or without a vector; unknown ids left out."""
    from dri.mapping.content import graph_text
    from dri.store.encoder_vectors import graph_vector

    store.put_document("tiny", _with_vector("solar"))
    store.put_document("tiny", make_graph("atom", "atom.txt", SOLAR))  # no text, no vector
    found = store.document_texts(["solar", "nowhere", "atom", "solar"])
    assert list(found) == ["solar", "atom"]
    for doc_id, (text, vector) in found.items():
        graph = store.get_graph(doc_id)
        assert text == graph_text(graph) and vector == graph_vector(graph)
    assert found["solar"][0] == "The sun attracts the planets, which orbit the sun."
    assert found["solar"][1] is not None and found["atom"][1] is None
    assert found["atom"][0] and found["atom"][0] != found["solar"][0]  # its clauses
