"""Fixtures of the store tests: the real Neo4j server and a store per backend.

The Neo4j tests never skip. They use ``NEO4J_URI`` when it is set (CI's
``scripts/test`` starts the project's server and sets it); otherwise they
start the project's own server with ``scripts/neo4j start`` on
``DRI_TEST_NEO4J_PORT`` (default 7697) and stop it afterwards if they started
it. If that fails, the tests fail with the script's message.

The store tests own the database they are pointed at: each Neo4j test starts
from an empty database (``Store.clear()``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "neo4j"


def neo4j_script(command: str, port: int | str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``scripts/neo4j <command>`` for the instance on ``port``."""
    env = {**os.environ, "NEO4J_PORT": str(port)}
    return subprocess.run(
        ["bash", str(SCRIPT), command], env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="session")
def neo4j_uri() -> str:
    uri = os.environ.get("NEO4J_URI")
    if uri:
        yield uri
        return
    port = os.environ.get("DRI_TEST_NEO4J_PORT", "7697")
    was_running = neo4j_script("status", port).returncode == 0
    started = neo4j_script("start", port)
    if started.returncode != 0:
        pytest.fail(
            f"NEO4J_URI is not set and `scripts/neo4j start` on port {port} failed: "
            f"{(started.stderr or started.stdout).strip()[-500:]}",
            pytrace=False,
        )
    print(started.stdout.strip(), file=sys.stderr)
    yield f"bolt://127.0.0.1:{port}"
    if not was_running:
        neo4j_script("stop", port)


@pytest.fixture(params=["sqlite", "neo4j"])
def store(request, tmp_path):
    """An empty store of each backend."""
    from dri.store import open_store

    if request.param == "sqlite":
        opened = open_store(f"sqlite:///{tmp_path / 'store.sqlite'}")
    else:
        opened = open_store(request.getfixturevalue("neo4j_uri"))
        opened.clear()
    try:
        yield opened
    finally:
        opened.close()
