"""The headless Chromium harness (tests/chromium.py) on pages made here."""

from __future__ import annotations

import asyncio
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import (
    CHROMIUM_FLAGS,
    DOCS_IMG,
    Chromium,
    ChromiumMissing,
    chromium_path,
    docs_screenshot,
    launch_chromium,
)

FITS = """<!doctype html><html><head><title>fits</title></head><body>
<h1 id="title">A page that fits</h1>
<div style="overflow-x: auto; width: 300px"><table><tr><td style="min-width: 4000px">wide, but scrolled</td></tr></table></div>
</body></html>"""

OVERFLOWS = (
    """<!doctype html><html><body>
<p>short</p><div id="banner" style="width: 3000px; height: 10px"></div><pre class="dump raw">"""
    + "x" * 2000
    + """</pre>
</body></html>"""
)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """The folder ``tmp_path`` served over HTTP on loopback."""
    (tmp_path / "fits.html").write_text(FITS, encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_browser_runs_only_from_the_first_page_to_the_end(tmp_path: Path) -> None:
    # Playwright's event loop runs in this thread while the browser runs: Prefect would take
    # itself to be in async code. Before the first page and after the end there is none.
    with launch_chromium() as browser:
        assert asyncio._get_running_loop() is None
        browser.open("about:blank")
        assert asyncio._get_running_loop() is not None
        folder = browser.user_data_dir
        assert folder.is_dir()
    assert asyncio._get_running_loop() is None
    assert not folder.exists()


def test_runs_debians_chromium_headless_with_the_flags(chromium: Chromium) -> None:
    assert chromium.executable == chromium_path()
    page = chromium.open("about:blank")
    assert "HeadlessChrome" in page.evaluate("navigator.userAgent")
    assert chromium.user_data_dir.is_dir()
    assert "--no-sandbox" in CHROMIUM_FLAGS and "--disable-background-networking" in CHROMIUM_FLAGS


def test_file_page_evaluates_and_fits(chromium: Chromium, tmp_path: Path) -> None:
    path = tmp_path / "fits.html"
    path.write_text(FITS, encoding="utf-8")
    page = chromium.open(path, wait_for="#title")
    assert page.url.startswith("file://")
    assert page.evaluate("document.querySelector('#title').textContent") == "A page that fits"
    assert page.evaluate("(n) => n * 2", 21) == 42
    assert page.wider_than_page() == []
    assert page.console_errors == []
    assert page.external_requests() == []


def test_wider_than_page_names_the_element_that_runs_off(chromium: Chromium, tmp_path: Path) -> None:
    path = tmp_path / "overflows.html"
    path.write_text(OVERFLOWS, encoding="utf-8")
    wide = chromium.open(str(path)).wider_than_page()
    assert any(entry.startswith("pre.dump.raw ") for entry in wide), wide
    assert any(entry.startswith("div#banner ") for entry in wide), wide


def test_http_page_and_screenshot(chromium: Chromium, site: str, tmp_path: Path) -> None:
    page = chromium.open(f"{site}/fits.html", wait_for="h1")
    assert page.evaluate("document.title") == "fits"
    assert page.external_requests() == [f"{site}/fits.html"]
    shot = page.screenshot(tmp_path / "shots" / "fits.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 1000


def test_script_errors_are_collected(chromium: Chromium, tmp_path: Path) -> None:
    path = tmp_path / "broken.html"
    path.write_text("<html><body><script>undefinedFunction()</script></body></html>", encoding="utf-8")
    page = chromium.open(path)
    assert any("undefinedFunction" in error for error in page.console_errors), page.console_errors


def test_missing_chromium_is_an_error_not_a_skip(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRI_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(ChromiumMissing, match="scripts/install"):
        chromium_path()


def test_docs_screenshots_go_to_docs_only_when_asked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DRI_SAVE_SCREENSHOTS", raising=False)
    assert docs_screenshot("page.png", tmp_path) == tmp_path / "page.png"
    monkeypatch.setenv("DRI_SAVE_SCREENSHOTS", "1")
    assert docs_screenshot("page.png", tmp_path) == DOCS_IMG / "page.png"
    assert DOCS_IMG.parent.name == "docs"
