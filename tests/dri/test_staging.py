"""dri.staging: a folder's new files appear together, or none of them."""

from __future__ import annotations

import errno
import os
import resource
import signal
import sqlite3
from pathlib import Path

import pytest
from processes import writer_process

from dri.staging import STAGING_PREFIX, files_together, left_incomplete, staging_name


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


def test_a_recorded_folder_loses_the_earlier_blocks_files_it_did_not_write_again(tmp_path):
    out = tmp_path / "report"
    with files_together(out, record=".record") as staging:
        for name in ("summary.md", "boxplots_baselines.png"):
            (staging / name).write_text("first")
        (staging / "pictures").mkdir()
        (staging / "pictures" / "t1-h1.svg").write_text("first")
    (out / "mine.txt").write_text("the user's")
    with files_together(out, record=".record") as staging:
        (staging / "summary.md").write_text("second")
    assert sorted(p.name for p in out.iterdir()) == [".record", "mine.txt", "summary.md"]
    assert (out / "summary.md").read_text() == "second"
    assert (out / ".record").read_text() == "summary.md\n"


def test_a_record_naming_files_outside_the_folder_or_through_a_link_removes_nothing_there(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.png").write_text("keep")
    (out / "linked").symlink_to(elsewhere)
    (out / "link.png").symlink_to(outside)
    (out / ".record").write_text("../outside.txt\nlinked/x.png\nlink.png\n/etc/hostname\n")
    with files_together(out, record=".record") as staging:
        (staging / "summary.md").write_text("new")
    assert outside.read_text() == "keep" and (elsewhere / "x.png").read_text() == "keep"
    assert (out / "link.png").is_symlink()


def test_without_a_record_nothing_is_removed_and_a_failed_block_keeps_the_old_record(tmp_path):
    out = tmp_path / "report"
    with files_together(out, record=".record") as staging:
        (staging / "a.png").write_text("first")
    with pytest.raises(KeyboardInterrupt), files_together(out, record=".record") as staging:
        (staging / "b.png").write_text("second")
        raise KeyboardInterrupt
    assert (out / "a.png").exists() and (out / ".record").read_text() == "a.png\n"
    with files_together(out) as staging:
        (staging / "b.png").write_text("second")
    assert (out / "a.png").exists() and (out / "b.png").exists()


def test_a_record_that_is_a_fifo_a_device_or_a_link_is_not_read_or_written_through(tmp_path):
    # A FIFO hung the command (then, not read, failed the report as "not a plain
    # file"); /dev/zero took all memory (exit 70); a link to a file outside had
    # that file overwritten with the list of names. Each is replaced.
    outside = tmp_path / "precious.txt"
    outside.write_text("precious")
    for kind in ("fifo", "device", "link"):
        out = tmp_path / kind
        out.mkdir()
        (out / "old.png").write_text("kept: no record to say it is the report's")
        record = out / ".record"
        if kind == "fifo":
            os.mkfifo(record)
        else:
            record.symlink_to("/dev/zero" if kind == "device" else outside)
        with files_together(out, record=".record") as staging:
            (staging / "summary.md").write_text("new")
        assert record.is_file() and not record.is_symlink() and record.read_text() == "summary.md\n"
        assert (out / "old.png").exists()
    assert outside.read_text() == "precious"


def test_a_dangling_link_to_a_missing_folder_leaves_the_folder_as_it_was(tmp_path):
    # The move failed at it half-way: a mixed report of new and old files.
    (tmp_path / "a.txt").write_text("old")
    (tmp_path / "b.txt").symlink_to(tmp_path / "no" / "such" / "b.txt")
    with pytest.raises(OSError) as err, files_together(tmp_path) as staging:
        (staging / "a.txt").write_text("new")
        (staging / "b.txt").write_text("new")
    assert err.value.filename == str(tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_text() == "old"


@pytest.mark.parametrize("into", ["scores.csv", ".record", "other/.record"])
def test_a_report_file_linked_to_another_file_of_a_report_is_refused(tmp_path, into):
    # stats.json -> scores.csv had the scores overwritten with the statistics,
    # and a link to a record (this report's or another's) had it overwritten.
    out = tmp_path / "report"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / ".record").write_text("x.png\n")
    with files_together(out, record=".record") as staging:
        for name in ("scores.csv", "stats.json"):
            (staging / name).write_text("first")
    (out / "stats.json").unlink()
    (out / "stats.json").symlink_to(tmp_path / into if into.startswith("other") else out / into)
    with pytest.raises(OSError) as err, files_together(out, record=".record") as staging:
        for name in ("scores.csv", "stats.json"):
            (staging / name).write_text("second")
    assert err.value.filename == str(out / "stats.json")
    assert (out / "scores.csv").read_text() == "first" and (
        tmp_path / "other" / ".record"
    ).read_text() == "x.png\n"


def test_a_link_into_a_folder_that_cannot_be_written_to_leaves_the_folder_as_it_was(tmp_path):
    # The move failed at it half-way ("Operation not permitted"): a mixed report.
    import shutil
    import subprocess

    locked = tmp_path / "locked"
    locked.mkdir()
    (tmp_path / "a.txt").write_text("old")
    (tmp_path / "b.txt").symlink_to(locked / "b.txt")
    bound = os.geteuid() == 0 and shutil.which("mount") is not None
    if bound:  # root writes anywhere: a read-only bind mount of the folder
        subprocess.run(["mount", "--bind", str(locked), str(locked)], check=True)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(locked)], check=True)
    else:
        locked.chmod(0o555)
    try:
        with pytest.raises(OSError) as err, files_together(tmp_path) as staging:
            (staging / "a.txt").write_text("new")
            (staging / "b.txt").write_text("new")
    finally:
        if bound:
            subprocess.run(["umount", str(locked)], check=True)
        else:
            locked.chmod(0o755)
    assert err.value.filename == str(tmp_path / "b.txt")
    assert (tmp_path / "a.txt").read_text() == "old"


