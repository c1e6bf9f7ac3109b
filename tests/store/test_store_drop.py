"""``Store.drop_comparisons``: a changed document's old comparisons go, with
everything stored with them, in one run only; SQLite and the real Neo4j."""

from __future__ import annotations

from store_test_helpers import ATOM, SOLAR, comparison, corpus_graphs, make_graph

from dri.metrics import compare
from dri.store import ComparisonRecord


def test_a_documents_comparisons_in_one_run_are_dropped_with_their_pairs_and_inferences(store):
    for g in corpus_graphs():
        store.put_document("tiny", g)
    solar, atom = make_graph("solar", "solar.txt", SOLAR), make_graph("atom", "atom.txt", ATOM)
    result = compare(solar, atom)
    with_inferences = ComparisonRecord(
        "solar", "atom", "run-1", {}, result.scores, list(result.mapping.pairs), inferences=result.inferences
    )
    store.put_comparisons(
        [
            with_inferences,
            comparison("water", "solar", "run-1", 0.4),
            comparison("heat", "water", "run-1", 0.8),
            comparison("atom", "solar", "run-2", 0.9),
        ]
    )
    empty = store.counts()
    assert store.drop_comparisons("run-1", ["solar", "nobody"]) == 2
    assert [(c.source_id, c.target_id) for c in store.comparisons(run_id="run-1")] == [("heat", "water")]
    assert store.get_comparison("atom", "solar", "run-2") is not None
    assert store.top_analogues("solar", run_id="run-1") == []
    after = store.counts()
    assert after != empty and sum(after.values()) < sum(empty.values())
    # Only "heat -> water" of run-1 and "atom -> solar" of run-2 are left: storing
    # them alone in an empty store gives the same counts (no orphaned pairs or inferences).
    kept = [store.get_comparison("heat", "water", "run-1"), store.get_comparison("atom", "solar", "run-2")]
    store.clear()
    for g in corpus_graphs():
        store.put_document("tiny", g)
    store.put_comparisons([c for c in kept if c is not None])
    assert store.counts() == after
    assert store.drop_comparisons("run-1", []) == 0


def _stored(store) -> dict[str, list]:
    """What a reader sees: each corpus's names, each document's name, each run's comparisons."""
    return {
        "members": sorted((c, d.name, d.doc_id) for c in store.corpora() for d in store.documents(c)),
        "documents": sorted(
            (d, store.get_document(d).name)
            for d in ("solar", "atom", "water", "heat")
            if store.get_document(d)
        ),
        "comparisons": sorted((c.source_id, c.target_id, c.run_id) for c in store.comparisons()),
    }


def _two_runs(store, renamed: bool) -> None:
    """Corpus "tiny" of four documents ("atom" in corpus "other" too), compared
    in runs 1 and 2; with ``renamed``, "solar.txt" stored again as "sun.txt"."""
    for g in corpus_graphs():
        store.put_document("tiny", g)
    store.put_document("other", make_graph("atom", "atom.txt", ATOM))
    if renamed:
        store.put_document("tiny", make_graph("solar", "solar.txt", SOLAR), meta={"name": "sun.txt"})
    store.put_comparisons(
        [
            comparison("solar", "atom", "run-1", 0.5),
            comparison("water", "solar", "run-1", 0.4),
            comparison("heat", "atom", "run-1", 0.8),
            comparison("solar", "heat", "run-1", 0.3),
            comparison("solar", "heat", "run-2", 0.3),
            comparison("heat", "water", "run-2", 0.7),
            comparison("atom", "heat", "run-2", 0.6),
        ]
    )


