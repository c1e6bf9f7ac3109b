"""The sense of an identical word read from the mapping's context: explanation only."""

from __future__ import annotations

from pathlib import Path

import pytest

from dri.extract import graph_from_path
from dri.mapping import map_graphs
from dri.mapping.senses import candidate_senses, generics_in_context, sense_in_context
from dri.mapping.wordnet import similarity_functions, wordnet

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"


@pytest.fixture(scope="module")
def atom_and_solar():
    return graph_from_path(DEMO / "rutherford-atom.txt"), graph_from_path(DEMO / "solar-system.txt")


def _names(pos: str, offsets) -> list[str]:
    return [wordnet().synset_name(pos, o) for o in offsets]


def test_the_candidates_are_the_words_own_senses_most_frequent_first():
    wn = wordnet()
    motion = candidate_senses("motion", "n")
    # SemCor tags motion 8 times as gesture.n.02, 7 as movement.n.03, 6 as motion.n.03.
    assert _names("n", [o for o, _ in motion][:3]) == ["gesture.n.02", "movement.n.03", "motion.n.03"]
    assert [w for _, w in motion][:3] == pytest.approx([1.0, 8 / 9, 7 / 9])
    # "lay" is a word of its own, not the past of "lie".
    assert "lie.v.01" not in _names("v", [o for o, _ in candidate_senses("lay", "v")])
    assert candidate_senses("lay", "v")[0][0] == wn.most_frequent_sense("lay", "v")


def test_a_relation_label_is_read_as_the_phrasal_verb_and_as_its_base_verb():
    senses = _names("v", [o for o, _ in candidate_senses("revolve_around", "v", "relation")])
    assert senses[:2] == ["focus_on.v.01", "revolve_around.v.02"]
    assert {"revolve.v.01", "orb.v.01"} <= set(senses[2:])


def test_without_context_the_most_frequent_sense_stays():
    wn = wordnet()
    motion = candidate_senses("motion", "n")
    assert sense_in_context(motion, "n", []) == wn.most_frequent_sense("motion", "n")
    assert sense_in_context(motion, "n", ["xqzzyword"]) == wn.most_frequent_sense("motion", "n")
    assert sense_in_context([], "n", ["force"]) is None


def test_the_context_chooses_the_sense():
    pairs = [
        ("concept", "motion", "motion", "n"),
        ("concept", "force", "force", "n"),
        ("concept", "electron", "planet", "n"),
        ("concept", "orbit", "orbit", "n"),
        ("concept", "nucleus", "sun", "n"),
        ("concept", "charge", "mass", "n"),
        ("concept", "attraction", "attraction", "n"),
        ("concept", "distance", "distance", "n"),
        ("concept", "path", "path", "n"),
        ("concept", "energy", "energy", "n"),
        ("concept", "centre", "light", "n"),
        ("relation", "revolve_around", "revolve_around", "v"),
        ("relation", "attract", "attract", "v"),
        ("relation", "fall_into", "fall_into", "v"),
        ("relation", "isa", "isa", "v"),
        ("concept", "massive", "massive", "a"),
    ]
    generics = generics_in_context(pairs)
    assert generics == {
        0: "movement.n.03",  # "a natural event that involves a change in the position or location"
        1: "force.n.02",  # "(physics) the influence that produces a change in a physical quantity"
        3: "orbit.n.01",
        6: "attraction.n.01",
        7: "distance.n.01",
        8: "way.n.05",  # "a course of conduct": the most frequent sense, not the text's
        9: "energy.n.01",
        11: "orb.v.01",  # "move in an orbit": revolve's, not the phrasal verb's focus_on.v.01
        12: "attract.v.01",
        13: "fall.v.01",
        14: None,  # the extractor's own relation has no sense
    }  # different words and adjectives keep the similarity's generic space


def test_the_atom_and_the_solar_system_meet_in_the_senses_the_texts_mean(atom_and_solar):
    atom, solar = atom_and_solar
    mapping = map_graphs(atom, solar)
    generic = {(p.source_lemma, p.target_lemma): p.generic for p in mapping.pairs}
    assert generic[("motion", "motion")] == "movement.n.03"
    assert generic[("revolve_around", "revolve_around")] == "orb.v.01"
    assert generic[("revolve_in", "revolve_in")] == "orb.v.01"
    assert generic[("force", "force")] == "force.n.02"
    assert generic[("attraction", "attraction")] == "attraction.n.01"
    assert generic[("orbit", "orbit")] == "orbit.n.01"
    # The prior wins where the context does not clearly favour another sense, right or not:
    assert generic[("keep_in", "keep_in")] == "keep_in.v.01"  # "cause to stay indoors"
    assert generic[("path", "path")] == "way.n.05"  # "a course of conduct"
    # Different words keep the generic space of the sense pair that gave their Lin.
    assert generic[("electron", "planet")] == "natural_object.n.01"


def test_only_the_explanation_changes(atom_and_solar):
    atom, solar = atom_and_solar
    in_context = map_graphs(atom, solar)
    # The same WordNet generic space given by the caller is used as it is, pair by pair.
    _, generic = similarity_functions()
    plain = map_graphs(atom, solar, generic=generic)
    key = [(p.source, p.target, p.kind, p.lin, p.loose, p.evidence) for p in in_context.pairs]
    assert key == [(p.source, p.target, p.kind, p.lin, p.loose, p.evidence) for p in plain.pairs]
    assert in_context.evaluation == plain.evaluation
    changed = {p.source_lemma for p, q in zip(in_context.pairs, plain.pairs) if p.generic != q.generic}
    assert {"motion", "revolve_around", "force"} <= changed
    assert all(p.source_lemma == p.target_lemma for p in in_context.pairs if p.source_lemma in changed)
    motion = next(p for p in plain.pairs if p.source_lemma == "motion")
    assert motion.generic == "gesture.n.02"


def test_relatedness_is_the_best_weighted_lin_over_the_words_senses():
    from dri.mapping.senses import _relatedness
    from dri.mapping.wordnet import SENSE_EXPONENT

    wn = wordnet()
    for pos, word, context in [
        ("n", "motion", ("force", "orbit", "planet", "xqzzyword", "motion")),
        ("v", "keep", ("attract", "have", "be", "keep")),
    ]:
        for offset in wn.offsets(word, pos):
            for c in context:
                expected = max(
                    (
                        w**SENSE_EXPONENT * wn.synset_lin(pos, offset, y)
                        for w, y in zip(wn.sense_weights(c, pos), wn.offsets(c, pos))
                    ),
                    default=0.0,
                )
                assert _relatedness(pos, offset, c) == pytest.approx(expected, abs=1e-12), (offset, c)


def test_the_context_table_gives_relatedness_exactly_for_every_word_at_once():
    from dri.mapping.senses import _ContextTable, _relatedness

    wn = wordnet()
    for pos, word, context in [
        ("n", "motion", ("force", "orbit", "planet", "xqzzyword", "motion", "entity", "sun")),
        ("v", "keep", ("attract", "have", "be", "keep", "revolve_around", "xqzzyword")),
    ]:
        table = _ContextTable(pos, context)
        for offset in wn.offsets(word, pos):
            assert table.relatedness(offset) == [_relatedness(pos, offset, c) for c in context], offset
