"""User text as data in each format (dri.literal): property tests with
arbitrary text and the markup of each format, each output read back by the
format's own reader (matplotlib's text preprocessing, the csv module,
CommonMark, JSON)."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from dri.literal import (
    FORMULA_STARTS,
    csv_cell,
    echo,
    markdown_text,
    plot_text,
    printable,
    storable,
    storable_json,
)

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
    "\n",
    "snake_case",
]
#: Any text: every code point (surrogates too) and markup pieces between.
hostile = st.lists(
    st.one_of(st.sampled_from(MARKUP), st.text(st.characters(exclude_categories=()), max_size=8)),
    min_size=1,
    max_size=5,
).map("".join)
# C0 and C1 controls, surrogates, non-characters and bidirectional overrides.
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202a-\u202e\u2066-\u2069]")
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


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _rendered(markdown: str) -> _Page:
    page = _Page()
    page.feed(MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown))
    page.close()
    return page


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
