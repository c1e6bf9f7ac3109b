"""The words of an OSError where a file stands in the way of a folder."""

from __future__ import annotations

import errno

from dri.errors import os_reason


def test_a_file_where_a_folder_is_made_is_named(tmp_path):
    (tmp_path / "runs").write_text("x")
    try:
        (tmp_path / "runs").mkdir(parents=True, exist_ok=True)
    except FileExistsError as err:
        assert os_reason(err) == "not a folder (a file of that name is in the way)"
    try:
        (tmp_path / "runs" / "a" / "b").mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as err:
        assert os_reason(err) == f"cannot be made: {tmp_path / 'runs'} is a file, not a folder"


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
