"""Stage 1 of analogy search in the store: content vectors and their ranking, on both backends,
and the structural estimate against the real mapper."""

from __future__ import annotations

import random

import numpy as np
import pytest
from store_test_helpers import make_graph

from dri.mapping.features import content_features, label_vectors
from dri.mapping.meaning import clause_vectors
from dri.mapping.random_graphs import random_ros_graph
from dri.metrics import compare
from dri.store import StoreError
from dri.store.vectors import StructureIndex

SOLAR = [("sun", "attract", "planet"), ("planet", "revolve_around", "sun"), ("sun", "heat", "planet")]
ATOM = [("nucleus", "attract", "electron"), ("electron", "revolve_around", "nucleus")]
KITCHEN = [("cook", "bake", "bread"), ("oven", "heat", "bread"), ("cook", "slice", "loaf")]
FARM = [("farmer", "plough", "field"), ("farmer", "sow", "seed"), ("rain", "water", "field")]
# The solar system's words, but verbs no relation of it may pair with (Lin < 0.5).
SAME_WORDS = [("sun", "sing", "planet"), ("planet", "paint", "sun"), ("sun", "write", "planet")]
# Verbs that pair with the solar system's by meaning only (heat/warm: Lin 0.32, meaning 0.8).
STOVE = [("stove", "warm", "pot"), ("cook", "sing", "song")]
SINGER = [("stove", "sing", "pot"), ("cook", "sing", "song")]


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


def test_shared_words_without_mappable_relations_rank_below_a_structural_analogue(store):
    _put_all(store)
    store.put_document("demo", make_graph("words", "words.txt", SAME_WORDS))
    ranked = dict(store.similar_documents("solar", k=None))
    # "words" shares every noun with "solar" and "atom" none, but no relation of
    # "words" can map onto one of "solar", so its estimated mapped share is 0.
    assert ranked["atom"] > 100 * ranked["words"] >= 0.0


def test_the_estimate_bounds_the_relations_the_mapper_maps():
    # Random graphs that share a small verb pool, mapped by the real mapper
    # (default profile): the relation Jaccard share of every mapping is at most
    # the estimate, a graph's estimate with itself is 1, and the estimate is
    # not trivial (it tells the pairs apart).
    rng = random.Random(15)
    verbs = ("attract", "pull", "draw", "heat", "warm", "carry", "bring", "push", "orbit", "see")
    graphs = [random_ros_graph(rng.randint(8, 30), rng, verbs=verbs, verb_pool=4) for _ in range(10)]
    index = StructureIndex.build([content_features(g) for g in graphs])
    relations = [sum(1 for _, kind in g.nodes(data="type") if kind == "relation") for g in graphs]
    shares = []
    for i, probe in enumerate(graphs):
        share = index.share(content_features(probe))
        assert share[i] == pytest.approx(1.0)
        for j, other in enumerate(graphs):
            if j == i:
                continue
            mapped = compare(other, probe).scores.mapped_relations
            assert mapped / (relations[i] + relations[j] - mapped) <= share[j] + 1e-9, (i, j)
            shares.append(share[j])
    assert len({round(x, 6) for x in shares}) > 5
    assert np.all(index.share({}) == 0.0)


def test_relations_paired_by_meaning_count_in_the_estimate(store):
    # "stove" shares no verb WordNet relates with "solar"; its "warm" pairs with
    # "heat" by meaning (the sme mapper pairs them), so it ranks far above
    # "singer", which has nothing that may map. The label vectors are stored
    # with each document and come back from the store.
    _put_all(store)
    store.put_document("demo", make_graph("stove", "stove.txt", STOVE))
    store.put_document("demo", make_graph("singer", "singer.txt", SINGER))
    ids, _, _, labels = store.content_vectors("demo")
    assert {"heat", "warm", "sing", "revolve_around"} <= labels.keys() and "stove" in ids
    fresh = clause_vectors(["warm"])[0]
    assert abs(float(labels["warm"] @ fresh) - 1.0) < 1e-3  # kept as float16
    ranked = dict(store.similar_documents("solar", k=None))
    assert ranked["stove"] > 100 * ranked["singer"] >= 0.0
    assert (
        compare(
            make_graph("stove", "stove.txt", STOVE), make_graph("solar", "solar.txt", SOLAR)
        ).scores.mapped_relations
        >= 1
    )


def test_with_meaning_the_estimate_bounds_what_the_sme_mapper_maps():
    # Random graphs over verbs some of which pair by meaning only: the WordNet-only
    # estimate is no bound of the sme mapper (it pairs heat/warm, push_into/pump_into),
    # the estimate with the labels' clause vectors is.
    rng = random.Random(15)
    verbs = ("heat", "warm", "push_into", "pump_into", "split", "carry", "sing", "orbit", "see", "attract")
    graphs = [random_ros_graph(rng.randint(8, 30), rng, verbs=verbs, verb_pool=4) for _ in range(10)]
    features = [content_features(g) for g in graphs]
    vectors = {k: v for f in features for k, v in label_vectors(f).items()}
    wordnet_only, with_meaning = (
        StructureIndex.build(features),
        StructureIndex.build(features, vectors=vectors),
    )
    relations = [sum(1 for _, kind in g.nodes(data="type") if kind == "relation") for g in graphs]
    above_wordnet = 0
    for i, probe in enumerate(graphs):
        lin, share = wordnet_only.share(features[i]), with_meaning.share(features[i])
        assert share[i] == pytest.approx(1.0) and np.all(share >= lin - 1e-12)
        for j, other in enumerate(graphs):
            if j == i:
                continue
            mapped = compare(other, probe).scores.mapped_relations
            jaccard = mapped / (relations[i] + relations[j] - mapped)
            assert jaccard <= share[j] + 1e-9, (i, j)
            above_wordnet += jaccard > lin[j] + 1e-9
    assert above_wordnet > 0
