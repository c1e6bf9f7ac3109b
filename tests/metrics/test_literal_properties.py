"""Every renderer and writer with arbitrary names, lemmas and cells (markup
of each format, control characters, lone surrogates): what comes out parses
in its own format and shows the text literally.

SVG through an XML parser, pages through html.parser, ``summary.md``
through CommonMark, ``scores.csv`` through the csv module, ``stats.json``
through json, PNGs through matplotlib's reader. Each example runs a whole
renderer, so the properties take few examples.
"""

from __future__ import annotations

import csv
import json
import math
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
from dri.literal import FORMULA_STARTS, printable
from dri.mapping import MappedPair, Mapping
from dri.metrics.pages import comparison_page, mapping_view
from dri.metrics.picture import draw_mapping
from dri.metrics.report import write_report
from dri.metrics.results import EvaluationResult, Hit, ReportSection, ReportTable, SearchResult
from dri.metrics.scores import SCORE_NAMES, Comparison, Scores

MARKUP = [
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
hostile = st.lists(
    st.one_of(st.sampled_from(MARKUP), st.text(st.characters(exclude_categories=()), max_size=6)),
    min_size=1,
    max_size=4,
).map("".join)
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
@given(st.lists(hostile, min_size=5, max_size=5))
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


@PIPELINE
@given(st.lists(hostile, min_size=5, max_size=5))
def test_comparison_page_keeps_names_as_text(names):
    source, target = _graphs(names)
    html = comparison_page(mapping_view(_comparison(names), source, target))
    page = _page(html)
    assert "script" not in page.tags
    html.encode("utf-8")  # nothing an encoder refuses (no lone surrogate)


@SLOW
@given(hostile, hostile)
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


def _markdown_page(text: str) -> _Page:
    return _page(MarkdownIt("commonmark").enable("table").enable("strikethrough").render(text))


@SLOW
@given(st.lists(hostile, min_size=5, max_size=5))
@example(["=1+1.txt", "@SUM(A1).txt", "<script>alert(1)</script>.txt", "$x^2$", "-cmd"])
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
    shown = _markdown_page(markdown)
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
