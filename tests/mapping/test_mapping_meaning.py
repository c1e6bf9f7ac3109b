"""Relations matched by meaning: the sentence encoder's similarity of relation labels."""

from __future__ import annotations

import numpy as np
import pytest

from dri.graphs import add_triple, new_graph
from dri.graphs.ros import add_concept, add_relation
from dri.mapping import map_graphs
from dri.mapping.matrices import LabelMatrix
from dri.mapping.meaning import clause, meaning_matrix, meaning_similarity, relation_keys
from dri.mapping.profiles import get_profile
from dri.mapping.sides import Side
from dri.mapping.wordnet import relation_similarity, similarity_functions


def test_clause_abstracts_the_arguments_to_roles():
    assert clause("push_into") == "someone push into something"
    assert clause("treat", "something", "someone") == "something treat someone"
    assert clause("collapse", "something", "") == "something collapse"


def _people_and_things():
    graph = new_graph("roles")
    mary = add_concept(graph, "mary", entity="PERSON", wordnet_lemma="person", mention="Mary")
    fox = add_concept(graph, "fox", mention="she")  # a fox, but told of as a person
    doctor = add_concept(graph, "doctor", mention="doctor")  # a person by WordNet
    tumour = add_concept(graph, "tumour", mention="tumour")
    wall = add_concept(graph, "wall", mention="wall")
    add_relation(graph, "push", mary, wall)
    add_relation(graph, "push", wall, mary)
    add_relation(graph, "run", fox)
    add_relation(graph, "treat", doctor, tumour)
    add_relation(graph, "collapse", wall)
    return graph


def test_relation_keys_read_the_argument_roles_from_the_graph():
    assert relation_keys(Side.of(_people_and_things())) == [
        ("push", "someone", "something"),
        ("push", "something", "someone"),
        ("run", "someone", ""),
        ("treat", "someone", "something"),
        ("collapse", "something", ""),
    ]


def test_the_roles_change_the_meaning_and_a_bare_label_is_someone_and_something():
    one_argument = ("collapse", "something", "")
    assert meaning_similarity(one_argument, ("collapse", "someone", "something")) < 1.0
    assert meaning_similarity("collapse", ("collapse", "someone", "something")) == 1.0
    assert meaning_matrix([one_argument], ["collapse"])[0, 0] < 1.0


def test_the_label_matrix_is_over_relation_keys_and_matches_pair_by_pair():
    side = Side.of(_people_and_things())
    lin, _ = similarity_functions("max")
    labels = LabelMatrix(side, side, "max", lin, 1.0)
    assert len(labels.keys_s) == 5  # push twice, with its roles swapped
    assert labels.id_s[0] != labels.id_s[1]
    matrix = labels.matrix()
    alone = [[labels._pair(a, b) for b in range(len(labels.keys_t))] for a in range(len(labels.keys_s))]
    assert np.allclose(matrix, alone, atol=1e-12)
    assert matrix[labels.id_s[0], labels.id_t[1]] == 1.0  # the same label: Lin 1
    without = LabelMatrix(side, side, "max", lin, 0.0)
    assert len(without.keys_s) == 4 and without.keys_s == without.labels_s


def test_synonyms_mean_more_than_unrelated_verbs():
    matrix = meaning_matrix(["heat", "sing"], ["warm", "sleep"])
    assert matrix.shape == (2, 2)
    assert ((matrix >= 0.0) & (matrix <= 1.0)).all()
    assert matrix[0, 0] > 0.5 > matrix[1, 1]
    assert meaning_similarity("heat", "warm") == matrix[0, 0]


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
    # Both are things heating things: the clause keeps those roles.
    assert relations[0].lin == pytest.approx(
        meaning_similarity(("heat", "something", "something"), ("warm", "something", "something")), abs=1e-12
    )


def test_the_paper_profile_uses_lin_alone():
    assert get_profile("paper").relation_meaning == 0.0
