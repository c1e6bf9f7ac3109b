"""User text as data in each format (dri.literal): property tests with
arbitrary text and the markup of each format, each output read back by the
format's own reader (matplotlib's text preprocessing, the csv module,
CommonMark, JSON).

Then every renderer and writer with arbitrary names, lemmas and cells:
what comes out parses in its own format and shows the text literally. SVG
through an XML parser, pages through html.parser, ``summary.md`` through
CommonMark, ``scores.csv`` through the csv module, ``stats.json`` through
json, PNGs through matplotlib's reader. Each example runs a whole renderer,
so those properties take few examples."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image as mpimg
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from dri.graphs import add_triple, new_graph
from dri.graphs.export import draw_png
from dri.literal import (
    FORMULA_STARTS,
    csv_cell,
    echo,
    from_printable,
    markdown_text,
    plot_text,
    printable,
    storable,
    storable_json,
)
from dri.mapping import MappedPair, Mapping
from dri.metrics.pages import comparison_page, mapping_view
from dri.metrics.picture import draw_mapping
from dri.metrics.report import write_report
from dri.metrics.results import EvaluationResult, Hit, ReportSection, ReportTable, SearchResult
from dri.metrics.scores import SCORE_NAMES, Comparison, Scores

#: The markup of every format dri writes, and the characters XML and terminals refuse.
MARKUP = [
    "$x^2$",
    "a$\\foo$b",
    "\\$",
    "<script>alert(1)</script>",
    "]]>",
    "&amp;",
    "=1+1",
    "@SUM(A1)",
    "+1",
    "-2+3",
    "\t=x",
    "\r=x",
    "# heading",
    "1. item",
    "- item",
    "[link](javascript:alert(1))",
    "![i](x.png)",
    "*em* _em_ __b__ `code` ~~s~~ |",
    "\x00\x0b\x1b[31m\x7f\x9b",
    "\ufffe\uffff",
    "\udcff\ud800",
    "\u202eevil",
    "a\u200bb\ufeff\u2028\u200f",
    "\n",
    "snake_case",
]


def _texts(markup: list[str], max_chars: int, max_pieces: int) -> st.SearchStrategy[str]:
    """Any text: every code point (surrogates too) and ``markup`` pieces between."""
    return st.lists(
        st.one_of(st.sampled_from(markup), st.text(st.characters(exclude_categories=()), max_size=max_chars)),
        min_size=1,
        max_size=max_pieces,
    ).map("".join)


hostile = _texts(MARKUP, max_chars=8, max_pieces=5)
# C0 and C1 controls, surrogates, non-characters and bidirectional overrides.
UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)
FAST = settings(max_examples=100, deadline=None)


@FAST
@given(hostile)
def test_printable_leaves_nothing_a_terminal_or_xml_obeys(text):
    shown = printable(text)
    assert not UNPRINTABLE.search(shown)
    shown.encode("utf-8")  # no lone surrogate left to fail an encoder
    assert printable(text, newlines=True).split("\n") == [printable(p) for p in text.split("\n")]


@FAST
@given(st.dictionaries(hostile, hostile, max_size=3))
def test_json_printed_through_echo_reads_back(data):
    # The escapes are JSON's own (\uXXXX): ``--json`` output stays JSON with the same content.
    buffer = io.StringIO()
    echo(json.dumps(data, ensure_ascii=False, indent=1), file=buffer)
    out = buffer.getvalue()
    assert not UNPRINTABLE.search(out.replace("\n", ""))
    # As JSON's own escaping reads back (a high and a low surrogate escaped side by side are one pair).
    assert json.loads(out) == json.loads(json.dumps(data))


@FAST
@given(hostile)
@example("$x^2$")
@example("a$\\foo$b")
def test_plot_text_is_drawn_literally(text):
    # matplotlib's own preprocessing: what it draws and whether as math.
    from matplotlib.text import Text

    drawn, math = Text(0, 0, plot_text(text))._preprocess_math(plot_text(text))
    assert math is False
    assert drawn == printable(text, newlines=True)


@FAST
@given(st.lists(hostile, min_size=1, max_size=4))
@example(["=1+1.txt", "@SUM(A1).txt", "-0.5", "+cmd|' /C calc'!A0", "\t=x", "\r=x"])
def test_csv_cells_never_start_a_formula_and_read_back(cells):
    buffer = io.StringIO()
    csv.writer(buffer).writerow([csv_cell(c) for c in cells])
    (read,) = list(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert len(read) == len(cells)
    for original, cell in zip(cells, read):
        if cell.startswith(FORMULA_STARTS):
            assert re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", cell), cell
        assert cell == original or cell == "'" + original


def test_a_csv_cell_too_long_for_pythons_csv_reader_is_cut_saying_so():
    # A judgement file's note of 200,000 characters made a scores.csv that csv.reader refused.
    cells = [csv_cell(c) for c in ["x" * 200_000, "=" + "y" * 150_000, "short"]]
    buffer = io.StringIO()
    csv.writer(buffer).writerow(cells)
    (read,) = list(csv.reader(io.StringIO(buffer.getvalue(), newline="")))
    assert read[0] == "x" * 100_000 + "… (100,000 more characters cut)"
    assert read[1].startswith("'=yyy") and read[1].endswith("(50,001 more characters cut)")
    assert read[2] == "short"


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _page(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def _rendered(markdown: str) -> _Page:
    """``markdown`` as CommonMark (with tables and strikethrough) renders it, parsed."""
    return _page(MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown))


@FAST
@given(hostile)
@example("<script>alert(1)</script>.txt")
@example("_a_.txt")
def test_markdown_shows_the_text_as_it_is(text):
    # As a list item and as a table cell: no tag but the list's or table's, the text unchanged.
    expected = " ".join(printable(text, newlines=True).split())
    item = _rendered(f"- {markdown_text(text, block_start=True)}\n")
    assert set(item.tags) <= {"ul", "li"}
    assert "".join(item.text).strip() == expected
    table = _rendered(f"| name | n |\n|---|---|\n| {markdown_text(text)} | 1 |\n")
    assert set(table.tags) <= {"table", "thead", "tbody", "tr", "th", "td"}
    assert [t for t in table.text if t.strip()] == ["name", "n", *([expected] if expected else []), "1"]


def test_echo_shows_control_characters_and_keeps_the_line(capsys):
    echo("x\x1b[2Jy.txt", "a\nb", lead="\r")
    out = capsys.readouterr().out
    assert out == "\rx\\u001b[2Jy.txt a\nb\n"


@FAST
@given(hostile)
def test_storable_text_is_unicode_and_shown_as_the_name_it_stands_for(text):
    kept = storable(text)
    kept.encode("utf-8")  # SQLite, Neo4j and UTF-8 files take it
    assert storable(kept) == kept  # the same name always stored the same way
    assert printable(kept) == printable(text)  # shown as the original is shown
    if not re.search("[\ud800-\udfff]", text):
        assert kept == text  # only lone surrogates change


@FAST
@given(st.dictionaries(hostile, st.lists(hostile, max_size=2), max_size=3))
def test_storable_json_reads_back_as_storable_text(data):
    text = storable_json(json.dumps(data, ensure_ascii=False))
    text.encode("utf-8")
    assert json.loads(text) == {storable(k): [storable(v) for v in vs] for k, vs in data.items()}


# -- whole renderers -----------------------------------------------------------

#: Markup pieces for names in whole renderers (pictures, pages, reports).
NAME_MARKUP = [
    "$x^2$",
    "a$\\foo$b",
    "<script>alert(1)</script>",
    "]]>",
    "=1+1",
    "@SUM(A1)",
    "\t=x",
    "# h",
    "[l](javascript:x)",
    "*e* _e_ `c` |",
    "\x00\x0b\x1b[31m\x7f\x9b",
    "\ufffe",
    "\udcff",
    "\u202e",
]
hostile_name = _texts(NAME_MARKUP, max_chars=6, max_pieces=4)
# Each example draws or writes a whole picture or report.
PIPELINE = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# A report draws two box-plot PNGs and a graph picture is a PNG too: fewer still.
SLOW = settings(PIPELINE, max_examples=3)


def _graphs(names: list[str]) -> tuple:
    source, target = new_graph("s", name=names[0]), new_graph("t", name=names[1])
    add_triple(source, "sun", "attract", "planet")
    add_triple(target, "nucleus", "attract", "electron")
    # Lemmas are user text too (a document's words).
    source.nodes["c:sun"]["lemma"] = names[2]
    target.nodes["c:nucleus"]["lemma"] = names[3]
    return source, target


def _comparison(names: list[str]) -> Comparison:
    pairs = [
        MappedPair("r:0", "r:0", "relation", "attract", "attract", 1.0, "attract.v.01"),
        MappedPair("c:sun", "c:nucleus", "concept", names[2], names[3], 0.4, names[4]),
    ]
    mapping = Mapping(pairs, 3, 3, 0.0, source_name=names[0], target_name=names[1])
    scores = Scores(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, message=names[4])
    return Comparison(mapping, scores)


def _svg_text(svg: str) -> str:
    root = ET.fromstring(svg)  # XML 1.0: fails on a control character
    return "\n".join(t for t in root.itertext())


@PIPELINE
@given(st.lists(hostile_name, min_size=5, max_size=5))
@example(["$x^2$.txt", "a$\\foo$b.txt", "a$\\foo$b", "<script>", "x\x0by"])
def test_mapping_picture_is_xml_and_draws_names_as_they_are(names):
    source, target = _graphs(names)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning reaches the console
        picture = draw_mapping(source, target, _comparison(names).mapping, prefix="p")
    text = _svg_text(picture.svg)
    for name in names[:4]:
        shown = printable(name.replace("_", " ") if name in names[2:4] else name, newlines=True)
        for line in shown.split("\n"):
            assert line.strip() in text


@PIPELINE
@given(st.lists(hostile_name, min_size=5, max_size=5))
def test_comparison_page_keeps_names_as_text(names):
    source, target = _graphs(names)
    html = comparison_page(mapping_view(_comparison(names), source, target))
    page = _page(html)
    assert "script" not in page.tags
    html.encode("utf-8")  # nothing an encoder refuses (no lone surrogate)


@SLOW
@given(hostile_name, hostile_name)
@example("$x^2$", "a$\\foo$b")
def test_graph_png_draws_any_lemma_and_title(lemma, title):
    g = new_graph("g", name=title)
    add_triple(g, "sun", "attract", "planet")
    g.nodes["c:sun"]["lemma"] = lemma
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("error")
        path = Path(folder) / "g.png"
        draw_png(g, path)
        assert mpimg.imread(path).ndim == 3


def _result(names: list[str]) -> EvaluationResult:
    rows = [
        {
            "source": names[i % 5],
            "target": names[(i + 1) % 5],
            "group": names[i % 2],
            names[4]: names[3],  # an extra column, named by the user's file
            "analogy_similarity": 0.1 * i,
            "semantic": 0.05 * i,
            "error": names[2] if i == 0 else "",
        }
        for i in range(6)
    ]
    section = ReportSection(names[0], names[1], [ReportTable([names[2], "n"], [[names[3], "1"]])])
    return EvaluationResult(
        "judgements",
        rows,
        groups=[names[0], names[1]],
        structure_scores=("analogy_similarity", "semantic"),
        problems=[names[4]],
        meta={"file": names[0]},
    ), section


@SLOW
@given(st.lists(hostile_name, min_size=5, max_size=5))
@example(["=1+1.txt", "@SUM(A1).txt", "<script>alert(1)</script>.txt", "$x^2$", "-cmd"])
@example(["\x00", "$x^2$", "$x^2$", "$x^2$", "$x^2$"])
def test_report_files_parse_and_keep_names_as_data(names):
    result, section = _result(names)
    search = SearchResult(
        Path(names[1]),
        [
            Hit(
                1,
                Path(names[0]),
                dict.fromkeys(SCORE_NAMES, 0.5),
                [("concept", names[2], names[3], names[4])],
            )
        ],
        1,
        (names[2],),
    )
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("error")
        files = write_report(result, Path(folder) / "rep", sections=[section], search=[search])
        with files.scores_csv.open(encoding="utf-8", newline="") as fh:
            table = list(csv.reader(fh))
        stats = json.loads(files.stats_json.read_text(encoding="utf-8"))
        html = files.index_html.read_text(encoding="utf-8")
        markdown = files.summary_md.read_text(encoding="utf-8")
        plots = [mpimg.imread(p) for p in files.plots]
    assert len(table) == 1 + len(result.rows)
    for row in table:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS) or _is_number(cell), cell
    assert stats["pairs"] == len(result.rows)
    assert "script" not in _page(html).tags
    shown = _rendered(markdown)
    assert "script" not in shown.tags and "a" not in shown.tags  # the plots are its only images
    text = " ".join(" ".join(shown.text).split())
    for name in names:
        assert " ".join(printable(name, newlines=True).split()) in text
    assert all(p.ndim == 3 for p in plots)


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell))
    except ValueError:
        return False


def test_a_message_line_too_long_keeps_its_start_and_end(capsys):
    # DRI_WORKERS of 100,000 characters was quoted whole in its "one-line" error.
    value = "x" * 100_000
    echo(f"error: DRI_WORKERS must be a whole number, not {value!r}", file=sys.stderr)
    echo(f"a row {value}", one_line=True)  # standard output is data: printed whole
    out, err = capsys.readouterr()
    assert len(out) == len(f"a row {value}\n")
    assert len(err) < 2100 and err.count("\n") == 1
    assert err.startswith("error: DRI_WORKERS must be a whole number, not 'xxx")
    assert err.endswith("xxx'\n") and "(98,049 characters left out)" in err


def test_from_printable_undoes_printables_escapes_but_a_surrogates():
    # A stored name keeps a lone surrogate as the text "\udcff" (storable), so its escape stays.
    for name in ["c\nforged", "h<script>&\x01\u2028=x", "plain", "tab\there", "rtl\u202ex"]:
        assert from_printable(printable(name)) == name
    assert from_printable("a\\udcffb\\u0001") == "a\\udcffb\x01"
    assert from_printable("not an escape: \\u0041 \\uzz00") == "not an escape: \\u0041 \\uzz00"
