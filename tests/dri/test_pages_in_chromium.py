"""The analogy report and the comparison page as a reader sees them, in headless Chromium.

``dri evaluate analogy`` on the demo corpus and ``dri compare --html`` write
the pages; Chromium renders them and the tests look at the rendered page: the
mapping picture is there with one link per mapped pair, no Markdown shows as
text, nothing runs off the page, nothing is fetched from elsewhere. The
screenshots of docs/evaluation.md are taken here (``DRI_SAVE_SCREENSHOTS=1``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import docs_screenshot

from dri.cli import main

# The demo evaluations' store, shared with tests/evaluate: the pairs these
# reports map are read back there instead of being mapped again.
pytestmark = pytest.mark.usefixtures("evaluation_environment")

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "analogy"

#: A desktop window and a narrow one (a small laptop, a window beside another).
VIEWPORTS = ({"width": 1280, "height": 900}, {"width": 760, "height": 900})

# Per opened <details> with a picture: mapped pairs linked in the picture and
# rows of its mapping table, and whether the picture is drawn (has a size).
_PICTURES_JS = """
() => [...document.querySelectorAll('details[open]')].filter(d => d.querySelector('svg')).map(d => {
  const svg = d.querySelector('svg');
  const box = svg.getBoundingClientRect();
  return {
    summary: d.querySelector('summary') ? d.querySelector('summary').innerText : '',
    links: svg.querySelectorAll('g[id*="-pair-"]').length,
    rows: d.querySelectorAll('table.mapping tbody tr').length,
    inferences: svg.querySelectorAll('g[id*="-inference-"]').length,
    inference_rows: [...d.querySelectorAll('table.inferences tbody tr')].map(r => r.innerText),
    width: box.width,
    height: box.height,
  };
})
"""


def _no_raw_markdown(page) -> None:
    text = page.evaluate("document.body.innerText")
    for mark in ("## ", "|---|", "| --- |", "**", "```"):
        assert mark not in text, mark
    assert page.evaluate("document.querySelectorAll('pre').length") == 0


def _fits(page) -> None:
    for viewport in VIEWPORTS:
        page.page.set_viewport_size(viewport)
        assert page.wider_than_page() == [], viewport
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


@pytest.fixture(scope="module")
def analogy_report(tmp_path_factory, evaluation_environment) -> Path:
    out = tmp_path_factory.mktemp("analogy-report")
    assert (
        main(["evaluate", "analogy", str(DEMO), "-k", "3", "--no-baselines", "--quiet", "--out", str(out)])
        == 0
    )
    return out / "index.html"


def test_analogy_report_in_chromium(chromium, analogy_report, tmp_path):
    page = chromium.open(analogy_report)
    assert page.console_errors == [] and page.external_requests() == []
    targets = page.evaluate("[...document.querySelectorAll('h2')].map(h => h.innerText)")
    assert "Target rutherford-atom.txt" in targets
    assert not any("Scores per group" in t or "Kruskal" in t for t in targets)
    # Each target: a ranked table whose rows open to their mapping; the best one is open.
    assert page.evaluate("document.querySelectorAll('table.hits tr.hit').length") == 9
    assert page.evaluate("document.querySelectorAll('table.hits details').length") == 9
    pictures = page.evaluate(_PICTURES_JS)
    assert len(pictures) == 3
    for picture in pictures:
        assert picture["links"] == picture["rows"] > 0, picture["summary"]
        assert picture["width"] > 500 and picture["height"] > 200
    rutherford = next(
        p for p in pictures if p["summary"].startswith("solar-system.txt mapped onto rutherford")
    )
    assert rutherford["links"] >= 20
    # Closed rows open on a click, with their own picture.
    page.page.click("table.hits tr.detail:nth-of-type(4) summary")
    assert len(page.evaluate(_PICTURES_JS)) == 4
    _no_raw_markdown(page)
    _fits(page)
    page.page.set_viewport_size({"width": 1280, "height": 1400})
    page.evaluate("document.querySelector('h2').scrollIntoView()")
    page.screenshot(docs_screenshot("analogy-report.png", tmp_path), full_page=False)


def test_compare_page_in_chromium(chromium, tmp_path):
    html, svg = tmp_path / "compare.html", tmp_path / "mapping.svg"
    source, target = DEMO / "solar-system.txt", DEMO / "rutherford-atom.txt"
    assert main(["compare", str(source), str(target), "--html", str(html), "--svg", str(svg)]) == 0
    assert svg.read_text(encoding="utf-8").startswith("<svg")
    page = chromium.open(html)
    assert page.console_errors == [] and page.external_requests() == []
    (picture,) = page.evaluate(_PICTURES_JS.replace("details[open]", "body"))
    assert picture["links"] == picture["rows"] >= 20
    assert picture["inferences"] == len(picture["inference_rows"]) >= 1
    _no_raw_markdown(page)
    _fits(page)
    page.page.set_viewport_size({"width": 1280, "height": 1100})
    page.screenshot(docs_screenshot("compare-page.png", tmp_path), full_page=False)


RANKED = [
    ("solar", "The sun attracts the planets.", "The nucleus attracts the electrons.", 3),
    ("solar", "The sun attracts the planets.", "The farmer planted the seeds.", 0),
    ("heart", "The heart pumps the blood.", "The pump pushes the water.", 3),
    ("heart", "The heart pumps the blood.", "The choir sang a song.", 0),
]


@pytest.mark.parametrize("kind", ["plagiarism", "ranking"])
def test_other_report_kinds_in_chromium(chromium, tmp_path, kind):
    """The kinds with the widest tables (a column per score and baseline) fit a narrow page too."""
    if kind == "ranking":
        corpus = tmp_path / "pools.csv"
        rows = ["query,a,b,score", *(f'{q},"{a}","{b}",{s}' for q, a, b, s in RANKED)]
        corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    else:
        corpus = DEMO.parent / "plagiarism"
    out = tmp_path / "report"
    assert main(["evaluate", kind, str(corpus), "--quiet", "--out", str(out)]) in (0, 1)
    page = chromium.open(out / "index.html")
    assert page.console_errors == [] and page.external_requests() == []
    assert page.evaluate("document.querySelectorAll('table').length") >= (2 if kind == "ranking" else 1)
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
    _no_raw_markdown(page)
    _fits(page)
