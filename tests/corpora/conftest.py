"""Shared fixtures of the corpus and evaluation tests.

The evaluation runners go through the corpus flow (Prefect) and the store,
so these tests get one Prefect test server for the session, worker threads
(one spaCy model and one WordNet in the test process, instead of loading
them again in every worker process) and, for the whole session, their own
data folder with the embedded SQLite store -- never the store of whoever
runs the tests. The Neo4j test asks for ``neo4j_store`` explicitly.
The settings are applied per module and undone afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Before Prefect is imported anywhere: no phoning home, a private PREFECT_HOME,
# and time for the test server to start on a slow machine.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="dri-prefect-home-"))

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test server for the session (it takes seconds to start)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=None):
        yield


@pytest.fixture(scope="session")
def evaluation_data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("evaluation-data")


@pytest.fixture(scope="module", autouse=True)
def evaluation_environment(prefect_harness, evaluation_data_dir):
    """A private SQLite store and worker threads for each module of this folder.

    Module-scoped, so the module-scoped evaluations see it, and undone after
    each module, so the settings never leak into other folders' tests (the
    flow tests check the default task runner; the store tests read NEO4J_URI).
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRI_DATA_DIR", str(evaluation_data_dir))
        mp.delenv("NEO4J_URI", raising=False)
        mp.setenv("DRI_TASK_RUNNER", "threads")
        mp.setenv("DRI_WORKERS", "2")
        yield evaluation_data_dir


@pytest.fixture(scope="session")
def neo4j_uri() -> str:
    """The real Neo4j of the tests: ``NEO4J_URI`` as ``scripts/test`` sets it
    (read before this folder's fixtures hide it), else the project's
    own server started on ``DRI_TEST_NEO4J_PORT`` (default 7697)."""
    uri = _NEO4J_URI_AT_START
    if uri:
        yield uri
        return
    port = os.environ.get("DRI_TEST_NEO4J_PORT", "7697")
    env = {**os.environ, "NEO4J_PORT": port}
    script = ROOT / "scripts" / "neo4j"
    was_running = (
        subprocess.run(["bash", str(script), "status"], env=env, capture_output=True).returncode == 0
    )
    started = subprocess.run(
        ["bash", str(script), "start"], env=env, capture_output=True, text=True, timeout=600
    )
    if started.returncode != 0:
        pytest.fail(
            f"NEO4J_URI is not set and `scripts/neo4j start` on port {port} failed: "
            f"{(started.stderr or started.stdout).strip()[-500:]}",
            pytrace=False,
        )
    print(started.stdout.strip(), file=sys.stderr)
    yield f"bolt://127.0.0.1:{port}"
    if not was_running:
        subprocess.run(["bash", str(script), "stop"], env=env, capture_output=True)


_NEO4J_URI_AT_START = os.environ.get("NEO4J_URI")


@pytest.fixture
def neo4j_store(neo4j_uri, monkeypatch):
    """Neo4j as the configured store, emptied first (the tests own the test database)."""
    from dri.store import open_store

    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    with open_store(neo4j_uri) as store:
        store.clear()
        yield store
