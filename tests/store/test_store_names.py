"""A document's name belongs to its membership in a corpus, not to its content.

The same bytes stored under two names, in one corpus or in two, stay
findable under both names; the first name does not change when the bytes
come back under another. Stores written before memberships had names are
migrated on opening (SQLite schema 1 to 2; Neo4j CONTAINS without a name).
"""

from __future__ import annotations

import json
import sqlite3

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from store_test_helpers import ATOM, SOLAR, make_graph

from dri.literal import storable
from dri.store import open_store
from dri.store.neo4j_store.schema import _schema_ready


def _put(store, corpus: str, name: str, graph_name: str = "sun"):
    graph = make_graph(graph_name, f"{graph_name}.txt", SOLAR if graph_name == "sun" else ATOM)
    return store.put_document(corpus, graph, meta={"name": name, "path": f"/corpora/{corpus}/{name}"})


def test_a_copy_in_another_corpus_keeps_each_corpus_its_own_name(store):
    first = _put(store, "analogy", "solar-system.txt")
    second = _put(store, "copies", "copy-of-sun.txt")
    assert first.doc_id == second.doc_id
    assert (first.name, second.name) == ("solar-system.txt", "copy-of-sun.txt")
    assert [d.name for d in store.documents("analogy")] == ["solar-system.txt"]
    assert [d.name for d in store.documents("copies")] == ["copy-of-sun.txt"]
    assert [d.path for d in store.documents("copies")] == ["/corpora/copies/copy-of-sun.txt"]
    assert store.find_document("solar-system.txt", corpus="analogy").doc_id == first.doc_id
    assert store.find_document("copy-of-sun.txt", corpus="copies").doc_id == first.doc_id
    assert store.find_document("solar-system.txt", corpus="copies") is None
    assert store.find_document("solar-system.txt").doc_id == first.doc_id
    assert store.find_document("/corpora/copies/copy-of-sun.txt").doc_id == first.doc_id
    assert store.get_document(first.doc_id).name == "solar-system.txt"  # the first name stays
    assert store.get_document(first.doc_id).corpora == ("analogy", "copies")


def test_two_names_for_the_same_bytes_in_one_corpus_are_both_there(store):
    _put(store, "analogy", "solar-system.txt")
    _put(store, "analogy", "copy-of-sun.txt")
    listed = store.documents("analogy")
    assert [d.name for d in listed] == ["copy-of-sun.txt", "solar-system.txt"]
    assert len({d.doc_id for d in listed}) == 1
    for name in ("copy-of-sun.txt", "solar-system.txt"):
        assert store.find_document(name, corpus="analogy").name == name
    assert store.get_document(listed[0].doc_id).corpora == ("analogy",)
    before = store.counts()
    _put(store, "analogy", "copy-of-sun.txt")  # idempotent
    assert store.counts() == before


def test_a_name_given_new_content_points_to_the_new_document(store):
    old = _put(store, "analogy", "notes.txt", graph_name="sun")
    new = _put(store, "analogy", "notes.txt", graph_name="atom")
    assert old.doc_id != new.doc_id
    assert [(d.name, d.doc_id) for d in store.documents("analogy")] == [("notes.txt", new.doc_id)]
    assert store.is_member("analogy", "notes.txt", new.doc_id)
    assert not store.is_member("analogy", "notes.txt", old.doc_id)


_V1 = """
CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO store_info VALUES ('schema_version', '1');
CREATE TABLE corpora (name TEXT PRIMARY KEY);
CREATE TABLE documents (doc_id TEXT PRIMARY KEY, graph_id TEXT NOT NULL, name TEXT NOT NULL,
    path TEXT NOT NULL, kind TEXT NOT NULL, extractor_version TEXT NOT NULL, title TEXT NOT NULL,
    concepts INTEGER NOT NULL, relations INTEGER NOT NULL, meta TEXT NOT NULL, updated TEXT NOT NULL);
CREATE TABLE members (corpus TEXT NOT NULL REFERENCES corpora (name),
    doc_id TEXT NOT NULL REFERENCES documents (doc_id), meta TEXT NOT NULL,
    PRIMARY KEY (corpus, doc_id)) WITHOUT ROWID;
CREATE INDEX members_doc ON members (doc_id);
INSERT INTO corpora VALUES ('analogy'), ('copies');
INSERT INTO documents VALUES ('d1', 'g1', 'copy-of-sun.txt', '/c/copy-of-sun.txt', 'text', '1.0', '',
    3, 1, '{}', 'now');
"""