def test_a_staging_folder_whose_writer_is_gone_is_removed_by_the_next_writer(tmp_path):
    # One left by kill -9 stayed beside the report for good.
    dead = tmp_path / f"{STAGING_PREFIX}999999999-abc"  # over any pid_max: no such process
    alive = tmp_path / f"{STAGING_PREFIX}{os.getpid()}-xyz"  # another block of this process
    unnamed = tmp_path / f"{STAGING_PREFIX}q1w2e3"  # of a dri before the pid was in the name
    for folder in (dead, alive, unnamed):
        folder.mkdir()
        (folder / "summary.md").write_text("half", encoding="utf-8")
    with files_together(tmp_path) as staging:
        (staging / "summary.md").write_text("new", encoding="utf-8")
    assert not dead.exists() and alive.is_dir() and unnamed.is_dir()
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == "new"


def test_a_staging_label_of_many_bytes_is_cut_to_fit_a_file_name():
    # A corpus of 60 emoji (240 bytes) made a staging name over 255 bytes: "File name too long".
    name = staging_name("\U0001f600" * 60)
    assert len(name.encode()) < 160 and name.startswith(f"{STAGING_PREFIX}{os.getpid()}-\U0001f600")


def _earlier_report(folder: Path) -> None:
    """A report of a.txt, b.txt and c.txt in ``folder``, and z.txt a link to a file outside it."""
    folder.mkdir()
    with files_together(folder, record=".record") as staging:
        for name in ("a.txt", "b.txt", "c.txt"):
            (staging / name).write_text("old", encoding="utf-8")
    outside = folder.parent / "outside.txt"
    outside.write_text("old", encoding="utf-8")
    (folder / "z.txt").symlink_to(outside)


def _write_new_report_over_a_file_size_limit(folder: Path, _: int) -> None:
    """Write a.txt, b.txt, d.txt and a z.txt of 64 kB over the report of
    :func:`_earlier_report`, the file size bound at 4 kB once they are staged:
    the write through the link z.txt, the last move, is past it."""
    with files_together(folder, record=".record") as staging:
        for name in ("a.txt", "b.txt", "d.txt"):
            (staging / name).write_text("new", encoding="utf-8")
        (staging / "z.txt").write_bytes(b"z" * 65536)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_a_writer_killed_while_moving_files_leaves_its_folder_marked(tmp_path) -> None:
    # kill -9 between two moves left a.txt, b.txt and d.txt of the new report
    # beside c.txt of the old one, and nothing told a reader the folder was mixed.
    folder = tmp_path / "report"
    _earlier_report(folder)
    assert not left_incomplete(folder, ".record")
    child = writer_process(__file__, "_killed_at_the_last_move", folder, 0)
    _, err = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGXFSZ, err  # killed by the kernel at the write through z.txt
    assert left_incomplete(folder, ".record")
    assert [(folder / n).read_text(encoding="utf-8") for n in ("a.txt", "b.txt", "c.txt", "d.txt")] == [
        "new",
        "new",
        "old",
        "new",
    ]
    # The next writer replaces the files of both: c.txt (the old report's) and d.txt (the stopped one's) go.
    with files_together(folder, record=".record") as staging:
        (staging / "a.txt").write_text("next", encoding="utf-8")
    assert not left_incomplete(folder, ".record")
    assert sorted(p.name for p in folder.iterdir()) == [".record", "a.txt", "z.txt"]


def _killed_at_the_last_move(folder: Path, times: int) -> None:
    """:func:`_write_new_report_over_a_file_size_limit`, killed by ``SIGXFSZ``
    (which Python ignores, making it an ``OSError``) as a ``kill -9`` would be."""
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    _write_new_report_over_a_file_size_limit(folder, times)


def test_the_mark_is_made_before_the_first_move_and_kept_if_one_fails(tmp_path) -> None:
    folder = tmp_path / "report"
    _earlier_report(folder)
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    try:
        with pytest.raises(OSError) as err:
            _write_new_report_over_a_file_size_limit(folder, 0)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
    assert err.value.errno == errno.EFBIG
    # The record and the files before z.txt moved, under the mark, which names the files of both reports.
    assert (folder / ".record").read_text(encoding="utf-8").split() == ["a.txt", "b.txt", "d.txt", "z.txt"]
    assert (folder / "d.txt").read_text(encoding="utf-8") == "new"
    assert (folder / ".record.incomplete").read_text(encoding="utf-8").split() == [
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "z.txt",
    ]


def test_a_folder_written_whole_has_no_mark(tmp_path) -> None:
    with files_together(tmp_path, record=".record") as staging:
        (staging / "a.txt").write_text("new", encoding="utf-8")
    assert not left_incomplete(tmp_path, ".record")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".record", "a.txt"]


def test_a_folder_in_the_place_of_the_mark_is_refused_before_any_move(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("old", encoding="utf-8")
    (tmp_path / ".record.incomplete").mkdir()
    with pytest.raises(OSError) as err, files_together(tmp_path, record=".record") as staging:
        (staging / "a.txt").write_text("new", encoding="utf-8")
    assert err.value.filename == str(tmp_path / ".record.incomplete")
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "old"
