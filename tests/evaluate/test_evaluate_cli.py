"""``dri evaluate``, ``dri report`` and ``dri ratings`` through the real CLI entry point."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dri.cli import main

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_ratings_import_validates_and_reports(data_dir, tmp_path, capsys):
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(
        "rater,pair,novelty,usefulness,challenge\n"
        "r1,p1,5,4,4\nr2,p1,4,4,5\nr1,p2,2,3,1\nr2,p2,2,2,1\n"
        "r3,p1,6,4,4\n"  # out of range
        "r3,p2,,,\n"  # nothing rated
        ",p2,3,3,3\n",  # no rater
        encoding="utf-8",
    )
    assert main(["ratings", "import", str(ratings)]) == 1
    out, err = capsys.readouterr()
    errors = err.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith(f"error: {ratings}: line ") for line in errors)
    assert "novelty must be a whole number from 1 to 5, not '6'" in errors[0]
    assert "4 ratings imported, 3 rejected" in out
    assert "novelty: mean 3.25, Krippendorff's alpha (interval)" in out
    assert (data_dir / "ratings" / "ratings.csv").is_file()
    # Re-importing the same rater and pair replaces, never duplicates.
    fix = tmp_path / "fix.csv"
    fix.write_text("rater,pair,novelty,usefulness,challenge\nr1,p1,3,4,4\n", encoding="utf-8")
    assert main(["ratings", "import", str(fix)]) == 0
    out, _ = capsys.readouterr()
    assert "4 stored" in out and "novelty: mean 2.75" in out
    assert main(["report", str(data_dir / "reports" / "ratings")]) == 0
    assert "| novelty | 2.75 |" in capsys.readouterr().out


def test_ratings_of_one_pair_by_one_rater_twice_keep_the_first_and_say_so(data_dir, tmp_path, capsys):
    # The last of them replaced the others without a word: "3 ratings imported, 0 rejected; 1 stored".
    ratings = tmp_path / "ratings.csv"
    ratings.write_text(
        "rater,pair,novelty,usefulness,challenge\nr1,p1,5,4,4\nr1,p1,5,4,4\nr1,p1,1,1,1\nr1,p2,2,,\n",
        encoding="utf-8",
    )
    assert main(["ratings", "import", str(ratings)]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"error: {ratings}: line 4: rater 'r1' rated pair 'p1' otherwise on line 2; that rating is kept"
    ]
    assert "2 ratings imported, 1 rejected; 2 stored" in out and "novelty: mean 3.50" in out
    # A property nobody rated has no mean: it was "mean nan".
    assert "usefulness: mean 4.00" in out
    ratings.write_text("rater,pair,novelty,usefulness,challenge\nr9,p9,3,,\n", encoding="utf-8")
    (data_dir / "ratings" / "ratings.csv").unlink()
    assert main(["ratings", "import", str(ratings)]) == 0
    assert "challenge: mean –," in capsys.readouterr().out


def test_ratings_bad_file_is_one_line(data_dir, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("who,what\nx,y\n", encoding="utf-8")
    assert main(["ratings", "import", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"error: {bad}:") and "missing rater" in err


def test_ratings_show_names_a_stored_row_that_is_not_a_rating(data_dir, capsys):
    store = data_dir / "ratings" / "ratings.csv"
    store.parent.mkdir(parents=True)
    store.write_text("rater,pair,novelty,usefulness,challenge\nr1,p1,9,1,1\n", encoding="utf-8")
    assert main(["ratings", "show"]) == 1
    bad = f"error: {store}: line 2: novelty must be a whole number from 1 to 5, not '9'"
    assert capsys.readouterr().err.splitlines() == [bad]
    store.write_text(store.read_text(encoding="utf-8") + "r2,p1,3,2,1\n", encoding="utf-8")
    assert main(["ratings", "show"]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [bad] and "novelty: mean 3.00" in out


def test_judgements_of_documents_named_by_path_are_compared(data_dir, tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "solar.txt").write_text(
        "The sun attracts the planets. The planets orbit the sun.", encoding="utf-8"
    )
    (docs / "atom.txt").write_text(
        "The nucleus attracts the electrons. The electrons orbit it.", encoding="utf-8"
    )
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        f"a,b,score\ndocs/solar.txt,{docs / 'atom.txt'},4\ndocs/solar.txt,The dog ate the bone.,1\n"
        "The sun is hot.,The fire is hot.,3\n",
        encoding="utf-8",
    )
    assert main(["evaluate", "judgements", str(pairs), "--no-baselines", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "error" not in err and "judgements: 3 of 3 pairs compared" in out


def test_a_bad_document_of_a_judgement_file_is_named_by_the_users_path(data_dir, tmp_path, capsys):
    # Its pairs compare the copy under data/validity-corpora named by its hash, which
    # the user never named: the errors said that copy, not the file to fix.
    import csv

    (tmp_path / "solar.txt").write_text("The sun attracts the planets.", encoding="utf-8")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "junk.txt").write_bytes(b"\x00\x01junk")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "a,b,score\nsolar.txt,empty.txt,1\njunk.txt,The dog ate the bone.,2\nsolar.txt,The sun is hot.,3\n",
        encoding="utf-8",
    )
    out_dir = tmp_path / "rep"
    assert main(["evaluate", "judgements", str(pairs), "--out", str(out_dir)]) == 1
    err = capsys.readouterr().err
    empty = f"{tmp_path / 'empty.txt'}: empty file"
    junk = f"{tmp_path / 'junk.txt'}: binary data, not text (contains NUL bytes)"
    assert sorted(line for line in err.splitlines() if line.startswith("error: ")) == [
        f"error: {empty}",
        f"error: {junk}",
    ]
    assert f"[1/3] line 2 (pairs): error: {empty}" in err and "validity-corpora" not in err
    assert "[3/3] line 4 (pairs): AS " in err  # a pair is named by its line, not by its texts' hashes
    with open(out_dir / "scores.csv", newline="", encoding="utf-8") as fh:
        assert [r["error"] for r in csv.DictReader(fh)] == [empty, junk, ""]


def test_a_long_documents_progress_names_the_users_file(data_dir, tmp_path, capsys, monkeypatch):
    # "…/validity-corpora/judgements-pairs-<hash>/<hash>.txt: 2 of 4 sentences parsed".
    monkeypatch.setattr("dri.extract.build.PROGRESS_SENTENCES", 2)
    story = tmp_path / "story.txt"
    story.write_text("The sun shines. The planets turn. The moon waits. The stars burn.", encoding="utf-8")
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "a,b,score\nstory.txt,The dog ate the bone.,1\nA cat sat.,A hat sat.,2\n", encoding="utf-8"
    )
    assert main(["evaluate", "judgements", str(pairs), "--no-baselines", "-q"]) == 0
    err = capsys.readouterr().err
    assert f"{story}: 2 of 4 sentences parsed" in err and "validity-corpora" not in err


def test_a_documents_reading_warning_names_the_users_file(data_dir, tmp_path, capsys):
    # "…/validity-corpora/judgements-pairs-<hash>/<hash>.txt: not valid UTF-8; read as Windows-1252".
    latin = tmp_path / "latin.txt"
    latin.write_bytes("The café was full and the waiter ran.".encode("cp1252"))
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "a,b,score\nlatin.txt,The dog ate the bone.,1\nA cat sat.,A hat sat.,2\n", encoding="utf-8"
    )
    assert main(["evaluate", "judgements", str(pairs), "--no-baselines", "-q"]) == 0
    err = capsys.readouterr().err
    assert f"{latin}: not valid UTF-8; read as Windows-1252" in err and "validity-corpora" not in err


def test_a_translation_folder_follows_its_own_manifest_and_says_so(data_dir, tmp_path, capsys):
    # The flow compares what a folder's manifest.csv lists, not the folder's layout:
    # a broken one left every pair "not compared by the corpus flow" and said no more.
    corpus = tmp_path / "tr"
    shutil.copytree(DEMO / "translation", corpus)
    manifest = corpus / "manifest.csv"
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    manifest.write_text('source,target\n"unterminated,\n', encoding="utf-8")
    assert main(["evaluate", "translation", str(corpus), "-q", "--no-baselines"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {manifest.resolve()}: manifest lacks column(s) group "
        "(it needs source,target,group; its header is source,target)"
    )
    manifest.write_text("".join(lines[:3]), encoding="utf-8")  # two pairs of the layout's 15
    assert main(["evaluate", "translation", str(corpus), "-q", "--no-baselines"]) == 1
    out, err = capsys.readouterr()
    assert "translation: 2 of 15 pairs compared" in out
    [line] = err.strip().splitlines()
    assert line.startswith("error: 13 pairs (") and line.endswith(
        f"not listed in {corpus / 'manifest.csv'}, the pairs the corpus flow compares"
    )


def test_report_without_any_report(data_dir, capsys):
    assert main(["report"]) == 1
    assert "no report here" in capsys.readouterr().err


def test_evaluate_plagiarism_then_report(data_dir, capsys):
    assert main(["evaluate", "plagiarism", str(DEMO / "plagiarism"), "--no-baselines", "-q"]) == 0
    out = capsys.readouterr().out
    assert "plagiarism: 12 of 12 pairs compared" in out and "rho" in out
    report_line = next(line for line in out.splitlines() if line.startswith("report: "))
    summary = Path(report_line.removeprefix("report: "))
    assert summary.parent.parent == data_dir / "reports" and summary.is_file()
    assert main(["report"]) == 0
    assert "# Plagiarism evaluation" in capsys.readouterr().out
    assert main(["report", "--path"]) == 0
    assert capsys.readouterr().out.strip() == str(summary.parent)


def test_evaluate_missing_corpus_exit_2(data_dir, tmp_path, capsys):
    assert main(["evaluate", "translation", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {tmp_path / 'nope'}: no such corpus folder"
    # A file, or a link to nothing, was "no such corpus folder" too.
    (tmp_path / "x.csv").write_text("a,b\n")
    (tmp_path / "dangling").symlink_to(tmp_path / "nope")
    for kind, given, says in (
        ("plagiarism", "x.csv", "a file, not a corpus folder (give the folder that holds the documents)"),
        ("analogy", "dangling", "a symbolic link to nothing (no such corpus folder)"),
    ):
        assert main(["evaluate", kind, str(tmp_path / given)]) == 2
        assert capsys.readouterr().err.strip() == f"error: {tmp_path / given}: {says}"


def test_a_failed_document_is_named_once_in_its_problem_line(data_dir, tmp_path, capsys, monkeypatch):
    corpus = tmp_path / "pl"
    shutil.copytree(DEMO / "plagiarism", corpus)
    (corpus / "taska_cut.txt").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the corpus given by a relative path, the run's failure by the resolved one
    assert main(["evaluate", "plagiarism", "pl", "--no-baselines", "-q", "--out", str(tmp_path / "rep")]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    [line] = [e for e in errors if "taska_cut.txt" in e and "empty file" in e]
    assert line.startswith(f"error: {corpus / 'taska_cut.txt'}: empty file"), line
    assert f"taska_cut.txt: {corpus}" not in line, line  # not "X: X: ..."


def test_a_bad_original_and_a_bad_answer_are_one_line_each(data_dir, tmp_path, capsys):
    # The pairs the flow skipped for a bad document, and the baselines' own read of
    # it, were lines of their own (7 lines for 2 files) and every row of the
    # original carried the skips of its other pairs.
    import csv

    corpus = tmp_path / "pl"
    shutil.copytree(DEMO / "plagiarism", corpus)
    (corpus / "orig_taska.txt").write_bytes(b"\x00\x00junk")
    (corpus / "taska_cut.txt").write_bytes(b"")
    assert main(["evaluate", "plagiarism", str(corpus), "-q", "--out", str(tmp_path / "rep")]) == 1
    errors = sorted(line for line in capsys.readouterr().err.splitlines() if line.startswith("error: "))
    original = f"{corpus / 'orig_taska.txt'}: binary data, not text (contains NUL bytes)"
    answer = f"{corpus / 'taska_cut.txt'}: empty file"
    assert errors == sorted([f"error: {original}", f"error: {answer}"])
    with open(tmp_path / "rep" / "scores.csv", newline="", encoding="utf-8") as fh:
        failed = {
            Path(r["target"]).name: set(r["error"].split("; ")) for r in csv.DictReader(fh) if r["error"]
        }
    assert failed == {
        "taska_cut.txt": {original, answer},
        "taska_light.txt": {original},
        "taska_heavy.txt": {original},
        "taska_non.txt": {original},
    }


def test_a_search_with_bad_files_says_each_once_and_exits_1(data_dir, tmp_path, capsys):
    corpus = tmp_path / "stories"
    corpus.mkdir()
    for name in ("solar-system.txt", "rutherford-atom.txt", "bread.txt"):
        shutil.copy(DEMO / "analogy" / name, corpus / name)
    (corpus / "junk.txt").write_bytes(bytes(range(256)) * 12)
    (corpus / "empty.txt").write_bytes(b"")
    assert main(["evaluate", "analogy", str(corpus), "--target", "solar-system.txt", "-q"]) == 1
    out, err = capsys.readouterr()
    assert "rutherford-atom.txt" in out  # the good sources are still ranked
    errors = err.strip().splitlines()
    assert len(errors) == len(set(errors)) and all(line.startswith("error: ") for line in errors)
    assert any(line.startswith(f"error: {corpus / 'empty.txt'}: empty file") for line in errors)
    assert any(line.startswith(f"error: {corpus / 'junk.txt'}: ") for line in errors)
    # A target that cannot be read fails every pair: its reason, once.
    assert main(["evaluate", "analogy", str(corpus), "--target", "junk.txt", "-q"]) == 1
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == len(set(errors)) and any(f"{corpus / 'junk.txt'}: " in line for line in errors)


def test_an_undefined_correlation_is_printed_as_n_a_with_its_pair_count(capsys):
    # One rated pair printed "pearson nan [nan, nan]" for every score.
    from dri.commands.evaluate import _print_validity
    from dri.metrics.results import EvaluationResult
    from dri.metrics.validity import Estimate, JudgementStats

    nan = float("nan")
    result = EvaluationResult("judgements", [])
    result.validity = JudgementStats(
        {"content": {"pearson": Estimate(0.5, 0.25, 0.75, 10), "spearman": Estimate(nan, nan, nan, 1)}}
    )
    _print_validity(result)
    assert capsys.readouterr().out == "  content: pearson 0.500 [0.250, 0.750]; spearman n/a (n = 1)\n"


def test_a_translation_corpus_of_no_pairs_says_why(data_dir, tmp_path, capsys):
    # It said "no original/round-trip pairs to compare", and the loader's reasons were lost.
    corpus = tmp_path / "k8"
    (corpus / "originals").mkdir(parents=True)
    (corpus / "roundtrip" / "spa").mkdir(parents=True)
    (corpus / "originals" / "Bees.txt").write_text("Bees make honey.\n", encoding="utf-8")
    (corpus / "roundtrip" / "spa" / "bees.txt").write_text("Bees make honey.\n", encoding="utf-8")
    assert main(["evaluate", "translation", str(corpus), "-q"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"error: {corpus}: no original/round-trip pairs to compare "
        f"({corpus / 'roundtrip' / 'spa' / 'bees.txt'}: no original originals/bees.txt; and 1 more)"
    ]


def test_a_long_statistics_step_says_how_far_it_is_and_the_summary_its_time(
    data_dir, tmp_path, capsys, monkeypatch
):
    from dri.commands import evaluate as command

    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "a,b,score\nThe sun attracts the planets.,The nucleus attracts the electrons.,4\n"
        "The dog ate the bone.,The sun is hot.,1\nThe sun is hot.,The fire is hot.,3\n",
        encoding="utf-8",
    )
    assert main(["evaluate", "judgements", str(pairs), "--no-baselines", "--out", str(tmp_path / "a")]) == 0
    out, err = capsys.readouterr()
    # Statistics of 3 pairs are quick: no line says how far they are.
    assert "statistics:" not in err and "[3/3] line 4 (pairs): AS" in err
    assert (
        "judgements: 3 of 3 pairs compared in " in out and ", statistics in " in out and " s in all)" in out
    )
    monkeypatch.setattr(command, "QUIET_SECONDS", 0.0)  # every step long enough to be shown
    assert main(["evaluate", "judgements", str(pairs), "--no-baselines", "--out", str(tmp_path / "b")]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    shown = [line for line in lines if "statistics: bootstrap resamples" in line]
    assert shown[0] == "[100/1000] statistics: bootstrap resamples" and shown[-1].startswith("[1000/1000]")
    rows = [i for i, line in enumerate(lines) if line.startswith("[3/3] line 4 (pairs): AS ")]
    assert len(shown) == 10 and rows and lines.index(shown[0]) > rows[0]  # after the rows
    assert any(line.endswith("pairs mapped") for line in lines[: rows[0]])  # the flow, as it maps
    assert (
        main(
            ["evaluate", "judgements", str(pairs), "--no-baselines", "--quiet", "--out", str(tmp_path / "c")]
        )
        == 0
    )
    assert capsys.readouterr().err == ""


def test_a_step_is_shown_once_it_has_run_a_few_seconds(monkeypatch, capsys):
    from dri.commands import evaluate as command

    clock = [100.0]
    monkeypatch.setattr(command.time, "monotonic", lambda: clock[0])
    report = command._StepProgress()
    for done in range(0, 51, 10):  # a step done within QUIET_SECONDS says nothing
        clock[0] += 0.1
        report(done, 50, "queries ranked")
    assert capsys.readouterr().err == ""
    for done in range(0, 1001, 10):  # a long one, a second per ten resamples: from its third second
        report(done, 1000, "statistics: bootstrap resamples")
        clock[0] += 1.0
    shown = capsys.readouterr().err.splitlines()
    assert shown[0] == "[100/1000] statistics: bootstrap resamples" and len(shown) == 10
    assert shown[-1] == "[1000/1000] statistics: bootstrap resamples"
