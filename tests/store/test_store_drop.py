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
