"""Stored graph JSON from a user's file: any JSON value is a graph or the one-line error."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dri.cli import main
from dri.files import FileRefused
from dri.graphs import (
    NotAGraph,
    add_relation,
    add_triple,
    check_graph_json,
    from_json,
    load_json,
    new_graph,
    summary,
    to_json,
    triples,
)
from dri.literal import printable, storable
from dri.metrics import compare

_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def _valid() -> dict:
    g = new_graph("d", name="solar")
    attract = add_triple(g, "sun", "attract", "planet", sentence=0, section="abstract")
    revolve = add_triple(g, "planet", "revolve", "sun", sentence=1)
    add_relation(g, "cause", attract, revolve, order=2, sentence=1)
    add_triple(g, "wall", "collapse", None, sentence=2)
    return json.loads(json.dumps(to_json(g)))


KEYS = ["schema_version", "graph", "nodes", "edges", "id", "type", "lemma", "pos", "sentences", "sections",
        "mentions", "order", "source", "target", "label", "entity", "name"]  # fmt: skip


def _places(data, path=()):
    """Every (container, key) in ``data``, to replace or drop."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield path, key
            yield from _places(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield path, i
            yield from _places(value, (*path, i))


@st.composite
def mutated_graphs(draw):
    """A valid stored graph with one to three places replaced by any JSON value, or dropped."""
    data = _valid()
    for _ in range(draw(st.integers(1, 3))):
        places = list(_places(data))
        if not places:
            break
        path, key = draw(st.sampled_from(places))
        holder = data
        for step in path:
            holder = holder[step]
        if draw(st.booleans()):
            del holder[key]
        else:
            holder[key] = draw(
                json_values | st.sampled_from(["c:sun", "r:0", "r:1", "subj", "obj", "relation"])
            )
    return data


def _outcome(data) -> str:
    try:
        check_graph_json(data)
    except NotAGraph as err:
        assert err.reason and "\n" not in err.reason
        return "error"
    return "graph"


@_SETTINGS
@given(json_values)
def test_any_json_value_is_a_graph_or_the_one_line_error(tmp_path, value):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    try:
        load_json(path)
    except NotAGraph as err:
        assert "\n" not in str(err)


@st.composite
def varied_graphs(draw):
    """Valid stored graphs of other shapes: edges dropped (relations without
    a subject or an object), any lemmas, sentences and sections."""
    data = _valid()
    kept = draw(st.lists(st.booleans(), min_size=len(data["edges"]), max_size=len(data["edges"])))
    data["edges"] = [e for e, keep in zip(data["edges"], kept) if keep]
    words = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
    for node in data["nodes"]:
        node["lemma"] = draw(st.sampled_from([node["lemma"], "be", "cause"]) | words)
        node["sentences"] = draw(st.lists(st.integers(0, 2**40), max_size=3))
        node["sections"] = draw(st.lists(words, max_size=2))
    return data


@_SETTINGS
@given(mutated_graphs())
def test_a_damaged_graph_is_refused_or_still_a_graph_every_part_can_use(data):
    if _outcome(data) == "graph":
        g = from_json(data)
        summary(g)
        triples(g)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(varied_graphs() | mutated_graphs().filter(lambda d: _outcome(d) == "graph"), varied_graphs())
def test_graphs_that_pass_the_check_can_be_compared(a, b):
    assert _outcome(a) == _outcome(b) == "graph"
    comparison = compare(from_json(a), from_json(b))
    assert 0.0 <= comparison.scores.analogy_similarity <= 1.0


def _broken() -> dict[str, object]:
    valid = _valid()
    no_lemma = copy.deepcopy(valid)
    del no_lemma["nodes"][0]["lemma"]
    wrong_type = copy.deepcopy(valid)
    wrong_type["nodes"][1]["sentences"] = "0"
    missing_end = copy.deepcopy(valid)
    missing_end["edges"][0]["target"] = "r:99"
    subj_into_concept = copy.deepcopy(valid)
    subj_into_concept["edges"].append({"source": "r:0", "target": "c:sun", "label": "subj"})
    return {
        "[]": [],
        "null": None,
        '"x"': "x",
        "{}": {},
        "7": 7,
        "no lemma": no_lemma,
        "sentences a string": wrong_type,
        "edge to a missing node": missing_end,
        "subj edge into a concept": subj_into_concept,
        "nodes an object": {**valid, "nodes": {}},
        "version 2": {**valid, "schema_version": 2},
        # The text the content similarity encodes: both reached the encoder (exit 70).
        "text a number": {**valid, "graph": {**valid["graph"], "text": 7}},
        "text with a lone surrogate": {**valid, "graph": {**valid["graph"], "text": "The sun \udcff."}},
    }


BROKEN = _broken()


@pytest.mark.parametrize("name", list(BROKEN))
def test_each_shape_named_in_issue_28_is_refused(tmp_path, name):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(BROKEN[name]), encoding="utf-8")
    with pytest.raises(NotAGraph):
        load_json(path)


