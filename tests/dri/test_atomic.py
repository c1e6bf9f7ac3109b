"""dri.atomic: a file written whole, whoever else writes it at the same time."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from dri.atomic import locked, open_lock, write_text


def test_writers_of_one_file_at_once_each_leave_it_whole(tmp_path) -> None:
    # Two runs of one corpus ending together wrote the same summary.tmp: the
    # second rename found it moved by the first (ENOENT).
    target = tmp_path / "run-summary.json"
    texts = [f"{n}" * 5000 for n in range(8)]
    errors: list[BaseException] = []

    def writer(text: str) -> None:
        try:
            for _ in range(50):
                write_text(target, text)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert target.read_text(encoding="utf-8") in texts
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path) -> None:
    target = tmp_path / "ratings.csv"
    write_text(target, "old")
    with pytest.raises(UnicodeEncodeError):
        write_text(target, "new \udc80")  # a lone surrogate cannot be UTF-8
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_text_and_mode_are_those_of_a_plain_write(tmp_path) -> None:
    target = tmp_path / "a.csv"
    write_text(target, "a,b\r\nc,d\r\n", newline="", sync=True)
    assert target.read_bytes() == b"a,b\r\nc,d\r\n"
    plain = tmp_path / "plain"
    plain.write_text("x")
    assert stat.S_IMODE(os.stat(target).st_mode) == stat.S_IMODE(os.stat(plain).st_mode)


def test_a_long_name_keeps_its_temporary_name_short_enough(tmp_path) -> None:
    target = tmp_path / ("n" * 250 + ".json")
    write_text(target, "{}")
    assert target.read_text() == "{}"


def test_a_name_too_long_for_the_folder_is_named_in_the_error_not_the_temporary(tmp_path) -> None:
    # dri graph of a 254-byte file name with --format graphml: the error named
    # the temporary file (".lll….PID-RANDOM.tmp: File name too long").
    target = tmp_path / ("l" * 250 + ".graphml")
    with pytest.raises(OSError) as caught:
        write_text(target, "x")
    assert caught.value.filename == str(target) and ".tmp" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_link_keeps_its_place_and_its_file_is_replaced(tmp_path) -> None:
    # The rename put a plain file where the link was, and the file it named kept the old text.
    real = tmp_path / "elsewhere" / "report.html"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "report.html"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"
    dangling = tmp_path / "later.html"
    dangling.symlink_to(tmp_path / "elsewhere" / "later.html")
    write_text(dangling, "made")
    assert (
        dangling.is_symlink()
        and (tmp_path / "elsewhere" / "later.html").read_text(encoding="utf-8") == "made"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "later.html", "report.html"]


def test_a_pipe_is_written_into_not_replaced(tmp_path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_text(fifo, "through the pipe")
    reader.join(timeout=30)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_pipe_no_process_reads_is_an_error_not_a_wait_for_ever(tmp_path, monkeypatch) -> None:
    # dri compare A B --svg fifo, and nobody reads: the command hung.
    monkeypatch.setattr("dri.atomic.FIFO_READER_SECONDS", 0.2)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as err:
        write_text(fifo, "nobody")
    assert err.value.filename == str(fifo) and err.value.strerror == "a FIFO that no process read in 0.2 s"


def test_a_folder_that_is_not_there_is_named_by_the_path_asked_for(tmp_path) -> None:
    target = tmp_path / "gone" / "page.html"
    with pytest.raises(FileNotFoundError) as err:
        write_text(target, "x")
    assert err.value.filename == str(target)


def test_a_folder_that_takes_no_new_files_says_so_not_that_it_is_missing(tmp_path) -> None:
    # /proc answers a new name with ENOENT, which read "No such file or directory".
    with pytest.raises(FileNotFoundError) as err:
        write_text("/proc/version", "x")
    assert err.value.filename == "/proc/version"
    assert err.value.strerror == "/proc takes no new files"
    with pytest.raises(FileNotFoundError) as missing:
        write_text(tmp_path / "gone" / "page.html", "x")
    assert missing.value.strerror == os.strerror(2)


def test_a_lock_that_is_not_a_plain_file_is_an_error_not_a_wait(tmp_path) -> None:
    # Opened for writing, a FIFO in the lock's place waited for a reader for ever.
    target = tmp_path / "ratings.csv"
    os.mkfifo(tmp_path / "ratings.csv.lock")
    with pytest.raises(OSError) as err, locked(target):
        pass
    assert err.value.filename == str(tmp_path / "ratings.csv.lock")
    assert err.value.strerror == "not a plain file, so not a lock (a FIFO)"
    (tmp_path / "folder.lock").mkdir()
    with pytest.raises(OSError) as err:
        open_lock(tmp_path / "folder.lock")
    assert err.value.filename == str(tmp_path / "folder.lock")
    with open_lock(tmp_path / "new.lock") as lock:
        assert stat.S_ISREG(os.fstat(lock.fileno()).st_mode)


def test_a_loop_of_links_is_an_error_not_replaced(tmp_path) -> None:
    # The non-strict realpath of a loop is the link itself: the rename put a file in its place.
    first, second = tmp_path / "loop1", tmp_path / "loop2"
    second.symlink_to(first)
    first.symlink_to(second)
    with pytest.raises(OSError) as caught:
        write_text(first, "x")
    assert caught.value.filename == str(first) and caught.value.strerror == "a loop of symbolic links"
    assert first.is_symlink() and second.is_symlink()


def test_a_database_is_never_written_over_through_a_link_or_empty(tmp_path) -> None:
    # A report file linked to the store, or an empty dri.sqlite, was replaced by the output.
    import sqlite3

    store = tmp_path / "dri.sqlite"
    sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.close()
    kept = store.read_bytes()
    link = tmp_path / "scores.csv"
    link.symlink_to(store)
    empty = tmp_path / "other.sqlite"
    empty.write_bytes(b"")
    for target in (store, link, empty):
        with pytest.raises(OSError) as err:
            write_text(target, "pair,group")
        assert err.value.filename == str(target) and "SQLite database" in err.value.strerror
    assert store.read_bytes() == kept and empty.read_bytes() == b""
    write_text(tmp_path / "notes.db.txt", "a name that only holds .db")  # not a database
