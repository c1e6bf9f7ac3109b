"""Malformed corpus files: each case is a one-line error naming the file and
line, or a documented behaviour (a repeated row is counted once, with a
warning), never a traceback."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from dri.corpora.manifest import read_manifest
from dri.corpora.plagiarism import load_plagiarism
from dri.corpora.ratings import import_ratings, read_ratings
from dri.corpora.text import CorpusError


def _plagiarism(folder: Path, index: str | bytes) -> Path:
    folder.mkdir(exist_ok=True)
    for name in ("orig_taska.txt", "g0pA_taska.txt", "g0pB_taska.txt"):
        (folder / name).write_text("The sun attracts the planets.\n", encoding="utf-8")
    data = index.encode("utf-8") if isinstance(index, str) else index
    (folder / "file_information.csv").write_bytes(data)
    return folder


INDEX = "File,Task,Category\norig_taska.txt,a,orig\ng0pA_taska.txt,a,cut\ng0pB_taska.txt,a,non\n"


def test_a_row_with_a_fourth_field_is_one_problem_naming_the_line(tmp_path):
    corpus = load_plagiarism(_plagiarism(tmp_path / "c", INDEX.replace("a,cut", "a,cut,extra")))
    assert [p.answer.name for p in corpus.pairs] == ["g0pB_taska.txt"]
    assert len(corpus.problems) == 1
    assert "file_information.csv: line 3: 4 fields, the header has 3" in corpus.problems[0]


def test_a_trailing_comma_is_harmless(tmp_path):
    corpus = load_plagiarism(
        _plagiarism(tmp_path / "c", INDEX.replace("\n", ",\n").replace("Category,", "Category"))
    )
    assert len(corpus.pairs) == 2 and corpus.problems == []


@pytest.mark.parametrize("encoding", ["utf-16", "cp1252", "utf-8-sig"])
def test_utf16_and_windows_1252_indexes_are_read(tmp_path, encoding):
    text = INDEX.replace("g0pB_taska.txt,a,non", "g0pB_taska.txt,a,non\nnaïve_é.txt,a,heavy")
    corpus = load_plagiarism(_plagiarism(tmp_path / "c", text.encode(encoding)))
    assert len(corpus.pairs) == 2
    assert corpus.problems == [
        f"{tmp_path / 'c' / 'naïve_é.txt'}: listed on line 5 of file_information.csv but missing"
    ]


def test_binary_junk_as_index_is_one_line(tmp_path):
    with pytest.raises(CorpusError, match=r"file_information.csv: binary data \(NUL bytes\)") as err:
        load_plagiarism(_plagiarism(tmp_path / "c", b"\x00\x01\x02garbage"))
    assert "\n" not in str(err.value)


def test_a_repeated_index_row_is_counted_once_with_a_warning(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    corpus = load_plagiarism(_plagiarism(tmp_path / "c", INDEX + "g0pA_taska.txt,a,cut\n"))
    assert [p.answer.name for p in corpus.pairs] == ["g0pA_taska.txt", "g0pB_taska.txt"]
    assert "line 5 repeats line 3; counted once" in caplog.text


@pytest.mark.parametrize("name", ["../outside.txt", "/etc/passwd"])
def test_an_index_cannot_point_outside_the_corpus(tmp_path, name):
    corpus = load_plagiarism(_plagiarism(tmp_path / "c", INDEX + f"{name},a,cut\n"))
    assert len(corpus.pairs) == 2
    assert corpus.problems == [
        f"{tmp_path / 'c' / 'file_information.csv'}: line 5: {name!r} is not a file name inside the corpus folder"
    ]


def test_a_repeated_manifest_row_is_compared_and_counted_once_with_a_warning(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(
        "source,target,group\na.txt,b.txt,x\na.txt,c.txt,x\na.txt,b.txt,x\n", encoding="utf-8"
    )
    pairs = read_manifest(manifest)
    assert [(p.source.name, p.target.name) for p in pairs] == [("a.txt", "b.txt"), ("a.txt", "c.txt")]
    assert f"{manifest}: line 4 repeats line 2; the pair is compared and counted once" in caplog.text


@pytest.mark.parametrize(
    "text, says",
    [
        (
            "source,target\na,b\n",
            "manifest lacks column(s) group (it needs source,target,group; its header is source,target)",
        ),
        ("", "empty file: a manifest starts with the header source,target,group"),
        # Blank lines only was "manifest lacks column(s) source, target, group".
        ("\n \n\r\n", "empty file: a manifest starts with the header source,target,group"),
        ("\n\nsource,target\na,b\n", "manifest lacks column(s) group"),
        # A run of no pairs ended with exit 0.
        (
            "source,target,group\n",
            "names no pair: a header and no rows but empty ones (one row a pair: source,target,group)",
        ),
        ("source,target,group\na,b,x,y\n", "line 2: 4 fields, the header has 3"),
        ("source,target,group\na,,x\n", "line 2: empty target"),
        ('source,target,group\n"a,b,x\n', "line 2: not valid CSV (unexpected end of data)"),
    ],
)
def test_a_bad_manifest_is_one_line_naming_file_and_line(tmp_path, text, says):
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        read_manifest(manifest)
    assert str(err.value).startswith(f"{manifest}: ") and says in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "NaN", "2.5", "0", "6"])
def test_ratings_that_are_not_whole_numbers_from_1_to_5_are_problems(tmp_path, value):
    path = tmp_path / "ratings.csv"
    path.write_text(
        f"rater,pair,novelty,usefulness,challenge\nr1,p,{value},3,3\nr2,p,4,4,4\n", encoding="utf-8"
    )
    rows, problems = read_ratings(path)
    assert [r["rater"] for r in rows] == ["r2"]
    assert problems == [f"{path}: line 2: novelty must be a whole number from 1 to 5, not {value!r}"]


def test_a_ratings_row_cut_short_is_a_problem(tmp_path):
    # Its missing ratings read as "not rated": a cut-off export was stored without a word.
    path = tmp_path / "ratings.csv"
    path.write_text(
        "rater,pair,novelty,usefulness,challenge\nr1,p,3,3\nr2,p,3\nr3,p,3,,\nr4,p,3,4,5,,\n",
        encoding="utf-8",
    )
    rows, problems = read_ratings(path)
    assert [(r["rater"], r["usefulness"]) for r in rows] == [("r3", None), ("r4", 4)]
    assert problems == [
        f"{path}: line 2: 4 fields, the header has 5",
        f"{path}: line 3: 3 fields, the header has 5",
    ]


def test_a_rating_under_a_name_too_long_for_a_csv_reader_is_a_problem(tmp_path):
    # Stored as it was, it made a ratings.csv that csv.reader refuses (field limit 131,072).
    path = tmp_path / "ratings.csv"
    path.write_text(
        f"rater,pair,novelty,usefulness,challenge\nr1,{'p' * 200_000},3,3,3\nr1,{'q' * 1000},2,2,2\n",
        encoding="utf-8",
    )
    rows, problems = read_ratings(path)
    assert [len(str(r["pair"])) for r in rows] == [1000]
    assert problems == [f"{path}: line 2: a rater or pair name of 200,000 characters; at most 1,000"]


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\r\n,\r\n"])
def test_an_empty_ratings_file_says_so(tmp_path, content):
    path = tmp_path / "ratings.csv"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match="empty file: ratings start with the header rater,pair,"):
        read_ratings(path)


def test_ratings_after_blank_lines_are_read(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("\n\nrater,pair,novelty,usefulness,challenge\nr1,p,3,4,5\n", encoding="utf-8")
    rows, problems = read_ratings(path)
    assert [(r["rater"], r["challenge"]) for r in rows] == [("r1", 5)] and problems == []


def test_ratings_in_windows_1252_are_read(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_bytes("rater,pair,novelty,usefulness,challenge\nJosé,café~thé,5,4,4\n".encode("cp1252"))
    rows, problems = read_ratings(path)
    assert rows == [{"rater": "José", "pair": "café~thé", "novelty": 5, "usefulness": 4, "challenge": 4}]
    assert problems == []


def test_a_header_naming_a_column_twice_is_one_line_in_every_corpus_table(tmp_path):
    # Each took the last of the two silently (a rating of 4 where the rater wrote 3).
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("rater,pair,novelty,novelty,usefulness,challenge\nr1,p1,3,4,5,1\n", encoding="utf-8")
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("source,target,group,group\na.txt,b.txt,g,h\n", encoding="utf-8")
    corpus = _plagiarism(tmp_path / "c", INDEX.replace("Category", "Category,Task"))
    cases = [
        (lambda: read_ratings(ratings), ratings, "novelty"),
        (lambda: read_manifest(manifest), manifest, "group"),
        (lambda: load_plagiarism(corpus), corpus / "file_information.csv", "Task"),
    ]
    for read, path, column in cases:
        with pytest.raises(CorpusError) as err:
            read()
        assert str(err.value) == f"{path}: line 1: the header names the column(s) {column} more than once"


def test_an_import_beside_a_stored_row_that_is_not_a_rating_keeps_the_store_as_it_is(tmp_path):
    # The store was rewritten with its valid rows only: the row edited by hand was gone.
    store = tmp_path / "ratings" / "ratings.csv"
    store.parent.mkdir()
    stored = "rater,pair,novelty,usefulness,challenge\nr1,p,3,4,5\nr9,p9,9,,\n"
    store.write_text(stored, encoding="utf-8")
    new = tmp_path / "new.csv"
    new.write_text("rater,pair,novelty,usefulness,challenge\nr2,p,1,1,1\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        import_ratings(new, store)
    assert str(err.value) == (
        f"{store}: line 3: novelty must be a whole number from 1 to 5, not '9'; "
        "nothing imported, so that no stored rating is lost: fix it first"
    )
    assert store.read_text(encoding="utf-8") == stored
    store.write_text(stored.replace("r9,p9,9", "r9,p9,2"), encoding="utf-8")
    assert import_ratings(new, store).total_stored == 3


def test_a_long_rating_value_is_shown_by_its_start(tmp_path):
    # A 5,000-digit number was echoed whole: an "error:" line of 5,000 characters.
    rated = tmp_path / "r.csv"
    rated.write_text(
        "rater,pair,novelty,usefulness,challenge\nr,p," + "9" * 5000 + ",1,1\n", encoding="utf-8"
    )
    _, problems = read_ratings(rated)
    assert problems == [
        f"{rated}: line 2: novelty must be a whole number from 1 to 5, not '{'9' * 40}'... (5,000 characters)"
    ]


def test_an_import_into_a_store_that_is_a_device_or_a_folder_is_refused(tmp_path):
    # A link to /dev/zero was "no ratings yet": "4 ratings imported ... 4 stored",
    # written into the device.
    store = tmp_path / "ratings" / "ratings.csv"
    store.parent.mkdir()
    store.symlink_to("/dev/zero")
    new = tmp_path / "new.csv"
    new.write_text("rater,pair,novelty,usefulness,challenge\nr2,p,1,1,1\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"ratings\.csv: is a character device"):
        import_ratings(new, store)
    store.unlink()
    store.mkdir()
    with pytest.raises(CorpusError, match=r"ratings\.csv: is a folder"):
        import_ratings(new, store)


def test_an_import_that_would_make_the_store_too_large_to_read_is_refused(tmp_path, monkeypatch):
    # Written, every later ratings command refused the store ("too large (119617821 bytes ...").
    from dri.corpora import ratings

    monkeypatch.setattr(ratings, "MAX_TABLE_BYTES", 200)
    store = tmp_path / "ratings.csv"
    new = tmp_path / "new.csv"
    new.write_text("rater,pair,novelty,usefulness,challenge\n" + "r,p,1,1,1\n", encoding="utf-8")
    assert import_ratings(new, store).total_stored == 1
    stored = store.read_bytes()
    new.write_text(
        "rater,pair,novelty,usefulness,challenge\n" + "".join(f"r{n},p,1,1,1\n" for n in range(40)),
        encoding="utf-8",
    )
    with pytest.raises(CorpusError) as err:
        import_ratings(new, store)
    assert str(err.value).startswith(f"{store}: would hold ") and "nothing imported" in str(err.value)
    assert store.read_bytes() == stored


def test_a_manifest_and_a_plagiarism_index_name_their_columns_in_any_case(tmp_path):
    # "SOURCE,TARGET,GROUP" and "file,task,category" were refused: "lacks column(s)".
    (tmp_path / "a.txt").write_text("The sun attracts the planets.\n")
    (tmp_path / "b.txt").write_text("The nucleus attracts the electrons.\n")
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("SOURCE,Target,group,Name\na.txt,b.txt,g,x\n", encoding="utf-8")
    (pair,) = read_manifest(manifest)
    assert (pair.source.name, pair.target.name, pair.group, pair.extra) == (
        "a.txt",
        "b.txt",
        "g",
        {"Name": "x"},
    )
    corpus = tmp_path / "cs"
    corpus.mkdir()
    (corpus / "orig_taska.txt").write_text("The sun attracts the planets.\n")
    (corpus / "g0pA_taska.txt").write_text("The sun pulls the planets.\n")
    (corpus / "file_information.csv").write_text("file,task,category\ng0pA_taska.txt,a,cut\n")
    assert [p.answer.name for p in load_plagiarism(corpus).pairs] == ["g0pA_taska.txt"]


def test_a_plagiarism_index_of_blank_lines_is_called_empty(tmp_path):
    # It said "lacks column(s) file, task, category".
    (tmp_path / "file_information.csv").write_text("\n \n\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        load_plagiarism(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'file_information.csv'}: an empty file: a plagiarism corpus needs the header "
        "File,Task,Category and a row a file"
    )
