"""The fault matrix's cells run side by side, in the background of the suite.

A cell is a few real ``dri`` subprocesses against its own data folder and
Prefect home (and, for ``neo4j-restart``, its own Neo4j instance on a port
of its own), so cells are independent of each other and of the tests the
suite runs meanwhile; the cells of ``ON_SHARED_PREFECT`` send their flow
runs to one Prefect server the pool starts for them. :class:`CellPool` starts them in a thread pool as soon
as the session starts (``tests/dri/conftest.py``), longest first; each test
of the matrix, run at the end of the session, takes its cell's outcome
(waiting for it if it is not done) and checks it. Nothing in a cell changes:
only when it runs.

``DRI_FAULT_MATRIX_WORKERS`` (default 2) is how many cells run at once; when
the main thread reaches the matrix's tests, it runs the cells still queued
itself (``background.run_queued``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from background import run_queued
from fault_matrix import ON_SHARED_PREFECT, Outcome, Workspace
from fault_matrix_cells import CELL_RUNNERS, RESTART_PORT, auth_server, template_store
from prefect_template import shared_server

__all__ = ["CellPool", "cell_order"]

#: Faults whose cells take longest (server restarts, killed workers, two runs
#: at once): started first, so that the pool ends as early as it can.
_LONGEST_FIRST = ("neo4j-restart", "worker-killed", "concurrent", "full-disk", "read-only-data")


def cell_order(cell: tuple[str, str]) -> tuple[int, int]:
    """Where a cell stands in the pool's queue (and its test in the session)."""
    command, fault = cell
    rank = _LONGEST_FIRST.index(fault) if fault in _LONGEST_FIRST else len(_LONGEST_FIRST)
    return rank, 0 if command in ("run-flow", "run-dask") else 1


class CellPool:
    """Runs ``cells`` (``(command, fault)`` pairs) in ``workers`` threads."""

    def __init__(self, cells: list[tuple[str, str]], workers: int | None = None) -> None:
        workers = workers or int(os.environ.get("DRI_FAULT_MATRIX_WORKERS", "2"))
        self.root = Path(tempfile.mkdtemp(prefix="dri-fault-matrix-"))
        self._stack = contextlib.ExitStack()
        self._executor = ThreadPoolExecutor(max(1, workers), thread_name_prefix="fault-cell")
        # First in the queue, so no cell waits on work queued behind it.
        self._template = self._executor.submit(template_store, self.root / "template", None)
        needs_auth = any(fault == "wrong-credentials" for _, fault in cells)
        self._auth: Future[str] | None = (
            self._executor.submit(self._stack.enter_context, auth_server()) if needs_auth else None
        )
        self._prefect_home = self.root / "shared-prefect-home"
        self._prefect: Future[str] | None = (
            self._executor.submit(self._stack.enter_context, shared_server(self._prefect_home))
            if ON_SHARED_PREFECT & set(cells)
            else None
        )
        self._cells: dict[tuple[str, str], Future[tuple[Workspace, Outcome]]] = {}
        self._work: dict[tuple[str, str], functools.partial[tuple[Workspace, Outcome]]] = {}
        restarts = 0
        for command, fault in sorted(cells, key=cell_order):
            ws = Workspace(self.root / f"{command}-{fault}")
            if fault == "neo4j-restart":
                ws.restart_port, restarts = RESTART_PORT + restarts, restarts + 1
            self._work[command, fault] = functools.partial(self._run, ws, command, fault)
            self._cells[command, fault] = self._executor.submit(self._work[command, fault])

    def _run(self, ws: Workspace, command: str, fault: str) -> tuple[Workspace, Outcome]:
        template = self._template.result()
        ws.prefect_db = template.prefect / "prefect.db"
        if fault == "wrong-credentials" and self._auth is not None:
            self._auth.result()
        if (command, fault) in ON_SHARED_PREFECT and self._prefect is not None:
            ws.prefect_api, ws.shared_prefect_home = self._prefect.result(), self._prefect_home
        return ws, CELL_RUNNERS[fault](ws.prepare(), command, template)

    def outcome(self, command: str, fault: str) -> tuple[Workspace, Outcome]:
        """The cell's workspace and outcome (its exception, if the cell's set-up failed)."""
        run_queued(self._cells, self._work)
        return self._cells[command, fault].result()

    def close(self) -> None:
        """Stop what has not started, wait for what has, stop the servers, remove the folders."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._stack.close()
        shutil.rmtree(self.root, ignore_errors=True)
