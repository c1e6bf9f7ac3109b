"""Inputs the extractor cannot do justice to: text in another language gets
a warning; a text over the size limit is refused in one line; a long
hard-wrapped paragraph is split like short ones (bench/bench_extract.py
times it)."""

from __future__ import annotations

import logging

import pytest

from dri.extract import DocumentError
from dri.extract.reader import read_document
from dri.extract.sentences import split_sentences

GERMAN = (
    "Die Sonne zieht die Planeten an. Die Planeten kreisen um die Sonne, weil die Schwerkraft sie in ihrer "
    "Umlaufbahn hält. Ein General wollte eine Festung erobern, aber die Straßen waren vermint. Er teilte "
    "seine Armee in kleine Gruppen auf, die gleichzeitig angriffen.\n"
)
CHINESE = "太阳吸引行星。行星围绕太阳旋转，因为引力使它们保持在轨道上。一位将军想要攻占一座堡垒，但道路上埋有地雷。他把军队分成小组，同时发动进攻。\n"
ENGLISH = (
    "The sun attracts the planets. The planets revolve around the sun because gravity holds them in their "
    "orbits. A general wanted to capture a fortress, but the roads were mined. He divided his army into "
    "small groups that attacked at the same time.\n"
)


@pytest.mark.parametrize("text", [GERMAN, CHINESE])
def test_text_in_another_language_is_warned_about(tmp_path, caplog, text):
    path = tmp_path / "foreign.txt"
    path.write_text(text, encoding="utf-8")
    caplog.set_level(logging.WARNING)
    document = read_document(path)
    assert any("does not look like English" in w for w in document.warnings)
    assert f"{path}: does not look like English" in caplog.text


def test_english_is_not_warned_about(tmp_path):
    path = tmp_path / "english.txt"
    path.write_text(ENGLISH, encoding="utf-8")
    assert read_document(path).warnings == []


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_text_over_the_limit_is_refused_in_one_line_naming_the_setting(tmp_path, monkeypatch):
    path = _write(tmp_path / "big.txt", ENGLISH * 100)
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "10000")
    with pytest.raises(DocumentError) as err:
        read_document(path)
    message = str(err.value)
    assert message.startswith(
        f"{path}: too long: {len(ENGLISH) * 100:,} characters of text, the limit is 10,000"
    )
    assert "(about 1,500 words; DRI_MAX_TEXT_CHARS sets it)" in message and "\n" not in message
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "5")
    with pytest.raises(DocumentError, match=r"the limit is 5 \(about 1 word; DRI_MAX_TEXT_CHARS"):
        read_document(path)
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "lots")
    with pytest.raises(DocumentError, match="DRI_MAX_TEXT_CHARS must be a positive whole number, not 'lots'"):
        read_document(path)


def test_a_long_hard_wrapped_paragraph_splits_like_short_ones():
    # Once quadratic in the paragraph's length (the abbreviation check searched from its start).
    paragraph = " ".join(["The sun attracts the planets, e.g. Mars and Venus."] * 2000)
    sentences = split_sentences(paragraph)
    assert sentences == ["The sun attracts the planets, e.g. Mars and Venus."] * 2000


def test_a_graph_json_file_is_refused_as_a_document_but_other_json_is_text(tmp_path):
    # Read as prose, a graph's labels made a graph of their own, with only a "not English" warning.
    from dri.extract import graph_from_text
    from dri.graphs import load_json, save_json

    graph = tmp_path / "solar.json"
    save_json(graph_from_text(ENGLISH), graph)
    assert load_json(graph).number_of_nodes() > 0
    with pytest.raises(DocumentError, match=r"solar\.json: a ROS graph \(graph JSON\), not a text or PDF"):
        read_document(graph)
    notes = _write(tmp_path / "notes.json", '{"said": "The sun attracts the planets."}')
    assert read_document(notes).sentences
    # Named .txt, it was read as prose (only GraphML was known by its content).
    renamed = tmp_path / "solar.txt"
    renamed.write_bytes(graph.read_bytes())
    with pytest.raises(
        DocumentError,
        match=r"solar\.txt: a ROS graph \(graph JSON\), not a text or PDF: .* as a graph named \.json,",
    ):
        read_document(renamed)
    braces = _write(tmp_path / "braces.txt", "{The sun} attracts the planets.")
    assert read_document(braces).sentences


def test_a_damaged_graph_json_file_is_refused_as_one_not_read_as_text(tmp_path):
    # dri compare refused it ("not a stored ROS graph"); dri graph read its keys and
    # brackets as prose, exit 0 (100,000 nested brackets for 40 s).
    from dri.extract import graph_from_text
    from dri.graphs import save_json

    graph = tmp_path / "solar.json"
    save_json(graph_from_text(ENGLISH), graph)
    text = graph.read_text(encoding="utf-8")
    damaged = {
        "extra.json": (text + "xx").encode(),
        "short.json": text[: len(text) // 2].encode(),
        "wide.json": text.encode("utf-16"),
        "deep.json": b'{"nodes": [' + b"[" * 100_000 + b"]" * 100_000 + b'], "links": []}',
        "digits.json": b'{"nodes": [], "links": [], "n": ' + b"9" * 5000 + b"}",
    }
    reasons = {
        "extra.json": r"not JSON \(Extra data at line \d+, column \d+\)",
        "short.json": r"not JSON \(.* at line \d+, column \d+\)",
        "wide.json": r"in UTF-16; dri writes it in UTF-8",
        "deep.json": r"nested too deeply to read",
        "digits.json": r"a number too long to read \(over 4,300 digits\)",
    }
    for name, data in damaged.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(
            DocumentError, match=rf"^{tmp_path / name}: a damaged graph JSON \({reasons[name]}\), "
        ):
            read_document(tmp_path / name)
    # JSON that is not a graph's, damaged or not, is still text, and so is prose that
    # opens with a brace and speaks of nodes and links (it was "a damaged graph JSON").
    assert read_document(_write(tmp_path / "half.json", '{"said": "The sun attracts the planets."')).sentences
    prose = '{Preface}\nWe call the vertices "nodes" and the edges "links". The sun attracts the planet.\n'
    assert read_document(_write(tmp_path / "preface.txt", prose)).sentences
    (tmp_path / "preface16.txt").write_bytes(prose.encode("utf-16"))
    assert read_document(tmp_path / "preface16.txt").sentences
    # In UTF-16 without a mark, json reads it but dri compare does not: it was "a ROS graph".
    (tmp_path / "wide-le.json").write_bytes(text.encode("utf-16-le"))
    with pytest.raises(DocumentError, match=r"a damaged graph JSON \(in UTF-16; dri writes it in UTF-8\)"):
        read_document(tmp_path / "wide-le.json")


@pytest.mark.parametrize("name", ["solar.graphml", "solar.xml", "solar.txt"])
def test_a_graphml_file_is_refused_as_a_document_whatever_its_name(tmp_path, name):
    # dri graph --format graphml wrote it; given back to dri compare, its tags were read
    # as prose, 'key="d12">[0' became a concept, and the mapping's scores came with exit 0.
    from dri.extract import graph_from_text
    from dri.graphs.export import write_graphml

    path = tmp_path / name
    write_graphml(graph_from_text(ENGLISH), path)
    with pytest.raises(DocumentError, match=rf"{name}: a graph \(GraphML\), not a text or PDF: dri compare"):
        read_document(path)
    xml = _write(tmp_path / "notes.xml", '<?xml version="1.0"?><notes>The sun attracts the planets.</notes>')
    assert read_document(xml).sentences
