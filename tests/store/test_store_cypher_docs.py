"""Every ready query in docs/cypher.md runs against the real server and
answers something on a small stored corpus."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from store_test_helpers import comparison, corpus_graphs

from dri.graphs import add_concept, add_relation
from dri.store import open_store

DOC = Path(__file__).resolve().parents[2] / "docs" / "cypher.md"
QUERIES = re.findall(r"```cypher\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)

# Parameters of all the queries; each query uses the ones its "// params:" line names.
PARAMS = {
    "doc": "solar.txt",
    "source": "atom.txt",
    "target": "solar.txt",
    "run_id": None,
    "run_a": "run-1",
    "run_b": "run-2",
    "corpus": "tiny",
    "lemma": "sun",
}


def with_links(g) -> None:
    """Solar gains a narrator, a one-argument relation and a causal link:
    "The planets orbit the sun because the sun attracts them. We watch. They shine." """
    add_relation(g, "cause", "r:0", "r:1", order=2, sentence=0)
    add_relation(g, "watch", add_concept(g, "we", entity="PERSON", wordnet_lemma="person"), sentence=1)


@pytest.fixture(scope="module")
def loaded(neo4j_uri):
    with open_store(neo4j_uri) as store:
        store.clear()
        for g in corpus_graphs():
            if g.graph["doc_id"] == "solar":
                with_links(g)
            meta = {"level": "orig" if g.graph["doc_id"] == "solar" else "cut", "language": "spa"}
            store.put_document("tiny", g, meta=meta)
        pair = [
            {
                "source": "c:electron",
                "target": "c:sun",
                "kind": "concept",
                "source_lemma": "electron",
                "target_lemma": "sun",
                "lin": 0.2,
                "generic": "object.n.01",
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
        ]
        back = [
            {
                **p,
                "source": p["target"],
                "target": p["source"],
                "source_lemma": p["target_lemma"],
                "target_lemma": p["source_lemma"],
            }
            for p in pair
        ]
        # With the electron mapped to the sun, "electron orbit nucleus" suggests "sun orbit [new: nucleus]".
        suggestion = {
            "source_relation": "r:1",
            "lemma": "orbit",
            "order": 1,
            "text": "sun orbit [new: nucleus]",
            "source_text": "electron orbit nucleus",
            "support": 0.4,
            "extrapolation": 2 / 3,
            "arguments": [
                {
                    "role": "subj",
                    "kind": "concept",
                    "source": "c:electron",
                    "source_lemma": "electron",
                    "target": "c:sun",
                    "target_lemma": "sun",
                    "phrase": "sun",
                    "source_phrase": "electron",
                },
                {
                    "role": "obj",
                    "kind": "concept",
                    "source": "c:nucleus",
                    "source_lemma": "nucleus",
                    "target": None,
                    "target_lemma": None,
                    "phrase": "[new: nucleus]",
                    "source_phrase": "nucleus",
                },
            ],
        }
        best = comparison("atom", "solar", "run-1", 0.9, pairs=pair)
        store.put_comparison(dataclasses.replace(best, inferences=[suggestion]))
        store.put_comparison(comparison("solar", "atom", "run-1", 0.85, pairs=back))
        store.put_comparison(comparison("water", "solar", "run-1", 0.4))
        store.put_comparison(comparison("heat", "water", "run-1", 0.8))
        store.put_comparison(comparison("solar", "heat", "run-2", 0.95))
        store.put_comparison(comparison("atom", "solar", "run-2", 0.3, pairs=pair))
        yield store


def test_the_doc_has_the_queries_the_issue_asks_for():
    text = DOC.read_text(encoding="utf-8")
    for heading in (
        "top 10 analogues",
        "mapping of a pair",
        "score distribution per level",
        "per language",
        "best match changed between two runs",
        "best analogue suggests",
    ):
        assert heading in text
    assert len(QUERIES) >= 8


@pytest.mark.parametrize(
    "query", QUERIES, ids=[q.splitlines()[1][:40] if q.startswith("//") else q[:40] for q in QUERIES]
)
def test_each_ready_query_runs_and_answers(loaded, query):
    declared = re.match(r"// params: (.*)\n", query)
    names = [n.strip() for n in declared.group(1).split(",")] if declared else []
    assert set(re.findall(r"\$(\w+)", query)) == set(names), "the '// params:' line must list the parameters"
    with loaded._driver.session(database=loaded.database) as session:
        rows = session.run(query, {n: PARAMS[n] for n in names}).data()
    assert rows, "the query answered nothing on the test corpus"


def _run(store, heading: str, **params) -> list[dict]:
    query = next(q for q in QUERIES if q.startswith(heading) or heading in q)
    with store._driver.session(database=store.database) as session:
        return session.run(query, params).data()


def test_the_top_10_query_agrees_with_the_store(loaded):
    rows = _run(loaded, "WITH o, max(r.analogy_similarity)", doc="solar.txt", run_id=None)
    assert [(r["id"], r["analogy_similarity"]) for r in rows] == [
        (a.doc_id, a.analogy_similarity) for a in loaded.top_analogues("solar")
    ]


def test_the_level_query_groups_pairs_by_the_answer_level(loaded):
    rows = _run(loaded, "AS level", corpus="tiny", run_id="run-1")
    assert [(r["level"], r["pairs"]) for r in rows] == [("cut", 4)]


def test_the_changed_best_match_query_finds_the_documents_that_changed(loaded):
    rows = _run(loaded, "best_in_a", run_a="run-1", run_b="run-2")
    # solar: best atom (0.9) in run-1, heat (0.95) in run-2; atom: solar in both; heat: water -> solar.
    assert [(r["document"], r["best_in_a"], r["best_in_b"]) for r in rows] == [
        ("heat.txt", "water.txt", "solar.txt"),
        ("solar.txt", "atom.txt", "heat.txt"),
    ]


def test_the_mapping_query_lists_the_pairs_with_their_generic_space(loaded):
    rows = _run(
        loaded, "p.lin AS lin, g.name AS generic_space", source="atom.txt", target="solar.txt", run_id="run-1"
    )
    assert [(r["source"], r["target"], r["generic_space"]) for r in rows] == [
        ("electron", "sun", "object.n.01"),
        ("attract", "attract", "attract.v.01"),
    ]


def test_the_higher_order_query_gives_the_linked_statements(loaded):
    rows = _run(loaded, "AS link, sa.lemma", doc="solar.txt")
    assert [(r["link"], r["first_subject"], r["first_verb"], r["second_verb"]) for r in rows] == [
        ("cause", "sun", "attract", "orbit")
    ]
    graph_rows = _run(loaded, "MATCH (s:Concept)-[:SUBJ]->(r)\nOPTIONAL", doc="solar.txt")
    assert ("we", "watch", None) in [(r["subject"], r["verb"], r["object"]) for r in graph_rows]
    assert len(graph_rows) == 4  # three triples and one one-argument relation; not the link
    names = _run(loaded, "AS compared_as", doc="solar.txt")
    assert [(r["name"], r["entity"], r["compared_as"]) for r in names] == [("we", "PERSON", "person")]


def test_higher_order_relations_round_trip_through_the_store(loaded):
    g = loaded.get_graph("solar")
    assert g.nodes["r:3"]["order"] == 2
    assert g.edges["r:0", "r:3"]["label"] == "subj" and g.edges["r:3", "r:1"]["label"] == "obj"


def test_the_picture_query_draws_both_documents_the_pairs_and_their_generic_spaces(loaded):
    query = next(q for q in QUERIES if "AS ros_edges" in q)
    params = {"source": "atom.txt", "target": "solar.txt", "run_id": "run-1"}
    with loaded._driver.session(database=loaded.database) as session:
        graph = session.run(query, params).graph()
    by_label: dict[str, set] = {}
    for node in graph.nodes:
        for label in node.labels:
            by_label.setdefault(label, set()).add(node.get("name") or node.get("lemma") or node.get("id"))
    assert by_label["Document"] == {"atom.txt", "solar.txt"}
    assert len(by_label["Pair"]) == 2
    assert by_label["Generic"] == {"object.n.01", "attract.v.01"}
    assert by_label["Concept"] == {"electron", "sun"} and by_label["Relation"] == {"attract"}
    types = sorted(rel.type for rel in graph.relationships)
    # Two pairs with a source and a target node each, both in their documents, two generic spaces,
    # and in each document the relation's edge to the mapped concept (atom: attract -> electron,
    # solar: sun -> attract).
    assert types == sorted(
        ["SOURCE"] * 2 + ["TARGET"] * 2 + ["HAS_NODE"] * 4 + ["GENERIC"] * 2 + ["OBJ", "SUBJ"]
    )


def test_the_suggestion_queries_give_the_best_analogues_inferences(loaded):
    rows = _run(loaded, "i.source_text AS because", doc="solar.txt", run_id=None)
    assert [(r["analogue"], r["analogy_similarity"], r["suggestion"], r["because"]) for r in rows] == [
        ("atom.txt", 0.9, "sun orbit [new: nucleus]", "electron orbit nucleus")
    ]
    about = _run(loaded, "count(DISTINCT i) AS suggestions", doc="solar.txt", run_id=None)
    assert [(r["concept"], r["suggestions"], r["examples"]) for r in about] == [
        ("sun", 1, ["sun orbit [new: nucleus]"])
    ]
    picture = _run(
        loaded, "RETURN i, origin, r, about, x", source="atom.txt", target="solar.txt", run_id="run-1"
    )
    assert [(r["r"]["lemma"], r["x"]["lemma"], r["about"][1]) for r in picture] == [("orbit", "sun", "ABOUT")]