@pytest.mark.parametrize(
    "key, value, says",
    [
        ("sentences", "0", '"sentences" must be a list of sentence numbers, not a string'),
        ("sentences", [-5, 1], '"sentences" must be a list of sentence numbers; it holds a number: -5'),
        ("sentences", [0, 1e30], '"sentences" must be a list of sentence numbers; it holds a number: 1e+30'),
        ("sections", [None, 5], '"sections" must be a list of strings; it holds null: None'),
        # It said "must be a list of strings; it holds a string: 'x\\ud800y'".
        (
            "mentions",
            ["x\ud800y"],
            '"mentions" must be a list of strings; one of them holds a lone surrogate (\\ud800), which is not text',
        ),
    ],
)
def test_a_bad_entry_of_a_list_is_named(tmp_path, key, value, says):
    # A list holding a bad entry was said to be "not an array".
    graph = _valid()
    graph["nodes"][1][key] = value
    path = tmp_path / "g.json"
    path.write_text(json.dumps(graph), encoding="utf-8")
    with pytest.raises(NotAGraph) as err:
        load_json(path)
    assert str(err.value).endswith(says)


def test_the_valid_graph_loads(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_valid()), encoding="utf-8")
    assert load_json(path).number_of_nodes() == len(_valid()["nodes"])


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"\xff\xfe{", "not UTF-8 text"),
        (b"{", "not JSON (Expecting property name enclosed in double quotes at line 1, column 2)"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
        (b"1" * 5000, "not JSON the graph reader accepts"),
    ],
)
def test_bytes_that_are_not_json(tmp_path, raw, reason):
    path = tmp_path / "g.json"
    path.write_bytes(raw)
    with pytest.raises(NotAGraph, match=reason.replace("(", r"\(").replace(")", r"\)")):
        load_json(path)


def test_a_graph_file_is_read_through_the_bound(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_valid()), encoding="utf-8")
    with pytest.raises(FileRefused, match="too large"):
        load_json(path, max_bytes=100)
    (tmp_path / "z.json").symlink_to("/dev/zero")
    with pytest.raises(FileRefused, match="character device"):
        load_json(tmp_path / "z.json")


def test_dri_compare_gives_one_line_for_every_broken_shape(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_valid()), encoding="utf-8")
    for n, data in enumerate(BROKEN.values()):
        path = tmp_path / f"{n}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        assert main(["compare", str(path), str(good)]) == 1
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"error: {path}: not a stored ROS graph ("), line


def test_the_json_graph_written_by_dri_graph_is_read_back(tmp_path):
    text = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy" / "solar-system.txt"
    assert main(["graph", str(text), "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("*.json")
    assert load_json(written).number_of_nodes() > 10


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=4)
_SURROGATES = st.tuples(_TEXT, st.sampled_from(["\udcff", "\udc80", "\ud800", "\udcff\udcfe"]), _TEXT).map(
    "".join
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_SURROGATES, key=st.sampled_from(["name", "path", "title", "lemma", "pos", "entity"]))
def test_a_lone_surrogate_is_read_as_its_escape_or_named_as_such(tmp_path, text, key):
    """A file written with a lone surrogate in it (a name that is not UTF-8, as an
    earlier dri wrote it): the graph's own text is read as its escape; anywhere else
    the error says what is wrong, never "must be a string, not a string"."""
    data = _valid()
    (data["graph"] if key in ("name", "path", "title") else data["nodes"][0])[key] = text
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # "\udcff" as JSON's own escape
    try:
        graph = load_json(path)
    except NotAGraph as err:
        assert key not in ("name", "path", "title")
        assert "lone surrogate" in err.reason and "not a string" not in err.reason
        assert printable(err.reason) == err.reason  # printable, one line
    else:
        assert graph.graph[key] == storable(text)
