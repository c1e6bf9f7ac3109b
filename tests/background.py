"""Slow tests that wait on servers and subprocesses run in the background of the session.

A test marked ``@pytest.mark.background`` is called in a thread pool as soon
as the session starts, beside the tests that run on the main thread; its
place in the session moves to the end, where it waits for its call to end
and passes or fails with the call's own exception and traceback. The test
body is unchanged; only when it runs changes. What makes it worth it: such
a test spends most of its wall time waiting (a Neo4j JVM starting, a ``dri
run`` subprocess mapping, a signal's aftermath), time in which the rest of
the suite goes on.

Such a test may take only ``tmp_path`` (a fresh folder of its own) and its
parameters: a fixture would be set up on another thread than the one the
session runs its fixtures on. It must not touch what other tests share (the
suite's Neo4j database, the session's Prefect server, the environment of
this process): it starts what it needs, on ports of its own
(``neo4j_server.extra_port``), in subprocesses or objects of its own.

A module whose tests share one long scenario (servers started, flow runs
waited for) defines ``background_scenario(folder: Path)``: it is called in
the pool from the start of the session when any test of the module is
selected, and the module's tests, moved to the end of the session, check
what it returns (the ``scenario`` fixture of ``tests/conftest.py`` waits
for it). The scenario stops everything it started before it returns.

This module is a pytest plugin (``tests/conftest.py`` registers it; ``-p
background`` with ``tests/`` on the path loads it elsewhere).

``DRI_BACKGROUND_WORKERS`` (default 2) is how many background tests run at
once; the fault matrix's cells (``tests/dri/fault_matrix_pool.py``) have a
pool of their own beside this one. When the main thread reaches the
background tests, it runs the calls still queued itself, from the back of
the queue (:func:`run_queued`), rather than wait while only the pool's
threads work.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "MARKER",
    "SCENARIO",
    "BackgroundTests",
    "is_background",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_pyfunc_call",
    "pytest_runtestloop",
    "pytest_sessionfinish",
    "run_queued",
    "scenario",
]

MARKER = "background"
SCENARIO = "background_scenario"
_ALLOWED = {"tmp_path"}


def is_background(item: pytest.Item) -> bool:
    """A background test, or a test of a module with a background scenario."""
    if not isinstance(item, pytest.Function):
        return False
    return item.get_closest_marker(MARKER) is not None or hasattr(item.module, SCENARIO)


def run_queued(calls: dict[Any, Future[Any]], work: dict[Any, Callable[[], Any]]) -> None:
    """Run on this thread, last first, each call of ``calls`` not started yet
    (``work`` holds what each call does); its future in ``calls`` is replaced
    by one that holds what it returned or raised. The pool's threads take
    calls from the front of the queue, so each call still runs once."""
    for key in reversed(list(calls)):
        if calls[key].cancel():
            done: Future[Any] = Future()
            try:
                done.set_result(work[key]())
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # pytest's failures are BaseExceptions
                done.set_exception(error)
            calls[key] = done


def _arguments(item: pytest.Function, folder: Path) -> dict[str, Any]:
    params = getattr(item, "callspec", None)
    params = params.params if params is not None else {}
    names = item._fixtureinfo.argnames  # the test function's own arguments
    unknown = [n for n in names if n not in _ALLOWED and n not in params]
    if unknown:
        raise pytest.UsageError(
            f"{item.nodeid}: a background test takes only tmp_path and its parameters, not {unknown}"
        )
    return {n: folder if n == "tmp_path" else params[n] for n in names}


class BackgroundTests:
    """Calls ``items`` (background tests) in ``workers`` threads, in their order."""

    def __init__(self, items: list[pytest.Function], workers: int | None = None) -> None:
        workers = workers or int(os.environ.get("DRI_BACKGROUND_WORKERS", "2"))
        marked = [item for item in items if item.get_closest_marker(MARKER)]
        for (
            item
        ) in marked:  # checked first, on the main thread: a wrong test fails at once, before any starts
            _arguments(item, Path())
        self.root = Path(tempfile.mkdtemp(prefix="dri-background-"))
        self._executor = ThreadPoolExecutor(max(1, workers), thread_name_prefix="background-test")
        self._calls: dict[str, Future[None]] = {}
        self._work: dict[str, Callable[[], None]] = {}
        self._scenarios: dict[str, Future[Any]] = {}
        for item in items:  # first: a scenario is longer than any one test
            module = item.module
            if hasattr(module, SCENARIO) and module.__name__ not in self._scenarios:
                folder = self.root / f"scenario-{module.__name__}"
                folder.mkdir()
                self._scenarios[module.__name__] = self._executor.submit(getattr(module, SCENARIO), folder)
        for index, item in enumerate(marked):
            folder = self.root / f"{index:03d}-{item.name[:60]}"
            folder.mkdir()
            self._work[item.nodeid] = functools.partial(item.obj, **_arguments(item, folder))
            self._calls[item.nodeid] = self._executor.submit(self._work[item.nodeid])

    def result(self, item: pytest.Item) -> bool:
        """Wait for ``item``'s call and re-raise what it raised; False if it is not a background test."""
        if item.nodeid not in self._calls:
            return False
        run_queued(self._calls, self._work)
        self._calls[item.nodeid].result()
        return True

    def scenario(self, module: object) -> Any:
        """What ``module``'s background scenario returned (waiting for it)."""
        return self._scenarios[getattr(module, "__name__", "")].result()

    def close(self) -> None:
        """Stop what has not started, wait for what has, remove the folders."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self.root, ignore_errors=True)


# -- the plugin -------------------------------------------------------------------

_POOL = pytest.StashKey[BackgroundTests]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}: runs in a thread from the start of the session (tests/background.py)"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Stable: background tests last, where their calls (started with the session) are done or nearly.
    items.sort(key=is_background)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    tests = [item for item in session.items if isinstance(item, pytest.Function) and is_background(item)]
    if tests and not session.config.option.collectonly:
        session.config.stash[_POOL] = BackgroundTests(tests)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    pool = pyfuncitem.config.stash.get(_POOL, None)
    return True if pool is not None and pool.result(pyfuncitem) else None


@pytest.fixture(scope="module")
def scenario(request: pytest.FixtureRequest) -> Any:
    """What the module's ``background_scenario`` returned."""
    return request.config.stash[_POOL].scenario(request.module)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Wait for the background tests still running, remove their folders."""
    pool = session.config.stash.get(_POOL, None)
    if pool is not None:
        pool.close()
