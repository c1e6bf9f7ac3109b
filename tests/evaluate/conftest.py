"""Shared fixtures of the evaluation tests.

The evaluation runners go through the corpus flow (Prefect) and the store,
so these tests use the session's Prefect test server, worker threads
(one spaCy model and one WordNet in the test process, instead of loading
them again in every worker process) and, for the whole session, their own
data folder with the embedded SQLite store -- never the store of whoever
runs the tests. The Neo4j test asks for ``neo4j_store`` explicitly.
The settings are applied per module and undone afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dri.store import open_store


@pytest.fixture(scope="session")
def evaluation_data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("evaluation-data")


@pytest.fixture(scope="module", autouse=True)
def evaluation_environment(prefect_server, evaluation_data_dir):
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


@pytest.fixture
def neo4j_store(neo4j_uri, monkeypatch):
    """Neo4j as the configured store, emptied first (the tests own the test database)."""
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    with open_store(neo4j_uri) as store:
        store.clear()
        yield store
