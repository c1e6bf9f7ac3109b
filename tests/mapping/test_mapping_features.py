"""Content vectors (stage 1 of MAC/FAC) from real WordNet."""

from __future__ import annotations

import random

from dri.graphs import add_triple, new_graph
from dri.mapping.features import (
    FEATURE_SETS,
    RelationPartners,
    content_features,
    label_vectors,
    meaning_labels,
)
from dri.mapping.meaning import clause_vectors, meaning_similarity
from dri.mapping.random_graphs import random_ros_graph, wordnet_vocabulary
from dri.mapping.wordnet import relation_similarity


def _graph(triples, order2=False):
    g = new_graph("g", name="g")
    for i, (s, v, o) in enumerate(triples):
        add_triple(g, s, v, o, sentence=i)
    return g


def test_words_and_relation_heads_are_counted():
    g = _graph([("sun", "attract", "planet"), ("planet", "try_to_revolve_around", "sun")])
    f = content_features(g, ("c", "r"))
    assert f == {"c:sun": 1, "c:planet": 1, "r:attract": 1, "r:revolve_around": 1}
    # Every feature set carries the typed relation labels: full label, type 1110
    # (order 1, a subject, an object, not the same concept).
    f = content_features(g, FEATURE_SETS["lemmas"])
    assert f["m:1110:attract"] == 1 and f["m:1110:try_to_revolve_around"] == 1


def test_relation_types_follow_the_arguments():
    g = new_graph("g", name="g")
    add_triple(g, "sun", "shine", None, sentence=0)  # no object
    add_triple(g, "cat", "wash", "cat", sentence=1)  # subject is object
    add_triple(g, "cat", "wash", "dog", sentence=2)
    f = content_features(g, ("m",))
    assert f == {"m:1100:shine": 1, "m:1111:wash": 1, "m:1110:wash": 1}


def test_relation_partners_are_exactly_the_labels_the_mapper_may_pair():
    # The synset index must find what comparing every pair finds: same type, and
    # an identical label or relation_similarity at the floor or above.
    rng = random.Random(3)
    verbs = [*rng.sample(wordnet_vocabulary("v"), 150), "attract", "pull", "draw", "revolve_around"]
    vocabulary = [f"m:{kind}:{v}" for v in verbs for kind in ("1110", "1100")]
    partners = RelationPartners(vocabulary, 0.5)
    for probe in ["m:1110:attract", "m:1100:pull", "m:1110:try_to_revolve_around", "m:1110:unknownverb"] + [
        f"m:1110:{v}" for v in verbs[:25]
    ]:
        kind, label = probe.split(":")[1:]
        expected = [
            i
            for i, key in enumerate(vocabulary)
            if key.split(":")[1] == kind
            and (key == probe or relation_similarity(label, key.split(":", 2)[2]) >= 0.5 - 1e-12)
        ]
        assert partners.partners(probe) == expected, probe
    found = {vocabulary[i] for i in partners.partners("m:1110:attract")}
    assert {"m:1110:attract", "m:1110:pull", "m:1110:draw"} <= found and "m:1100:attract" not in found
    # Without a floor any label of the same type may pair.
    assert len(RelationPartners(vocabulary, 0.0).partners("m:1100:pull")) == len(verbs)


def test_relation_partners_of_many_probes_at_once_are_each_probes_own(monkeypatch):
    # partners_of scores all probes against all their candidates in blocks of one
    # matrix: the same partners as each probe alone, whatever the blocks' size.
    import dri.mapping.features as features

    rng = random.Random(5)
    verbs = [*rng.sample(wordnet_vocabulary("v"), 120), "attract", "pull", "draw", "isa", "base_on"]
    vocabulary = [f"m:{kind}:{v}" for v in verbs for kind in ("1110", "1100")]
    probes = ["m:1110:attract", "m:1100:pull", "m:1110:isa", "m:1110:unknownverb"] + [
        f"m:{kind}:{v}" for v in verbs[:30] for kind in ("1110", "1100")
    ]
    alone = [RelationPartners(vocabulary, 0.5).partners(p) for p in probes]
    assert RelationPartners(vocabulary, 0.5).partners_of(probes) == alone
    monkeypatch.setattr(features, "_MATRIX_CELLS", 7)
    assert RelationPartners(vocabulary, 0.5).partners_of(probes) == alone
    assert sum(map(len, alone)) > len(probes)  # not only the identical labels


