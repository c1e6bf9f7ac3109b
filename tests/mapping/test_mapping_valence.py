"""Valence of events from the VADER lexicon, and narrative arcs in the structural evaluation."""

from __future__ import annotations

import pytest

from dri.graphs import add_relation, add_triple, new_graph
from dri.mapping.profiles import PROFILES
from dri.mapping.sides import Side
from dri.mapping.valence import relation_valences, word_valence
from dri.metrics import compare


def test_relation_valence_reads_the_label_then_the_object_and_turns_with_negation():
    labels = ["win", "receive", "receive", "win_not", "walk", "cause"]
    objects = ["game", "reward", "box", "game", "dog", None]
    assert word_valence("win") > 1.0 and word_valence("kill") < -1.0
    assert relation_valences(labels, objects, [1, 1, 1, 1, 1, 2]) == [1, 1, 0, -1, 0, 0]


def _story(name: str, first: tuple[str, str, str], then: tuple[str, str, str]):
    g = new_graph(name)
    r1 = add_triple(g, *first)
    r2 = add_triple(g, *then)
    add_relation(g, "cause", r1, r2, order=2)
    return g


def test_matching_arcs_count_more_than_opposite_ones():
    query = _story("q", ("fox", "work", "field"), ("fox", "win", "prize"))
    same_arc = _story("s", ("boy", "work", "field"), ("boy", "win", "prize"))
    other_arc = _story("o", ("boy", "work", "field"), ("boy", "lose", "prize"))
    assert Side.of(query).valence().count(1) == 1
    arcs, plain = PROFILES["sme"], PROFILES["sme"].but(valence=0.0)
    assert arcs.valence > 0.0

    def score(target, profile):
        return compare(query, target, profile=profile).scores.analogy_similarity

    assert score(same_arc, arcs) - score(other_arc, arcs) > score(same_arc, plain) - score(other_arc, plain)
    assert compare(query, query.copy(), profile=arcs).scores.analogy_similarity == pytest.approx(1.0)
