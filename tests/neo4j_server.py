"""The project's own Neo4j test servers, through ``scripts/neo4j``.

The suite's server is on ``DRI_TEST_NEO4J_PORT`` (default 7697). The tests
that stop, restart or lock a server start instances of their own, on ports
derived from that one (:func:`extra_port`), so that two checkouts running
the suite side by side, each on its own ``DRI_TEST_NEO4J_PORT``, never
share (or wipe) each other's instances. Those extra instances serve Bolt
only (``NEO4J_HTTP=off``): their HTTP port would be the Bolt port - 213,
which may be some other checkout's Bolt port.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "neo4j"

#: Where each extra instance sits, as an offset from the suite's port: far
#: enough apart that checkouts whose suite ports differ by less than 100 never meet.
EXTRA_OFFSETS = {
    "auth": 100,  # the fault matrix's server with authentication on
    "store-restart": 200,  # tests/store/test_store_neo4j_restart.py
    "fault": 300,  # tests/flows/test_flows_faults.py
    "fault-signals": 301,  # tests/flows/test_flows_signals.py
    "matrix-restart": 400,  # the fault matrix's neo4j-restart cells: 400, 401, 402, ...
}
# (+500 is the fault matrix's REFUSED_PORT, where nothing may listen.)


def suite_port() -> int:
    return int(os.environ.get("DRI_TEST_NEO4J_PORT", "7697"))


def extra_port(name: str, index: int = 0, *, setting: str | None = None) -> int:
    """The port of the extra instance ``name`` (the ``index``-th of its kind);
    the environment variable ``setting``, if set, overrides it."""
    if setting and os.environ.get(setting):
        return int(os.environ[setting]) + index
    return suite_port() + EXTRA_OFFSETS[name] + index


def neo4j_script(
    command: str, port: int | str, timeout: float = 600, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/neo4j <command>`` for the instance on ``port``; ``env``
    adds settings (e.g. ``NEO4J_AUTH_PASSWORD``). A port at one of the
    :data:`EXTRA_OFFSETS` from the suite's is an extra instance: Bolt only,
    with a small heap."""
    is_extra = int(port) - suite_port() >= min(EXTRA_OFFSETS.values())
    extra = {"NEO4J_HTTP": "off", "NEO4J_HEAP": "512m", "NEO4J_PAGECACHE": "64m"} if is_extra else {}
    env = {**os.environ, "NEO4J_PORT": str(port), **extra, **env}
    return subprocess.run(
        ["bash", str(SCRIPT), command], env=env, capture_output=True, text=True, timeout=timeout
    )
