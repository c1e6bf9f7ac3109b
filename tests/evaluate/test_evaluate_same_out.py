"""``dri evaluate`` twice at once into one ``--out`` folder, as two real processes."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PAIRS = [
    ("The sun attracts the planet.", "The nucleus attracts the electron.", "3"),
    ("The dog chases the cat.", "The cat chases the mouse.", "1"),
    ("The boy reads a book.", "The girl reads a letter.", "2"),
]


def _judgements(path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "score"])
        writer.writerows(PAIRS)
    return path


@pytest.mark.parametrize("data_folders", ["one", "two"])
def test_a_second_evaluate_into_an_out_folder_being_written_is_refused(tmp_path, data_folders) -> None:
    # Each checked for an earlier report before its work and found none: both
    # wrote the folder, and the second silently replaced the first's report.
    # With a data folder (DRI_DATA_DIR) each, both did so even after the first
    # fix: the lock was a file of the data folder.
    rated = _judgements(tmp_path / "rated.csv")
    out = tmp_path / "report"
    argv = [sys.executable, "-m", "dri.cli", "evaluate", "judgements", str(rated), "--out", str(out)]
    runs = [
        subprocess.Popen(
            [*argv, "-q", "--no-baselines"],
            env={
                **os.environ,
                "DRI_DATA_DIR": str(tmp_path / ("data" if data_folders == "one" else f"data{i}")),
            },
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    errors = [run.communicate(timeout=300)[1] for run in runs]
    done = sorted(zip((run.returncode for run in runs), errors))
    assert [code for code, _ in done] == [0, 2], done
    assert done[1][1].strip() == (
        f"error: {out}: another dri evaluate is writing its report there; "
        "wait for it to end, or choose another --out"
    )
    assert json.loads((out / "stats.json").read_text(encoding="utf-8"))["pairs"] == len(PAIRS)
