"""Quiet by default: repeated warnings become one line with a count and examples;
each one is still in the log file, and ``--verbose`` prints each."""

from __future__ import annotations

import csv
import logging
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from dri.cli import main
from dri.commands.evaluate import _progress
from dri.errors import Failure
from dri.quiet_logs import ITEM, KIND, SOCKET_ENV, fold_failures, forward_to_parent, log_failures, quiet_logs

READER = logging.getLogger("dri.extract.reader")
TEXTS = logging.getLogger("dri.corpora.text")


def _warn_a_batch() -> None:
    for i in range(50):
        READER.warning(
            "/corpus/t%d.txt: does not look like English (%d%% common words)",
            i,
            i % 7,
            extra={KIND: "texts do not look like English", ITEM: f"t{i}.txt"},
        )
    for i in range(5):  # no kind given: the same message but for the file and numbers
        TEXTS.warning("/corpus/latin%d.txt: not valid UTF-8; read as Windows-%d", i, 1252)
    TEXTS.warning("once only")


def test_repeats_become_one_line_with_count_and_examples(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log_file = tmp_path / "dri.log"
    dri_logger = logging.getLogger("dri")
    propagates = dri_logger.propagate
    quiet = quiet_logs(verbose=False, log_file=log_file)
    _warn_a_batch()
    quiet.close()
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "WARNING dri.extract.reader: /corpus/t0.txt: does not look like English (0% common words)",
        "WARNING dri.corpora.text: /corpus/latin0.txt: not valid UTF-8; read as Windows-1252",
        "WARNING dri.corpora.text: once only",
        f"WARNING dri.extract.reader: 49 more texts do not look like English: t1.txt, t2.txt, t3.txt, ... (each in {log_file})",
        "WARNING dri.corpora.text: 4 more like 'not valid UTF-8; read as Windows-1252': "
        f"latin1.txt, latin2.txt, latin3.txt, ... (each in {log_file})",
    ]
    logged = log_file.read_text(encoding="utf-8").splitlines()
    assert len(logged) == 56, "every warning, each on its own line"
    assert logged[49].endswith(
        "dri.extract.reader: /corpus/t49.txt: does not look like English (0% common words)"
    )
    assert dri_logger.propagate == propagates and not any(h in dri_logger.handlers for h in quiet.handlers)


def test_the_same_warning_again_is_neither_shown_nor_counted(capsys: pytest.CaptureFixture[str]) -> None:
    # A targets.txt read by the command and again by its flow warned of each repeat
    # twice: "3 more targets named twice" for two repeats.
    quiet = quiet_logs(verbose=False, log_file=None)
    quiet.log_file = None
    for _ in range(3):
        for target in ("a.txt", "b.txt", "c.txt"):
            READER.warning(
                "/c/targets.txt: target %r is named twice", target, extra={KIND: "targets named twice"}
            )
    quiet.close()
    assert capsys.readouterr().err.splitlines() == [
        "WARNING dri.extract.reader: /c/targets.txt: target 'a.txt' is named twice",
        "WARNING dri.extract.reader: 2 more targets named twice (--verbose shows each)",
    ]


def test_the_same_warning_of_a_file_named_two_ways_is_shown_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command read dups/file_information.csv, its flow /tmp/…/dups/file_information.csv.
    monkeypatch.chdir(tmp_path)
    quiet = quiet_logs(verbose=False, log_file=None)
    quiet.log_file = None
    for name in ("dups/file_information.csv", f"{tmp_path}/dups/file_information.csv"):
        READER.warning("%s: line 102 repeats line 2; counted once", name)
    quiet.close()
    assert capsys.readouterr().err.splitlines() == [
        "WARNING dri.extract.reader: dups/file_information.csv: line 102 repeats line 2; counted once"
    ]


