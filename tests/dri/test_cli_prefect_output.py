"""The CLI's Prefect settings, seen from outside: a fresh process, a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: As the session started: the test runs in the background (tests/background.py),
#: beside tests that change this process's environment.
ENV_AT_START = dict(os.environ)


@pytest.mark.background
def test_evaluate_keeps_prefect_quiet_and_offline(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "atom.txt").write_text("The nucleus attracts the electrons. The electrons orbit the nucleus.\n")
    (corpus / "sun.txt").write_text("The sun attracts the planets. The planets orbit the sun.\n")
    env = {
        k: v
        for k, v in ENV_AT_START.items()
        if not k.startswith(("PREFECT_", "NEO4J_")) and k != "DO_NOT_TRACK"
    }
    env.update(DRI_DATA_DIR=str(tmp_path / "data"), PREFECT_HOME=str(tmp_path / "prefect-home"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dri.cli",
            "evaluate",
            "analogy",
            str(corpus),
            "--target",
            "atom.txt",
            "--no-baselines",
            "-q",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "sun.txt" in done.stdout
    # No Prefect INFO chatter, no failed telemetry call, no telemetry notice.
    assert "INFO" not in done.stderr
    assert "telemetry" not in done.stderr.lower()
