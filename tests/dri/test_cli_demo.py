"""``dri demo``'s second process: its lines come back in order, its failures as the demo's own.

The demo itself (three evaluations on the real parts) runs in CI as the
README's first command; these tests run small sections in the forked
process, to reach the failures a demo on good corpora never has.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from dri.commands import demo
from dri.errors import ProjectError


def _lines(word: str):
    def section(out: Path | None, emit, progress) -> int:
        emit(f"==> {word}")
        emit(f"    pid {os.getpid()}")
        return 1 if word == "failing" else 0

    return section


class _BadCorpus(ProjectError):
    advice = "fix the corpus"


def _project_error(out, emit, progress) -> int:
    emit("==> broken")
    raise _BadCorpus("corpus.csv: line 3: no text column")


def _bug(out, emit, progress) -> int:
    raise ZeroDivisionError("a bug")


def _killed(out, emit, progress) -> int:
    os._exit(3)


@pytest.fixture
def sections(monkeypatch):
    table = {
        "one": _lines("one"),
        "failing": _lines("failing"),
        "broken": _project_error,
        "bug": _bug,
        "killed": _killed,
    }
    monkeypatch.setattr(demo, "_SECTIONS", table)
    return table


def test_the_second_process_sends_back_its_lines_and_failures(sections):
    with demo._sections_in_child(("one", "failing"), None) as child:
        lines, failed = child.result()
    assert [line for line in lines if line.startswith("==>")] == ["==> one", "==> failing"]
    assert f"    pid {os.getpid()}" not in lines  # it ran in another process
    assert failed == 1


def test_a_project_error_in_the_second_process_is_the_demos_one_line_error(sections, capsys):
    with (
        pytest.raises(demo.DemoProcessError) as err,
        demo._sections_in_child(("one", "broken"), None) as child,
    ):
        child.result()
    assert str(err.value) == "corpus.csv: line 3: no text column"
    assert err.value.advice == "fix the corpus"
    # What it did before the error is shown, in order.
    shown = capsys.readouterr().out
    assert shown.index("==> one") < shown.index("==> broken")


def test_a_bug_in_the_second_process_is_a_bug_with_its_traceback(sections):
    with (
        pytest.raises(RuntimeError, match="ZeroDivisionError: a bug"),
        demo._sections_in_child(("bug",), None) as c,
    ):
        c.result()


def test_a_second_process_that_dies_is_an_error_that_says_so(sections):
    stopped = r"killed evaluations stopped \(exit status 3\)"
    with (
        pytest.raises(demo.DemoProcessError, match=stopped),
        demo._sections_in_child(("killed",), None) as child,
    ):
        child.result()


def test_leaving_early_ends_the_second_process(sections, monkeypatch):
    monkeypatch.setitem(sections, "slow", lambda out, emit, progress: time.sleep(30) or 0)
    with pytest.raises(KeyboardInterrupt), demo._sections_in_child(("slow",), None) as child:
        process = child._process
        raise KeyboardInterrupt
    assert not process.is_alive()
    assert process.exitcode is not None


def test_a_store_that_cannot_be_used_is_one_line_before_any_loading(tmp_path, monkeypatch, capsys):
    from dri.cli import main

    def no_loading() -> None:
        raise AssertionError("models loaded before the store was checked")

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")  # nothing listens there
    monkeypatch.setattr("dri.evaluate.preload", no_loading)
    assert main(["demo", "--out", str(tmp_path / "out")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("error: Neo4j at bolt://127.0.0.1:1: cannot connect: connection refused")


def test_an_out_folder_holding_a_report_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    # The user's own summary.md and scores.csv under DIR/plagiarism were replaced without a word.
    from dri.cli import main

    def no_loading() -> None:
        raise AssertionError("models loaded before --out was checked")

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("dri.evaluate.preload", no_loading)
    out = tmp_path / "out"
    (out / "plagiarism").mkdir(parents=True)
    (out / "plagiarism" / "summary.md").write_text("MY NOTES", encoding="utf-8")
    assert main(["demo", "--out", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {out}: holds an earlier report (plagiarism/summary.md); add --force to replace it, or choose another --out"
    ]
    assert (out / "plagiarism" / "summary.md").read_text(encoding="utf-8") == "MY NOTES"


def test_a_demo_stopped_part_way_is_finished_by_running_it_again(tmp_path, monkeypatch, capsys):
    # Its message says "run the same command again to finish"; the run was refused,
    # "holds an earlier report (plagiarism/summary.md)": its own.
    from dri.cli import main
    from dri.commands.demo import _mark_as_the_demos

    ran: list[str] = []
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("dri.commands.demo._run_demo", lambda args, started: ran.append("demo") or 0)
    out = tmp_path / "out"
    (out / "plagiarism").mkdir(parents=True)
    (out / "plagiarism" / "summary.md").write_text("# plagiarism", encoding="utf-8")
    (out / "plagiarism" / "stats.json").write_text('{"kind": "plagiarism"}', encoding="utf-8")
    (out / "plagiarism" / ".dri-report-files").write_text("stats.json\nsummary.md\n", encoding="utf-8")
    _mark_as_the_demos(out, "plagiarism")  # as the demo marks each report it wrote
    assert main(["demo", "--out", str(out)]) == 0 and ran == ["demo"]
    (out / "plagiarism" / "notes.txt").write_text("mine", encoding="utf-8")  # not the report's: kept
    assert main(["demo", "--out", str(out)]) == 0 and ran == ["demo", "demo"]
    # A file of the report edited since (the user's notes in summary.md) makes it the user's.
    (out / "plagiarism" / "summary.md").write_text("# plagiarism, with my notes", encoding="utf-8")
    assert main(["demo", "--out", str(out)]) == 2 and ran == ["demo", "demo"]
    assert "holds an earlier report (plagiarism/summary.md)" in capsys.readouterr().err
    (out / "plagiarism" / "summary.md").write_text("# plagiarism", encoding="utf-8")
    assert main(["demo", "--out", str(out)]) == 0 and ran == ["demo", "demo", "demo"]
    # So is a report written there since (dri evaluate --force, another profile).
    (out / "plagiarism" / "stats.json").write_text(
        '{"kind": "plagiarism", "profile": "paper"}', encoding="utf-8"
    )
    assert main(["demo", "--out", str(out)]) == 2 and len(ran) == 3
    # Left part-written (a demo killed while its files moved in: the mark says so), its files are
    # of two reports, neither whole nor its digest's: the demo run again finishes it.
    (out / "plagiarism" / ".dri-report-files.incomplete").write_text("stats.json\n", encoding="utf-8")
    assert main(["demo", "--out", str(out)]) == 0 and len(ran) == 4
    (out / "plagiarism" / ".dri-report-files.incomplete").unlink()
    (out / "plagiarism" / "stats.json").write_text('{"kind": "plagiarism"}', encoding="utf-8")
    # And one with a mark of another section's report.
    (out / "plagiarism" / ".dri-demo").write_text(
        (out / "plagiarism" / ".dri-demo").read_text(encoding="utf-8").replace("plagiarism", "analogy"),
        encoding="utf-8",
    )
    assert main(["demo", "--out", str(out)]) == 2 and len(ran) == 4


def test_a_demo_into_a_folder_another_command_writes_is_refused(tmp_path, monkeypatch, capsys):
    # Two demos (or a demo and dri evaluate) given one --out each wrote there, exit 0.
    from dri.cli import main
    from dri.commands.folders import claimed_report_folder

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("dri.commands.demo._run_demo", lambda args, started: 0)
    out = tmp_path / "out"
    with claimed_report_folder(out / "translation") as mine:
        assert mine
        assert main(["demo", "--out", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {out / 'translation'}: another dri demo or dri evaluate is writing its report there; "
        "wait for it to end, or choose another --out"
    ]
    assert main(["demo", "--out", str(out)]) == 0


def test_the_demo_never_replaces_a_users_report_of_a_corpus_named_like_its_own(tmp_path, monkeypatch, capsys):
    # Both wrote data/reports/plagiarism-plagiarism: dri demo replaced the user's
    # dri evaluate report of their own folder named plagiarism, exit 0.
    import shutil

    from dri.cli import main

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    mine = tmp_path / "mine" / "plagiarism"
    mine.mkdir(parents=True)
    rows = (demo.DEMO_ROOT / "plagiarism" / "file_information.csv").read_text(encoding="utf-8").splitlines()
    rows = [row for row in rows if not row.startswith("taskc") and ",c," not in row]
    (mine / "file_information.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for row in rows[1:]:
        shutil.copy(demo.DEMO_ROOT / "plagiarism" / row.split(",")[0], mine)
    assert main(["evaluate", "plagiarism", str(mine), "--no-baselines", "-q"]) == 0
    users = tmp_path / "data" / "reports" / "plagiarism-plagiarism"
    scores = (users / "scores.csv").read_bytes()
    capsys.readouterr()
    lines: list[str] = []
    assert demo._SECTIONS["plagiarism"](None, lines.append, None) == 0
    assert (users / "scores.csv").read_bytes() == scores
    own = tmp_path / "data" / "reports" / "demo-plagiarism"
    assert f"    report: {own / 'summary.md'}" in lines
    assert demo._demo_report(own, "plagiarism")  # marked: the next demo replaces it
    assert main(["report", "--path"]) == 0
    # Among the lines, not the only one: the suite's background tests share this stdout.
    assert str(own) in capsys.readouterr().out.splitlines()


def test_a_users_report_in_the_demos_default_folder_is_refused(tmp_path, monkeypatch, capsys):
    from dri.cli import main

    ran: list[str] = []
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr("dri.commands.demo._run_demo", lambda args, started: ran.append("demo") or 0)
    folder = tmp_path / "data" / "reports" / "demo-analogy"
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text("# analogy", encoding="utf-8")
    (folder / "stats.json").write_text('{"kind": "analogy"}', encoding="utf-8")
    (folder / ".dri-report-files").write_text("stats.json\nsummary.md\n", encoding="utf-8")
    demo._mark_as_the_demos(None, "analogy")  # the demo's own: replaced, as a demo run twice does
    assert main(["demo"]) == 0 and ran == ["demo"]
    (folder / "summary.md").write_text("# analogy, with my notes", encoding="utf-8")
    assert main(["demo"]) == 2 and ran == ["demo"]
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path / 'data' / 'reports'}: holds an earlier report (demo-analogy/summary.md); "
        "add --force to replace it, or choose another --out"
    ]
    assert main(["demo", "--force"]) == 0 and ran == ["demo", "demo"]
