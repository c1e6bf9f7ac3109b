"""Relations matched by meaning: the sentence encoder's similarity of relation labels."""

from __future__ import annotations

import numpy as np

from dri.graphs import add_triple, new_graph
from dri.mapping import map_graphs
from dri.mapping.meaning import clause, meaning_matrix, meaning_similarity
from dri.mapping.profiles import get_profile
from dri.mapping.wordnet import relation_similarity


def test_clause_abstracts_the_arguments_to_roles():
    assert clause("push_into") == "someone push into something"


def test_synonyms_mean_more_than_unrelated_verbs():
    matrix = meaning_matrix(["heat", "sing"], ["warm", "sleep"])
    assert matrix.shape == (2, 2)
    assert ((matrix >= 0.0) & (matrix <= 1.0)).all()
    assert matrix[0, 0] > 0.5 > matrix[1, 1]
    assert meaning_similarity("heat", "warm") == matrix[0, 0]


def test_one_pair_is_the_same_float_as_the_matrix_of_that_pair():
    # meaning_similarity computes one pair without the matrix (the mapper asks
    # hundreds before its label matrix exists); the floats must be the matrix's
    # (identical labels are 1.0 by definition, the matrix's cosine of a clause with itself may fall short).
    labels = ["heat", "warm", "sing", "sleep", "push_into", "pump_into", "orbit", "revolve_around"]
    labels += ["divide", "split", "base_on", "cause", "before", "isa", "be", "have", "take_over"]
    for a in labels:
        for b in labels:
            if a != b:
                assert meaning_similarity.__wrapped__(a, b) == meaning_matrix([a], [b])[0, 0], (a, b)


def test_higher_order_labels_match_by_identity_only():
    matrix = meaning_matrix(["cause", "before"], ["cause", "after"])
    assert np.array_equal(matrix, np.array([[1.0, 0.0], [0.0, 0.0]]))


def _graph(subject: str, verb: str, obj: str):
    graph = new_graph(f"{subject}-{verb}", name=f"{subject} {verb} {obj}")
    add_triple(graph, subject, verb, obj, sentence=0)
    return graph


def test_a_relation_pair_lin_misses_maps_by_meaning():
    # heat/warm: Lin 0.32 under the relation floor of 0.5, meaning about 0.8.
    assert relation_similarity("heat", "warm") < get_profile("sme").relation_floor
    source, target = _graph("fire", "heat", "room"), _graph("sun", "warm", "earth")
    without = map_graphs(source, target, profile=get_profile("sme").but(relation_meaning=0.0))
    with_meaning = map_graphs(source, target, profile="sme")
    assert not [p for p in without.pairs if p.kind == "relation"]
    relations = [p for p in with_meaning.pairs if p.kind == "relation"]
    assert [(p.source_lemma, p.target_lemma) for p in relations] == [("heat", "warm")]
    assert relations[0].lin == meaning_similarity("heat", "warm")


def test_the_paper_profile_uses_lin_alone():
    assert get_profile("paper").relation_meaning == 0.0
