"""dri.staging: a folder's new files appear together, or none of them."""

from __future__ import annotations

import os
import sqlite3

import pytest

from dri.staging import STAGING_PREFIX, files_together


def test_the_files_appear_when_the_block_ends(tmp_path):
    out = tmp_path / "report"
    with files_together(out) as staging:
        (staging / "a.txt").write_text("a")
        (staging / "sub").mkdir()
        (staging / "sub" / "b.txt").write_text("b")
        assert not (out / "a.txt").exists()
    assert (out / "a.txt").read_text() == "a" and (out / "sub" / "b.txt").read_text() == "b"
    assert not list(out.glob(STAGING_PREFIX + "*"))


def test_a_block_that_fails_leaves_the_folder_as_it_was(tmp_path):
    (tmp_path / "a.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt), files_together(tmp_path) as staging:
        (staging / "a.txt").write_text("new")
        (staging / "b.txt").write_text("new")
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "old"


def test_other_files_stay_and_a_link_is_written_through(tmp_path):
    elsewhere = tmp_path / "elsewhere.html"
    elsewhere.write_text("old")
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").symlink_to(elsewhere)
    (out / "mine.txt").write_text("the user's")
    with files_together(out) as staging:
        (staging / "index.html").write_text("new")
    assert (out / "index.html").is_symlink() and elsewhere.read_text() == "new"
    assert (out / "mine.txt").read_text() == "the user's"


@pytest.mark.parametrize("obstacle", ["folder", "fifo", "loop", "database"])
def test_a_place_a_file_cannot_go_leaves_the_folder_as_it_was(tmp_path, obstacle):
    # The moves stopped at the first such place: some new files beside some old ones.
    (tmp_path / "a.txt").write_text("old")
    blocked = tmp_path / "b.txt"
    if obstacle == "folder":
        blocked.mkdir()
    elif obstacle == "fifo":
        os.mkfifo(blocked)
    elif obstacle == "loop":
        (tmp_path / "c").symlink_to(blocked)
        blocked.symlink_to(tmp_path / "c")
    else:
        store = tmp_path / "dri.sqlite"
        sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.close()
        blocked.symlink_to(store)  # a report file linked to the store
    with pytest.raises(OSError) as err, files_together(tmp_path) as staging:
        (staging / "a.txt").write_text("new")
        (staging / "b.txt").write_text("new")
    assert err.value.filename == str(blocked)
    assert (tmp_path / "a.txt").read_text() == "old"
    assert not list(tmp_path.glob(STAGING_PREFIX + "*"))
