"""Fixtures of the store tests: an empty store of each backend.

The real Neo4j server is ``neo4j_uri`` of ``tests/conftest.py``. The store
tests own the database they are pointed at: each Neo4j test starts from an
empty database (``Store.clear()``).
"""

from __future__ import annotations

import pytest

from dri.store import open_store


@pytest.fixture(params=["sqlite", "neo4j"])
def store(request, tmp_path):
    """An empty store of each backend."""
    if request.param == "sqlite":
        opened = open_store(f"sqlite:///{tmp_path / 'store.sqlite'}")
    else:
        opened = open_store(request.getfixturevalue("neo4j_uri"))
        opened.clear()
    try:
        yield opened
    finally:
        opened.close()
