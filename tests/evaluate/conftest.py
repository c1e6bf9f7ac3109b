"""Shared fixtures of the evaluation tests.

The evaluation runners go through the corpus run and the store, as a user's
do: the demo-sized evaluations here are small jobs, which run in the test
process (``flows.pipeline.small_job``: no runner asked for); a larger one
would go to Prefect's pool on the session's test server. The corpus flow on
Prefect's runners (threads, processes, Dask) is tested in ``tests/flows``;
here it cost 40 of the folder's 105 s. The tests use, for the whole
session, their own data folder with the embedded SQLite store -- never the
store of whoever runs the tests. The Neo4j test asks for ``neo4j_store``
explicitly. The settings are applied per module and undone afterwards.
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
    """A private SQLite store, and no runner asked for, for each module of this folder.

    Module-scoped, so the module-scoped evaluations see it, and undone after
    each module, so the settings never leak into other folders' tests (the
    flow tests check the default task runner; the store tests read NEO4J_URI).
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRI_DATA_DIR", str(evaluation_data_dir))
        mp.delenv("NEO4J_URI", raising=False)
        mp.delenv("DRI_TASK_RUNNER", raising=False)
        mp.delenv("DRI_WORKERS", raising=False)
        yield evaluation_data_dir


@pytest.fixture
def neo4j_store(neo4j_uri, monkeypatch):
    """Neo4j as the configured store, emptied first (the tests own the test database)."""
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    with open_store(neo4j_uri) as store:
        store.clear()
        yield store
