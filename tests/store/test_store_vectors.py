"""Stage 1 of analogy search in the store: content vectors and their ranking, on both backends,
and the structural estimate against the real mapper."""

from __future__ import annotations

import random

import numpy as np
import pytest
from store_test_helpers import make_graph

from dri.mapping.abstract_sentences import ABSTRACT_SENTENCES, ABSTRACTION, abstract_sentence_vectors
from dri.mapping.clause_coverage import SentenceRows, coverage
from dri.mapping.features import content_features, label_vectors
from dri.mapping.meaning import clause_vectors
from dri.mapping.random_graphs import random_ros_graph
from dri.metrics import compare
from dri.store import StoreError
from dri.store.sqlite_store import SQLiteStore
from dri.store.vectors import StructureIndex, VectorIndex, covered

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
    every = store.content_vectors("demo")
    ids, labels = every.doc_ids, every.labels
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


# Three graphs with the same relation labels and words, so the same estimate without
# their sentences: "echo" says what "solar" says of other things; "alpha" (first by id)
# uses the same words for something else.
SOLAR_TEXT = "The sun attracts the planet. The planet revolves around the sun. The sun heats the planet."
ECHO_TEXT = "The nucleus attracts the electron. The electron revolves around the nucleus. The nucleus heats the electron."
ALPHA_TEXT = (
    "Attract, the nucleus sighed at dawn. Revolve around it, the electron. Heat was never easy for them."
)
NUCLEUS = [
    ("nucleus", "attract", "electron"),
    ("electron", "revolve_around", "nucleus"),
    ("nucleus", "heat", "electron"),
]


def _put_told(store):
    store.put_document("demo", make_graph("solar", "solar.txt", SOLAR, text=SOLAR_TEXT))
    store.put_document("demo", make_graph("echo", "echo.txt", NUCLEUS, text=ECHO_TEXT))
    store.put_document("demo", make_graph("alpha", "alpha.txt", NUCLEUS, text=ALPHA_TEXT))


def test_the_clause_coverage_ranks_what_says_the_same_kind_of_thing_first(store):
    _put_told(store)
    ranked = store.similar_documents("solar", k=None)
    assert [d for d, _ in ranked] == ["echo", "alpha"]
    every = store.content_vectors("demo")
    rows = dict(zip(every.doc_ids, every.sentences))
    assert all(rows[d] is not None and len(rows[d]) == 3 for d in ("solar", "echo", "alpha"))
    # The stored graph keeps the vectors the stage-1 features hold.
    kept = store.get_graph("echo").graph[ABSTRACT_SENTENCES]
    assert kept.startswith(ABSTRACTION + ":") and np.allclose(
        abstract_sentence_vectors(store.get_graph("echo")), rows["echo"]
    )
    # Without the sentences the two tie, and the tie goes to the first id.
    plain = VectorIndex.build(every.doc_ids, every.features, every.sizes, vectors=every.labels)
    solar = plain.positions["solar"]
    assert [d for d, _ in plain.query_row(solar, 2, frozenset({"solar"}))] == ["alpha", "echo"]
    scores = dict(ranked)
    assert 0.0 < scores["alpha"] < scores["echo"]


def test_vectors_of_older_features_are_computed_again(store):
    _put_told(store)
    before = dict(store.similar_documents("solar", k=None))
    # As a store written before the abstracted sentences joined stage 1 has them.
    if isinstance(store, SQLiteStore):
        with store._write() as db:
            db.execute("UPDATE graphs SET features = ?", ('{"v": "4", "f": {}}',))
    else:
        store._write(
            lambda tx: tx.run(
                "MATCH (d:Document) SET d.features_version = '4', d.abstract_sentences = null"
            ).consume()
        )
    after = dict(store.similar_documents("solar", k=None))
    assert after.keys() == before.keys()
    assert all(after[d] == pytest.approx(before[d], rel=1e-3) for d in before)
    assert store.content_vectors("demo").sentences[0] is not None


def test_covered_scores_are_exact_for_the_k_best():
    rng = np.random.default_rng(7)
    shared = rng.normal(size=384)

    def unit(n: int) -> np.ndarray:
        x = rng.normal(size=(n, 384)) + 2.0 * shared
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    documents = [unit(int(n)) if n else None for n in rng.integers(0, 6, size=700)]
    rows, probe = SentenceRows.build(documents), unit(4)
    scores = rng.random(700)
    full = scores * coverage(probe, rows, np.arange(700))
    best = np.argsort(-full, kind="stable")
    for k in (1, 10, 100, 400, 700):
        got = covered(scores, probe, rows, k)
        assert list(np.argsort(-got, kind="stable")[:k]) == list(best[:k])
        assert np.allclose(got[best[:k]], full[best[:k]])
        assert np.all(got <= scores + 1e-12)
