"""The translation evaluation's reading of a corpus's own ``manifest.csv``
(``dri.evaluate.translation``): a row that is no pair of the folder's layout
is named, by the manifest's file and line, and the rest is evaluated."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dri.cli import main
from dri.corpora.text import CorpusError
from dri.corpora.translation import load_translation
from dri.evaluate.translation import manifest_problems, translation_evaluation

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "translation"

#: Rows appended to the demo's manifest, and what each is said to be.
BAD_ROWS = {
    "../../etc/passwd,roundtrip/spa/vaccines.txt,spa": "../../etc/passwd: outside the corpus folder",
    "originals/vaccines.txt,/etc/hostname,spa": "/etc/hostname: outside the corpus folder",
    "originals/link.txt,roundtrip/spa/vaccines.txt,spa": "originals/link.txt: refused, a symbolic link to "
    "{outside}, outside the corpus folder (only dri run --allow-outside-links follows such links)",
    "originals/dang.txt,roundtrip/spa/vaccines.txt,spa": "originals/dang.txt: a symbolic link to {nope}, "
    "which is not there",
    "originals/nosuch.txt,roundtrip/spa/vaccines.txt,spa": "originals/nosuch.txt: no such file",
    "originals/vaccines.txt,pivot/spa/vaccines.spa,spa": "pivot/spa/vaccines.spa: not a round trip the "
    "evaluation compares (roundtrip/<lang>/NAME.txt, of an original)",
    "originals,roundtrip/spa/vaccines.txt,spa": "originals: a folder, not a text",
    "originals/vaccines.txt,roundtrip/spa/honeybees.txt,spa": "roundtrip/spa/honeybees.txt is not a round "
    "trip of originals/vaccines.txt (roundtrip/<lang>/ holds each under its original's name)",
    "originals/vaccines.txt,roundtrip/spa/vaccines.txt,cat": "its group 'cat' is not the language of its "
    "round trip, spa",
}


def _bad_corpus(tmp_path: Path) -> tuple[Path, int]:
    """The demo corpus with links in ``originals/`` and :data:`BAD_ROWS` after
    its manifest's rows; the line of the first of them."""
    corpus = tmp_path / "bad"
    shutil.copytree(DEMO, corpus)
    outside = tmp_path / "outside.txt"
    outside.write_text("The sun attracts the planets.\n", encoding="utf-8")
    (corpus / "originals" / "link.txt").symlink_to(outside)
    (corpus / "originals" / "dang.txt").symlink_to(tmp_path / "nope")
    manifest = corpus / "manifest.csv"
    first = len(manifest.read_text(encoding="utf-8").splitlines()) + 1
    with manifest.open("a", encoding="utf-8") as fh:
        fh.writelines(f"{row}\n" for row in BAD_ROWS)
    return corpus, first


def _expected(corpus: Path, first: int, tmp_path: Path) -> list[str]:
    return [
        f"{corpus / 'manifest.csv'}: line {first + i}: "
        + says.format(outside=tmp_path / "outside.txt", nope=tmp_path / "nope")
        + "; left out of the evaluation"
        for i, says in enumerate(BAD_ROWS.values())
    ]


def test_each_manifest_row_outside_the_layout_is_a_problem_naming_its_line(tmp_path):
    # The evaluation compares the layout's pairs, and these rows were left out
    # without a word, where dri run --mode manifest named each of them.
    corpus, first = _bad_corpus(tmp_path)
    assert manifest_problems(load_translation(corpus)) == _expected(corpus, first, tmp_path)
    evaluation = translation_evaluation(corpus)
    assert len(evaluation.pairs) == 15  # the demo's pairs, all still compared
    assert set(_expected(corpus, first, tmp_path)) <= set(evaluation.problems)


def test_a_manifest_of_the_layouts_own_pairs_or_none_is_no_problem(tmp_path):
    assert manifest_problems(load_translation(DEMO)) == []
    corpus = tmp_path / "c"
    shutil.copytree(DEMO, corpus)
    (corpus / "manifest.csv").unlink()
    assert manifest_problems(load_translation(corpus)) == []


def test_a_manifest_that_cannot_be_read_is_one_line_and_the_layout_is_evaluated(tmp_path):
    corpus = tmp_path / "c"
    shutil.copytree(DEMO, corpus)
    (corpus / "manifest.csv").write_text("source,target\nx,y\n", encoding="utf-8")
    [problem] = manifest_problems(load_translation(corpus))
    assert problem.startswith(f"{corpus / 'manifest.csv'}: manifest lacks column(s) group")
    assert problem.endswith("; its rows are not checked against the layout")


