"""dri.errors: the one line of a failure, and the words of an OSError where a file stands in the way of a folder."""

from __future__ import annotations

import errno

import pytest

from dri.errors import Failure, joined_reasons, one_line, os_reason, pair_failure_lines
from dri.extract.document import DocumentError
from dri.files import NotText, decode_text


def test_a_failure_of_a_path_with_a_line_break_names_it_once():
    # one_line folds the path's line break into a space, so the message's head was not
    # seen as the path: "error: c/x\u000aforged.pdf: c/x forged.pdf: encrypted PDF (…)".
    path = "c/x\nforged.pdf"
    error = DocumentError(path, "encrypted PDF (a password is needed to read it)")
    failure = Failure.of(path, "extract", one_line(error))
    assert failure.reason == "encrypted PDF (a password is needed to read it)"
    assert str(failure) == "c/x\nforged.pdf: encrypted PDF (a password is needed to read it)"
    assert Failure.of("c/a.pdf", "extract", "c/a.pdf: corrupt").reason == "corrupt"
    assert Failure.of("c/a.pdf", "extract", "corrupt").reason == "corrupt"


def test_a_file_where_a_folder_is_made_is_named(tmp_path):
    (tmp_path / "runs").write_text("x")
    with pytest.raises(FileExistsError) as caught:
        (tmp_path / "runs").mkdir(parents=True, exist_ok=True)
    assert os_reason(caught.value) == "not a folder (a file of that name is in the way)"
    with pytest.raises((FileExistsError, NotADirectoryError)) as caught:
        (tmp_path / "runs" / "a" / "b").mkdir(parents=True, exist_ok=True)
    assert os_reason(caught.value) == f"cannot be made: {tmp_path / 'runs'} is a file, not a folder"


def test_a_symbolic_link_to_nothing_where_a_folder_is_made_is_named(tmp_path):
    # Both were a bare "File exists" (data/ratings a link to a folder since removed).
    (tmp_path / "ratings").symlink_to(tmp_path / "gone")
    with pytest.raises(FileExistsError) as caught:
        (tmp_path / "ratings").mkdir(parents=True, exist_ok=True)
    assert os_reason(caught.value) == f"a symbolic link to {tmp_path / 'gone'}, which is not there"
    with pytest.raises(FileExistsError) as caught:
        (tmp_path / "ratings" / "a").mkdir(parents=True, exist_ok=True)
    assert caught.value.filename == str(tmp_path / "ratings")
    assert os_reason(caught.value) == f"a symbolic link to {tmp_path / 'gone'}, which is not there"


def test_other_errors_keep_their_words(tmp_path):
    assert (
        os_reason(OSError(errno.ENOSPC, "No space left on device", str(tmp_path)))
        == "No space left on device"
    )
    (tmp_path / "d").mkdir()
    assert os_reason(FileExistsError(errno.EEXIST, "File exists", str(tmp_path / "d"))) == "File exists"


def test_words_of_its_own_are_kept(tmp_path):
    (tmp_path / "f").write_text("x")
    err = NotADirectoryError(errno.ENOTDIR, "DRI_DATA_DIR must be a folder", str(tmp_path / "f" / "sub"))
    assert os_reason(err) == "DRI_DATA_DIR must be a folder"


def test_pairs_lost_with_a_batch_are_one_line_with_the_batchs_reason(tmp_path):
    from dri.corpora.manifest import ManifestPair
    from dri.evaluate.core import _pair_error

    corpus, target = tmp_path / "c", tmp_path / "c" / "t.txt"
    lost = Failure(
        str(corpus), "map", "mapping batch failed: BrokenProcessPool: a worker died", scope="batch"
    )
    bad = Failure(str(tmp_path / "c" / "bad.txt"), "extract", "empty file")
    rows = []
    for name in ("a.txt", "b.txt", "bad.txt"):
        pair = ManifestPair(corpus / name, target, "")
        rows.append((str(pair.source), str(target), _pair_error(pair, [lost, bad], ["run-1"])))
    assert (
        rows[0][2]
        == "not compared by the corpus flow (run run-1): mapping batch failed: BrokenProcessPool: a worker died"
    )
    assert pair_failure_lines(rows) == [
        f"2 pairs ({corpus / 'a.txt'} -> {target}, ...): {rows[0][2]}",
        f"{corpus / 'bad.txt'}: empty file",
    ]


def test_pair_failure_lines_take_a_name_with_a_nul_byte():
    # A row's names come from a manifest: a NUL byte cannot be resolved as a path.
    assert pair_failure_lines([("a\x00b", "t.txt", "not compared")]) == ["a\x00b -> t.txt: not compared"]


def test_a_reason_holding_a_semicolon_in_brackets_stays_whole():
    # "too long: ... (about 15 words; DRI_MAX_TEXT_CHARS sets it)" was printed as two
    # lines, the first with its bracket never closed.
    long = "/c/a.txt: too long: 816 characters of text, the limit is 100 (about 15 words; DRI_MAX_TEXT_CHARS sets it)"
    assert joined_reasons(f"{long}; /c/b.txt: empty file") == [long, "/c/b.txt: empty file"]
    assert joined_reasons("one") == ["one"] and joined_reasons("a (b; c]; d") == ["a (b; c]", "d"]
    assert pair_failure_lines([("/c/a.txt", "/c/b.txt", long), ("/c/a.txt", "/c/d.txt", long)]) == [long]


@pytest.mark.parametrize(
    "data", ["太陽は惑星を引き付ける。".encode("shift_jis"), "The sun attracts.\n".encode("utf-16-le") * 3]
)
def test_a_reason_for_text_that_cannot_be_read_is_one_reason(data):
    # "...; save it as UTF-8" was split where rows join their reasons: two Problems lines.
    with pytest.raises(NotText) as caught:
        decode_text(data)
    reason = f"/c/a.txt: {caught.value}"
    assert joined_reasons(f"{reason}; /c/b.txt: empty file") == [reason, "/c/b.txt: empty file"]
