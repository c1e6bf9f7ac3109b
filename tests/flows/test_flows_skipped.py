"""``dri run`` says what it skipped: an empty corpus is an error, unreadable
folders and files inside one get one line each, folded when many."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from flows_corpus_helpers import write_corpus
from processes import bound_by_permissions
from session_env import ENV_AT_START

from dri.cli import main


@pytest.mark.parametrize("files", [[], ["notes.md", "README.md"]])
def test_an_empty_corpus_is_an_error_on_every_runner(tmp_path, data_dir, capsys, files):
    root = tmp_path / "c"
    root.mkdir()
    for name in files:
        (root / name).write_text("# Notes\n")
    expected = f"error: {root}: no documents: no .txt, .text or .pdf files in it or its sub-folders"
    if files:
        expected += "; it holds 2 other file(s) (README.md, notes.md)"
    for runner in ([], ["--runner", "processes", "--workers", "2"]):
        assert main(["run", str(root), *runner]) == 1
        out, err = capsys.readouterr()
        assert err.splitlines() == [expected] and out == ""
    assert not (data_dir / "runs").exists() or not any((data_dir / "runs").iterdir())


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_unreadable_folders_and_files_get_a_line_each_folded_when_many(tmp_path):
    root = write_corpus(tmp_path / "c")
    locked = [root / f"locked-{n}" for n in range(4)]
    for folder in locked:
        folder.mkdir()
        (folder / "inside.txt").write_text("The cat chased the mouse.")
    secret = root / "secret.txt"
    secret.write_text("The dog chased the cat.")
    for path in [*locked, secret]:
        path.chmod(0)
    env = {k: v for k, v in ENV_AT_START.items() if k != "NEO4J_URI"}
    env["DRI_DATA_DIR"] = str(tmp_path / "data")
    try:
        done = subprocess.run(
            [
                *bound_by_permissions(),
                sys.executable,
                "-m",
                "dri.cli",
                "run",
                str(root),
                "--runner",
                "inline",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
    finally:
        for path in [*locked, secret]:
            path.chmod(0o755)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    first = f"{locked[0]}: cannot read the folder (Permission denied); its files are left out"
    assert [line for line in lines if "cannot read the folder" in line] == [
        f"WARNING dri.corpora.discover: {first}"
    ]
    folded = [line for line in lines if "more folders cannot be read" in line]
    assert len(folded) == 1 and folded[0].startswith(
        "WARNING dri.corpora.discover: 3 more folders cannot be read, their files left out: "
    )
    assert f"error: {secret}: cannot read: Permission denied" in lines
    assert (
        "5 documents (4 parsed, 0 unchanged), 2 pairs (2 mapped, 0 already stored), 1 failed" in done.stdout
    )
    assert Path(env["DRI_DATA_DIR"], "dri.sqlite").is_file()
