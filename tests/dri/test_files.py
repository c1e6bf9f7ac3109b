"""``dri.files.read_limited``: at most the limit plus one byte, of regular files only,
and every reader of user files refuses what it refuses with one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from processes import bound_by_permissions

from dri.cli import main
from dri.corpora.analogy import read_list
from dri.corpora.judgements import load_choice, load_judgements
from dri.corpora.manifest import read_manifest
from dri.corpora.ratings import read_ratings
from dri.corpora.text import CorpusError, read_table_text, read_text
from dri.extract import DocumentError, read_document
from dri.files import FileRefused, decode_text, read_limited
from dri.literal import printable


def _not_files(tmp_path: Path, suffix: str) -> dict[str, Path]:
    """Things with a reader's name that are not regular files."""
    fifo = tmp_path / f"fifo{suffix}"
    os.mkfifo(fifo)
    zero = tmp_path / f"zero{suffix}"
    zero.symlink_to("/dev/zero")
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    return {"FIFO": fifo, "character device": zero, "folder": folder, "device": Path("/dev/zero")}


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 100)
    assert read_limited(path, 100) == b"x" * 100
    with pytest.raises(FileRefused, match=r"a.txt: too large \(100 bytes; the limit is 99\)"):
        read_limited(path, 99)


def test_a_link_to_a_regular_file_is_followed(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"abc")
    (tmp_path / "b.txt").symlink_to(tmp_path / "a.txt")
    assert read_limited(tmp_path / "b.txt", 10) == b"abc"


def test_a_file_whose_size_is_not_its_length_is_read_to_the_limit_plus_one_only():
    # /proc files are regular files whose stat size is 0, like a file growing while it is read.
    with pytest.raises(FileRefused, match=r"too large \(more than 10 bytes, the limit\)"):
        read_limited("/proc/self/maps", 10)
    assert read_limited("/proc/self/maps", 10_000_000)


@pytest.mark.parametrize("kind", ["FIFO", "character device", "folder", "device"])
def test_what_is_not_a_regular_file_is_refused_with_its_kind(tmp_path, kind):
    path = _not_files(tmp_path, ".txt")[kind]
    with pytest.raises(FileRefused) as caught:
        read_limited(path, 1000)
    text = str(caught.value)
    assert text.startswith(f"{path}: is a ") and "not a regular file" in text and "\n" not in text
    expected = {
        "FIFO": "FIFO",
        "character device": "character device",
        "folder": "folder",
        "device": "device",
    }
    assert expected[kind] in caught.value.reason
    if path.is_symlink():
        assert "through a symbolic link" in caught.value.reason


def test_missing_dangling_and_looping_paths(tmp_path):
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "nowhere.txt")
    (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")
    reasons = {}
    for name in ("missing.txt", "dangling.txt", "loop.txt"):
        with pytest.raises(FileRefused) as caught:
            read_limited(tmp_path / name, 10, what="text file")
        reasons[name] = caught.value.reason
    assert reasons["missing.txt"] == "no such text file"
    assert reasons["dangling.txt"] == f"no such text file (a symbolic link to {tmp_path / 'nowhere.txt'})"
    assert reasons["loop.txt"].startswith("cannot read: a loop of symbolic links")


def test_an_unreadable_file(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text("x")
    path.chmod(0)
    code = f"from dri.files import read_limited\nread_limited({str(path)!r}, 10)"
    done = subprocess.run(
        [*bound_by_permissions(), sys.executable, "-c", code], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == f"dri.files.FileRefused: {path}: cannot read: Permission denied"


def _readers(suffix: str):
    if suffix == ".txt":
        return [
            ("read_document", read_document, DocumentError),
            ("read_text", read_text, CorpusError),
            ("read_list", read_list, CorpusError),
        ]
    if suffix == ".csv":
        return [
            ("read_table_text", read_table_text, CorpusError),
            ("read_manifest", read_manifest, CorpusError),
            ("read_ratings", read_ratings, CorpusError),
            ("load_judgements", load_judgements, CorpusError),
        ]
    return [("load_choice", load_choice, CorpusError)]


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".jsonl"])
def test_every_reader_of_user_files_refuses_what_is_not_a_file_in_one_line(tmp_path, suffix):
    for kind, path in _not_files(tmp_path, suffix).items():
        for name, reader, error in _readers(suffix):
            with pytest.raises(error) as caught:
                reader(path)
            text = str(caught.value)
            assert text.startswith(f"{path}: is a") and "\n" not in text, (name, kind, text)


def test_dri_graph_refuses_dev_zero_a_link_to_it_and_a_fifo_at_once(tmp_path, capsys):
    things = _not_files(tmp_path, ".txt")
    args = [str(things[k]) for k in ("device", "character device", "FIFO", "folder")]
    assert main(["graph", *args]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "error: /dev/zero: is a character device, not a regular file",
        f"error: {args[1]}: is a character device (through a symbolic link), not a regular file",
        f"error: {args[2]}: is a FIFO (named pipe), not a regular file",
        f"error: {args[3]}: is a folder, not a regular file",
    ]


def test_a_refused_name_is_shown_as_every_message_shows_names(tmp_path):
    # One form for the whole project (dri.literal.printable), not a quoted repr.
    path = tmp_path / "a\nb\x1b[2J\udcff.txt"
    with pytest.raises(FileRefused) as err:
        read_limited(path, 10)
    assert str(err.value) == f"{printable(path)}: no such file"
    assert "\n" not in str(err.value) and "'" not in str(err.value)


def test_utf8_cut_inside_its_last_character_is_read_as_utf8():
    # Read as Windows-1252, with a warning: "RÃ©sumÃ© cafÃ".
    assert decode_text("# Résumé café".encode()[:-1]) == ("# Résumé caf", "utf-8")
    assert decode_text("\ufeff# Résumé café".encode()[:-1]) == ("# Résumé caf", "utf-8-sig")
    # One accented letter at the end, and no other: Windows-1252, as before.
    assert decode_text("café".encode("cp1252")) == ("café", "cp1252")
