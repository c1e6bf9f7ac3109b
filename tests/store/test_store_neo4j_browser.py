"""Neo4j Browser on the project's Neo4j, in headless Chromium.

``scripts/neo4j start`` serves the Browser (fetched from Maven Central with
the server) at ``/browser/`` on loopback. This test opens the connect
address that ``scripts/neo4j env`` prints, checks that the Browser connected
to the test server, pastes the mapping picture query of docs/cypher.md for
the demo's solar system and Rutherford atom, as docs/cypher.md tells a user
to, and checks that the Browser drew every node the query returns. The
screenshot is the one docs/evaluation.md shows (``DRI_SAVE_SCREENSHOTS=1``
refreshes it).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from chromium import Chromium, OpenedPage, docs_screenshot
from neo4j_server import neo4j_script

from dri import compare, graph_from_path
from dri.store import ComparisonRecord, open_store

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corpora" / "demo" / "analogy"
CYPHER_DOC = (ROOT / "docs" / "cypher.md").read_text(encoding="utf-8")

SOURCE, TARGET = "solar-system.txt", "rutherford-atom.txt"
RUN_ID = "browser-test"

# Set by hand in the Browser (docs/cypher.md says how); a large window so the graph is readable.
STYLE = (
    "node.Document {caption: '{name}'; diameter: 80px; color: #604A0E; border-color: #423204;"
    " text-color-internal: #FFFFFF;} node.Concept {caption: '{lemma}'; diameter: 55px;}"
    " node.Relation {caption: '{lemma}'; diameter: 55px;} node.Pair {caption: '{kind}'; diameter: 30px;}"
    " node.Generic {caption: '{name}'; diameter: 55px;}"
)
VIEWPORT = {"width": 1600, "height": 1000}


def _query(marker: str) -> str:
    blocks = re.findall(r"```cypher\n(.*?)```", CYPHER_DOC, flags=re.S)
    return next(block for block in blocks if marker in block)


def _exports(port: int) -> dict[str, str]:
    printed = neo4j_script("env", port)
    assert printed.returncode == 0, printed.stderr
    exports = {}
    for line in printed.stdout.splitlines():
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            exports[name] = " ".join(shlex.split(value))
    return exports


@pytest.fixture(scope="module")
def demo_mapping(neo4j_uri: str) -> int:
    """The demo's solar system mapped onto Rutherford's atom, stored: the number of nodes the picture draws."""
    source, target = graph_from_path(DEMO / SOURCE), graph_from_path(DEMO / TARGET)
    comparison = compare(source, target)
    with open_store(neo4j_uri) as store:
        store.clear()
        store.put_document("demo", source)
        store.put_document("demo", target)
        store.put_comparison(
            ComparisonRecord(
                source.graph["doc_id"],
                target.graph["doc_id"],
                RUN_ID,
                scores=comparison.scores,
                pairs=list(comparison.mapping.pairs),
            )
        )
        params = {"source": SOURCE, "target": TARGET, "run_id": None}
        with store._driver.session(database=store.database) as session:
            drawn = session.run(_query("AS ros_edges"), params).graph()
    assert len(comparison.mapping.pairs) >= 5, "the demo's best analogy maps too little to draw"
    return len(drawn.nodes)


def _run_in_editor(page: OpenedPage, text: str) -> None:
    page.page.click('[data-testid="activeEditor"]')
    page.page.keyboard.insert_text(text)  # typed text would be changed by the editor's auto-closing brackets
    page.page.click('[data-testid="editor-Run"]')


def test_the_browser_connects_and_draws_the_mapping_picture(
    chromium: Chromium, neo4j_uri: str, demo_mapping: int, tmp_path: Path
) -> None:
    port = urlsplit(neo4j_uri).port
    assert port is not None
    exports = _exports(port)
    assert exports["NEO4J_BROWSER_URL"].endswith("/browser/"), exports
    assert f"dbms=bolt://127.0.0.1:{port}" in exports["NEO4J_BROWSER_CONNECT_URL"]

    page = chromium.open(
        exports["NEO4J_BROWSER_CONNECT_URL"],
        wait_for='[data-testid="editor-Run"]',
        timeout=120,
        viewport=VIEWPORT,
    )
    # Connected: the Browser names the server in its title and says so in its connect frame.
    page.page.wait_for_function(
        "(uri) => document.title.startsWith(uri)", arg=f"bolt://127.0.0.1:{port}", timeout=60_000
    )
    assert page.evaluate("document.title").endswith("Neo4j Browser")
    page.page.get_by_text("You have a working connection").wait_for(timeout=30_000)

    _run_in_editor(page, ":style " + STYLE)
    _run_in_editor(page, f":params {{source: '{SOURCE}', target: '{TARGET}', run_id: null}}")
    _run_in_editor(page, _query("AS ros_edges").strip())
    page.page.wait_for_selector("svg .node", timeout=60_000)
    page.page.wait_for_function(
        "(n) => document.querySelectorAll('svg .node').length === n", arg=demo_mapping, timeout=30_000
    )
    overview = page.evaluate("document.querySelector('[data-testid=\"frame\"]').innerText")
    assert "Document (2)" in overview and "Pair (" in overview and "Generic (" in overview, overview

    # The picture for the docs: the graph frame alone, larger, without the overview panel.
    frame = page.page.locator('[data-testid="frame"]').first
    frame.locator('button[title="Fullscreen"]').click()
    page.page.click('button[title="Collapse the node properties display"]')
    page.page.wait_for_timeout(2_000)  # the force layout settles
    for _ in range(2):
        page.page.click('[aria-label="zoom-in"]')
    page.page.wait_for_timeout(1_000)
    shot = page.screenshot(docs_screenshot("neo4j-browser.png", tmp_path), full_page=False)
    assert shot.stat().st_size > 20_000
