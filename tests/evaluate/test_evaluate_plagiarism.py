"""The plagiarism evaluation's reading of a corpus's own ``manifest.csv``
(``dri.evaluate.plagiarism``): a row that is no pair of ``file_information.csv``
is named, by the manifest's file and line, and the index's pairs are evaluated."""

from __future__ import annotations

import shutil
from pathlib import Path

from dri.corpora.plagiarism import load_plagiarism
from dri.evaluate.plagiarism import manifest_problems, plagiarism_evaluation

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "plagiarism"

#: Rows after a good one, and what each is said to be.
BAD_ROWS = {
    "/etc/hostname,taska_non.txt,non": "/etc/hostname: outside the corpus folder",
    "link.txt,taska_non.txt,non": "link.txt: refused, a symbolic link to {outside}, outside the corpus "
    "folder (only dri run --allow-outside-links follows such links)",
    "dang.txt,taska_non.txt,non": "dang.txt: no such file (a symbolic link to {nope})",
    "orig_taska.txt,sub,non": "sub: a folder, not a text",
    "taska_cut.txt,taska_non.txt,non": "taska_cut.txt: not an original the evaluation compares "
    "(Category orig in file_information.csv)",
    "orig_taska.txt,orig_taskb.txt,non": "orig_taskb.txt: not an answer the evaluation compares "
    "(listed in file_information.csv, with its task's original)",
    "orig_taskb.txt,taska_cut.txt,cut": "taska_cut.txt is not an answer to orig_taskb.txt "
    "(file_information.csv gives each answer's task)",
    "orig_taska.txt,taska_heavy.txt,cut": "its group 'cut' is not the level of its answer, heavy",
}


def _bad_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "bad"
    shutil.copytree(DEMO, corpus)
    outside = tmp_path / "outside.txt"
    outside.write_text("The sun attracts the planets.\n", encoding="utf-8")
    (corpus / "link.txt").symlink_to(outside)
    (corpus / "dang.txt").symlink_to(tmp_path / "nope")
    (corpus / "sub").mkdir()
    rows = ["orig_taska.txt,taska_cut.txt,cut", *BAD_ROWS]
    (corpus / "manifest.csv").write_text("source,target,group\n" + "".join(f"{r}\n" for r in rows))
    return corpus


def test_each_manifest_row_that_is_no_pair_of_the_index_is_named_by_its_line(tmp_path):
    # The flow compares the manifest's rows and the evaluation the index's pairs:
    # these rows were left out without a word.
    corpus = _bad_corpus(tmp_path)
    expected = [
        f"{corpus / 'manifest.csv'}: line {3 + i}: "
        + says.format(outside=tmp_path.resolve() / "outside.txt", nope=tmp_path / "nope")
        + "; left out of the evaluation"
        for i, says in enumerate(BAD_ROWS.values())
    ]
    assert manifest_problems(load_plagiarism(corpus)) == expected
    evaluation = plagiarism_evaluation(corpus)
    assert len(evaluation.pairs) == 12  # the index's pairs, all still compared
    assert evaluation.problems == expected


def test_a_plagiarism_corpus_without_a_manifest_or_with_its_own_pairs_has_no_row_problems(tmp_path):
    assert manifest_problems(load_plagiarism(DEMO)) == []
    corpus = tmp_path / "c"
    shutil.copytree(DEMO, corpus)
    pairs = load_plagiarism(corpus).pairs
    rows = "".join(f"{p.original.name},{p.answer.name},{p.level}\n" for p in pairs)
    (corpus / "manifest.csv").write_text("source,target,group\n" + rows)
    assert manifest_problems(load_plagiarism(corpus)) == []
