"""``dri run`` and ``dri watch`` through the real command line parser."""

from __future__ import annotations

import json
import signal

from dri.cli import main


def test_dri_run_prints_the_summary_and_exit_status(prefect_server, corpus, data_dir, capsys, monkeypatch):
    monkeypatch.setenv("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    assert main(["run", str(corpus), "--runner", "threads", "--workers", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["state"], summary["documents"], summary["pairs"], summary["mapped"]) == (
        "completed",
        4,
        2,
        2,
    )

    (corpus / "empty.txt").write_text("")
    assert main(["run", str(corpus), "--runner", "threads", "--mode", "all-pairs"]) == 1
    out, err = capsys.readouterr()
    assert f"error: {corpus / 'empty.txt'}: " in err
    assert len([line for line in err.splitlines() if line.startswith("error:")]) == 1
    assert "5 documents (0 parsed, 4 unchanged)" in out  # the first run's graphs are reused
    assert "6 pairs (6 mapped" in out


def test_dri_run_in_a_flow_stops_at_sections_no_document_has(
    prefect_server, corpus, data_dir, capsys, monkeypatch
):
    monkeypatch.setenv("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    assert main(["run", str(corpus), "--runner", "threads", "--sections", "nosuch", "--json"]) == 1
    out, err = capsys.readouterr()
    assert f"error: {corpus}: no document has a sentence in the section(s) nosuch, so every pair" in err
    assert (json.loads(out)["documents"], json.loads(out)["mapped"]) == (4, 0)


def test_dri_run_names_a_missing_folder(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nowhere")]) == 1
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nowhere'}: no such folder"
    (tmp_path / "file").write_text("x")
    assert main(["run", str(tmp_path / "file")]) == 1
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'file'}: not a folder (a regular file)"


def test_a_sigterm_that_a_library_wrapped_is_still_an_interrupt(corpus, data_dir, capsys, monkeypatch):
    """SIGTERM while Prefect was imported came back as pydantic's
    PydanticSerializationError ("Interrupted: 15"): exit 70 with a bug log."""
    from dri.commands import run
    from dri.flows import runners

    monkeypatch.setattr(runners, "_signalled", None)

    def wrapped(*args, **kwargs):
        runners._signalled = signal.SIGTERM  # what end_workers_on_signals' handler notes
        raise ValueError("Error calling function `_ser_model`: Interrupted: 15")

    monkeypatch.setattr(run, "_run_with_progress", wrapped)
    assert main(["run", str(corpus), "--no-progress"]) == 143
    assert capsys.readouterr().err.strip() == (
        f"error: {corpus}: interrupted; what was stored is kept, run the same command again to finish"
    )


def test_dri_watch_once_announces_new_folders_to_the_server(prefect_server, tmp_path, data_dir, capsys):
    from flows_corpus_helpers import write_corpus

    write_corpus(tmp_path / "root" / "new")
    argv = ["watch", str(tmp_path / "root"), "--once", "--min-age", "0"]
    assert main(argv) == 0
    assert "new: new corpus of 4 documents, emitted corpus.arrived" in capsys.readouterr().out
    assert main(argv) == 0  # remembered in data_dir()/sensor
    out = capsys.readouterr().out
    assert "emitted" not in out
    assert out == f"{tmp_path / 'root'}: no new or changed corpus (1 seen before, unchanged)\n"


def test_dri_watch_once_says_when_it_found_nothing(tmp_path, data_dir, capsys):
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "readme.md").write_text("not a document", encoding="utf-8")
    assert main(["watch", str(root), "--once", "--run", "--min-age", "0"]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (f"{root}: no new or changed corpus\n", "")


def test_dri_watch_run_runs_each_new_corpus_here(prefect_server, tmp_path, data_dir, capsys, monkeypatch):
    from flows_corpus_helpers import write_corpus

    monkeypatch.setenv("DRI_TASK_RUNNER", "threads")
    write_corpus(tmp_path / "root" / "arrived")
    assert main(["watch", str(tmp_path / "root"), "--once", "--min-age", "0", "--run"]) == 0
    out = capsys.readouterr().out
    assert "arrived: new corpus of 4 documents, running it" in out
    assert "4 documents (4 parsed, 0 unchanged), 2 pairs (2 mapped" in out


def test_dri_watch_run_names_the_files_a_run_failed_and_exits_1(
    prefect_server, tmp_path, data_dir, capsys, monkeypatch
):
    # The run's headline said "2 failed" and the command exited 0, naming no file.
    from flows_corpus_helpers import write_corpus

    monkeypatch.setenv("DRI_TASK_RUNNER", "threads")
    corpus = write_corpus(tmp_path / "root" / "arrived", manifest=None)
    (corpus / "empty.txt").write_bytes(b"")
    (corpus / "junk.txt").write_bytes(b"\x00\x01junk")
    assert main(["watch", str(tmp_path / "root"), "--once", "--min-age", "0", "--run"]) == 1
    captured = capsys.readouterr()
    assert "2 failed" in captured.out
    assert sorted(captured.err.splitlines()) == [
        f"error: {corpus / 'empty.txt'}: empty file",
        f"error: {corpus / 'junk.txt'}: binary data, not text (contains NUL bytes)",
    ]


def test_dri_watch_run_leaves_a_folder_the_store_stopped_to_run_again(
    prefect_server, tmp_path, data_dir, capsys, monkeypatch
):
    # Marked as run when the store was down, the folder was never stored: the
    # next scan said "no new or changed corpus".
    from flows_corpus_helpers import write_corpus

    monkeypatch.setenv("DRI_TASK_RUNNER", "threads")
    write_corpus(tmp_path / "root" / "arrived")
    argv = ["watch", str(tmp_path / "root"), "--once", "--min-age", "0", "--run"]
    with monkeypatch.context() as down:
        down.setenv("NEO4J_URI", "bolt://127.0.0.1:9")  # nothing listens there
        down.setenv("DRI_NEO4J_RETRY_SECONDS", "0")
        assert main(argv) == 1
    captured = capsys.readouterr()
    assert "arrived: new corpus of 4 documents, running it" in captured.out
    assert captured.err.splitlines()[-1] == (
        f"error: {tmp_path / 'root' / 'arrived'}: not announced: "
        "the store stopped its run; not marked as run, so it runs again"
    )
    assert main(argv) == 0  # the store is back (SQLite): the folder runs
    assert "4 documents (4 parsed, 0 unchanged), 2 pairs (2 mapped" in capsys.readouterr().out
