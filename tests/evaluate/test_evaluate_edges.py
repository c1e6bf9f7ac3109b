"""``dri evaluate`` with hostile input through the real CLI: numbers at the
edge of float range, names that are markup, a report folder already in use.
No input may end in exit 70 (a bug) or a raw warning on the console."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

from dri.cli import BUG_STATUS, main
from dri.staging import REPORT_INCOMPLETE, REPORT_RECORD

PAIRS = [
    ("The sun attracts the planet.", "The nucleus attracts the electron.", "3"),
    ("The dog chases the cat.", "The cat chases the mouse.", "1e308"),
    ("A man walks home.", "A woman walks home.", "1e999"),
    ("The bird sings a song.", "The girl sings a song.", "nan"),
    ("The boy reads a book.", "The girl reads a letter.", "2"),
    ("The king rules the land.", "The queen rules the sea.", "-inf"),
    ("The wind moves the boat.", "The river moves the log.", "1e99"),
]


def _judgements(path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "score"])
        writer.writerows(PAIRS)
    return path


def test_scores_beyond_float_range_are_one_line_each_and_the_rest_is_reported(tmp_path, capsys):
    out = tmp_path / "report"
    status = main(
        [
            "evaluate",
            "judgements",
            str(_judgements(tmp_path / "rated.csv")),
            "--out",
            str(out),
            "-q",
            "--no-baselines",
        ]
    )
    captured = capsys.readouterr()
    assert status == 1 != BUG_STATUS
    errors = [line for line in captured.err.splitlines() if line.startswith("error:")]
    assert [e.split(": line ")[1].split(":")[0] for e in errors] == ["3", "4", "5", "7"]
    assert "out of range" in errors[0] and all("not a finite number" in e for e in errors[1:])
    assert "Warning" not in captured.err and "Traceback" not in captured.err
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    assert stats["pairs"] == 3
    assert (out / "index.html").is_file()

    # The same --out again: refused before any work, the report left as it was.
    before = (out / "stats.json").read_bytes()
    assert main(["evaluate", "judgements", str(tmp_path / "rated.csv"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        f"error: {out}: holds an earlier report (summary.md); add --force to replace it, or choose another --out"
    )
    assert (out / "stats.json").read_bytes() == before
    # --force lets it through to the input (here a file with nothing usable).
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,score\nx,y,inf\n", encoding="utf-8")
    assert main(["evaluate", "judgements", str(bad), "--out", str(out), "--force"]) == 2
    assert "no usable rows" in capsys.readouterr().err


def test_a_text_too_long_to_parse_gets_no_baselines_either(tmp_path, capsys, monkeypatch):
    # The extractor refused it, and the encoder baseline then ran over all of it
    # (a 2.6 MB cell: over 5 minutes before the rest of the report).
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "2000")
    rated = tmp_path / "rated.csv"
    with rated.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(
            [["a", "b", "score"], [*PAIRS[0]], ["The dog chases the cat. " * 200, "The cat runs.", "2"]]
        )
    out = tmp_path / "report"
    assert main(["evaluate", "judgements", str(rated), "--out", str(out), "-q"]) == 1
    rows = list(csv.DictReader((out / "scores.csv").open(encoding="utf-8")))
    assert [bool(r["error"]) for r in rows] == [False, True]
    assert "too long: 4,800 characters of text" in rows[1]["error"]
    assert rows[0]["encoder"] and rows[0]["tfidf_cosine"]
    assert rows[1]["encoder"] == rows[1]["tfidf_cosine"] == ""
    capsys.readouterr()


def test_an_input_named_as_a_report_file_is_never_written_over(tmp_path, capsys):
    # --force replaced "the earlier report": the judgement file itself, a scores.csv in --out.
    out = tmp_path / "work"
    out.mkdir()
    rated = _judgements(out / "scores.csv")
    kept = rated.read_bytes()
    (tmp_path / "link.csv").symlink_to(rated)
    refused = f"error: {out}: holds the input file scores.csv, which the report would write over; choose another --out"
    for given in (rated, tmp_path / "link.csv"):
        for force in ([], ["--force"]):
            assert main(["evaluate", "judgements", str(given), "--out", str(out), "-q", *force]) == 2
            assert capsys.readouterr().err.strip() == refused
    assert rated.read_bytes() == kept and sorted(p.name for p in out.iterdir()) == ["scores.csv"]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def test_analogy_search_with_markup_in_names_writes_its_report_and_names_the_source(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    names = {
        "target.txt": "The nucleus attracts the electron. The electron orbits the nucleus.",
        "a$\\foo$b.txt": "The a$\\foo$b sun attracts the planet. The planet orbits the sun.",
        "=1+1 <script>.txt": "The magnet attracts the iron. The iron circles the magnet.",
    }
    for name, text in names.items():
        (corpus / name).write_text(text, encoding="utf-8")
    (corpus / "targets.txt").write_text("target.txt\n", encoding="utf-8")
    out = tmp_path / "report"
    status = main(["evaluate", "analogy", str(corpus), "--out", str(out), "--no-baselines"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    # Progress names each source, with the target as its group.
    progress = [line for line in captured.err.replace("\r", "\n").splitlines() if line.startswith("[")]
    assert progress and all("(target.txt)" in line for line in progress)
    assert not any(line.startswith("[1/2] target.txt") for line in progress)
    html = (out / "index.html").read_text(encoding="utf-8")
    tags = _Tags()
    tags.feed(html)
    assert "script" not in tags.tags
    # The inline pictures are XML with the names drawn as they are.
    for svg in html.split("<svg")[1:]:
        ET.fromstring("<svg" + svg.split("</svg>")[0] + "</svg>")
    assert "a$\\foo$b.txt" in html
    assert "&lt;script>" in (out / "summary.md").read_text(encoding="utf-8")
    with (out / "scores.csv").open(encoding="utf-8", newline="") as fh:
        cells = [cell for row in csv.reader(fh) for cell in row]
    assert cells and not any(cell.startswith("=") for cell in cells)


def test_a_document_gone_before_it_is_copied_costs_its_rows_only(tmp_path, capsys, monkeypatch):
    """A path side that vanishes between reading the CSV and copying the
    documents: one line per row naming the CSV, the line and the file, the
    other rows evaluated, exit 1 (before, the copy's FileNotFoundError stopped
    the whole evaluation)."""
    from dri.corpora.judgements import load_judgements
    from dri.evaluate import judgements

    for name, text in [
        ("sun.txt", "The sun attracts the planet."),
        ("atom.txt", "The nucleus attracts the electron."),
        ("gone.txt", "The dog chases the cat."),
    ]:
        (tmp_path / name).write_text(text, encoding="utf-8")
    rated = tmp_path / "rated.csv"
    rated.write_text(
        "a,b,score\n"
        "sun.txt,atom.txt,3\n"
        "gone.txt,The cat chases the mouse.,1\n"
        "The boy reads a book.,The girl reads a letter.,2\n"
        "atom.txt,gone.txt,0\n",
        encoding="utf-8",
    )

    def load_then_lose(path):
        data = load_judgements(path)
        (tmp_path / "gone.txt").unlink()
        return data

    monkeypatch.setattr(judgements, "load_judgements", load_then_lose)
    out = tmp_path / "report"
    status = main(["evaluate", "judgements", str(rated), "--out", str(out), "-q", "--no-baselines"])
    captured = capsys.readouterr()
    assert status == 1
    gone = tmp_path / "gone.txt"
    assert [line for line in captured.err.splitlines() if line.startswith("error:")] == [
        f"error: {rated}: line {n}: cannot read the document {gone} (no such file); left out" for n in (3, 5)
    ]
    assert "Traceback" not in captured.err
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    assert stats["pairs"] == 2


def test_analogy_sections_no_document_has_are_one_line_and_map_nothing(tmp_path, capsys, monkeypatch):
    """``--sections nosuch``: section names are open-ended, so the name is
    refused once the documents are read, naming the sections they have
    (before, every pair scored 0 and the report came with exit 0)."""
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "papers"
    corpus.mkdir()
    (corpus / "atom.txt").write_text(
        "Abstract\n\nThe electron orbits the nucleus.\n\nMethods\n\nThe farmer feeds the cows.\n",
        encoding="utf-8",
    )
    (corpus / "solar.txt").write_text("Abstract\n\nThe planet orbits the sun.\n", encoding="utf-8")
    (corpus / "targets.txt").write_text("atom.txt\n", encoding="utf-8")
    out = tmp_path / "report"
    argv = ["evaluate", "analogy", str(corpus), "--out", str(out), "-q", "--no-baselines"]
    assert main([*argv, "--sections", "nosuch"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {corpus}: no document has a sentence in the section(s) nosuch, so every pair would "
        "score 0; the sections the documents have: abstract, methods"
    ]
    assert not (out / "summary.md").exists()
    from dri.store import open_store

    with open_store() as store:
        assert store.counts()["comparisons"] == 0
    # One name a document has is enough, in any case.
    assert main([*argv, "--sections", "nosuch,Methods"]) == 0
    with open_store() as store:
        assert store.counts()["comparisons"] == 1


def test_a_line_of_targets_txt_naming_no_document_costs_that_target_only(tmp_path, capsys, monkeypatch):
    # One mistyped line stopped the whole search (exit 2); the others are searched now.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "atom.txt").write_text("The electron orbits the nucleus.\n", encoding="utf-8")
    (corpus / "solar.txt").write_text("The planet orbits the sun.\n", encoding="utf-8")
    (corpus / "targets.txt").write_text("atom.txt\nmissing.txt\n", encoding="utf-8")
    out = tmp_path / "report"
    assert main(["evaluate", "analogy", str(corpus), "--out", str(out), "-q", "--no-baselines"]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"error: {corpus / 'targets.txt'}: target 'missing.txt' is not a document of the corpus "
        f"{corpus}; left out"
    ]
    assert "solar.txt" in captured.out and "left out" in (out / "summary.md").read_text(encoding="utf-8")


def test_a_copy_of_the_target_is_no_row_of_its_search(tmp_path, capsys, monkeypatch):
    # It was a failed row, "not compared by the corpus flow" (exit 1); dri run leaves it out.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "atom.txt").write_text("The electron orbits the nucleus.\n", encoding="utf-8")
    (corpus / "copy.txt").write_text("The electron orbits the nucleus.\n", encoding="utf-8")
    (corpus / "solar.txt").write_text("The planet orbits the sun.\n", encoding="utf-8")
    out = tmp_path / "report"
    argv = [
        "evaluate",
        "analogy",
        str(corpus),
        "--target",
        "atom.txt",
        "--out",
        str(out),
        "-q",
        "--no-baselines",
    ]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    with (out / "scores.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [Path(r["source"]).name for r in rows] == ["solar.txt"] and rows[0]["error"] == ""


def test_a_ratings_store_that_cannot_be_read_is_a_warning_in_the_analogy_report(
    tmp_path, capsys, monkeypatch
):
    # A ratings store edited by hand left the report without its ratings, silently (exit 0).
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in {
        "target.txt": "The nucleus attracts the electron. The electron orbits the nucleus.",
        "sun.txt": "The sun attracts the planet. The planet orbits the sun.",
    }.items():
        (corpus / name).write_text(text, encoding="utf-8")
    (corpus / "targets.txt").write_text("target.txt\n", encoding="utf-8")
    store = tmp_path / "data" / "ratings" / "ratings.csv"
    store.parent.mkdir(parents=True)
    for text, says in [
        ("rater,pair\nr1,p1\n", "ratings need the columns"),
        ("rater,pair,novelty,usefulness,challenge\nr1,p1,3,4,5\nr2,p1,9,4,5\n", "line 3: novelty must be"),
    ]:
        store.write_text(text, encoding="utf-8")
        status = main(
            [
                "evaluate",
                "analogy",
                str(corpus),
                "--out",
                str(tmp_path / "r"),
                "--force",
                "-q",
                "--no-baselines",
            ]
        )
        err = capsys.readouterr().err
        assert status == 0, err
        [line] = [line for line in err.splitlines() if str(store) in line]
        assert line.startswith(f"WARNING dri.evaluate.analogy: {store}: ") and says in line, line
        assert line.endswith(
            ("the report leaves the expert ratings out", "the report's expert ratings leave them out")
        )


def test_a_corpus_name_of_255_bytes_gets_a_report_folder_that_fits(tmp_path, monkeypatch):
    # "analogy-" and the name were one 263-byte folder name: "File name too long"
    # after the whole evaluation.
    from dri.evaluate import default_report_dir

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    long_a, long_b = "é" * 127 + "a", "é" * 127 + "b"  # 255 bytes each, alike for 254
    first = default_report_dir("analogy", tmp_path / long_a)
    second = default_report_dir("analogy", tmp_path / long_b)
    assert first != second
    for folder in (first, second):
        assert len(folder.name.encode()) <= 255 and folder.name.startswith("analogy-éé")
        folder.mkdir(parents=True)
    assert default_report_dir("analogy", tmp_path / "short").name == "analogy-short"


def test_a_column_named_source_in_any_case_and_a_binary_document_are_reported_by_the_users_names(
    tmp_path, capsys
):
    # "Source" became the manifest's second "source" column: the tool refused
    # the manifest it had written itself. The Problems section named the
    # pair by its copies' hashed names in the data folder.
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01binary\x00" * 20)
    rated = tmp_path / "rated.csv"
    rated.write_text(
        "a,b,score,Source\nbin.txt,The cat sits.,1,wiki\n"
        "The sun heats the sea.,The fire heats the pot.,2,news\nThe dog barks.,A dog is barking.,4,web\n",
        encoding="utf-8",
    )
    out = tmp_path / "report"
    assert main(["evaluate", "judgements", str(rated), "--out", str(out), "-q", "--no-baselines"]) == 1
    capsys.readouterr()
    rows = list(csv.DictReader((out / "scores.csv").open(encoding="utf-8")))
    assert [r["file_Source"] for r in rows] == ["wiki", "news", "web"]
    summary = (out / "summary.md").read_text(encoding="utf-8")
    problems = summary.split("## Problems", 1)[1].split("\n\n")[1]
    assert problems == f"- {tmp_path / 'bin.txt'}: binary data, not text (contains NUL bytes)"


def test_a_users_file_of_a_report_files_name_or_a_link_to_the_input_in_out_is_refused(tmp_path, capsys):
    # validity.json and scatter.png were replaced without --force; a link
    # called validity.json wrote the report's statistics into the input.
    rated = _judgements(tmp_path / "rated.csv")
    kept = rated.read_bytes()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "scatter.png").write_bytes(b"my picture")
    assert main(["evaluate", "judgements", str(rated), "--out", str(mine), "-q"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: {mine}: holds an earlier report (scatter.png); add --force to replace it, or choose another --out"
    )
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "validity.json").symlink_to(rated)
    for force in ([], ["--force"]):
        assert main(["evaluate", "judgements", str(rated), "--out", str(linked), "-q", *force]) == 2
        assert capsys.readouterr().err.strip() == (
            f"error: {linked}: its validity.json links to the input file rated.csv, which the report "
            "would write over; choose another --out"
        )
    assert rated.read_bytes() == kept and (mine / "scatter.png").read_bytes() == b"my picture"


def _small_plagiarism(root: Path) -> Path:
    root.mkdir()
    (root / "orig_taska.txt").write_text("The cat chased the mouse across the kitchen.\n", encoding="utf-8")
    (root / "taska_cut.txt").write_text("The cat chased the mouse across the hall.\n", encoding="utf-8")
    (root / "taska_non.txt").write_text("A dog slept in the garden all afternoon.\n", encoding="utf-8")
    (root / "file_information.csv").write_text(
        "File,Task,Category\ntaska_cut.txt,a,cut\ntaska_non.txt,a,non\norig_taska.txt,a,orig\n",
        encoding="utf-8",
    )
    return root


def test_a_document_linked_out_of_the_corpus_gets_no_baselines_and_its_own_reason(tmp_path, capsys):
    # /etc/hostname was read and scored by the baselines of a pair whose document
    # the flow refused, and the row's error took another pair's skip line too.
    corpus = _small_plagiarism(tmp_path / "p")
    outside = tmp_path / "outside.txt"
    outside.write_text("The cat chased the mouse across the kitchen.\n", encoding="utf-8")
    (corpus / "taska_light.txt").symlink_to(outside)
    (corpus / "empty.txt").write_text("")
    with (corpus / "file_information.csv").open("a", encoding="utf-8") as fh:
        fh.write("taska_light.txt,a,light\nempty.txt,a,heavy\n")
    out = tmp_path / "report"
    assert main(["evaluate", "plagiarism", str(corpus), "--out", str(out), "-q"]) == 1
    capsys.readouterr()
    rows = {
        r["target"].rsplit("/", 1)[-1]: r for r in csv.DictReader((out / "scores.csv").open(encoding="utf-8"))
    }
    light = rows["taska_light.txt"]
    assert light["tfidf_cosine"] == light["chrf"] == light["encoder"] == ""
    assert "refused" in light["error"] and "empty.txt" not in light["error"]
    assert rows["taska_cut.txt"]["tfidf_cosine"] and not rows["taska_cut.txt"]["error"]


def test_a_corpus_file_linked_out_of_the_corpus_is_refused_without_quoting_it(tmp_path, capsys):
    # A manifest.csv linked to a file of secrets was read and its first line quoted.
    secret = tmp_path / "secret.env"
    secret.write_text("API_KEY=sk-live-123456\n", encoding="utf-8")
    corpus = _small_plagiarism(tmp_path / "p")
    (corpus / "file_information.csv").unlink()
    (corpus / "file_information.csv").symlink_to(secret)
    assert main(["evaluate", "plagiarism", str(corpus), "-q", "--out", str(tmp_path / "r")]) != 0
    err = capsys.readouterr().err
    assert "sk-live" not in err and "outside the folder" in err


def test_a_copy_of_the_target_named_in_targets_txt_is_no_hit_and_a_rerun_is_stored_once(
    tmp_path, capsys, monkeypatch
):
    # With --target the copy was left out; with targets.txt it ranked first, AS 1.000.
    # The same evaluation from another spelling of the corpus path was a second record.
    corpus = tmp_path / "a"
    corpus.mkdir()
    (corpus / "atom.txt").write_text("The electron orbits the nucleus. The nucleus attracts the electron.\n")
    (corpus / "atom-copy.txt").write_bytes((corpus / "atom.txt").read_bytes())
    (corpus / "solar.txt").write_text("The planet orbits the sun. The sun attracts the planet.\n")
    (corpus / "targets.txt").write_text("atom.txt\n")
    monkeypatch.chdir(tmp_path)
    from dri.store import open_store

    counts = []
    for given in ("a", str(corpus), "./a/"):
        out = tmp_path / "report"
        assert main(["evaluate", "analogy", given, "--out", str(out), "--force", "-q", "--no-baselines"]) == 0
        with open_store() as store:  # the session's evaluation store (tests/conftest.py)
            counts.append(store.counts()["evaluations"])
    capsys.readouterr()
    rows = list(csv.DictReader((out / "scores.csv").open(encoding="utf-8")))
    assert [r["source"].rsplit("/", 1)[-1] for r in rows] == ["solar.txt"]
    assert counts[0] == counts[1] == counts[2]


def test_an_evaluation_resolves_each_path_once_and_no_other_call_is_cached(tmp_path, monkeypatch):
    from dri.evaluate import core

    target = tmp_path / "a.txt"
    target.write_text("A.", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    calls: list[str] = []
    real = core.Path.resolve
    monkeypatch.setattr(
        core.Path, "resolve", lambda self, *a, **k: calls.append(str(self)) or real(self, *a, **k)
    )
    with core._resolving_once():
        assert {core.resolved_path(link) for _ in range(50)} == {str(target)}
        assert core.resolved_path(str(link)) == str(target) and core._realpath(str(link)) == str(target)
    assert calls == [str(link)]
    # Outside an evaluation nothing is kept: a link pointed elsewhere is seen.
    other = tmp_path / "b.txt"
    other.write_text("B.", encoding="utf-8")
    link.unlink()
    link.symlink_to(other)
    assert core.resolved_path(link) == str(other) and core._realpath(str(link)) == str(other)


def test_a_report_folder_left_part_written_is_refused_by_report_and_replaced_by_evaluate(
    tmp_path, capsys, monkeypatch
):
    # kill -9 while a report's files moved in left two reports mixed in one
    # folder with nothing to tell: dri report showed it as whole.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    rated = _judgements(tmp_path / "rated.csv")
    out = tmp_path / "report"
    argv = ["evaluate", "judgements", str(rated), "--out", str(out), "-q", "--no-baselines"]
    assert main(argv) == 1  # the rows out of float range
    capsys.readouterr()
    # As files_together leaves it when stopped between two moves: its mark, naming
    # the files of both reports (ranking.png of the other one, not moved over yet).
    (out / "ranking.png").write_bytes(b"the other report's picture")
    names = (out / REPORT_RECORD).read_text(encoding="utf-8")
    (out / REPORT_INCOMPLETE).write_text(names + "ranking.png\n", encoding="utf-8")
    assert main(["report", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {out}: a report left part-written (a dri command was stopped while moving its files in, "
        "or is moving them now); run its dri evaluate again with --out naming this folder"
    ]
    # Run again without --force, the folder is the stopped command's to finish, as the message says.
    assert main(argv) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"note: {out}: holds a report left part-written (a dri command was stopped while moving its "
        "files in); this report replaces it"
    )
    assert not (out / REPORT_INCOMPLETE).exists() and not (out / "ranking.png").exists()
    assert main(["report", str(out)]) == 0
    assert "(report folder:" in capsys.readouterr().out
