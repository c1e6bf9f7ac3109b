"""The background plugin (tests/background.py) in a pytest session of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

TEST_FILE = """
import time
from pathlib import Path

import pytest

def test_first_on_the_main_thread():
    pass


@pytest.mark.background
@pytest.mark.parametrize("n", [1, 2])
def test_waits(tmp_path, n):
    assert tmp_path.is_dir() and not any(tmp_path.iterdir())
    (Path(__file__).parent / f"background-{n}.txt").write_text(str(time.monotonic()))
    assert n == 1, "the second case fails"


def test_last_on_the_main_thread():
    # The background calls started with the session: one ends while this test waits.
    done = Path(__file__).parent / "background-1.txt"
    deadline = time.monotonic() + 120
    while not done.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert done.exists()
"""

SCENARIO_FILE = """
def background_scenario(folder):
    return {"folder": folder, "step": 3}


def test_a_scenario_step(scenario):
    assert scenario["step"] == 3 and scenario["folder"].is_dir()
"""

BAD_FILE = """
import pytest


@pytest.mark.background
def test_with_a_fixture(monkeypatch):
    pass
"""


def _pytest(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "background",
            "-p",
            "no:cacheprovider",
            "-v",
            *args,
            str(folder),
        ],
        cwd=folder,
        env={"PYTHONPATH": str(TESTS), "PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_background_tests_run_from_the_start_and_report_at_the_end(tmp_path):
    (tmp_path / "test_it.py").write_text(TEST_FILE)
    (tmp_path / "test_scenario.py").write_text(SCENARIO_FILE)
    done = _pytest(tmp_path)
    lines = [line for line in done.stdout.splitlines() if "::" in line and line.endswith("]")]
    order = [line.split("::")[1].split()[0] for line in lines]
    # Stable: the background tests (and a scenario module's) last, each in its own order.
    assert order == [
        "test_first_on_the_main_thread",
        "test_last_on_the_main_thread",
        "test_waits[1]",
        "test_waits[2]",
        "test_a_scenario_step",
    ], done.stdout
    assert "1 failed, 4 passed" in done.stdout, done.stdout
    # The failure is the background call's own, with its traceback and message.
    assert "AssertionError: the second case fails" in done.stdout
    assert ">       assert n == 1" in done.stdout


def test_a_background_test_with_a_fixture_is_refused(tmp_path):
    (tmp_path / "test_bad.py").write_text(BAD_FILE)
    temp = tmp_path / "temp"
    temp.mkdir()
    done = _pytest(tmp_path, TMPDIR=str(temp))
    assert done.returncode != 0
    assert "a background test takes only tmp_path and its parameters, not ['monkeypatch']" in (
        done.stdout + done.stderr
    )
    # Refused before anything started or any folder was made.
    assert [p.name for p in temp.iterdir() if p.name.startswith("dri-background-")] == []


def test_calls_still_queued_run_on_the_waiting_thread_once_each_last_first():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from background import run_queued

    started, release = threading.Event(), threading.Event()
    ran: list[tuple[str, str]] = []

    def call(name: str) -> str:
        if name == "first":
            started.set()
            release.wait(60)  # holds the pool's only thread
        if name == "fails":
            raise ValueError("its own error")
        ran.append((name, threading.current_thread().name))
        return name

    names = ["first", "second", "fails", "third"]
    work = {n: (lambda n=n: call(n)) for n in names}
    with ThreadPoolExecutor(1, thread_name_prefix="pool") as pool:
        calls = {n: pool.submit(work[n]) for n in names}
        assert started.wait(60)
        run_queued(calls, work)
        release.set()
        assert calls["first"].result(timeout=60) == "first"
    here = threading.current_thread().name
    assert ran == [("third", here), ("second", here), ("first", "pool_0")]
    assert calls["second"].result() == "second" and calls["third"].result() == "third"
    assert isinstance(calls["fails"].exception(), ValueError)