def test_verbose_prints_each(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    quiet = quiet_logs(verbose=True, log_file=tmp_path / "dri.log")
    _warn_a_batch()
    quiet.close()
    assert len(capsys.readouterr().err.splitlines()) == 56


def test_without_a_log_file_the_summary_points_to_verbose(capsys: pytest.CaptureFixture[str]) -> None:
    quiet = quiet_logs(verbose=False, log_file=None)
    quiet.log_file = None
    for i in range(3):
        READER.warning("x%d.txt: odd", i, extra={KIND: "odd texts", ITEM: f"x{i}.txt"})
    READER.warning("y0.txt: rare", extra={KIND: "rare texts", ITEM: "y0.txt"})
    READER.warning("y1.txt: rare", extra={KIND: "rare texts", ITEM: "y1.txt"})
    assert quiet.summary_lines() == [
        "WARNING dri.extract.reader: 2 more odd texts: x1.txt, x2.txt (--verbose shows each)",
        "WARNING dri.extract.reader: y1.txt: rare",  # one repeat is shown as it is
    ]
    quiet.close()
    assert capsys.readouterr().err.splitlines()[-2:] == [
        "WARNING dri.extract.reader: 2 more odd texts: x1.txt, x2.txt (--verbose shows each)",
        "WARNING dri.extract.reader: y1.txt: rare",
    ]


# Long enough (20 words or more) for the extractor's language check.
GERMAN = [
    "Der Hund lief schnell über die Straße, weil die Katze ihn jagte. Der Mann rief laut nach dem Hund. Danach war es still.",
    "Die Regierung hat gestern beschlossen, die Steuern zu erhöhen. Viele Bürger im Land sind darüber wütend. Sie protestieren jetzt vor dem Haus.",
    "Im Sommer fahren viele Familien mit dem Auto an das Meer. Dort machen sie Urlaub und baden jeden Tag. Es ist schön.",
    "Das neue Museum in der Stadt zeigt Bilder von Künstlern. Sie kommen aus dem ganzen Land und aus Europa. Der Eintritt ist frei.",
]
ENGLISH = "The sun attracts the planets, and the planets revolve around the sun in their orbits."


def test_a_judgements_run_prints_one_line_per_kind_of_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("NEO4J_URI", raising=False)  # a fresh store, so that every text is read
    table = tmp_path / "judgements.csv"
    with table.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["a", "b", "score"])
        for i, text in enumerate(GERMAN):
            writer.writerow([ENGLISH, text, i])
        for i, text in enumerate(GERMAN[:3]):  # the same pairs rated again: rows, not repeats
            writer.writerow([ENGLISH, text, i])
    code = main(
        ["evaluate", "judgements", str(table), "--out", str(tmp_path / "report"), "--no-baselines", "--quiet"]
    )
    assert code == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "WARNING" in line]
    log_file = tmp_path / "data" / "logs" / "dri.log"
    english = [w for w in warnings if "English" in w]
    assert len(english) == 2 and "3 more texts do not look like English: " in english[1], warnings
    assert str(log_file) in english[1] and not any("repeat" in w for w in warnings)
    logged = log_file.read_text(encoding="utf-8")
    assert logged.count("does not look like English") == 4 and "repeats line" not in logged

    # A corpus's own manifest that repeats pairs: one line for the first, one for the rest.
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("a", "b", "c", "d"):
        (corpus / f"{name}.txt").write_text(ENGLISH, encoding="utf-8")
    listed = ["a.txt,b.txt,g", "a.txt,c.txt,g", "a.txt,d.txt,g"]
    (corpus / "manifest.csv").write_text(
        "source,target,group\n" + "\n".join(listed * 2) + "\n", encoding="utf-8"
    )
    assert main(["run", str(corpus)]) == 0
    repeats = [
        line for line in capsys.readouterr().err.splitlines() if "WARNING" in line and "repeat" in line
    ]
    assert (
        len(repeats) == 2
        and "2 more repeated pairs in manifest.csv, each compared and counted once: " in repeats[1]
    ), repeats
    assert log_file.read_text(encoding="utf-8").count("repeats line") == 3


def _worker_warns(count: int, worker: int) -> None:
    """A worker process of a command: what the process pool's initializer does, then warnings."""
    forward_to_parent()
    for i in range(count):
        READER.warning("w%d-%d.txt: odd", worker, i, extra={KIND: "odd texts", ITEM: f"w{worker}-{i}.txt"})


