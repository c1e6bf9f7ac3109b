"""Relations matched in their own clauses: sentences with nouns abstracted, kept vectors, the evidence factor."""

from __future__ import annotations

import numpy as np
import pytest

import dri.mapping.abstract_sentences as tables
from dri.extract import graph_from_text
from dri.graphs import add_triple, from_json, new_graph, to_json
from dri.mapping import map_graphs
from dri.mapping.abstract_sentences import (
    ABSTRACT_SENTENCES,
    ABSTRACTION,
    TableRows,
    abstract_sentence_vectors,
    abstract_sentences,
    clause_context,
    concept_context,
)
from dri.mapping.content import pack_rows
from dri.mapping.profiles import Profile, get_profile
from dri.mapping.sentence_nouns import abstract_other_nouns
from dri.mapping.sides import Side
from dri.metrics import compare


def test_nouns_and_pronouns_become_roles_and_the_verbs_stay() -> None:
    g = graph_from_text(
        "The general divided his army into small groups, which attacked the fortress from all sides. "
        "The doctor split the rays onto the tumour. She finished her book."
    )
    army, rays, person = abstract_sentences(g) or ["", "", ""]
    for noun in ("general", "army", "group", "which", "fortress", "side"):
        assert noun not in army
    assert army.startswith("someone divided something into small something")
    assert rays.endswith("split something onto something") and "doctor" not in rays
    # A pronoun is someone; a possessor before its possession goes with its determiner.
    assert person == "someone finished something"


def test_nouns_the_graph_has_no_concept_of_are_abstracted_too() -> None:
    g = graph_from_text(
        "He finally finished the epilogue of his book, a satisfactory ending to years of hard work and dedication."
    )
    mentions = {str(m).lower() for _, d in g.nodes(data=True) for m in d.get("mentions") or ()}
    # The extractor made no concept of these nouns; the abstraction still removes them.
    assert not mentions & {"years", "dedication"}
    (sentence,) = abstract_sentences(g) or [""]
    assert "years" not in sentence and "dedication" not in sentence
    assert sentence.startswith("someone finally finished")
    assert "satisfactory ending to something of hard work and something" in sentence


def test_names_and_numbers_become_roles_and_verbs_where_one_is_expected_stay() -> None:
    assert abstract_other_nouns("someone met Annika in 1931") == "someone met someone in something"
    # "face", "practice" and "scoop" are nouns too; after a modal, "to" or first, they are verbs.
    assert abstract_other_nouns("someone must practice caution to face consequences") == (
        "someone must practice something to face something"
    )
    assert abstract_other_nouns("Scoop something into the water") == "Scoop something into the something"
    # Function words that WordNet lists as nouns ("a", "as", "it") stay, as do adjectives.
    assert abstract_other_nouns("it is as a dark crime") == "it is as a dark something"
    # A possessor keeps its 's for the determiner rules.
    assert abstract_other_nouns("the witch's potion") == "the something's something"


def test_vectors_of_another_abstraction_are_computed_again() -> None:
    g = graph_from_text("The sun attracts the planets. The planets orbit the sun.")
    fresh = abstract_sentence_vectors(g)
    assert fresh is not None and g.graph[ABSTRACT_SENTENCES].startswith(ABSTRACTION + ":")
    # A graph stored before the abstraction changed keeps the rows alone (another version).
    old = graph_from_text("The sun attracts the planets. The planets orbit the sun.")
    stale = np.zeros_like(fresh)
    stale[:, 0] = 1.0
    old.graph[ABSTRACT_SENTENCES] = pack_rows(stale)
    again = abstract_sentence_vectors(old)
    assert again is not None and np.allclose(again, fresh, atol=1e-3)
    assert old.graph[ABSTRACT_SENTENCES] == g.graph[ABSTRACT_SENTENCES]


def test_a_graph_whose_text_does_not_split_into_its_sentences_has_none() -> None:
    g = graph_from_text("The sun attracts the planets. The planets orbit the sun.")
    g.graph["sentences"] = 3
    assert abstract_sentences(g) is None
    assert abstract_sentence_vectors(g) is None
    bare = new_graph("bare")
    add_triple(bare, "sun", "attract", "planet", sentence=0)
    assert abstract_sentences(bare) is None


