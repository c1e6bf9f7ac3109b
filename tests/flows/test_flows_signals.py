"""``dri run`` disturbed for real: its Neo4j server restarted mid-run (then a
rerun must leave what a clean run leaves), and the run ended by kill -9
(then every process it started is gone within seconds, none of them a
Prefect server started by a worker, and the store is no longer written;
SIGINT and SIGTERM are the fault matrix's cells).
The server is an instance of its own (``scripts/neo4j`` on
``DRI_TEST_FAULT_PORT`` + 1, default the suite's Neo4j port + 301)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from flows_fault_helpers import (
    DRI,
    PORT,
    alive,
    command_line,
    descendants,
    fault_corpus,
    in_session,
    neo4j,
    parent,
    pool_workers,
    run_env,
    stored_documents,
    wait_for,
)

from dri.store import open_store


@pytest.mark.slow
@pytest.mark.background
@pytest.mark.timeout(2400)  # three runs and a server restart, on a shared machine
def test_a_restart_mid_run_then_a_rerun_leaves_what_a_clean_run_leaves(tmp_path):
    port = PORT + 1
    neo4j("wipe", port)
    neo4j("start", port)
    uri = f"bolt://127.0.0.1:{port}"
    corpus = fault_corpus(tmp_path, documents=12)
    env = run_env(tmp_path, NEO4J_URI=uri)
    target = "analogy-solar-system.txt"
    command = [
        *DRI,
        "run",
        str(corpus),
        "--no-progress",
        "--batch-size",
        "1",
        "--mode",
        "target",
        "--target",
        target,
    ]
    try:
        run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert wait_for(lambda: stored_documents(uri) >= 3 or run.poll() is not None, 600, 0.5)
        assert run.poll() is None, "the run ended before the server could be restarted"
        neo4j("stop", port)
        neo4j("start", port)  # about 30-40 s: inside the default 60 s retry window
        _, err = run.communicate(timeout=900)
        assert "Traceback" not in err
        # The rerun and the reference in one process: the store the restart
        # left is what is checked, and every runner stores the same.
        inline = [*command, "--runner", "inline"]
        rerun = subprocess.run(inline, env=env, capture_output=True, text=True, timeout=900)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        with open_store(uri) as store:
            disturbed = store.counts()
            store.clear()
        clean = subprocess.run(inline, env=env, capture_output=True, text=True, timeout=900)
        assert clean.returncode == 0, clean.stderr[-2000:]
        with open_store(uri) as store:
            assert store.counts() == disturbed
            assert disturbed["Document"] == 12 and disturbed["SIMILAR"] == 11
    finally:
        neo4j("wipe", port)


# How each case is signalled, and when: "mapping" once both workers exist and
# the store has comparisons (the workers are mapping and writing), "starting"
# as soon as both worker processes exist (their start-up -- imports -- may
# not be done yet, so they cannot have noticed anything).
# SIGINT and SIGTERM are the fault matrix's cells (tests/dri/test_cli_fault_matrix.py:
# run-flow-sigint-parent, -sigint-group and -sigterm), which run the same
# command and check the same, and also that a rerun finishes what was left.
CASES = {
    "kill -9": (signal.SIGKILL, "mapping"),
    "kill -9 while the workers start": (signal.SIGKILL, "starting"),
}
#: Seconds from the signal until no process of the run is left. Measured: 1-5 s
#: at a load average of about 12 on 2 cores.
GONE_WITHIN = 15
#: A worker orphaned during its start-up ends when its imports are done, which
#: on a loaded machine can take longer than GONE_WITHIN.
GONE_WITHIN_STARTING = 90
#: How long the store is watched for writes once every process is gone; the
#: orphans of the old code wrote 48 comparisons in the 5 s after a kill -9.
QUIET_FOR = 5


def _comparisons(db: Path) -> int:
    """Comparisons stored so far, read without taking part in the run's writes."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as con:
            return con.execute("SELECT COUNT(*) FROM comparisons").fetchone()[0]
    except sqlite3.Error:  # not created yet
        return 0


@pytest.mark.slow
@pytest.mark.background
@pytest.mark.timeout(1200)  # a whole run may take minutes on a shared machine
@pytest.mark.parametrize("case", list(CASES))
def test_a_signalled_run_leaves_no_process_behind(tmp_path, case):
    how, when = CASES[case]
    # 12 documents, 66 pairs: the workers parse every document before the first
    # pair maps, so more documents only make each case longer.
    corpus = fault_corpus(tmp_path, documents=12)
    db = tmp_path / "data" / "dri.sqlite"
    err = tmp_path / "stderr.txt"
    # One pair per task: Prefect's cost per task keeps the workers mapping
    # for many seconds (a batch of 35 pairs maps in a fraction of a second).
    command = [*DRI, "run", str(corpus), "--no-progress", "--mode", "all-pairs", "--batch-size", "1"]
    with err.open("w") as err_file:
        run = subprocess.Popen(
            command,
            env=run_env(tmp_path),  # no PREFECT_API_URL: dri run starts the one temporary server
            stdout=subprocess.DEVNULL,
            stderr=err_file,
            start_new_session=True,  # its session id is its pid: finds orphans wherever they went
        )
    try:

        def workers() -> set[int]:
            return pool_workers(run.pid)

        def ready() -> bool:
            return run.poll() is not None or (
                len(workers()) >= 2 and (when == "starting" or _comparisons(db) > 0)
            )

        assert wait_for(ready, 900, 0.2), "the workers did not get going"
        assert run.poll() is None, f"the run ended before it could be signalled: {err.read_text()[-2000:]}"
        family = descendants(run.pid) | {run.pid}
        pool = workers()
        assert len(pool) == 2
        # Workers never start a Prefect server: they start no process at all,
        # and the one server of the run is a child of dri run.
        assert not any(descendants(w) for w in pool), [command_line(p) for w in pool for p in descendants(w)]
        servers = [p for p in family if "uvicorn" in command_line(p)]
        assert len(servers) <= 1 and all(parent(p) == run.pid for p in servers), servers

        os.kill(run.pid, how)
        signalled = time.monotonic()
        bound = GONE_WITHIN_STARTING if when == "starting" else GONE_WITHIN

        def gone() -> bool:
            run.poll()  # reap dri run itself
            return not any(alive(p) for p in family) and not in_session(run.pid)

        wait_for(gone, bound, 0.1)
        took = time.monotonic() - signalled
        left = {p: command_line(p)[:120] for p in (family | in_session(run.pid)) if alive(p)}
        assert not left, f"still alive {took:.0f} s after {case}: {left}"
        stored = _comparisons(db)
        assert not wait_for(lambda: _comparisons(db) != stored, QUIET_FOR, 0.5), "the store is still written"
    finally:
        for pid in descendants(run.pid) | in_session(run.pid) | {run.pid}:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
