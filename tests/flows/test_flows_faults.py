"""``dri run`` under faults, as a user meets them: a secret in a malformed URI,
a Neo4j server that goes away for good or restarts mid-run, and the signals
that end a run (SIGINT, SIGTERM, kill -9 of the parent).

Each test runs the real command in a subprocess with its own data folder and
PREFECT_HOME (so its temporary Prefect server's database can be searched).
The Neo4j tests start their own server instances with ``scripts/neo4j`` on
``DRI_TEST_FAULT_PORT`` (default the suite's Neo4j port + 300) and the next port, so the server the
other tests use is never disturbed.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from flows_fault_helpers import DRI, PASSWORD, PORT, fault_corpus, neo4j, run_env, stored_documents, wait_for

from dri.corpora.discover import discover
from dri.flows.prefect_server import PrefectServerStartError
from dri.flows.tasks import extract_batch, worker_store


def test_a_malformed_uri_never_shows_its_password_anywhere(tmp_path):
    corpus = fault_corpus(tmp_path)
    # An empty Prefect home: the run must leave it without a database (below).
    env = run_env(tmp_path, migrated=False, NEO4J_URI=f"neo4j:{PASSWORD}@127.0.0.1:7711")
    done = subprocess.run(
        [*DRI, "run", str(corpus), "--no-progress"], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 1, done.stderr
    assert "NEO4J_URI: '***@127.0.0.1:7711' is not a Neo4j URI" in done.stderr
    assert "what to do:" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    # A store that cannot be used stops the run before Prefect's server is started for nothing.
    assert not list((tmp_path / "prefect-home").rglob("*.db*"))
    for path in (tmp_path / "data").rglob("*"):
        assert not path.is_file() or PASSWORD.encode() not in path.read_bytes(), path
    # The run is recorded, with the redacted message (so the search above looked in the right place).
    summary_path = Path(done.stdout.split("summary: ")[1].split()[0])
    assert "***@127.0.0.1:7711" in summary_path.read_text()
    summary = json.loads(summary_path.read_text())
    assert summary["failures"] and summary["advice"]


@pytest.mark.slow
@pytest.mark.background
@pytest.mark.timeout(1800)
def test_a_server_gone_for_good_costs_one_retry_window_and_the_summary_says_what_to_do(tmp_path):
    port = PORT
    neo4j("wipe", port)
    neo4j("start", port)
    uri = f"bolt://127.0.0.1:{port}"
    window = 10
    # 12 documents, as the restart test of test_flows_signals.py: 9 or more are
    # still to come when the server goes at the third, each parsed for nothing.
    corpus = fault_corpus(tmp_path, documents=12)
    env = run_env(tmp_path, NEO4J_URI=uri, DRI_NEO4J_RETRY_SECONDS=str(window))
    run = subprocess.Popen(
        [*DRI, "run", str(corpus), "--no-progress", "--batch-size", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(lambda: stored_documents(uri) >= 3 or run.poll() is not None, 600, 0.5)
        assert run.poll() is None, "the run ended before the server could be stopped"
        neo4j("stop", port)
        stopped = time.monotonic()
        out, err = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
        neo4j("wipe", port)
    took = time.monotonic() - stopped
    # One retry window (the workers wait it side by side), then every further
    # document fails at once; the rest is Prefect and the summary.
    assert took < window + 60, took
    assert run.returncode == 1
    lines = err.splitlines()
    assert "; what to do: the store cannot be used: start it" in lines[-1], lines[-3:]
    assert any("not stored" in line or "not answering" in line for line in lines)
    summary = json.loads(Path(out.split("summary: ")[1].split()[0]).read_text())
    assert summary["advice"] and summary["failures"] and summary["documents"] == 12


def test_links_leaving_the_corpus_are_refused_unless_allowed(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "inside.txt").write_text("The sun attracts the planets.\n")
    (root / "alias.txt").symlink_to(root / "inside.txt")
    (root / "passwd.txt").symlink_to("/etc/passwd")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "deep.txt").write_text("The nucleus attracts the electrons.\n")
    (root / "linked-folder").symlink_to(outside)
    paths, problems = discover(root)
    assert [Path(p).name for p in paths] == ["alias.txt", "inside.txt"]
    assert problems == [
        f"{root.resolve() / 'passwd.txt'}: refused, a symbolic link to /etc/passwd, outside the corpus folder "
        "(only dri run --allow-outside-links follows such links)"
    ]
    paths, problems = discover(root, allow_outside_links=True)
    assert [Path(p).name for p in paths] == ["alias.txt", "inside.txt", "passwd.txt"] and problems == []


def test_the_same_bytes_under_two_names_are_both_members(tmp_path, monkeypatch):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "solar-system.txt").write_text("The sun attracts the planets.\n")
    (root / "copy-of-sun.txt").write_text("The sun attracts the planets.\n")
    done, failures = extract_batch(sorted(str(p) for p in root.iterdir()), "analogy", root)
    assert failures == [] and len({d.doc_id for d in done}) == 1
    listed = worker_store().documents("analogy")
    assert [d.name for d in listed] == ["copy-of-sun.txt", "solar-system.txt"]


def _run_on_the_pool(corpus: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``dri run CORPUS`` on the process pool (so on Prefect); what it did and its stderr's lines."""
    done = subprocess.run(
        [*DRI, "run", str(corpus), "--no-progress", "--runner", "processes", "--workers", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return done, [line for line in done.stderr.splitlines() if line.strip()]


@pytest.mark.background
def test_a_damaged_prefect_database_is_one_line_naming_it_at_once(tmp_path):
    corpus = fault_corpus(tmp_path, documents=3)
    env = run_env(tmp_path, migrated=False, PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="600")
    home = tmp_path / "prefect-home"
    home.mkdir()
    (home / "prefect.db").write_bytes(b"not a database " * 100)
    started = time.monotonic()
    done, errors = _run_on_the_pool(corpus, env)
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr[-3000:]
    assert len(errors) == 1, errors[:5]
    line = errors[0]
    assert line.startswith(f"error: Prefect's temporary server (PREFECT_HOME {home}) exited with status "), (
        line
    )
    assert "file is not a database" in line and f"its log: {home / 'dri-server.log'}" in line, line
    assert "what to do: " in line and "PREFECT_API_URL" in line, line
    # When the server exits, not after its start-up timeout.
    assert took < 300, took


def test_a_prefect_home_it_cannot_write_is_one_line_naming_the_file(tmp_path):
    corpus = fault_corpus(tmp_path, documents=3)
    env = run_env(tmp_path, migrated=False)
    lock = tmp_path / "prefect-home" / "dri-server-start.lock"
    lock.mkdir(parents=True)  # what a read-only home or a full disk also refuses: a file made there
    done, errors = _run_on_the_pool(corpus, env)
    assert done.returncode == 1, done.stderr[-3000:]
    assert errors == [
        f"error: Prefect's temporary server was not started: {lock}: Is a directory; what to do: "
        + PrefectServerStartError.advice
    ], errors[:5]


def test_a_prefect_home_behind_a_file_is_one_line_and_no_warning(tmp_path):
    # Prefect warned in two lines when it was imported, then a bare OSError line followed.
    corpus = fault_corpus(tmp_path, documents=3)
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way", encoding="utf-8")
    env = {**run_env(tmp_path, migrated=False), "PREFECT_HOME": str(blocker / "home")}
    done, errors = _run_on_the_pool(corpus, env)
    assert done.returncode == 1, done.stderr[-3000:]
    assert errors == [
        f"error: Prefect's temporary server was not started: PREFECT_HOME {blocker / 'home'}: cannot be made: "
        f"{blocker} is a file, not a folder; what to do: set PREFECT_HOME to a folder that can be made, "
        "or PREFECT_API_URL to a running server"
    ], errors[:5]


def test_a_run_leaves_its_sqlite_store_whole_in_the_one_file(tmp_path):
    # The run's store stayed open to the end, so its writes stayed in dri.sqlite-wal:
    # a copy of dri.sqlite alone (a backup) held no table at all.
    corpus = fault_corpus(tmp_path, documents=3)
    env = run_env(tmp_path, migrated=False)
    done = subprocess.run(
        [*DRI, "run", str(corpus), "--runner", "inline"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    data = tmp_path / "data"
    assert not (data / "dri.sqlite-wal").exists()
    backup = tmp_path / "backup.sqlite"
    shutil.copy(data / "dri.sqlite", backup)
    with contextlib.closing(sqlite3.connect(backup)) as db:
        assert db.execute("SELECT count(*) FROM documents").fetchone() == (3,)