def test_a_schema_1_sqlite_store_is_migrated_keeping_each_membership_its_name(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(_V1)
        db.execute(
            "INSERT INTO members VALUES ('analogy', 'd1', ?)",
            (json.dumps({"name": "solar-system.txt", "path": "/a/solar-system.txt"}),),
        )
        db.execute("INSERT INTO members VALUES ('copies', 'd1', '{}')")
    with open_store(str(path)) as store:
        assert [d.name for d in store.documents("analogy")] == ["solar-system.txt"]
        assert [d.name for d in store.documents("copies")] == ["copy-of-sun.txt"]
        assert store.find_document("solar-system.txt", corpus="analogy").doc_id == "d1"
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone() == ("2",)


def test_neo4j_memberships_without_names_get_the_documents_name(neo4j_uri):
    with open_store(neo4j_uri) as store:
        store.clear()
        _put(store, "analogy", "solar-system.txt")
        store._write(lambda tx: tx.run("MATCH ()-[m:CONTAINS]->() REMOVE m.name, m.path").consume())
        assert store.find_document("solar-system.txt", corpus="analogy") is None
        _schema_ready.clear()  # as a new process would find it
    with open_store(neo4j_uri) as store:
        found = store.find_document("solar-system.txt", corpus="analogy")
        assert found is not None and found.name == "solar-system.txt"
        store.clear()


def test_a_sqlite_store_without_loose_pairs_gets_the_columns_and_keeps_its_pairs(tmp_path):
    from store_test_helpers import comparison

    path = tmp_path / "old.sqlite"
    with open_store(str(path)) as store:
        _put(store, "analogy", "solar-system.txt", graph_name="sun")
        _put(store, "analogy", "atom.txt", graph_name="atom")
        record = comparison("atom", "sun", "run-1", 0.5)
        record.pairs = [{**p, "loose": False, "evidence": 1.5} for p in record.pairs]
        store.put_comparison(record)
        assert store.get_comparison("atom", "sun", "run-1").pairs[0]["evidence"] == 1.5
    with sqlite3.connect(path) as db:  # the pairs table as stores made before loose pairs were kept
        db.execute("ALTER TABLE pairs DROP COLUMN loose")
        db.execute("ALTER TABLE pairs DROP COLUMN evidence")
    with open_store(str(path)) as store:
        pairs = store.get_comparison("atom", "sun", "run-1").pairs
        assert pairs and all(p["loose"] is None and p["evidence"] is None for p in pairs)
    with sqlite3.connect(path) as db:
        assert {"loose", "evidence"} <= {r[1] for r in db.execute("PRAGMA table_info(pairs)")}


#: Names as Python reads them from a disk: any text, lone surrogates (bytes that are not UTF-8) too.
_NAMES = st.text(
    st.characters(exclude_categories=("Cs",)) | st.sampled_from("\udcff\udc80\ud800"), min_size=1, max_size=12
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corpus=_NAMES, name=_NAMES)
@example(corpus="0", name="\x00")  # a NUL byte: no path can hold it, so it is looked up as it is
def test_any_name_is_stored_under_its_storable_form_and_found_again(store, corpus, name):
    """SQLite and Neo4j take any name: a lone surrogate is kept as its escape
    (dri.literal.storable), the same every time, so nothing is stored twice."""
    store.clear()  # each example on its own
    path = f"/corpora/{name}"
    graph = make_graph("sun", "sun.txt", SOLAR)
    meta = {"name": name, "path": path, "note": name}
    first = store.put_document(corpus, graph, meta=meta)
    counts = store.counts()
    again = store.put_document(corpus, graph, meta=meta)
    assert store.counts() == counts and again == first
    assert (first.name, first.path) == (storable(name), storable(path))
    assert [d.name for d in store.documents(storable(corpus))] == [storable(name)]
    assert store.find_document(name, corpus=corpus) == first  # the name as read from a disk finds it
    assert store.find_document(path) is not None
    assert storable(corpus) in store.corpora()
    assert store.drop_members(corpus, [name], "run").members == 1
    assert store.get_document("sun") is None
