"""The corpus sensor's memory of folders it has announced."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import types

import pytest
from flows_corpus_helpers import write_corpus

from dri.errors import one_line
from dri.flows.sensor import MissingRoot, SensorStateError, load_seen, scan, state_path
from dri.settings import incoming_dir


class Recorder:
    def __init__(self, fail_on: set[str] = frozenset()):
        self.calls: list[tuple[str, int]] = []
        self.changed: list[str] = []
        self.fail_on = fail_on

    def __call__(self, folder: str, n: int, *, changed: bool = False) -> None:
        if os.path.basename(folder) in self.fail_on:
            raise ConnectionError("server went away")
        self.calls.append((folder, n))
        if changed:
            self.changed.append(os.path.basename(folder))


def test_each_new_folder_is_announced_once_even_after_a_restart(tmp_path):
    root, state = tmp_path / "incoming", tmp_path / "state"
    write_corpus(root / "one")
    (root / "empty").mkdir()  # no documents: not a corpus
    first = Recorder()
    result = scan(root, first, state_dir=state)
    assert first.calls == [(str((root / "one").resolve()), 4)]
    assert result.announced == [str((root / "one").resolve())]

    write_corpus(root / "two")
    # A new Recorder and a fresh scan stand for a restarted sensor: only the state file is shared.
    second = Recorder()
    result = scan(root, second, state_dir=state)
    assert [os.path.basename(f) for f, _ in second.calls] == ["two"]
    assert result.already_seen == 1
    third = Recorder()
    scan(root, third, state_dir=state)
    assert third.calls == []
    assert set(load_seen(state_path(root, state))) == {str((root / n).resolve()) for n in ("one", "two")}


def test_a_folder_still_being_written_waits(tmp_path):
    root = tmp_path / "incoming"
    write_corpus(root / "fresh")
    rec = Recorder()
    result = scan(root, rec, min_age=3600, state_dir=tmp_path / "state")
    assert rec.calls == [] and [os.path.basename(f) for f in result.waiting] == ["fresh"]
    old = time.time() - 7200
    for path in [root / "fresh", *(root / "fresh").iterdir()]:
        os.utime(path, (old, old))
    assert scan(root, rec, min_age=3600, state_dir=tmp_path / "state").announced


def test_a_failed_announcement_is_retried_next_scan(tmp_path):
    root, state = tmp_path / "incoming", tmp_path / "state"
    write_corpus(root / "a")
    write_corpus(root / "b")
    result = scan(root, Recorder(fail_on={"a"}), state_dir=state)
    assert [os.path.basename(f) for f in result.announced] == ["b"]
    assert len(result.errors) == 1 and "a: not announced: " in result.errors[0]
    assert result.errors[0].endswith("server went away")
    retry = Recorder()
    scan(root, retry, state_dir=state)
    assert [os.path.basename(f) for f, _ in retry.calls] == ["a"]


def test_unreadable_state_is_an_error_not_a_fresh_start(tmp_path):
    root, state = tmp_path / "incoming", tmp_path / "state"
    write_corpus(root / "a")
    path = state_path(root, state)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(RuntimeError, match="unreadable sensor state"):
        scan(root, Recorder(), state_dir=state)


@pytest.mark.parametrize(
    "text",
    ["null", "[]", '{"seen": []}', '{"seen": ["a"]}', '{"seen": {"/x": "y"}}', "[" * 100_000 + "]" * 100_000],
)
def test_state_of_another_shape_is_refused_like_unreadable_state(tmp_path, text):
    # JSON of the wrong shape was an AttributeError or ValueError: exit 70 of dri watch;
    # JSON nested too deeply a RecursionError whose line named no file.
    path = tmp_path / "seen.json"
    path.write_text(text)
    with pytest.raises(RuntimeError, match=f"^{path}: unreadable sensor state"):
        load_seen(path)


def test_state_is_kept_per_root(tmp_path):
    assert state_path(tmp_path / "x", tmp_path) != state_path(tmp_path / "y", tmp_path)
    write_corpus(tmp_path / "x" / "c")
    scan(tmp_path / "x", Recorder(), state_dir=tmp_path / "s")
    data = json.loads(state_path(tmp_path / "x", tmp_path / "s").read_text())
    assert data["root"] == str((tmp_path / "x").resolve())
    assert next(iter(data["seen"].values()))["documents"] == 4


def test_a_folder_with_a_dangling_link_is_announced_with_it_counted(tmp_path):
    root = tmp_path / "incoming"
    folder = write_corpus(root / "links")
    (folder / "gone.txt").symlink_to(folder / "nowhere.txt")
    rec = Recorder()
    result = scan(root, rec, state_dir=tmp_path / "state")
    assert result.errors == [] and rec.calls == [(str(folder.resolve()), 5)]


def test_a_link_to_the_root_or_above_is_not_a_corpus(tmp_path):
    # "self -> ." was announced as a corpus of every other corpus's documents, and its
    # run, of the root's own folder, mapped them all again.
    root = (tmp_path / "incoming").resolve()
    write_corpus(root / "one")
    (root / "self").symlink_to(".")
    (root / "up").symlink_to("..")
    (root / "elsewhere").symlink_to(write_corpus(tmp_path / "kept"))  # a corpus kept outside: watched
    rec = Recorder()
    result = scan(root, rec, state_dir=tmp_path / "state")
    assert sorted(os.path.basename(f) for f, _ in rec.calls) == ["elsewhere", "one"]
    assert result.errors == [
        f"{root / 'self'}: a link to {root}, which holds the watched folder; left out",
        f"{root / 'up'}: a link to {tmp_path.resolve()}, which holds the watched folder; left out",
    ]


def test_a_missing_root_names_its_absolute_path_and_the_way_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MissingRoot) as err:
        scan("nowhere", Recorder(), state_dir=tmp_path / "state")
    where = tmp_path.resolve() / "nowhere"
    assert str(err.value).startswith(
        f"{where}: the sensor's root is not a folder; create it (mkdir -p {where})"
    )
    assert "DRI_INCOMING_DIR" in str(err.value) and "\n" not in str(err.value)
    # Said by dri watch when the root went during a watch: "MissingRoot: …".
    assert one_line(err.value) == str(err.value)


def test_the_default_root_is_made_in_the_data_folder(data_dir, monkeypatch):
    monkeypatch.delenv("DRI_INCOMING_DIR", raising=False)
    assert incoming_dir() == (data_dir / "incoming").resolve() and incoming_dir().is_dir()
    monkeypatch.setenv("DRI_INCOMING_DIR", str(data_dir / "elsewhere"))
    assert incoming_dir() == (data_dir / "elsewhere").resolve()
    assert not (data_dir / "elsewhere").exists()  # a configured root is the user's to make


def _age(folder, seconds: float) -> None:
    """Make everything in ``folder`` ``seconds`` old."""
    old = time.time() - seconds
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, (old, old))


def test_a_folder_that_changes_after_its_announcement_is_announced_again_once_settled(tmp_path):
    root, state = tmp_path / "incoming", tmp_path / "state"
    folder = write_corpus(root / "c")
    _age(folder, 120)
    first = Recorder()
    assert scan(root, first, min_age=60, state_dir=state).announced and first.changed == []
    unchanged = Recorder()
    assert scan(root, unchanged, min_age=60, state_dir=state).already_seen == 1 and unchanged.calls == []

    # A writer that paused longer than min_age writes the rest of one file.
    with (folder / "solar.txt").open("a", encoding="utf-8") as out:
        out.write("The sun heats the planets.\n")
    still_changing = Recorder()
    result = scan(root, still_changing, min_age=60, state_dir=state)
    assert still_changing.calls == [] and result.waiting == [str(folder.resolve())]
    _age(folder, 120)
    again = Recorder()
    result = scan(root, again, min_age=60, state_dir=state)
    assert again.calls == [(str(folder.resolve()), 4)] and again.changed == ["c"]
    assert result.changed == result.announced == [str(folder.resolve())]
    after = Recorder()
    scan(root, after, min_age=60, state_dir=state)
    assert after.calls == []


@pytest.mark.parametrize("change", ["size", "mtime", "new file", "removed file"])
def test_any_change_of_size_mtime_or_files_counts(tmp_path, change):
    root, state = tmp_path / "incoming", tmp_path / "state"
    folder = write_corpus(root / "c")
    scan(root, Recorder(), state_dir=state)
    target = folder / "solar.txt"
    if change == "size":
        stat = target.stat()
        target.write_text(target.read_text() + "x")
        os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    elif change == "mtime":
        os.utime(target, (time.time() - 100, time.time() - 100))
    elif change == "new file":
        (folder / "more.txt").write_text("The cat chased the mouse.\n")
    else:
        target.unlink()
    rec = Recorder()
    scan(root, rec, state_dir=state)
    assert rec.changed == ["c"]


def test_a_record_from_before_signatures_is_taken_as_is(tmp_path):
    root, state = tmp_path / "incoming", tmp_path / "state"
    folder = write_corpus(root / "c")
    path = state_path(root, state)
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"root": str(root.resolve()), "seen": {str(folder.resolve()): {"documents": 4}}})
    )
    rec = Recorder()
    scan(root, rec, state_dir=state)
    assert rec.calls == [] and "signature" in load_seen(path)[str(folder.resolve())]
    (folder / "more.txt").write_text("The cat chased the mouse.\n")
    scan(root, rec, state_dir=state)
    assert rec.changed == ["c"]


def test_a_file_whose_permissions_change_is_a_change_and_an_older_record_is_taken_as_is(tmp_path):
    # A document that failed as unreadable was never tried again once made readable:
    # chmod changes neither its size nor its modification time.
    root, state = tmp_path / "incoming", tmp_path / "state"
    folder = write_corpus(root / "c")
    rec = Recorder()
    scan(root, rec, state_dir=state)
    document = next(folder.glob("*.txt"))
    time.sleep(0.01)
    document.chmod(0o600)
    scan(root, rec, state_dir=state)
    assert rec.changed == ["c"]
    # A record whose signature was made without status-change times (kind 1) is not a change.
    path = state_path(root, state)
    saved = json.loads(path.read_text())
    record = saved["seen"][str(folder.resolve())]
    del record["signature_kind"]
    record["signature"] = "made-of-path-size-and-time"
    path.write_text(json.dumps(saved))
    scan(root, rec, state_dir=state)
    assert rec.changed == ["c"] and load_seen(path)[str(folder.resolve())]["signature_kind"] == 2


def test_a_state_file_that_cannot_be_read_is_one_line_with_what_to_do(tmp_path):
    # A folder in its place said "RuntimeError: …: unreadable sensor state ([Errno 21] Is a directory: '…')".
    path = tmp_path / "seen.json"
    path.mkdir()
    with pytest.raises(SensorStateError) as err:
        load_seen(path)
    assert str(err.value) == (
        f"{path}: unreadable sensor state (is a folder, not a regular file); restore it, or move it away "
        "to start over (every corpus folder is then announced again)"
    )
    assert one_line(err.value) == str(err.value)  # named by its path, not its type


@pytest.mark.timeout(30)
def test_a_state_file_that_never_ends_or_blocks_is_refused_at_once(tmp_path):
    # A link to /dev/zero grew until the process was killed (a MemoryError, exit 70,
    # under a memory limit); a FIFO waited for a writer for ever.
    path = tmp_path / "seen.json"
    path.symlink_to("/dev/zero")
    with pytest.raises(SensorStateError, match=r"unreadable sensor state \(is a character device"):
        load_seen(path)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(SensorStateError, match=r"unreadable sensor state \(is a FIFO"):
        load_seen(path)
    path.unlink()
    path.symlink_to(path)  # it was "a symbolic link to a file that is not there"
    with pytest.raises(SensorStateError, match=r"unreadable sensor state \(a loop of symbolic links\)"):
        load_seen(path)


def test_a_root_of_a_long_name_is_watched(tmp_path):
    # "seen-<250 bytes>-<key>.json.lock: File name too long": the root could not be watched.
    root, state = tmp_path / ("L" * 250), tmp_path / "state"
    write_corpus(root / "c")
    rec = Recorder()
    scan(root, rec, state_dir=state)
    assert rec.calls and len(state_path(root, state).name.encode()) <= 255 - len(".lock")
    assert state_path(root, state) != state_path(tmp_path / ("L" * 251), state)
    scan(root, rec, state_dir=state)
    assert len(rec.calls) == 1  # remembered


def test_watch_names_a_file_where_the_sensor_folder_should_be(tmp_path, monkeypatch, capsys):
    from dri.cli import main

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sensor").write_text("x")
    write_corpus(tmp_path / "incoming" / "a")
    code = main(["watch", str(tmp_path / "incoming"), "--once", "--run", "--min-age", "0"])
    assert code == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"error: {tmp_path / 'data' / 'sensor'}: not a folder (a file of that name is in the way)"
    )


def test_watch_names_a_prefect_server_that_is_not_there_without_its_login(tmp_path):
    # Each folder was "not announced: ConnectionRefusedError: …" after Prefect's
    # warning, which quoted the URL with its password.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    write_corpus(tmp_path / "incoming" / "a")
    env = {**os.environ, "DRI_DATA_DIR": str(tmp_path / "data")}
    env["PREFECT_API_URL"] = f"http://user:s3cret-pw@127.0.0.1:{port}/api"
    done = subprocess.run(
        [sys.executable, "-m", "dri.cli", "watch", str(tmp_path / "incoming"), "--once", "--min-age", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"error: PREFECT_API_URL http://127.0.0.1:{port}/api: cannot connect: Connection refused"
    ]


def test_a_watch_says_a_lasting_error_once_not_every_scan(tmp_path, monkeypatch, capsys):
    from dri.cli import main
    from dri.flows import sensor

    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    root = tmp_path / "incoming"
    root.mkdir()
    (root / "selflink").symlink_to(".")
    scans = []

    def sleep(seconds: float) -> None:  # the watch's wait between scans: three scans, then Ctrl-C
        scans.append(seconds)
        if len(scans) == 3:
            raise KeyboardInterrupt

    # The sensor module's own name for the time module, so no other thread's sleep is touched.
    monkeypatch.setattr(sensor, "time", types.SimpleNamespace(time=time.time, sleep=sleep))
    main(["watch", str(root), "--interval", "1", "--min-age", "0", "--run"])
    said = [line for line in capsys.readouterr().err.splitlines() if "selflink" in line]
    assert len(scans) == 3 and said == [
        f"error: {root / 'selflink'}: a link to {root}, which holds the watched folder; left out"
    ]


def test_a_state_file_that_links_to_nothing_is_not_a_fresh_start(tmp_path):
    # Read as "no state": every corpus was announced again, and saving the state then
    # failed on the link with "No such file or directory".
    root, state = tmp_path / "incoming", tmp_path / "state"
    write_corpus(root / "one")
    path = state_path(root, state)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(tmp_path / "nowhere.json")
    rec = Recorder()
    with pytest.raises(SensorStateError, match="a symbolic link to a file that is not there"):
        scan(root, rec, state_dir=state)
    assert rec.calls == [] and path.is_symlink()


def test_a_file_from_the_future_does_not_hold_its_folder_back(tmp_path):
    # Its age was negative, under every min_age: "still changing" on every scan, for ever.
    root = tmp_path / "incoming"
    write_corpus(root / "c")
    old, future = time.time() - 7200, time.time() + 10 * 365 * 86400
    for path in [root / "c", *(root / "c").iterdir()]:
        os.utime(path, (old, old))
    first = next((root / "c").iterdir())
    os.utime(first, (future, future))
    rec = Recorder()
    assert scan(root, rec, min_age=3600, state_dir=tmp_path / "state").announced
    assert rec.calls == [(str((root / "c").resolve()), 4)]
    # A file written now beside it still holds the folder back.
    (root / "c" / "new.txt").write_text("The sun attracts the planets.\n", encoding="utf-8")
    result = scan(root, rec, min_age=3600, state_dir=tmp_path / "state")
    assert [os.path.basename(f) for f in result.waiting] == ["c"]


def test_a_folder_that_cannot_be_read_is_an_error_not_an_empty_folder(tmp_path, monkeypatch):
    # Path.rglob passed over it without a word: "no new or changed corpus", and its
    # documents were never run (here as root, chmod cannot deny it: scandir refuses).
    root = tmp_path / "incoming"
    write_corpus(root / "c" / "inner")
    scandir = os.scandir
    inner = str(root.resolve() / "c" / "inner")

    def refusing(path="."):
        if os.fspath(path) == inner:
            raise PermissionError(13, "Permission denied", inner)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    rec = Recorder()
    result = scan(root, rec, state_dir=tmp_path / "state")
    assert rec.calls == [] and result.errors == [f"{root.resolve() / 'c'}: Permission denied ({inner})"]


def test_a_file_gone_while_its_folder_is_read_is_a_folder_still_changing(tmp_path, monkeypatch):
    # It was an error, "…/f4: No such file or directory", exit 1.
    import dri.flows.sensor as sensor

    root = tmp_path / "incoming"
    write_corpus(root / "c")
    entries = sensor._entries
    monkeypatch.setattr(sensor, "_entries", lambda folder: [*entries(folder), folder / "gone.txt"])
    rec = Recorder()
    result = scan(root, rec, state_dir=tmp_path / "state")
    assert rec.calls == [] and result.errors == []
    assert [os.path.basename(f) for f in result.waiting] == ["c"]
