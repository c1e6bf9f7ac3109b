"""Candidate inferences: unmapped source relations carried over into the target's terms."""

from __future__ import annotations

from pathlib import Path

import pytest

from dri.extract import graph_from_path
from dri.graphs import add_concept, add_relation, add_triple, new_graph
from dri.mapping import map_graphs
from dri.mapping.inference import CandidateInference, candidate_inferences
from dri.metrics import compare

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"


def _solar():
    """The sun attracts the planet, which is why the planet revolves around it; the sun
    heats the planet and gives light."""
    g = new_graph("solar", name="solar")
    attract = add_triple(g, "sun", "attract", "planet", sentence=0)
    revolve = add_triple(g, "planet", "revolve_around", "sun", sentence=0)
    add_relation(g, "cause", attract, revolve, order=2, sentence=0)
    add_triple(g, "sun", "heat", "planet", sentence=1)
    add_triple(g, "sun", "give", "light", sentence=2)
    return g


def _atom():
    g = new_graph("atom", name="atom")
    add_triple(g, "nucleus", "attract", "electron", sentence=0)
    add_triple(g, "electron", "revolve_around", "nucleus", sentence=1)
    return g


def test_the_classic_solar_system_inferences_carry_over_into_the_atom():
    solar, atom = _solar(), _atom()
    mapping = map_graphs(solar, atom)
    found = candidate_inferences(solar, atom, mapping)
    assert [(ci.text(), ci.source_text(), ci.order) for ci in found] == [
        # SME's example: the cause of the revolving carries over with the two mapped relations.
        (
            "(nucleus attract electron) cause (electron revolve_around nucleus)",
            "(sun attract planet) cause (planet revolve_around sun)",
            2,
        ),
        ("nucleus heat electron", "sun heat planet", 1),
        ("nucleus give [new: light]", "sun give light", 1),
    ]
    cause, heat, give = found
    assert [a.target for a in heat.arguments] == ["c:nucleus", "c:electron"]
    assert give.arguments[1].new and give.arguments[1].source == "c:light"
    assert [(a.kind, a.target) for a in cause.arguments] == [("relation", "r:0"), ("relation", "r:1")]
    # Support is the summed evidence of the mapped pairs an inference rests on.
    evidence = {p.source: p.evidence for p in mapping.pairs}
    assert heat.support == pytest.approx(evidence["c:sun"] + evidence["c:planet"])
    assert give.support == pytest.approx(evidence["c:sun"])
    # The cause rests on both relation pairs and, through them, on sun and planet.
    assert cause.support == pytest.approx(heat.support + evidence["r:0"] + evidence["r:1"])
    assert heat.extrapolation == pytest.approx(1 / 3) and give.extrapolation == pytest.approx(2 / 3)
    assert cause.extrapolation == pytest.approx(1 / 5)
    assert all(p.evidence > 0 for p in mapping.pairs)


def test_an_order_2_relation_over_an_inferred_relation_is_an_inference_too():
    solar, atom = _solar(), _atom()
    heat = next(n for n, d in solar.nodes(data=True) if d.get("lemma") == "heat")
    revolve = next(n for n, d in solar.nodes(data=True) if d.get("lemma") == "revolve_around")
    add_relation(solar, "before", heat, revolve, order=2, sentence=3)
    found = {ci.text(): ci for ci in candidate_inferences(solar, atom, map_graphs(solar, atom))}
    nested = found["(nucleus heat electron) before (electron revolve_around nucleus)"]
    assert nested.order == 2 and nested.arguments[0].new and not nested.arguments[1].new
    # It rests on what its inferred argument rests on, and on the mapped one.
    assert nested.support > found["nucleus heat electron"].support
    assert [a for a, _ in nested.anchors] == ["c:sun", "c:planet", revolve]
    assert nested.extrapolation == pytest.approx(2 / 5)  # before and heat are new; sun, planet, revolving not