def test_warnings_of_worker_processes_are_counted_by_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log_file = tmp_path / "dri.log"
    quiet = quiet_logs(verbose=False, log_file=log_file)
    assert os.environ[SOCKET_ENV]
    workers = [
        multiprocessing.get_context("spawn").Process(target=_worker_warns, args=(10, k)) for k in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    quiet.close()
    assert SOCKET_ENV not in os.environ
    err = [line for line in capsys.readouterr().err.splitlines() if "odd" in line]
    assert len(err) == 2, err
    assert err[0].startswith("WARNING dri.extract.reader: w") and err[0].endswith(".txt: odd")
    assert err[1].startswith("WARNING dri.extract.reader: 19 more odd texts: w"), err
    assert log_file.read_text(encoding="utf-8").count(": odd") == 20


def test_a_worker_killed_in_the_middle_of_a_record_prints_no_traceback(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # socketserver printed "Exception occurred during processing of request" and a
    # traceback for the half record a killed worker left; a worker's own record still counts.
    import pickle
    import socket
    import struct
    import time

    log_file = tmp_path / "dri.log"
    quiet = quiet_logs(verbose=False, log_file=log_file)
    record = pickle.dumps(
        {"name": "dri.extract.reader", "msg": "a.txt: odd", "levelno": 30, "levelname": "WARNING"}
    )
    for sent in (struct.pack(">L", len(record)) + record[:10], struct.pack(">L", 5) + b"junk!", record):
        with socket.socket(socket.AF_UNIX) as worker:
            worker.connect(os.environ[SOCKET_ENV])
            worker.sendall(sent if sent is not record else struct.pack(">L", len(record)) + record)
    deadline = time.monotonic() + 30  # the server's threads take the three connections in turn
    while not (log_file.exists() and "a.txt: odd" in log_file.read_text(encoding="utf-8")):
        assert time.monotonic() < deadline, "the whole record was not logged"
        time.sleep(0.05)
    quiet.close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err, err
    assert log_file.read_text(encoding="utf-8").count("a.txt: odd") == 1


def test_without_a_socket_the_console_summary_still_works(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    long_tmp = tmp_path / ("x" * 120)
    long_tmp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(long_tmp))  # too long for a Unix socket's name
    quiet = quiet_logs(verbose=False, log_file=tmp_path / "dri.log")
    assert SOCKET_ENV not in os.environ
    for i in range(3):
        READER.warning("x%d.txt: odd", i, extra={KIND: "odd texts", ITEM: f"x{i}.txt"})
    quiet.close()
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .startswith("WARNING dri.extract.reader: 2 more odd texts: x1.txt")
    )


def test_evaluate_progress_in_a_log_is_a_line_per_tenth_and_per_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = _progress(quiet=False)
    assert report is not None and _progress(quiet=True) is None
    for i in range(1, 301):
        row = {"target": f"/corpus/t{i}.txt", "group": "pairs", "analogy_similarity": 0.5}
        if i == 7:
            row["error"] = "t7.txt: empty file"
        report(i, 300, row)
    lines = capsys.readouterr().err.splitlines()
    assert "[7/300] t7.txt (pairs): error: t7.txt: empty file" in lines
    assert len(lines) == 11 and lines[0] == "[7/300] t7.txt (pairs): error: t7.txt: empty file"
    assert (
        lines[1] == "[30/300] t30.txt (pairs): AS 0.500"
        and lines[-1] == "[300/300] t300.txt (pairs): AS 0.500"
    )


def _full_disk_failures(corpus: str) -> list[Failure]:
    store = "/data/dri.sqlite"
    docs = [
        Failure(f"{corpus}/{n}.txt", "store", f"StoreError: {store}: database or disk is full")
        for n in "abcde"
    ]
    pairs = [
        Failure(
            f"{corpus}/a.txt", "plan", f"skipped, no graph for {corpus}/a.txt", f"{corpus}/{n}.txt", "pair"
        )
        for n in "bcde"
    ]
    return docs + pairs


def test_failures_with_one_reason_fold_into_one_line(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    log = tmp_path / "logs" / "dri.log"
    assert fold_failures(_full_disk_failures("/c")) == [
        "error: 5 documents and 4 pairs failed: /data/dri.sqlite: database or disk is full "
        f"(a.txt, b.txt, c.txt, ...; each in {log})"
    ]
    assert fold_failures(
        [
            Failure("/c/a.txt", "extract", "empty"),
            Failure("/c/x.txt", "map", "no events", target="/c/y.txt", scope="pair"),
            Failure("/c/b.txt", "extract", "empty"),
        ]
    ) == [
        f"error: 2 documents failed: empty (a.txt, b.txt; each in {log})",
        "error: /c/x.txt -> /c/y.txt: no events",
    ]


def test_a_fold_shows_only_the_numbers_its_failures_share(monkeypatch, tmp_path: Path) -> None:
    # Three PDFs of 3, 5,000 and 1 pages were all said to have "3 page(s) without text".
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    log = tmp_path / "logs" / "dri.log"
    failures = [
        Failure(
            f"/c/{name}.pdf", "extract", f"PDF has no text layer ({pages} page(s) without text; limit 50)"
        )
        for name, pages in (("a", 3), ("b", 5000), ("c", 1))
    ]
    assert fold_failures(failures) == [
        f"error: 3 documents failed: PDF has no text layer (N page(s) without text; limit 50) (a.pdf, b.pdf, c.pdf; each in {log})"
    ]
    # A number written with thousands separators is one number ("N,N,000" before).
    failures = [
        Failure(
            f"/c/{name}.txt", "extract", f"too long: {chars:,} characters of text; the limit is 2,000,000"
        )
        for name, chars in (("a", 2_500_000), ("b", 3_100_000))
    ]
    assert fold_failures(failures) == [
        f"error: 2 documents failed: too long: N characters of text; the limit is 2,000,000 (a.txt, b.txt; each in {log})"
    ]


def test_pairs_skipped_for_a_document_join_its_own_line(monkeypatch, tmp_path: Path) -> None:
    # Every skipped pair joined the first document's fold: one bad original and one
    # bad answer printed "1 document and 6 pairs failed: <reason> (h.txt; ...)", the
    # answer's skipped pair counted under the original's reason.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    skipped = [
        Failure("/c/h.txt", "plan", "skipped, no graph for /c/h.txt", target=f"/c/{n}.txt", scope="pair")
        for n in ("h-spa", "h-cat", "h-epo")
    ]
    skipped.append(
        Failure("/c/v.txt", "plan", "skipped, no graph for /c/v-spa.txt", target="/c/v-spa.txt", scope="pair")
    )
    failures = [
        Failure("/c/h.txt", "extract", "binary data, not text"),
        Failure("/c/v-spa.txt", "extract", "empty file"),
        *skipped,
    ]
    assert fold_failures(failures) == [
        "error: /c/h.txt: binary data, not text (3 pairs skipped for it)",
        "error: /c/v-spa.txt: empty file (1 pair skipped for it)",
    ]


def test_a_store_that_stopped_the_run_takes_the_failures_that_name_it(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    neo4j = "Neo4j at bolt://127.0.0.1:7687"
    failures = [
        Failure(f"/c/{n}.txt", "store", f"StoreUnavailable: {neo4j}: unavailable after {i} s")
        for i, n in enumerate("abcd")
    ]
    reason = "not answering; 4 document(s) not stored, no pairs mapped"
    failures.append(Failure(neo4j, "store", reason, scope="run"))
    assert fold_failures(failures, advice="start it") == [
        f"error: {neo4j}: not answering; 4 document(s) not stored, no pairs mapped "
        f"(4 documents: a.txt, b.txt, c.txt, ...; each in {tmp_path / 'logs' / 'dri.log'}); what to do: start it"
    ]


def test_lost_batches_fold_by_their_exception(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    lost = "extraction batch failed: BrokenProcessPool: A process in the process pool was terminated"
    failures = [
        Failure("/c", "extract", lost, scope="batch"),
        Failure("/c", "extract", lost, scope="batch"),
        Failure("/c/a.txt", "plan", "skipped, no graph for /c/b.txt", target="/c/b.txt", scope="pair"),
        Failure(
            "/c",
            "map",
            "mapping batch failed: BrokenProcessPool: A child process terminated abruptly",
            scope="batch",
        ),
    ]
    (line,) = fold_failures(failures)
    assert line.startswith("error: 3 batches and 1 pair failed: extraction batch failed: BrokenProcessPool: ")
    assert "(c; each in " in line


def test_each_failure_goes_to_the_log_file_and_only_verbose_shows_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    failures = _full_disk_failures("/c")
    for verbose, shown in ((False, 0), (True, len(failures))):
        log_file = tmp_path / f"{verbose}.log"
        quiet = quiet_logs(verbose=verbose, log_file=log_file)
        log_failures(logging.getLogger("dri.commands.run"), failures)
        quiet.close()
        assert len(capsys.readouterr().err.splitlines()) == shown
        logged = log_file.read_text(encoding="utf-8").splitlines()
        assert [line.split(" ERROR dri.commands.run: ", 1)[1] for line in logged] == [
            str(f) for f in failures
        ]


@pytest.fixture
def temp_folder(monkeypatch: pytest.MonkeyPatch):
    """A temporary folder of the test's own as ``$TMPDIR`` (short: a socket's name is at most 107 bytes)."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="ql-", dir="/tmp")
    monkeypatch.setenv("TMPDIR", folder)
    monkeypatch.setattr(tempfile, "tempdir", folder)
    yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _closed_socket(folder: Path) -> None:
    """``folder`` as a killed command left it: its socket, which nothing listens on."""
    import socket

    folder.mkdir()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(folder / "socket"))


def _dead_pid() -> int:
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_folder_a_killed_command_left_is_removed_by_the_next(temp_folder: Path) -> None:
    # kill -9 skips close(): each killed command left its dri-log-* folder in $TMPDIR for good.
    import signal
    import subprocess
    import sys

    code = "from dri.quiet_logs import quiet_logs; import os, time; q = quiet_logs(verbose=False); print(os.environ['DRI_LOG_SOCKET'], flush=True); time.sleep(60)"
    command = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert command.stdout is not None
    folder = Path(command.stdout.readline().strip()).parent
    assert folder.name.startswith(f"dri-log-{command.pid}-") and folder.parent == temp_folder
    quiet = quiet_logs(verbose=False, log_file=None)  # its command runs: its folder stays
    quiet.close()
    assert folder.is_dir()
    command.send_signal(signal.SIGKILL)
    command.wait()
    quiet = quiet_logs(verbose=False, log_file=None)
    try:
        assert [p.name for p in temp_folder.iterdir()] == [Path(os.environ[SOCKET_ENV]).parent.name]
    finally:
        quiet.close()
    assert list(temp_folder.iterdir()) == []


def test_only_abandoned_folders_of_dri_are_removed(temp_folder: Path) -> None:
    dead, alive = _dead_pid(), os.getpid()
    old = time.time() - 60
    # The command is gone: its pid is not running, or (its pid taken by another
    # process, or an older dri's folder that names none) its socket refuses connections.
    gone = [f"dri-log-{dead}-abcd1234", f"dri-log-{alive}-reused12", "dri-log-nopid_12"]
    for name in gone:
        _closed_socket(temp_folder / name)
        os.utime(temp_folder / name, (old, old))
    (temp_folder / f"dri-log-{dead}-empty123").mkdir()  # made, killed before its socket
    # Left alone: a folder holding a file of someone else's, a link named like one
    # (to a folder of the user's), a folder dri does not name so, and one just made
    # whose process may still be starting to listen.
    (temp_folder / f"dri-log-{dead}-others12").mkdir()
    (temp_folder / f"dri-log-{dead}-others12" / "notes.txt").write_text("mine", encoding="utf-8")
    (temp_folder / "mine").mkdir()
    (temp_folder / "mine" / "socket").write_text("mine", encoding="utf-8")
    (temp_folder / f"dri-log-{dead}-linked12").symlink_to(temp_folder / "mine")
    (temp_folder / "dri-log-of-my-own").mkdir()
    _closed_socket(temp_folder / "dri-log-recent12")
    quiet = quiet_logs(verbose=False, log_file=None)
    own = Path(os.environ[SOCKET_ENV]).parent.name
    quiet.close()
    kept = {p.name for p in temp_folder.iterdir()}
    assert own not in kept
    assert kept == {
        f"dri-log-{dead}-others12",
        "mine",
        f"dri-log-{dead}-linked12",
        "dri-log-of-my-own",
        "dri-log-recent12",
    }
    assert (temp_folder / "mine" / "socket").read_text(encoding="utf-8") == "mine"
    assert (temp_folder / f"dri-log-{dead}-others12" / "notes.txt").is_file()


def test_a_live_commands_folder_is_kept_however_old(temp_folder: Path) -> None:
    first = quiet_logs(verbose=False, log_file=None)
    try:
        folder = Path(os.environ[SOCKET_ENV]).parent
        old = time.time() - 3600
        os.utime(folder, (old, old))
        second = quiet_logs(verbose=False, log_file=None)
        second.close()
        assert (folder / "socket").exists()
    finally:
        first.close()
    assert not folder.exists()