def test_relation_labels_close_in_meaning_are_partners_too():
    # heat/warm: Lin 0.32, below the floor; their clauses are close (meaning 0.8),
    # so the sme mapper pairs them, and so must the estimate given the vectors.
    vocabulary = ["m:1110:warm", "m:1100:warm", "m:1110:sing", "m:1110:heat", "m:2110:cause"]
    labels = ["warm", "sing", "heat", "cause"]
    vectors = dict(zip(labels, clause_vectors(labels)))
    assert relation_similarity("heat", "warm") < 0.5 <= meaning_similarity("heat", "warm")
    assert RelationPartners(vocabulary, 0.5).partners("m:1110:heat") == [3]
    partners = RelationPartners(vocabulary, 0.5, vectors, meaning=1.0)
    assert partners.partners("m:1110:heat") == [0, 3]  # not the other type, not sing
    assert partners.partners("m:1100:heat", vectors["heat"]) == [1]  # a probe label outside the vocabulary
    assert partners.partners("m:1100:heat") == [1]  # vectors are by label, whatever the type
    assert partners.partners("m:1110:zzzq") == []  # a label without a vector: WordNet only
    assert partners.partners("m:2110:cause") == [4]  # higher-order labels: identity only
    # A weight under which meaning cannot reach the floor adds nothing.
    assert RelationPartners(vocabulary, 0.5, vectors, meaning=0.4).partners("m:1110:heat") == [3]


def test_meaning_partners_are_the_pairs_the_sme_mapper_makes():
    # Every label pair the mapper may pair (max(Lin, meaning) at the floor) is found,
    # and nothing found lies below the floor by more than the stored vectors' rounding.
    rng = random.Random(5)
    verbs = [*rng.sample(wordnet_vocabulary("v"), 60), "heat", "warm", "push_into", "pump_into", "orbit"]
    vocabulary = [f"m:1110:{v}" for v in verbs]
    partners = RelationPartners(vocabulary, 0.5, dict(zip(verbs, clause_vectors(verbs))), meaning=1.0)
    for probe in [*verbs[:20], "heat", "push_into"]:
        found = set(partners.partners(f"m:1110:{probe}"))
        for i, other in enumerate(verbs):
            best = max(relation_similarity(probe, other), meaning_similarity(probe, other))
            if other == probe or best >= 0.5:
                assert i in found, (probe, other, best)
            elif i in found:
                assert best >= 0.5 - 0.002, (probe, other, best)
    assert verbs.index("warm") in partners.partners("m:1110:heat")


def test_label_vectors_are_the_clauses_of_the_first_order_labels():
    g = _graph([("sun", "heat", "planet"), ("planet", "try_to_revolve_around", "sun")])
    features = content_features(g)
    features["m:2110:cause"] = 1  # a higher-order label pairs by identity: no vector
    assert meaning_labels(features) == ["heat", "try_to_revolve_around"]
    vectors = label_vectors(features)
    assert sorted(vectors) == ["heat", "try_to_revolve_around"]
    assert abs(float(vectors["heat"] @ clause_vectors(["heat"])[0]) - 1.0) < 1e-5
    assert label_vectors({}) == {}


def test_random_graphs_get_their_relation_labels_counted():
    g = random_ros_graph(40, random.Random(1))
    f = content_features(g)
    relations = sum(1 for _, kind in g.nodes(data="type") if kind == "relation")
    assert sum(v for k, v in f.items() if k.startswith("m:")) == relations


def test_hypernyms_let_different_words_share_features():
    planet = content_features(_graph([("sun", "attract", "planet")]))
    electron = content_features(_graph([("nucleus", "pull", "electron")]))
    shared = planet.keys() & electron.keys()
    assert not {k for k in shared if k.startswith(("c:", "r:"))}
    assert {k for k in shared if k.startswith("hc:")}, "planet/electron, sun/nucleus share no noun hypernym"
    # Hypernyms weigh less than words, and the most general ones (entity) are left out.
    assert planet["c:sun"] == 1 and planet["hc:9239740"] == 1.0  # celestial_body, of sun and of planet
    assert electron["hc:9272085"] == 0.5  # elementary_particle, of electron only
    assert "hc:1740" not in planet  # entity.n.01


def test_structural_signatures_count_node_degrees():
    g = _graph([("sun", "attract", "planet"), ("planet", "orbit", "sun"), ("sun", "heat", "moon")])
    f = content_features(g, ("s",))
    # sun has degree 3, planet 2, moon 1; each relation by its subject's and object's degree.
    assert f == {"s:c3": 1, "s:c2": 1, "s:c1": 1, "s:r3-2": 1, "s:r2-3": 1, "s:r3-1": 1}


def test_an_empty_graph_has_an_empty_vector():
    assert content_features(new_graph("e", name="e")) == {}
