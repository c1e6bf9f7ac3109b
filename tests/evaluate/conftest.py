"""Shared fixtures of the evaluation tests.

The evaluation runners go through the corpus run and the store, as a user's
do: the demo-sized evaluations here are small jobs, which run in the test
process (``flows.pipeline.small_job``: no runner asked for); a larger one
would go to Prefect's pool on the session's test server. The corpus flow on
Prefect's runners (threads, processes, Dask) is tested in ``tests/flows``;
here it cost 40 of the folder's 105 s. The tests use, for the whole
session, their own data folder with the embedded SQLite store -- never the
store of whoever runs the tests -- shared with the report pages' tests
(``tests/dri/test_pages_in_chromium.py``), so each demo pair is mapped once
in the session (``evaluation_environment`` in ``tests/conftest.py``). The
Neo4j test asks for ``neo4j_store`` explicitly. The settings are applied
per module and undone afterwards.
"""

from __future__ import annotations

import pytest

from dri.store import open_store


@pytest.fixture(scope="module", autouse=True)
def evaluation_environment(evaluation_environment):
    """Every module of this folder in the evaluations' environment (``tests/conftest.py``)."""
    return evaluation_environment


@pytest.fixture
def neo4j_store(neo4j_uri, monkeypatch):
    """Neo4j as the configured store, emptied first (the tests own the test database)."""
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    with open_store(neo4j_uri) as store:
        store.clear()
        yield store
