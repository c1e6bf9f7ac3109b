"""The store contract: every test runs against SQLite and the real Neo4j."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_test_helpers import ATOM, SOLAR, comparison, corpus_graphs, make_graph

from dri.graphs import add_triple, new_graph, to_json
from dri.settings import clough_stevenson_dir
from dri.store import Analogue, ComparisonRecord, DocumentRecord, StoreError

CLOUGH = clough_stevenson_dir()


def _store_corpus(store, corpus: str = "tiny") -> None:
    for g in corpus_graphs():
        store.put_document(corpus, g, meta={"level": "cut" if g.graph["doc_id"] != "solar" else "orig"})
    store.put_comparison(comparison("atom", "solar", "run-1", 0.9))
    store.put_comparison(comparison("water", "solar", "run-1", 0.4))
    store.put_comparison(comparison("heat", "water", "run-1", 0.8))


def test_a_graph_and_its_document_round_trip(store):
    g = make_graph("solar", "solar.txt", SOLAR)
    record = store.put_document("tiny", g, meta={"level": "cut", "task": "a"})
    assert record == DocumentRecord(
        "solar",
        "solar-v1.0",
        "solar.txt",
        "/corpus/solar.txt",
        "text",
        "1.0",
        "Solar.Txt",
        concepts=2,
        relations=3,
        corpora=("tiny",),
    )
    assert record.meta == {"level": "cut", "task": "a"}
    assert store.get_document("solar") == record
    assert to_json(store.get_graph("solar")) == to_json(g)
    assert store.has_graph("solar-v1.0") and not store.has_graph("solar-v2.0")
    assert store.get_graph("nope") is None and store.get_document("nope") is None


def test_storing_the_same_corpus_twice_leaves_exactly_the_same_data(store):
    _store_corpus(store)
    counts, results = store.counts(), store.comparisons(pairs=True)
    assert sum(counts.values()) > 0
    _store_corpus(store)
    assert store.counts() == counts
    assert store.comparisons(pairs=True) == results
    assert [d.doc_id for d in store.documents("tiny")] == ["atom", "heat", "solar", "water"]
    # Documents alone again, after their comparisons: the mapping pairs keep their links.
    for g in corpus_graphs():
        store.put_document("tiny", g, meta={"level": "cut" if g.graph["doc_id"] != "solar" else "orig"})
    assert store.counts() == counts


def test_a_new_run_id_adds_a_result_set_and_keeps_the_old_one(store):
    _store_corpus(store)
    before, old = store.counts(), store.get_comparison("atom", "solar", "run-1")
    store.put_comparison(comparison("atom", "solar", "run-2", 0.1, params={"restarts": 8}))
    assert store.get_comparison("atom", "solar", "run-1") == old
    new = store.get_comparison("atom", "solar", "run-2")
    assert (new.scores["analogy_similarity"], new.params) == (0.1, {"restarts": 8})
    assert store.has_comparison("atom", "solar", "run-2") and not store.has_comparison(
        "solar", "atom", "run-2"
    )
    assert sum(store.counts().values()) > sum(before.values())
    assert [(r.run_id, r.comparisons) for r in store.runs()] == [("run-1", 3), ("run-2", 1)]
    assert [c.run_id for c in store.comparisons(run_id="run-2")] == ["run-2"]


def test_storing_a_comparison_again_replaces_its_pairs(store):
    _store_corpus(store)
    record = comparison(
        "atom",
        "solar",
        "run-1",
        0.5,
        pairs=[
            {
                "source": "c:electron",
                "target": "c:planet",
                "kind": "concept",
                "source_lemma": "electron",
                "target_lemma": "planet",
                "lin": 0.25,
                "generic": "object.n.01",
            }
        ],
    )
    store.put_comparison(record)
    stored = store.get_comparison("atom", "solar", "run-1")
    assert stored.pairs == record.pairs and stored.scores == record.scores
    assert len(store.comparisons()) == 3


def test_the_mapping_time_round_trips_beside_the_scores(store):
    _store_corpus(store)
    record = comparison("atom", "solar", "run-t", 0.5)
    store.put_comparison(dataclasses.replace(record, mapping_seconds=0.125))
    stored = store.get_comparison("atom", "solar", "run-t")
    assert stored.mapping_seconds == 0.125
    assert stored.scores == record.scores and "mapping_seconds" not in stored.scores  # a time, not a score
    assert [c.mapping_seconds for c in store.comparisons(run_id="run-t")] == [0.125]
    store.put_comparison(comparison("solar", "atom", "run-t", 0.5))  # stored without one
    assert store.get_comparison("solar", "atom", "run-t").mapping_seconds is None


def test_top_analogues_count_both_directions_and_keep_the_best_result(store):
    for g in corpus_graphs():
        store.put_document("tiny", g)
    store.put_comparison(comparison("solar", "atom", "run-1", 0.9))
    store.put_comparison(comparison("water", "solar", "run-1", 0.7))
    store.put_comparison(comparison("solar", "heat", "run-1", 0.3))
    store.put_comparison(comparison("heat", "solar", "run-2", 0.95))
    store.put_comparison(comparison("solar", "atom", "run-2", 0.2))
    store.put_comparison(comparison("solar", "solar", "run-2", 1.0))  # a self-comparison is no analogue

    top = store.top_analogues("solar")
    assert [(a.doc_id, a.analogy_similarity, a.run_id, a.direction) for a in top] == [
        ("heat", 0.95, "run-2", "in"),
        ("atom", 0.9, "run-1", "out"),
        ("water", 0.7, "run-1", "in"),
    ]
    assert top[0] == Analogue(
        "heat",
        "heat.txt",
        analogy_similarity=0.95,
        jaccard=0.475,
        semantic=0.5,
        conceptual=0.4,
        relational=0.6,
        run_id="run-2",
        direction="in",
    )
    assert [a.doc_id for a in store.top_analogues("solar", k=2)] == ["heat", "atom"]
    assert [(a.doc_id, a.analogy_similarity) for a in store.top_analogues("solar", run_id="run-1")] == [
        ("atom", 0.9),
        ("water", 0.7),
        ("heat", 0.3),
    ]
    assert [a.doc_id for a in store.top_analogues("atom")] == ["solar"]
    assert store.top_analogues("nope") == []


def test_top_analogues_break_ties_by_name(store):
    for g in corpus_graphs():
        store.put_document("tiny", g)
    for other in ("water", "atom", "heat"):
        store.put_comparison(comparison("solar", other, "run-1", 0.5))
    assert [a.name for a in store.top_analogues("solar")] == ["atom.txt", "heat.txt", "water.txt"]


NASTY = [
    'it\'s "quoted"',
    "back\\slash \\n not a newline",
    "naïve café Ωμέγα 中文 😀",
    "MATCH (n) DETACH DELETE n; RETURN 1 //",
    "'); DROP TABLE documents; --",
    "${param} $doc {x: 1} `tick`",
    "line\nbreak\ttab",
]


@pytest.mark.parametrize("name", NASTY)
def test_names_with_quotes_backslashes_unicode_and_keywords_round_trip(store, name):
    g = new_graph("doc", name=name, graph_id="g", extractor_version="1.0", path=f"/x/{name}", title=name)
    add_triple(g, name.lower(), "match", "delete", sentence=0, section=name, subject_mention=name)
    record = store.put_document(name, g, meta={"name": name, "language": name, "note": [name, {"k": name}]})
    assert (record.name, record.path, record.title, record.corpora) == (name, f"/x/{name}", name, (name,))
    assert record.meta == {"name": name, "language": name, "note": [name, {"k": name}]}
    assert to_json(store.get_graph("doc")) == to_json(g)
    assert store.corpora() == [name]
    assert store.find_document(name) == record and store.find_document(f"/x/{name}", corpus=name) == record
    store.put_comparison(
        ComparisonRecord(
            "doc",
            "doc",
            name,
            {"why": name},
            {"analogy_similarity": 1.0},
            [
                {
                    "source": name,
                    "target": name,
                    "kind": "concept",
                    "source_lemma": name,
                    "target_lemma": name,
                    "lin": 1.0,
                    "generic": name,
                }
            ],
        )
    )
    stored = store.get_comparison("doc", "doc", name)
    assert (stored.run_id, stored.params, stored.pairs[0]["generic"]) == (name, {"why": name}, name)


_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=_text, lemma=_text, meta_value=_text)
def test_any_text_round_trips(store, name, lemma, meta_value):
    g = new_graph("doc", name=name, graph_id="g", extractor_version="1.0")
    add_triple(g, lemma, lemma, "object", sentence=0)
    record = store.put_document("c", g, meta={"language": meta_value})
    assert record.name == name and record.meta == {"language": meta_value}
    assert to_json(store.get_graph("doc")) == to_json(g)


def test_a_document_in_several_corpora_keeps_its_meta_per_corpus(store):
    g = make_graph("solar", "solar.txt", SOLAR)
    store.put_document("plagiarism", g, meta={"level": "cut"})
    before = store.counts()
    store.put_document("translation", g, meta={"language": "spa"})
    assert store.corpora() == ["plagiarism", "translation"]
    assert store.get_document("solar").corpora == ("plagiarism", "translation")
    assert store.get_document("solar").meta == {"level": "cut", "language": "spa"}
    assert [d.meta for d in store.documents("plagiarism")] == [{"level": "cut"}]
    assert [d.meta for d in store.documents("translation")] == [{"language": "spa"}]
    assert store.documents("nothing") == []
    grown = {k for k in store.counts() if store.counts()[k] != before[k]}
    assert grown and grown <= {"corpora", "members", "Corpus", "CONTAINS", "nodes", "relationships"}


def test_a_newer_extractor_version_replaces_the_graph_and_an_older_one_does_not(store):
    store.put_document("c", make_graph("solar", "solar.txt", SOLAR, version="1.9"))
    newer = make_graph("solar", "solar.txt", ATOM, version="1.10")
    store.put_document("c", newer)
    assert to_json(store.get_graph("solar")) == to_json(newer)
    assert store.get_document("solar").extractor_version == "1.10"
    store.put_document("c", make_graph("solar", "solar.txt", SOLAR, version="1.2"))
    assert to_json(store.get_graph("solar")) == to_json(newer)
    assert store.get_document("solar").graph_id == "solar-v1.10"
    assert all(store.has_graph(f"solar-v{v}") for v in ("1.9", "1.10", "1.2"))


def test_find_document_by_id_path_or_name(store, tmp_path):
    for g in corpus_graphs():
        store.put_document("tiny", g)
    store.put_document(
        "other", make_graph("atom2", "atom.txt", ATOM), meta={"path": str(tmp_path / "atom.txt")}
    )
    assert store.find_document("solar").doc_id == "solar"
    assert store.find_document("/corpus/water.txt").doc_id == "water"
    assert store.find_document(str(tmp_path / "." / "atom.txt")).doc_id == "atom2"
    assert store.find_document("atom.txt", corpus="tiny").doc_id == "atom"
    assert store.find_document("missing.txt") is None
    with pytest.raises(StoreError, match="names 2 documents"):
        store.find_document("atom.txt")


def test_comparisons_filter_by_run_and_corpus(store):
    _store_corpus(store)
    store.put_document("pair", make_graph("solar", "solar.txt", SOLAR))
    store.put_document("pair", make_graph("atom", "atom.txt", ATOM))
    store.put_comparison(comparison("solar", "atom", "run-2", 0.6))
    keys = [(c.source_id, c.target_id, c.run_id) for c in store.comparisons()]
    assert keys == [
        ("atom", "solar", "run-1"),
        ("heat", "water", "run-1"),
        ("solar", "atom", "run-2"),
        ("water", "solar", "run-1"),
    ]
    assert [(c.source_id, c.target_id) for c in store.comparisons(corpus="pair")] == [
        ("atom", "solar"),
        ("solar", "atom"),
    ]
    assert [(c.source_id, c.run_id) for c in store.comparisons(run_id="run-2", corpus="pair")] == [
        ("solar", "run-2")
    ]
    assert store.comparisons()[0].pairs == [] and len(store.comparisons(pairs=True)[0].pairs) == 2


def test_a_comparison_of_an_unknown_document_is_refused(store):
    store.put_document("c", make_graph("solar", "solar.txt", SOLAR))
    before = store.counts()
    with pytest.raises(StoreError, match="unknown document ghost") as err:
        store.put_comparison(comparison("solar", "ghost", "run-1", 0.5))
    assert str(err.value).startswith(store.location) and "\n" not in str(err.value)
    assert store.counts() == before


def test_a_batch_of_comparisons_is_stored_whole_or_not_at_all(store):
    for g in corpus_graphs():
        store.put_document("tiny", g)
    before = store.counts()
    with pytest.raises(StoreError, match="unknown document ghost"):
        store.put_comparisons(
            [comparison("atom", "solar", "run-1", 0.9), comparison("water", "ghost", "run-1", 0.4)]
        )
    assert store.counts() == before and store.comparisons() == []
    batch = [comparison("atom", "solar", "run-1", 0.9), comparison("water", "solar", "run-1", 0.4)]
    store.put_comparisons(batch)
    one_by_one = store.comparisons(pairs=True)
    assert [(c.source_id, c.target_id) for c in one_by_one] == [("atom", "solar"), ("water", "solar")]
    store.put_comparisons(batch)  # idempotent, like put_comparison
    assert store.comparisons(pairs=True) == one_by_one


def test_stored_pairs_names_the_pairs_of_one_run_already_stored(store):
    _store_corpus(store)
    asked = [("atom", "solar"), ("solar", "atom"), ("water", "solar"), ("heat", "water"), ("heat", "atom")]
    assert store.stored_pairs(asked, "run-1") == {("atom", "solar"), ("water", "solar"), ("heat", "water")}
    assert store.stored_pairs(asked, "run-2") == set()
    assert store.stored_pairs([], "run-1") == set()
    # More pairs than one SQL statement takes parameters for.
    many = [(f"x{i}", "solar") for i in range(700)] + [("atom", "solar")]
    assert store.stored_pairs(many, "run-1") == {("atom", "solar")}


def test_real_scores_and_mapping_pairs_are_stored(store):
    from dri.metrics import compare

    source, target = make_graph("solar", "solar.txt", SOLAR), make_graph("atom", "atom.txt", ATOM)
    result = compare(source, target)
    store.put_document("c", source)
    store.put_document("c", target)
    store.put_comparison(
        ComparisonRecord("solar", "atom", "run-1", {"mapping": {}}, result.scores, list(result.mapping.pairs))
    )
    stored = store.get_comparison("solar", "atom", "run-1")
    assert stored.scores["analogy_similarity"] == pytest.approx(result.scores.analogy_similarity)
    assert stored.scores["mapped_relations"] == result.scores.mapped_relations > 0
    assert [(p["source_lemma"], p["target_lemma"], p["generic"]) for p in stored.pairs] == [
        (p.source_lemma, p.target_lemma, p.generic) for p in result.mapping.pairs
    ]
    assert store.top_analogues("atom")[0].analogy_similarity == pytest.approx(
        result.scores.analogy_similarity
    )


def test_loose_pairs_and_their_evidence_are_stored_and_unknown_ones_stay_unknown(store):
    from dri.metrics import compare

    source, target = make_graph("solar", "solar.txt", SOLAR), make_graph("atom", "atom.txt", ATOM)
    result = compare(source, target)
    store.put_document("c", source)
    store.put_document("c", target)
    pairs = list(result.mapping.pairs)
    store.put_comparison(ComparisonRecord("solar", "atom", "run-1", {}, result.scores, pairs))
    stored = store.get_comparison("solar", "atom", "run-1")
    assert [(p["loose"], p["evidence"]) for p in stored.pairs] == [(p.loose, p.evidence) for p in pairs]
    assert any(p["evidence"] > 0 for p in stored.pairs)
    # A pair given without them (as stored before they were kept) reads back as unknown.
    old = [{k: v for k, v in dataclasses.asdict(p).items() if k not in ("loose", "evidence")} for p in pairs]
    store.put_comparison(ComparisonRecord("solar", "atom", "run-0", {}, result.scores, old))
    assert {(p["loose"], p["evidence"]) for p in store.get_comparison("solar", "atom", "run-0").pairs} == {
        (None, None)
    }


def test_candidate_inferences_are_stored_with_their_comparison(store):
    from dri.metrics import compare

    source, target = make_graph("solar", "solar.txt", SOLAR), make_graph("atom", "atom.txt", ATOM)
    result = compare(source, target)
    store.put_document("c", source)
    store.put_document("c", target)
    record = ComparisonRecord(
        "solar", "atom", "run-1", {}, result.scores, list(result.mapping.pairs), inferences=result.inferences
    )
    store.put_comparison(record)
    stored = store.get_comparison("solar", "atom", "run-1")
    # The sun heats the planet; the atom text says nothing of the kind.
    assert [(i["text"], i["source_text"], i["order"]) for i in stored.inferences] == [
        ("nucleus heat electron", "sun heat planet", 1)
    ]
    assert stored.inferences == record.inferences
    assert stored.inferences[0]["support"] == pytest.approx(result.inferences[0].support)
    assert stored.inferences[0]["support"] > 0
    assert [a["target"] for a in stored.inferences[0]["arguments"]] == ["c:nucleus", "c:electron"]
    assert store.comparisons(pairs=True)[0].inferences == record.inferences
    assert store.comparisons()[0].inferences == []  # like the pairs, read only when asked for
    store.put_comparison(dataclasses.replace(record, inferences=[]))  # stored again without: gone
    assert store.get_comparison("solar", "atom", "run-1").inferences == []


@pytest.fixture(scope="module")
def clough_graph():
    from dri.extract import graph_from_path

    return graph_from_path(CLOUGH / "g0pA_taskb.txt")


def test_an_extracted_clough_stevenson_graph_round_trips(store, clough_graph):
    record = store.put_document("clough", clough_graph, meta={"level": "cut", "task": "b"})
    assert record.doc_id == clough_graph.graph["doc_id"] and record.concepts > 10
    assert to_json(store.get_graph(record.doc_id)) == to_json(clough_graph)
    assert store.has_graph(clough_graph.graph["graph_id"])


def test_an_evaluation_is_saved_once(store):
    rows = [{"source": "a.txt", "target": "b.txt", "analogy_similarity": 0.5, "level": "cut"}]
    first = store.save_evaluation("plagiarism", "/corpora/x", rows)
    assert store.save_evaluation("plagiarism", "/corpora/x", rows) == first
    assert [(e.id, e.kind, e.rows) for e in store.evaluations()] == [(first, "plagiarism", rows)]
    assert store.evaluations("translation") == []


def test_clear_empties_the_store(store):
    _store_corpus(store)
    store.clear()
    assert set(store.counts().values()) == {0}
    assert store.corpora() == [] and store.comparisons() == [] and store.runs() == []
