"""Fixtures every test folder shares: one Prefect test server and the real Neo4j.

How to write a cheap test that keeps every part real (the suite's budget is
8 minutes on 2 cores; ``pytest --durations=25`` and docs/architecture.md,
"Checks", say where the time goes):

- Servers: ask for the session's ``prefect_server`` and ``neo4j_uri``; never
  start a Prefect server or the suite's Neo4j of your own. A test that must
  stop, restart or lock a Neo4j starts an instance of its own on
  ``neo4j_server.extra_port(name)`` (add the name to ``EXTRA_OFFSETS``), so
  it never meets the suite's server or another checkout's.
- Models: the spaCy pipeline (``extract.build.load_nlp``) and WordNet are
  loaded once per process and cached; never reload them. A property test
  (hypothesis) that needs graphs and not parses builds them with
  ``dri.mapping.random_graphs``; keep ``max_examples`` to what finds bugs
  (tens, not thousands) and set ``deadline=None`` (the machine is shared).
- Commands: call ``dri.cli.main([...])`` in this process (with ``capsys``);
  start ``python -m dri.cli`` only when the process is what is tested (its
  exit status, signals, a fresh environment), since each start pays the imports.
- Waits: ``processes.wait_for(predicate, timeout)`` polls for the state the
  test needs; never a fixed ``time.sleep``.
- Expensive set-up (a flow run, a stored corpus): a module- or
  session-scoped fixture, checked by several tests.
- A slow test that mostly waits (a server restarted, a ``dri run``
  subprocess signalled) and shares nothing with other tests: mark it
  ``@pytest.mark.background``, so that it runs in a thread from the start of
  the session while the other tests go on (``tests/background.py``; it may
  take only ``tmp_path`` and its parameters).
- A new fault matrix cell (``tests/dri/fault_matrix*.py``): a runner in
  ``CELL_RUNNERS`` working only in its own ``Workspace``; it runs in the
  background pool of ``tests/dri/fault_matrix_pool.py`` from the start of
  the session, beside the other tests.

Prefect is configured here, before any test module imports it: no phoning
home, a private ``PREFECT_HOME`` (never the user's), and time for the test
server to start on a slow machine. :func:`prefect_server` starts one test
server for the whole session, for every folder that needs one.

The Neo4j tests never skip. They use ``NEO4J_URI`` as it is when the session
starts (``scripts/test`` starts the project's server and sets it); otherwise
:func:`neo4j_uri` starts the project's own server with ``scripts/neo4j start``
on ``DRI_TEST_NEO4J_PORT`` (default 7697) and stops it afterwards if it
started it. If that fails, the tests fail with the script's message. The
tests own the database they are pointed at.

:func:`chromium` is Debian's headless Chromium (``tests/chromium.py``),
started by a test's first page and stopped after the test; without it the
browser tests fail, never skip.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import background
import pytest
from chromium import Chromium, ChromiumMissing, chromium_path
from neo4j_server import neo4j_script

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
os.environ["PREFECT_HOME"] = _PREFECT_HOME = tempfile.mkdtemp(prefix="dri-prefect-home-")

# Read before any fixture hides it (the evaluation tests run without NEO4J_URI).
_NEO4J_URI_AT_START = os.environ.get("NEO4J_URI")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(background, "dri-background-tests")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove the session's private Prefect home (its database and logs)."""
    shutil.rmtree(_PREFECT_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def prefect_server() -> Iterator[None]:
    """One Prefect test server for the session (it takes seconds to start)."""
    from prefect.testing.utilities import prefect_test_harness  # imported after the settings above

    with prefect_test_harness(server_startup_timeout=None):
        yield


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    if _NEO4J_URI_AT_START:
        yield _NEO4J_URI_AT_START
        return
    port = os.environ.get("DRI_TEST_NEO4J_PORT", "7697")
    was_running = neo4j_script("status", port).returncode == 0
    started = neo4j_script("start", port)
    if started.returncode != 0:
        pytest.fail(
            f"NEO4J_URI is not set and `scripts/neo4j start` on port {port} failed: "
            f"{(started.stderr or started.stdout).strip()[-500:]}",
            pytrace=False,
        )
    print(started.stdout.strip(), file=sys.stderr)
    yield f"bolt://127.0.0.1:{port}"
    if not was_running:
        neo4j_script("stop", port)


@pytest.fixture(scope="session")
def evaluation_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data folder (an embedded SQLite store) the demo evaluations share for the session."""
    return tmp_path_factory.mktemp("evaluation-data")


@pytest.fixture(scope="module")
def evaluation_environment(prefect_server: None, evaluation_data_dir: Path) -> Iterator[Path]:
    """The evaluations' private SQLite store, and no runner asked for, for one module.

    Module-scoped, so the module-scoped evaluations see it, and undone after
    the module, so the settings never leak into other tests (the flow tests
    check the default task runner; the store tests read NEO4J_URI). The
    modules that evaluate the demo corpora share the store, so a pair mapped
    by one (the report pages' tests) is read back by the next
    (``tests/evaluate``), as a user's second evaluation of a corpus is.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRI_DATA_DIR", str(evaluation_data_dir))
        mp.delenv("NEO4J_URI", raising=False)
        mp.delenv("DRI_TASK_RUNNER", raising=False)
        mp.delenv("DRI_WORKERS", raising=False)
        yield evaluation_data_dir


@pytest.fixture
def chromium() -> Iterator[Chromium]:
    """Headless Debian Chromium (tests/chromium.py), started by the test's first page, stopped after it."""
    try:
        browser = Chromium(chromium_path())
    except ChromiumMissing as error:
        pytest.fail(str(error), pytrace=False)
    yield browser
    browser.close()


class _Lines(logging.Handler):
    """The messages of the records it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def progress_under_test() -> tuple[logging.Logger, list[str]]:
    """A progress logger of its own and the lines it was given, to put in place of
    ``dri.progress`` (the suite's may carry Prefect's API handler)."""
    seen = _Lines()
    progress = logging.Logger("progress under test", logging.INFO)
    progress.addHandler(seen)
    return progress, seen.lines
