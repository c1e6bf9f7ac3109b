"""Helpers of the fault tests of ``dri run``: subprocess environment, a
corpus big enough to disturb, the project's Neo4j script, process trees
(``tests/processes.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from neo4j_server import extra_port, neo4j_script
from prefect_template import copy_into
from processes import alive, command_line, descendants, in_session, parent, pool_workers, wait_for
from session_env import ENV_AT_START

from dri.store import open_store

__all__ = [
    "DEMO",
    "DRI",
    "PASSWORD",
    "PORT",
    "ROOT",
    "alive",
    "command_line",
    "descendants",
    "fault_corpus",
    "in_session",
    "neo4j",
    "parent",
    "pool_workers",
    "run_env",
    "stored_documents",
    "wait_for",
]

ROOT = Path(__file__).resolve().parents[2]
DRI = [sys.executable, "-m", "dri.cli"]
DEMO = ROOT / "corpora" / "demo"
#: The fault tests' own Neo4j instances: this port and the next (tests/neo4j_server.py).
PORT = extra_port("fault", setting="DRI_TEST_FAULT_PORT")
PASSWORD = "Hunter2-Fault-Pw"


def neo4j(command: str, port: int) -> subprocess.CompletedProcess:
    done = neo4j_script(command, port)
    assert command == "status" or done.returncode == 0, done.stderr
    return done


def run_env(tmp_path: Path, *, migrated: bool = True, **extra: str) -> dict[str, str]:
    """A ``dri run`` subprocess's environment: its own data folder, and a
    Prefect home holding the session's migrated database (``prefect_template``),
    or (``migrated=False``) an empty one."""
    if migrated:
        copy_into(tmp_path / "prefect-home")
    env = {k: v for k, v in ENV_AT_START.items() if not k.startswith(("NEO4J_", "PREFECT_API", "DRI_NEO4J"))}
    env.update(
        DRI_DATA_DIR=str(tmp_path / "data"),
        PREFECT_HOME=str(tmp_path / "prefect-home"),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        DRI_WORKERS="2",
        **extra,
    )
    return env


def fault_corpus(tmp_path: Path, documents: int = 24) -> Path:
    """The demo analogy and plagiarism texts together (24 documents, each
    parsed in a second or so, so a run lasts long enough to be disturbed),
    or the first ``documents`` of them."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    texts = [t for name in ("analogy", "plagiarism") for t in sorted((DEMO / name).glob("*.txt"))]
    for text in [t for t in texts if t.name != "targets.txt"][:documents]:
        shutil.copy(text, folder / f"{text.parent.name}-{text.name}")
    return folder


def stored_documents(uri: str) -> int:
    try:
        with open_store(uri) as store:
            return store.counts()["Document"]
    except Exception:
        return 0