def test_dri_evaluate_translation_names_the_bad_rows_and_evaluates_the_rest(tmp_path, capsys):
    corpus, first = _bad_corpus(tmp_path)
    out = tmp_path / "report"
    assert main(["evaluate", "translation", str(corpus), "--no-baselines", "-q", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    errors = [line.removeprefix("error: ") for line in captured.err.splitlines()]
    assert set(_expected(corpus, first, tmp_path)) <= set(errors)
    # The unread links are told on their rows alone, not by a line of their own besides.
    assert not [
        e
        for e in errors
        if e.startswith((str(corpus / "originals" / "link.txt"), str(corpus / "originals" / "dang.txt")))
    ]
    assert "translation: 15 of 15 pairs compared" in captured.out
    assert (out / "scores.csv").is_file()


def test_the_evaluation_names_layout_files_that_are_no_texts_and_evaluates_the_rest(tmp_path):
    # A FIFO or a link to nothing in originals/ or roundtrip/<lang>/ was skipped
    # without a word; a link out of the folder was an original "with no round trip" in four languages.
    corpus = tmp_path / "c"
    shutil.copytree(DEMO, corpus)
    (corpus / "manifest.csv").unlink()
    os.mkfifo(corpus / "roundtrip" / "spa" / "fifo.txt")
    (corpus / "originals" / "dang.txt").symlink_to(tmp_path / "nope")
    (tmp_path / "outside.txt").write_text("The sun attracts the planets.\n", encoding="utf-8")
    (corpus / "originals" / "out.txt").symlink_to(tmp_path / "outside.txt")
    evaluation = translation_evaluation(corpus)
    assert len(evaluation.pairs) == 15
    assert evaluation.problems == [
        f"{corpus / 'originals' / 'dang.txt'}: a symbolic link to {tmp_path / 'nope'}, which is not there; left out",
        f"{corpus / 'originals' / 'out.txt'}: refused, a symbolic link to {tmp_path.resolve() / 'outside.txt'}, "
        "outside the corpus folder (only dri run --allow-outside-links follows such links)",
        f"{corpus / 'roundtrip' / 'spa' / 'fifo.txt'}: a FIFO (named pipe), not a text file; left out",
    ]


def test_an_unread_text_a_manifest_row_names_is_one_line_on_its_row(tmp_path):
    # A round trip that is a FIFO or a link out of the folder, named by its row, was
    # two lines: the layout's ("a FIFO (named pipe), not a text file; left out") and
    # the row's ("line 15: roundtrip/spa/vaccines.txt: not a round trip the evaluation compares").
    corpus = tmp_path / "c"
    shutil.copytree(DEMO, corpus)
    spa, cat = corpus / "roundtrip" / "spa", corpus / "roundtrip" / "cat"
    (spa / "vaccines.txt").unlink()
    os.mkfifo(spa / "vaccines.txt")
    (tmp_path / "outside.txt").write_text("The sun attracts the planets.\n", encoding="utf-8")
    (cat / "honeybees.txt").unlink()
    (cat / "honeybees.txt").symlink_to(tmp_path / "outside.txt")
    os.mkfifo(spa / "stray.txt")  # named by no row, and by a row told about its other end
    with (corpus / "manifest.csv").open("a", encoding="utf-8") as fh:
        fh.write("/etc/hostname,roundtrip/spa/stray.txt,spa\n")
    manifest = corpus / "manifest.csv"
    refused = (
        f"refused, a symbolic link to {tmp_path.resolve() / 'outside.txt'}, outside the corpus folder "
        "(only dri run --allow-outside-links follows such links)"
    )
    assert translation_evaluation(corpus).problems == [
        f"{spa / 'stray.txt'}: a FIFO (named pipe), not a text file; left out",
        f"{manifest}: line 2: roundtrip/cat/honeybees.txt: {refused}; left out of the evaluation",
        f"{manifest}: line 15: roundtrip/spa/vaccines.txt: a FIFO (named pipe), not a text file; "
        "left out of the evaluation",
        f"{manifest}: line 17: /etc/hostname: outside the corpus folder; left out of the evaluation",
    ]
    # A manifest that cannot be read tells no row: every unread text has its own line.
    manifest.write_text("source,target\nx,y\n", encoding="utf-8")
    problems = translation_evaluation(corpus).problems
    assert problems[:3] == [
        f"{cat / 'honeybees.txt'}: {refused}",
        f"{spa / 'stray.txt'}: a FIFO (named pipe), not a text file; left out",
        f"{spa / 'vaccines.txt'}: a FIFO (named pipe), not a text file; left out",
    ]
    assert len(problems) == 4 and problems[3].endswith("; its rows are not checked against the layout")


def test_a_corpus_whose_round_trips_are_all_unread_says_why_it_has_no_pairs(tmp_path):
    corpus = tmp_path / "c"
    (corpus / "originals").mkdir(parents=True)
    (corpus / "roundtrip" / "spa").mkdir(parents=True)
    (corpus / "originals" / "a.txt").write_text("A text.", encoding="utf-8")
    (corpus / "roundtrip" / "spa" / "a.txt").symlink_to(tmp_path / "nope")
    with pytest.raises(CorpusError) as err:
        translation_evaluation(corpus)
    assert str(err.value) == (
        f"{corpus}: no original/round-trip pairs to compare ({corpus / 'roundtrip' / 'spa' / 'a.txt'}: "
        f"a symbolic link to {tmp_path / 'nope'}, which is not there; left out)"
    )