def test_dropped_members_take_only_what_they_alone_kept(store):
    _two_runs(store, renamed=True)
    dropped = store.drop_members("tiny", ["water.txt", "solar.txt", "atom.txt", "nobody.txt"], "run-1")
    assert (dropped.members, dropped.documents) == (3, 1)
    seen = _stored(store)
    # water.txt deleted: in no corpus now, gone with its comparisons of every run.
    # solar.txt renamed to sun.txt: kept under the new name; its run-1 comparisons go
    # (the run maps them again), run-2's stay.
    # atom.txt deleted here but held by "other": its run-1 comparisons go, run-2's stay.
    assert seen["members"] == [
        ("other", "atom.txt", "atom"),
        ("tiny", "heat.txt", "heat"),
        ("tiny", "sun.txt", "solar"),
    ]
    assert seen["documents"] == [("atom", "atom.txt"), ("heat", "heat.txt"), ("solar", "sun.txt")]
    assert seen["comparisons"] == [("atom", "heat", "run-2"), ("solar", "heat", "run-2")]
    assert dropped.comparisons == 5
    assert store.find_document("sun.txt").doc_id == "solar" and store.find_document("water.txt") is None
    assert [(a.doc_id, a.name) for a in store.top_analogues("heat")] == [
        ("atom", "atom.txt"),
        ("solar", "sun.txt"),
    ]
    # Nothing orphaned: the same data stored afresh gives the same counts.
    counts = store.counts()
    store.clear()
    store.put_document("other", make_graph("atom", "atom.txt", ATOM))
    store.put_document("tiny", corpus_graphs()[3])
    store.put_document("tiny", make_graph("solar", "solar.txt", SOLAR), meta={"name": "sun.txt"})
    assert _stored(store)["members"] == seen["members"]
    store.put_comparisons(
        [comparison("atom", "heat", "run-2", 0.6), comparison("solar", "heat", "run-2", 0.3)]
    )
    assert store.counts() == counts
    assert store.drop_members("tiny", [], "run-1").members == 0


def test_a_content_no_corpus_holds_goes_with_its_graph_and_every_comparison(store):
    _two_runs(store, renamed=False)
    # water.txt edited: its name moves to the new content, the old one is held by no corpus.
    store.put_document("tiny", make_graph("water2", "water.txt", ATOM))
    assert store.find_document("water.txt", "tiny").doc_id == "water2"
    dropped = store.drop_unheld(["water", "heat", "nobody"])
    assert (dropped.members, dropped.comparisons, dropped.documents) == (0, 2, 1)
    assert store.get_document("water") is None and store.get_graph("water") is None
    assert store.get_document("heat") is not None  # still held: left alone
    assert store.find_document("water.txt").doc_id == "water2"  # one document of that name, not two
    assert ("water", "solar", "run-1") not in _stored(store)["comparisons"]
    assert store.drop_unheld([]).documents == 0


def test_two_files_that_swap_names_are_listed_and_found_by_their_new_names(store):
    # Each document kept the name and path it was first stored under: a search listed
    # b.txt as its own analogue, and b.txt's path named two documents.
    store.put_document("c", make_graph("first", "a.txt", SOLAR))
    store.put_document("c", make_graph("second", "b.txt", ATOM))
    store.put_comparison(comparison("first", "second", "run-1", 0.7))
    # The swap, as a run stores it: each content put again under the other's name.
    store.put_document("c", make_graph("second", "a.txt", ATOM))
    store.put_document("c", make_graph("first", "b.txt", SOLAR))
    assert {d.name: d.doc_id for d in store.documents("c")} == {"a.txt": "second", "b.txt": "first"}
    assert (store.get_document("first").name, store.get_document("first").path) == ("b.txt", "/corpus/b.txt")
    assert store.get_document("second").name == "a.txt"
    assert store.find_document("/corpus/b.txt").doc_id == "first"
    assert [a.name for a in store.top_analogues("first")] == ["a.txt"]
    # A content held by a second corpus too: while its name holds it, it keeps that
    # name; once the name holds another content, it takes the other corpus's.
    store.put_document("d", make_graph("first", "x.txt", SOLAR))
    assert store.get_document("first").name == "b.txt"
    store.put_document("c", make_graph("third", "b.txt", SOLAR + ATOM))
    assert (store.get_document("first").name, store.get_document("first").path) == ("x.txt", "/corpus/x.txt")
    assert store.find_document("/corpus/b.txt").doc_id == "third"
