"""Stage 1 of analogy search in the store: content vectors and their ranking, on both backends."""

from __future__ import annotations

import pytest
from store_test_helpers import make_graph

from dri.store import StoreError

SOLAR = [("sun", "attract", "planet"), ("planet", "revolve_around", "sun"), ("sun", "heat", "planet")]
ATOM = [("nucleus", "attract", "electron"), ("electron", "revolve_around", "nucleus")]
KITCHEN = [("cook", "bake", "bread"), ("oven", "heat", "bread"), ("cook", "slice", "loaf")]
FARM = [("farmer", "plough", "field"), ("farmer", "sow", "seed"), ("rain", "water", "field")]


def _put_all(store, corpus="demo"):
    for doc_id, triples in [("solar", SOLAR), ("atom", ATOM), ("kitchen", KITCHEN), ("farm", FARM)]:
        store.put_document(corpus, make_graph(doc_id, f"{doc_id}.txt", triples))


def test_the_analogue_ranks_first_and_the_probe_is_left_out(store):
    _put_all(store)
    ranked = store.similar_documents("solar", k=10)
    ids = [d for d, _ in ranked]
    assert ids[0] == "atom"
    assert "solar" not in ids and sorted(ids) == ["atom", "farm", "kitchen"]
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True) and -1.0 <= scores[-1] <= scores[0] <= 1.0 + 1e-6
    assert [d for d, _ in store.similar_documents("solar", k=1)] == ["atom"]
    assert len(store.similar_documents("solar", k=None)) == 3


def test_ranking_follows_new_documents_and_corpora(store):
    _put_all(store)
    assert len(store.similar_documents("solar", k=None)) == 3
    store.put_document("other", make_graph("moon", "moon.txt", [("earth", "attract", "moon")]))
    assert "moon" in [d for d, _ in store.similar_documents("solar", k=None)]
    assert "moon" not in [d for d, _ in store.similar_documents("solar", k=None, corpus="demo")]
    assert [d for d, _ in store.similar_documents("moon", k=None, corpus="other")] == []


def test_an_unknown_document_is_a_one_line_error(store):
    _put_all(store)
    with pytest.raises(StoreError, match="no stored graph for document nope"):
        store.similar_documents("nope")
