"""Content vectors (stage 1 of MAC/FAC) from real WordNet."""

from __future__ import annotations

from dri.graphs import add_triple, new_graph
from dri.mapping.features import FEATURE_SETS, content_features


def _graph(triples, order2=False):
    g = new_graph("g", name="g")
    for i, (s, v, o) in enumerate(triples):
        add_triple(g, s, v, o, sentence=i)
    return g


def test_words_and_relation_heads_are_counted():
    g = _graph([("sun", "attract", "planet"), ("planet", "try_to_revolve_around", "sun")])
    f = content_features(g, FEATURE_SETS["lemmas"])
    assert f == {"c:sun": 1, "c:planet": 1, "r:attract": 1, "r:revolve_around": 1}


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