def test_the_vectors_are_kept_in_the_graph_reused_and_survive_json() -> None:
    g = graph_from_text("The sun attracts the planets. The planets orbit the sun.")
    rows = abstract_sentence_vectors(g)
    assert rows is not None and rows.shape == (2, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    kept = g.graph[ABSTRACT_SENTENCES]
    assert isinstance(kept, str)
    again = abstract_sentence_vectors(g)
    assert again is not None and np.array_equal(again, rows)
    back = from_json(to_json(g))
    assert back.graph[ABSTRACT_SENTENCES] == kept
    restored = abstract_sentence_vectors(back)
    assert restored is not None and np.array_equal(restored, rows)


def _factor(a: str, b: str) -> float:
    ga, gb = graph_from_text(a), graph_from_text(b)
    sa, sb = Side.of(ga), Side.of(gb)
    table = clause_context(ga, gb, sa, sb, 1.0)
    return max(max(row) for row in table)


def test_corresponding_sentences_weigh_more_than_unrelated_ones() -> None:
    analogous = _factor("The army attacked the fortress.", "The soldiers stormed the castle.")
    unrelated = _factor("The army attacked the fortress.", "The cook ate the bread.")
    assert 0.0 <= unrelated < analogous <= 1.0


def test_a_large_context_table_makes_each_row_when_first_read(monkeypatch) -> None:
    source = graph_from_text("The army attacked the fortress. The cook ate the bread.")
    target = graph_from_text("The soldiers stormed the castle. The baker made the bread.")
    s, t = Side.of(source), Side.of(target)
    eager, eager_concepts = (
        clause_context(source, target, s, t, 1.0),
        concept_context(source, target, s, t, 1.0),
    )
    assert isinstance(eager, list)  # a small table: every row at once
    monkeypatch.setattr(tables, "EAGER_CELLS", 0)
    table = clause_context(source, target, s, t, 1.0)
    assert isinstance(table, TableRows) and table._rows == [None] * len(s.relations)
    first = table[1]
    assert table[1] is first and table._rows[0] is None  # made once, the others not
    assert all(type(x) is float for x in first) and list(table) == eager  # the same floats
    assert table[-1] == table[len(table) - 1] and table[:] == eager
    concepts = concept_context(source, target, s, t, 1.0)
    assert isinstance(concepts, TableRows) and list(concepts) == eager_concepts


def test_concepts_from_corresponding_sentences_weigh_more() -> None:
    source = graph_from_text("The army attacked the fortress. The cook ate the bread.")
    target = graph_from_text("The soldiers stormed the castle.")
    s, t = Side.of(source), Side.of(target)
    table = concept_context(source, target, s, t, 1.0)
    assert len(table) == len(s.concepts) and len(table[0]) == len(t.concepts)
    castle = t.concepts.index("c:castle")
    fortress, bread = s.concepts.index("c:fortress"), s.concepts.index("c:bread")
    # The fortress is stormed as the castle is; the bread is eaten, in another kind of sentence.
    assert 0.0 <= table[bread][castle] < table[fortress][castle] <= 1.0
    # A concept's factor is its best sentence's: one mentioned in both sentences takes the first's.
    both = graph_from_text("The army attacked the fortress. The army ate the bread.")
    army = Side.of(both).concepts.index("c:army")
    assert concept_context(both, target, Side.of(both), t, 1.0)[army][castle] == pytest.approx(
        table[fortress][castle]
    )
    # Half the weight, half the way to 1.
    half = concept_context(source, target, s, t, 0.5)
    assert half[bread][castle] == pytest.approx(0.5 + 0.5 * table[bread][castle])


def test_the_factor_scales_evidence_and_never_lets_a_pair_map() -> None:
    source = graph_from_text("He finished the epilogue of his book.")
    target = graph_from_text("She took the time to meditate on her goal.")
    without = map_graphs(source, target, profile=get_profile("sme").but(clause_context=0.0))
    with_context = map_graphs(source, target, profile="sme")
    assert with_context.evaluation < without.evaluation
    assert {(p.source_lemma, p.target_lemma) for p in with_context.relation_pairs} <= {
        (p.source_lemma, p.target_lemma) for p in without.relation_pairs
    }
    assert with_context.source_evaluation == without.source_evaluation


def test_a_clone_still_scores_one() -> None:
    g = graph_from_text("The army divided into small groups to attack the fortress from all sides.")
    assert compare(g, g.copy()).scores.analogy_similarity == pytest.approx(1.0)


def test_graphs_without_text_and_the_paper_profile_are_unchanged() -> None:
    s, t = new_graph("s"), new_graph("t")
    add_triple(s, "sun", "attract", "planet", sentence=0)
    add_triple(t, "nucleus", "attract", "electron", sentence=0)
    plain = get_profile("sme").but(clause_context=0.0)
    assert map_graphs(s, t, profile="sme").evaluation == map_graphs(s, t, profile=plain).evaluation
    assert list(concept_context(s, t, Side.of(s), Side.of(t), 1.0)) == [
        [1.0] * len(Side.of(t).concepts)
    ] * len(Side.of(s).concepts)
    # The paper's profile stays the paper's: no clause context.
    assert get_profile("paper") == Profile(name="paper", restarts=128)
    assert get_profile("paper").clause_context == 0.0
    assert get_profile("sme").clause_context == 1.0
