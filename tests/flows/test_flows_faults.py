"""``dri run`` under faults, as a user meets them: a secret in a malformed URI,
a Neo4j server that goes away for good or restarts mid-run, and the signals
that end a run (SIGINT, SIGTERM, kill -9 of the parent).

Each test runs the real command in a subprocess with its own data folder and
PREFECT_HOME (so its temporary Prefect server's database can be searched).
The Neo4j tests start their own server instances with ``scripts/neo4j`` on
``DRI_TEST_FAULT_PORT`` (default 7760) and the next port, so the server the
other tests use is never disturbed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dri.flows.tasks import extract_batch, worker_store
from dri.store import open_store

ROOT = Path(__file__).resolve().parents[2]
DRI = [sys.executable, "-m", "dri.cli"]
DEMO = ROOT / "corpora" / "demo"
PORT = int(os.environ.get("DRI_TEST_FAULT_PORT", "7760"))
PASSWORD = "Hunter2-Fault-Pw"


def neo4j(command: str, port: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "NEO4J_PORT": str(port)}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "neo4j"), command],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert command == "status" or done.returncode == 0, done.stderr
    return done


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "PREFECT_API", "DRI_NEO4J"))}
    env.update(
        DRI_DATA_DIR=str(tmp_path / "data"),
        PREFECT_HOME=str(tmp_path / "prefect-home"),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        DRI_WORKERS="2",
        **extra,
    )
    return env


def _corpus(tmp_path: Path, documents: int = 24) -> Path:
    """The demo analogy and plagiarism texts together (24 documents, each
    parsed in a second or so, so a run lasts long enough to be disturbed),
    or the first ``documents`` of them."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    texts = [t for name in ("analogy", "plagiarism") for t in sorted((DEMO / name).glob("*.txt"))]
    for text in [t for t in texts if t.name != "targets.txt"][:documents]:
        shutil.copy(text, folder / f"{text.parent.name}-{text.name}")
    return folder


def _descendants(pid: int) -> set[int]:
    """All living descendants of ``pid``, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(predicate, timeout: float, step: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def _documents(uri: str) -> int:
    try:
        with open_store(uri) as store:
            return store.counts()["Document"]
    except Exception:
        return 0


def test_a_malformed_uri_never_shows_its_password_anywhere(tmp_path):
    corpus = _corpus(tmp_path)
    env = _env(tmp_path, NEO4J_URI=f"neo4j:{PASSWORD}@127.0.0.1:7711")
    done = subprocess.run(
        [*DRI, "run", str(corpus), "--no-progress"], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 1, done.stderr
    assert "NEO4J_URI: '***@127.0.0.1:7711' is not a Neo4j URI" in done.stderr
    assert "what to do:" in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    databases = list((tmp_path / "prefect-home").rglob("*.db*"))
    assert databases, "the run should have been recorded by its temporary Prefect server"
    for db in databases:
        assert PASSWORD.encode() not in db.read_bytes(), db
    # The run is recorded, with the redacted message (so the search above looked in the right place).
    recorded = b"".join(db.read_bytes() for db in databases)
    assert b"***@127.0.0.1:7711" in recorded
    summary = json.loads(Path(done.stdout.split("summary: ")[1].split()[0]).read_text())
    assert summary["failures"] and summary["advice"]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_server_gone_for_good_costs_one_retry_window_and_the_summary_says_what_to_do(tmp_path):
    port = PORT
    neo4j("wipe", port)
    neo4j("start", port)
    uri = f"bolt://127.0.0.1:{port}"
    window = 10
    corpus = _corpus(tmp_path)
    env = _env(tmp_path, NEO4J_URI=uri, DRI_NEO4J_RETRY_SECONDS=str(window))
    run = subprocess.Popen(
        [*DRI, "run", str(corpus), "--no-progress", "--batch-size", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait(lambda: _documents(uri) >= 3 or run.poll() is not None, 600, 0.5)
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
    assert lines[-1].startswith("what to do: the store cannot be used: start it"), lines[-3:]
    assert any("not stored" in line or "not answering" in line for line in lines)
    summary = json.loads(Path(out.split("summary: ")[1].split()[0]).read_text())
    assert summary["advice"] and summary["failures"] and summary["documents"] == 24


@pytest.mark.slow
@pytest.mark.timeout(2400)  # three runs and a server restart, on a shared machine
def test_a_restart_mid_run_then_a_rerun_leaves_what_a_clean_run_leaves(tmp_path):
    port = PORT + 1
    neo4j("wipe", port)
    neo4j("start", port)
    uri = f"bolt://127.0.0.1:{port}"
    corpus = _corpus(tmp_path, documents=12)
    env = _env(tmp_path, NEO4J_URI=uri)
    target = "analogy-solar-system.txt"
    command = [
        *DRI,
        "run",
        str(corpus),
        "--no-progress",
        "--batch-size",
        "1",
        "--mode",
        "target",
        "--target",
        target,
    ]
    try:
        run = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert _wait(lambda: _documents(uri) >= 3 or run.poll() is not None, 600, 0.5)
        assert run.poll() is None, "the run ended before the server could be restarted"
        neo4j("stop", port)
        neo4j("start", port)  # about 30-40 s: inside the default 60 s retry window
        _, err = run.communicate(timeout=900)
        assert "Traceback" not in err
        rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        with open_store(uri) as store:
            disturbed = store.counts()
            store.clear()
        clean = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        assert clean.returncode == 0, clean.stderr[-2000:]
        with open_store(uri) as store:
            assert store.counts() == disturbed
            assert disturbed["Document"] == 12 and disturbed["SIMILAR"] == 11
    finally:
        neo4j("wipe", port)


def _start_and_signal(tmp_path: Path, how: str) -> tuple[set[int], float]:
    corpus = _corpus(tmp_path)
    run = subprocess.Popen(
        [*DRI, "run", str(corpus), "--no-progress", "--mode", "all-pairs"],
        env=_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # Wait for the two workers (spawned processes) to be busy.
        def workers() -> set[int]:
            return {
                pid
                for pid in _descendants(run.pid)
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
            }

        assert _wait(lambda: len(workers()) >= 2, 300, 0.5), "no workers started"
        time.sleep(3)  # let them get into their first batch
        family = _descendants(run.pid)
        os.kill(run.pid, {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "KILL": signal.SIGKILL}[how])
        signalled = time.monotonic()
        _wait(lambda: not any(_alive(p) for p in family | {run.pid}), 60)
        return {p for p in family | {run.pid} if _alive(p)}, time.monotonic() - signalled
    finally:
        for pid in _descendants(run.pid) | {run.pid}:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["INT", "TERM", "KILL"])
def test_a_signalled_run_leaves_no_process_behind(tmp_path, how):
    left, took = _start_and_signal(tmp_path, how)
    assert not left, f"still alive after {how}: {left}"
    assert took < 15, took


def test_links_leaving_the_corpus_are_refused_unless_allowed(tmp_path):
    from dri.flows.tasks import discover

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
        "(--allow-outside-links allows it)"
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
