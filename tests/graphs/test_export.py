import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dri.graphs import (
    add_concept,
    add_relation,
    add_triple,
    higher_order_relations,
    new_graph,
    triples,
    unary_relations,
)
from dri.graphs.export import draw_png, read_graphml, write_graphml
from dri.literal import printable

# Any text (surrogates too) and the characters XML 1.0 forbids.
hostile = st.lists(
    st.one_of(
        st.sampled_from(["\x00", "\x0b", "\x1b[2J", "\ufffe", "\udcff", "]]>", "<a>", "&"]),
        st.text(st.characters(exclude_categories=()), max_size=6),
    ),
    min_size=1,
    max_size=4,
).map("".join)


def sample():
    g = new_graph("d", name="sample")
    add_triple(g, "student", "write", "essay", sentence=0, section="abstract")
    add_triple(g, "teacher", "mark", "essay", sentence=1)
    return g


def test_graphml_round_trip(tmp_path):
    path = tmp_path / "g.graphml"
    write_graphml(sample(), path)
    back = read_graphml(path)
    assert triples(back) == triples(sample())
    assert back.nodes["c:essay"]["sentences"] == [0, 1]
    assert back.nodes["c:student"]["sections"] == ["abstract"]


def test_png_is_a_real_image(tmp_path):
    path = tmp_path / "g.png"
    draw_png(sample(), path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    assert matplotlib.image.imread(str(path)).shape[0] > 100


@pytest.mark.parametrize("name", ["g.txt", "g", "g.jpg", "g.PNG."])
def test_png_is_a_png_whatever_its_name_ends_in(tmp_path, name):
    path = tmp_path / name
    draw_png(sample(), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def causal():
    """'The storm destroyed the harbour because the wall was weak. The town was rebuilt.'"""
    g = new_graph("c", name="causal")
    destroy = add_triple(g, "storm", "destroy", "harbour", sentence=0)
    weak = add_relation(g, "be", add_concept(g, "wall"), add_concept(g, "weak", pos="a"), sentence=0)
    add_relation(g, "cause", weak, destroy, order=2, sentence=0)
    add_triple(g, "town", "collapse", None, sentence=1)
    add_concept(g, "susan", entity="PERSON", wordnet_lemma="person", mention="Susan")
    return g


def test_graphml_keeps_higher_order_and_one_argument_relations(tmp_path):
    path = tmp_path / "c.graphml"
    write_graphml(causal(), path)
    back = read_graphml(path)
    assert higher_order_relations(back) == [
        ("cause", ("wall", "be", "weak"), ("storm", "destroy", "harbour"))
    ]
    assert unary_relations(back) == [("town", "collapse")]
    assert back.nodes["c:weak"]["pos"] == "a"
    assert back.nodes["r:2"]["order"] == 2 and back.nodes["r:0"]["order"] == 1
    assert (back.nodes["c:susan"]["entity"], back.nodes["c:susan"]["wordnet_lemma"]) == ("PERSON", "person")


def test_png_draws_higher_order_relations(tmp_path):
    path = tmp_path / "c.png"
    draw_png(causal(), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@settings(max_examples=25, deadline=None)
@given(hostile, hostile)
@example("cat\x01", "cat\\u0001")
@example("cat\\u0001", "cat\x01")
@example("a\\", "a\\\\")
def test_graphml_keeps_every_node_whatever_their_lemmas(one, other):
    # "cat\x01" and "cat\\u0001" escaped to one id: one node, the edges of both.
    g = new_graph("d")
    add_triple(g, one, "chase", "mouse", sentence=0)
    add_triple(g, other, "eat", "fish", sentence=1)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.graphml"
        write_graphml(g, path)
        back = read_graphml(path)
    assert (back.number_of_nodes(), back.number_of_edges()) == (g.number_of_nodes(), g.number_of_edges())


def test_graphml_ids_with_a_backslash_come_back_as_they_were(tmp_path):
    # Doubling every backslash kept ids apart but changed them: c:baker\oven came back c:baker\\oven.
    g = new_graph("d")
    add_triple(g, "baker\\oven", "heat", "dough", sentence=0)
    path = tmp_path / "g.graphml"
    write_graphml(g, path)
    assert set(read_graphml(path)) == set(g)


@settings(max_examples=25, deadline=None)
@given(hostile, hostile, hostile)
@example("x\x0by.txt", "\x00", "\udcff")
def test_graphml_of_any_name_lemma_and_section_is_xml(name, lemma, section):
    g = new_graph("d", name=name, path=name)
    add_triple(g, lemma, "write", "essay", sentence=0, section=section)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.graphml"
        write_graphml(g, path)
        ET.parse(path)  # XML 1.0
        back = read_graphml(path)
    assert back.graph["name"] == printable(name, newlines=True)
    assert {back.nodes[n]["lemma"] for n in back} >= {"write", "essay"}
    essays = [back.nodes[n]["sections"] for n in back if back.nodes[n]["lemma"] == "essay"]
    assert essays == [g.nodes["c:essay"]["sections"]]  # lists go through JSON: any text comes back
