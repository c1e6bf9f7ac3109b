"""Headless Chromium for tests that look at a page as a person would.

The tests drive Debian's own Chromium (``/usr/bin/chromium``, installed by
``scripts/install``) through Playwright's Chrome DevTools Protocol client;
Playwright never downloads a browser of its own here. Chromium starts with
the flags of :data:`CHROMIUM_FLAGS` (headless, no sandbox for root and
containers, nothing that phones home) and a fresh ``--user-data-dir`` of its
own, so no profile, cache or cookie is shared with another run.

A missing Chromium fails the test that needs it with the reason: the
browser tests never skip.

Use it through the ``chromium`` fixture of ``tests/conftest.py``::

    def test_report(chromium, tmp_path):
        page = chromium.open(tmp_path / "index.html")      # a path, file:// or http:// URL
        assert page.evaluate("document.querySelectorAll('svg').length") == 1
        assert page.wider_than_page() == []                 # nothing runs off the page
        assert page.console_errors == []
        page.screenshot(docs_screenshot("report.png", tmp_path))  # docs/img/ with DRI_SAVE_SCREENSHOTS=1
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, sync_playwright

__all__ = [
    "CHROMIUM_FLAGS",
    "Chromium",
    "ChromiumMissing",
    "OpenedPage",
    "chromium_path",
    "docs_screenshot",
    "launch_chromium",
]

#: The pictures the docs show, saved by the tests that look at the pages.
DOCS_IMG = Path(__file__).resolve().parents[1] / "docs" / "img"

#: ``1`` makes :func:`docs_screenshot` write into :data:`DOCS_IMG`.
SAVE_SCREENSHOTS_ENV = "DRI_SAVE_SCREENSHOTS"

#: Debian's Chromium; ``DRI_CHROMIUM`` names another binary.
DEFAULT_CHROMIUM = "/usr/bin/chromium"

#: ``--headless`` and ``--user-data-dir`` are added by the launcher itself.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

_URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

#: A desktop window; a report must fit it without horizontal scrolling.
DEFAULT_VIEWPORT = {"width": 1280, "height": 900}

# Elements whose box or visible overflowing content (a long <pre> line) runs
# past the page's width, innermost first, unless an ancestor clips or scrolls
# them (overflow other than visible): those stay inside the ancestor.
_WIDER_THAN_PAGE_JS = """
() => {
  const width = document.documentElement.clientWidth;
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className.trim()
       ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const wide = [];
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const visibleOverflow = getComputedStyle(el).overflowX === 'visible';
    const right = box.left + window.scrollX + (visibleOverflow ? Math.max(box.width, el.scrollWidth) : box.width);
    if (right > width + 1 && !clipped(el)) wide.push([el, right]);
  }
  const innermost = wide.filter(([el]) => !wide.some(([other]) => other !== el && el.contains(other)));
  const found = innermost.map(([el, right]) => `${name(el)} (right edge ${Math.round(right)} px > page ${width} px)`);
  const scrolling = document.scrollingElement || document.documentElement;
  if (scrolling.scrollWidth > width + 1 && found.length === 0) {
    found.push(`document (scroll width ${scrolling.scrollWidth} px > page ${width} px)`);
  }
  return found;
}
"""


class ChromiumMissing(RuntimeError):
    """Chromium is not installed where the tests look for it."""


def chromium_path() -> str:
    """The Chromium binary to drive: ``DRI_CHROMIUM`` or Debian's ``/usr/bin/chromium``."""
    path = os.environ.get("DRI_CHROMIUM", DEFAULT_CHROMIUM)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise ChromiumMissing(
            f"{path}: Chromium is not installed (run `bash scripts/install`, which installs "
            "Debian's chromium, or set DRI_CHROMIUM to a Chromium binary)"
        )
    return path


def docs_screenshot(name: str, scratch: Path) -> Path:
    """Where a test saves the screenshot ``name`` that the docs show.

    ``docs/img/<name>`` when ``DRI_SAVE_SCREENSHOTS=1``, else ``scratch/<name>``:
    a page's layout differs a little from run to run, and a test run should
    not leave the working tree changed unless asked to refresh the pictures.
    """
    folder = DOCS_IMG if os.environ.get(SAVE_SCREENSHOTS_ENV) == "1" else scratch
    return folder / name


