"""The mapping picture: one link per mapped pair, coloured by Lin, loose pairs dashed, big graphs cut."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from session_env import ENV_AT_START

from dri.extract import graph_from_path
from dri.graphs import add_relation, add_triple, new_graph
from dri.mapping import MappedPair, Mapping
from dri.metrics import compare
from dri.metrics.picture import MAX_INFERENCES, MAX_NODES, draw_mapping

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"
SVG = "{http://www.w3.org/2000/svg}"


def _groups(svg: str, prefix: str, kind: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    pattern = re.compile(rf"{re.escape(prefix)}-{kind}-\d+$")
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if pattern.match(g.get("id") or "")}


def _stroke(group: ET.Element) -> str:
    path = next(group.iter(f"{SVG}path"))
    return path.get("style") or ""


@pytest.fixture(scope="module")
def solar_atom():
    source = graph_from_path(DEMO / "solar-system.txt")
    target = graph_from_path(DEMO / "rutherford-atom.txt")
    return source, target, compare(source, target)


def test_one_link_per_mapped_pair_coloured_by_lin(solar_atom):
    source, target, comparison = solar_atom
    pairs = comparison.mapping.pairs
    picture = draw_mapping(source, target, comparison.mapping, prefix="solar")
    links = _groups(picture.svg, "solar", "pair")
    assert sorted(links) == sorted(f"solar-pair-{i}" for i in range(len(pairs)))
    assert picture.pairs_shown == picture.pairs == len(pairs) and picture.note == ""
    assert (
        picture.source_shown == source.number_of_nodes() and picture.target_shown == target.number_of_nodes()
    )
    # Every node of both graphs is drawn, with its lemma as text.
    assert len(_groups(picture.svg, "solar", "source")) == source.number_of_nodes()
    assert len(_groups(picture.svg, "solar", "target")) == target.number_of_nodes()
    assert "nucleus" in picture.svg and "planet" in picture.svg
    # An identical pair and a weak pair get different colours.
    strong = next(i for i, p in enumerate(pairs) if p.lin == 1.0)
    weak = next(i for i, p in enumerate(pairs) if p.lin < 0.2)
    colour = re.compile(r"stroke: (#[0-9a-f]{6})")
    assert colour.search(_stroke(links[f"solar-pair-{strong}"])).group(1) != colour.search(
        _stroke(links[f"solar-pair-{weak}"])
    ).group(1)


def test_inferences_are_drawn_into_the_target(solar_atom):
    source, target, comparison = solar_atom
    assert comparison.inferences
    picture = draw_mapping(source, target, comparison.mapping, comparison.inferences, prefix="i")
    drawn = _groups(picture.svg, "i", "inference")
    assert len(drawn) == picture.inferences_shown == len(comparison.inferences)
    for k, inference in enumerate(comparison.inferences):
        assert f"{inference.lemma.replace('_', ' ')}?" in ET.tostring(
            drawn[f"i-inference-{k}"], encoding="unicode"
        )
    if any(a.new for i in comparison.inferences for a in i.arguments):
        assert _groups(picture.svg, "i", "new") and "new: " in picture.svg


def test_loose_pairs_are_dashed():
    source, target = new_graph("s", name="s"), new_graph("t", name="t")
    add_triple(source, "sun", "attract", "planet")
    add_triple(target, "nucleus", "attract", "electron")
    rel = {"kind": "relation", "lin": 1.0, "generic": "attract.v.01"}
    mapping = Mapping(
        [
            MappedPair("r:0", "r:0", source_lemma="attract", target_lemma="attract", **rel),
            MappedPair("c:sun", "c:nucleus", "concept", "sun", "nucleus", 0.1, "object.n.01"),
            MappedPair("c:planet", "c:electron", "concept", "planet", "electron", 0.5, None, loose=True),
        ],
        source_size=3,
        target_size=3,
        seconds=0.0,
    )
    links = _groups(draw_mapping(source, target, mapping, prefix="p").svg, "p", "pair")
    assert len(links) == 3
    assert "stroke-dasharray" in _stroke(links["p-pair-2"])
    assert "stroke-dasharray" not in _stroke(links["p-pair-0"])


def test_a_big_graph_shows_its_mapped_part_and_says_so():
    source, target = new_graph("s", name="big"), new_graph("t", name="small")
    add_triple(source, "sun", "attract", "planet")
    for i in range(80):  # a long tail the mapping does not touch
        add_triple(source, f"thing{i}", "touch", f"thing{i + 1}")
    add_triple(target, "nucleus", "attract", "electron")
    comparison = compare(source, target)
    assert comparison.mapping.pairs
    picture = draw_mapping(source, target, comparison.mapping, prefix="big")
    assert picture.source_shown == MAX_NODES < picture.source_nodes == source.number_of_nodes()
    assert picture.pairs_shown == len(comparison.mapping.pairs)
    assert f"{MAX_NODES} of the source's {source.number_of_nodes()} nodes" in picture.note
    assert len(_groups(picture.svg, "big", "pair")) == len(comparison.mapping.pairs)
    assert len(_groups(picture.svg, "big", "source")) == MAX_NODES
    # The mapped relation and its arguments are among the nodes shown.
    assert ">sun<" in picture.svg and ">planet<" in picture.svg and ">attract<" in picture.svg


def test_higher_order_relations_and_empty_mappings_draw():
    source, target = new_graph("s", name="s"), new_graph("t", name="t")
    first = add_triple(source, "rain", "wet", "street")
    second = add_triple(source, "street", "shine", None)
    add_relation(source, "cause", first, second, order=2)
    add_triple(target, "idea", "exist", None)
    picture = draw_mapping(source, target, Mapping([], 5, 2, 0.0), prefix="e")
    assert picture.pairs == 0 and _groups(picture.svg, "e", "pair") == {}
    assert (
        len(_groups(picture.svg, "e", "source")) == source.number_of_nodes() == 5 and ">cause<" in picture.svg
    )


def test_many_inferences_draw_the_best_supported_and_say_so():
    source, target = new_graph("s", name="s"), new_graph("t", name="t")
    add_triple(source, "sun", "attract", "planet")
    verbs = ["shine", "burn", "glow", "heat", "spin", "rise", "set", "flare", "pulse", "fade"]
    for verb in verbs:
        add_triple(source, "sun", verb, None)
    add_triple(target, "nucleus", "attract", "electron")
    comparison = compare(source, target)
    assert len(comparison.inferences) == len(verbs) > MAX_INFERENCES
    picture = draw_mapping(source, target, comparison.mapping, comparison.inferences, prefix="m")
    assert picture.inferences_shown == MAX_INFERENCES and picture.inferences == len(verbs)
    assert len(_groups(picture.svg, "m", "inference")) == MAX_INFERENCES
    assert f"Draws {MAX_INFERENCES} of the {len(verbs)} candidate inferences" in picture.note


_DRAW_BIG = """
import sys
from dri.graphs import add_triple, new_graph
from dri.mapping import MappedPair, Mapping
from dri.metrics.picture import draw_mapping

source, target = new_graph("s", name="big"), new_graph("t", name="small")
add_triple(source, "sun", "attract", "planet")
for i in range(150):  # the picture shows less than half of the source
    add_triple(source, f"thing{i}", "touch", f"thing{i + 1}")
add_triple(target, "nucleus", "attract", "electron")
pair = MappedPair("c:sun", "c:nucleus", "concept", "sun", "nucleus", 0.5, "object.n.01")
mapping = Mapping([pair], source_size=source.number_of_nodes(), target_size=3, seconds=0.0)
sys.stdout.write(draw_mapping(source, target, mapping, prefix="big").svg)
"""


@pytest.mark.background  # two fresh processes: seconds of imports, waited for
def test_a_picture_is_the_same_in_every_process():
    """The nodes shown are laid out in the graph's order, not in the order of a set of
    strings, which changes with each process's hashing (PYTHONHASHSEED)."""
    svgs = {
        subprocess.run(
            [sys.executable, "-c", _DRAW_BIG],
            env={**ENV_AT_START, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(svgs) == 1 and "big-source-0" in next(iter(svgs))
