"""Shared fixtures of the flow tests: a tiny corpus written by the tests and a
fresh data folder per test (the Prefect test server is ``prefect_server`` of
``tests/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from flows_corpus_helpers import write_corpus


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