@dataclass
class OpenedPage:
    """A page loaded in Chromium, with what it reported while loading and since."""

    page: Page
    url: str
    console_errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def evaluate(self, script: str, arg: Any = None) -> Any:
        """The value of a JavaScript expression or function (``() => ...``) in the page."""
        return self.page.evaluate(script, arg)

    def screenshot(self, path: str | Path, *, full_page: bool = True) -> Path:
        """Save a PNG of the page (the whole page unless ``full_page=False``) and return its path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(target), full_page=full_page)
        return target

    def wider_than_page(self) -> list[str]:
        """The visible elements that run past the page's right edge (empty when the page fits)."""
        return list(self.page.evaluate(_WIDER_THAN_PAGE_JS))

    def external_requests(self) -> list[str]:
        """Requests that left the machine's files (anything but ``file:``, ``data:``, ``blob:``, ``about:``)."""
        return [url for url in self.requests if not url.startswith(("file:", "data:", "blob:", "about:"))]


class Chromium:
    """Headless Chromium, started by the first :meth:`open` (a page in a new tab)
    and stopped by :meth:`close`, with a fresh profile folder each time.

    Playwright's synchronous API runs an asyncio event loop in this thread
    while the browser runs, and code that looks for a running loop (Prefect's
    flows and results) takes itself to be called from async code. So the
    browser starts only when a page is opened: a test runs its ``dri``
    commands first, then opens the pages, and the fixture stops the browser
    when the test ends.
    """

    def __init__(self, executable: str, *, extra_flags: tuple[str, ...] = ()) -> None:
        self.executable = executable
        self.extra_flags = extra_flags
        self.pages: list[OpenedPage] = []
        self._context: BrowserContext | None = None
        self._user_data_dir: Path | None = None
        self._running: ExitStack | None = None

    @property
    def context(self) -> BrowserContext:
        """The browser's (persistent) context, started if need be."""
        self.start()
        assert self._context is not None
        return self._context

    @property
    def user_data_dir(self) -> Path:
        """The running browser's fresh profile folder."""
        self.start()
        assert self._user_data_dir is not None
        return self._user_data_dir

    def start(self) -> None:
        if self._running is not None:
            return
        with ExitStack() as stack:
            folder = Path(tempfile.mkdtemp(prefix="dri-chromium-"))
            stack.callback(shutil.rmtree, folder, ignore_errors=True)
            playwright = stack.enter_context(sync_playwright())
            context = playwright.chromium.launch_persistent_context(
                str(folder),
                executable_path=self.executable,
                headless=True,
                args=[*CHROMIUM_FLAGS, *self.extra_flags],
                viewport=DEFAULT_VIEWPORT,  # type: ignore[arg-type]
            )
            stack.callback(context.close)
            self._context, self._user_data_dir, self._running = context, folder, stack.pop_all()

    def close(self) -> None:
        """Stop the browser (if it runs) and delete its profile folder."""
        self.pages.clear()
        running, self._running, self._context, self._user_data_dir = self._running, None, None, None
        if running is not None:
            running.close()

    def open(
        self,
        target: str | Path,
        *,
        wait_for: str | None = None,
        timeout: float = 30.0,
        viewport: dict[str, int] | None = None,
    ) -> OpenedPage:
        """Load ``target`` (a file path, or a URL: ``file://``, ``http://``, ``about:blank``) and wait until it is ready.

        Ready means the ``load`` event fired and, with ``wait_for``, that a
        CSS selector matches a visible element (for pages that render with
        script, such as the Neo4j Browser).
        """
        if isinstance(target, Path) or not _URL_SCHEME.match(target):
            url = Path(target).resolve().as_uri()
        else:
            url = target
        page = self.context.new_page()
        page.set_viewport_size(dict(viewport or DEFAULT_VIEWPORT))  # type: ignore[arg-type]
        opened = OpenedPage(page=page, url=url)
        self.pages.append(opened)
        page.on(
            "console", lambda msg: opened.console_errors.append(msg.text) if msg.type == "error" else None
        )
        page.on("pageerror", lambda error: opened.console_errors.append(str(error)))
        page.on("request", lambda request: opened.requests.append(request.url))
        page.goto(url, wait_until="load", timeout=timeout * 1000)
        if wait_for:
            page.wait_for_selector(wait_for, state="visible", timeout=timeout * 1000)
        return opened


@contextmanager
def launch_chromium(*, extra_flags: tuple[str, ...] = ()) -> Iterator[Chromium]:
    """A :class:`Chromium` of Debian's binary (started by its first page), stopped afterwards."""
    browser = Chromium(chromium_path(), extra_flags=extra_flags)
    try:
        yield browser
    finally:
        browser.close()