def test_what_the_target_already_states_or_the_source_repeats_is_suggested_once_or_not_at_all():
    solar, atom = _solar(), _atom()
    add_triple(atom, "nucleus", "heat", "electron", sentence=2)  # the target already says it
    add_triple(solar, "sun", "give", "light", sentence=3)  # the source says it twice
    texts = [ci.text() for ci in candidate_inferences(solar, atom, map_graphs(solar, atom))]
    assert "nucleus heat electron" not in texts
    assert texts.count("nucleus give [new: light]") == 1


def test_loose_concept_pairs_neither_anchor_nor_name_an_argument():
    solar, atom = _solar(), _atom()
    add_relation(solar, "emit", add_concept(solar, "photon"), sentence=4)  # photon, alone in its relation
    add_relation(atom, "be", add_concept(atom, "light"), add_concept(atom, "bright", pos="a"), sentence=3)
    mapping = map_graphs(solar, atom)
    loose = {p.source: p.target for p in mapping.pairs if p.loose}
    assert loose.get("c:light") == "c:light"  # paired for its similarity alone
    texts = [ci.text() for ci in candidate_inferences(solar, atom, mapping)]
    assert "nucleus give [new: light]" in texts and "nucleus give light" not in texts
    assert not any("photon" in t for t in texts)  # nothing of it is mapped


def test_nothing_mapped_nothing_inferred_and_a_clone_suggests_nothing():
    solar = _solar()
    other = new_graph("x", name="x")
    add_triple(other, "baker", "knead", "dough")
    assert candidate_inferences(solar, other, map_graphs(solar, other)) == []
    assert candidate_inferences(solar, solar, map_graphs(solar, solar)) == []


def test_an_inference_round_trips_through_its_dict():
    solar, atom = _solar(), _atom()
    for ci in candidate_inferences(solar, atom, map_graphs(solar, atom)):
        data = ci.to_dict()
        assert data["text"] == ci.text()
        assert CandidateInference.from_dict(data) == ci


@pytest.fixture(scope="module")
def demo():
    return {p.stem: graph_from_path(p) for p in DEMO.glob("*.txt") if p.name != "targets.txt"}


def test_the_solar_system_suggests_that_the_nucleus_heats_the_electron(demo):
    # The atom text has the attraction, the orbits, the paths and the balance of the solar
    # system's; what it lacks is the sun's heat and light.
    found = compare(demo["solar-system"], demo["rutherford-atom"]).inferences
    assert [(ci.text(), ci.source_text()) for ci in found] == [
        ("nucleus heat_to electron", "sun heat_to planet"),
        ("nucleus give [new: light]", "sun give light"),
    ]
    assert found[0].support > found[1].support > 0


def test_irrigation_suggests_that_the_heart_pushes_the_blood(demo):
    # The heart text has its left ventricle push the blood; the irrigation pump does the pushing.
    found = compare(demo["irrigation"], demo["heart-pump"]).inferences
    assert [ci.text() for ci in found[:2]] == ["heart push blood", "heart push_into artery"]
    assert found[0].source_text() == "pump push water"
    assert "[new: river]" in {a.phrase for ci in found for a in ci.arguments}


def test_the_fortress_suggests_why_the_weak_rays_pass(demo):
    # "A large army would set the mines off, although small groups could pass safely": the
    # contrast carries over onto the rays' passing, with the mines as a new entity.
    found = compare(demo["fortress"], demo["radiation-tumour"]).inferences
    contrast = next(ci for ci in found if ci.order == 2)
    assert contrast.text() == "(patient set_off [new: mine]) contrast (ray pass)"
    assert contrast.source_text() == "(army set_off mine) contrast (group pass)"
    assert found.index(contrast) < 3


def test_under_the_paper_profile_support_is_the_summed_lin():
    solar, atom = _solar(), _atom()
    comparison = compare(solar, atom, profile="paper")
    lin = {p.source: p.lin for p in comparison.mapping.pairs}
    assert all(p.evidence == p.lin for p in comparison.mapping.pairs)  # no trickle, no connectivity
    heat = next(ci for ci in comparison.inferences if ci.lemma == "heat")
    assert heat.support == pytest.approx(lin["c:sun"] + lin["c:planet"])
