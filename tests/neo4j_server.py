"""The project's own Neo4j test server, through ``scripts/neo4j``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "neo4j"


def neo4j_script(
    command: str, port: int | str, timeout: float = 600, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/neo4j <command>`` for the instance on ``port``; ``env``
    adds settings (e.g. ``NEO4J_AUTH_PASSWORD``)."""
    env = {**os.environ, "NEO4J_PORT": str(port), **env}
    return subprocess.run(
        ["bash", str(SCRIPT), command], env=env, capture_output=True, text=True, timeout=timeout
    )
