"""Shared fixtures of the flow tests: one Prefect test server per session,
a tiny corpus written by the tests, and a fresh data folder per test."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from flows_corpus_helpers import write_corpus

# Before Prefect is imported anywhere: no phoning home, a private PREFECT_HOME,
# and time for the test server to start on a slow machine.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="dri-prefect-home-")


@pytest.fixture(scope="session")
def prefect_server():
    """One Prefect test server for the whole session (it takes seconds to start)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=None):
        yield


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    """A fresh DRI_DATA_DIR, with the embedded SQLite store (the default backend)."""
    path = tmp_path / "data"
    path.mkdir()
    monkeypatch.setenv("DRI_DATA_DIR", str(path))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    return path


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_corpus(tmp_path / "tiny")
