"""The fault matrix: every command under every fault it can meet, through
the real ``dri`` command, against the real SQLite and Neo4j.

Commands: ``graph``, ``compare``, ``run`` in this process (a small corpus,
without Prefect) and on the Prefect flow with a process pool, ``evaluate
plagiarism``, ``store info`` and ``store top``. Faults: a malformed URI with
a password in it, a refused connection, wrong credentials (a Neo4j started
with authentication on), Neo4j stopped mid-run and started again, a corrupt
SQLite file, a read-only data folder, a full disk, two runs at once on one
SQLite store, a pool worker killed with SIGKILL, an input that is not a
regular file (a link to ``/dev/zero``, a FIFO), a corpus without documents,
and ``dri run`` in this process and on the process pool
stopped by SIGINT to its process group (a terminal's Ctrl-C), SIGINT to the
command alone, or SIGTERM. The set-up of each is
in ``fault_matrix.py`` and ``fault_matrix_cells.py``; the cells that cannot
apply are listed there with the reason, and checked to be all the others.
The cells run side by side in the background from the start of the session
(``fault_matrix_pool.py``); their tests, at the end of it, check the outcomes.

Every cell checks the exit status, that stderr has no traceback and (for a
fault that stops the command) is one line, that no secret is in stdout,
stderr or any file of the data folder or Prefect home (and of the Prefect
server the cell shared, if it did), and for the store
cases that nothing stored before the fault is lost. With
``DRI_FAULT_MATRIX_REPORT=FILE`` each cell's output is appended to FILE.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fault_matrix import (
    ANALOGY,
    AUTH_PASSWORD,
    COMMANDS,
    FAST_SECONDS,
    FAULT_NAMES,
    INTERRUPTS,
    NOT_APPLICABLE,
    SECRET,
    WRITERS,
    Outcome,
    Workspace,
    cells,
)
from fault_matrix_pool import CellPool

from dri.cli import BUG_STATUS, main
from dri.errors import Interrupted

SECRETS = (SECRET, AUTH_PASSWORD)


def _files(*folders: Path):
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and path.stat().st_size < 50_000_000:
                yield path


def _check_common(ws: Workspace, outcome: Outcome, *others: Outcome) -> None:
    for o in (outcome, *others):
        assert "Traceback" not in o.stderr + o.stdout, o.stderr[-3000:]
        assert "database is locked" not in o.stderr, o.stderr[-2000:]
        for secret in SECRETS:
            assert secret not in o.stdout + o.stderr
    shared = [ws.shared_prefect_home] if ws.shared_prefect_home else []
    for path in _files(ws.data, ws.prefect, *shared):
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, path


def _one_line(outcome: Outcome, *says: str) -> str:
    assert outcome.code == 1, outcome.brief()
    assert len(outcome.errors) == 1, outcome.stderr[-3000:]
    line = outcome.errors[0]
    assert line.startswith("error: "), line
    for text in says:
        assert text in line, line
    return line


# What a disturbed run may print besides its one ``error:`` line: on the flow path,
# Prefect's console log (``--no-progress`` off a terminal shows it instead of a bar).
_PREFECT_LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d+ \| (INFO|WARNING) +\| ")


def _disturbed(outcome: Outcome, *says: str) -> str:
    """A run that met the fault part-way: it ended, never with a traceback,
    and said so in one ``error:`` line, its failures folded by reason."""
    assert outcome.code in (0, 1), outcome.brief()
    errors = [line for line in outcome.errors if not _PREFECT_LINE.match(line)]
    if outcome.code == 0:  # the fault was ridden out
        assert not errors, errors[:5]
        return ""
    assert len(errors) == 1, errors[:5]
    line = errors[0]
    assert line.startswith("error: "), line
    for text in says:
        assert text in line, line
    return line


def _report(command: str, fault: str, outcome: Outcome) -> None:
    target = os.environ.get("DRI_FAULT_MATRIX_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{command:10} {fault:17} {outcome.brief()}\n")


def test_every_cell_is_run_or_left_out_with_a_reason():
    every = {(c, f) for c in COMMANDS for f in FAULT_NAMES}
    assert set(cells()) | set(NOT_APPLICABLE) == every
    assert not set(cells()) & set(NOT_APPLICABLE)
    assert all(reason.strip() for reason in NOT_APPLICABLE.values())


@pytest.mark.parametrize("command, fault", cells(), ids=[f"{c}-{f}" for c, f in cells()])
# The cell's own commands have timeouts of their own; this one also covers the
# cells queued before it, when the matrix runs alone on a busy machine.
@pytest.mark.timeout(3600)
def test_fault_matrix(command, fault, fault_cells: CellPool):
    # Run in the background since the session started (tests/dri/conftest.py).
    ws, outcome = fault_cells.outcome(command, fault)
    _report(command, fault, outcome)
    notes = outcome.notes
    others = [*notes.get("others", []), *[notes[k] for k in ("rerun", "reference") if k in notes]]
    _check_common(ws, outcome, *others)

    if fault == "uri-password":
        _one_line(outcome, "is not a Neo4j URI", "***@")
    elif fault == "refused":
        line = _one_line(outcome, "cannot connect: connection refused", "what to do: ", "scripts/neo4j start")
        assert "retrying" not in line
        # At first contact, not after the retry window (the flow path starts Prefect first).
        assert outcome.seconds < FAST_SECONDS + (60 if command == "run-flow" else 0), outcome.seconds
    elif fault == "wrong-credentials":
        _one_line(outcome, "authentication failed", "NEO4J_PASSWORD")
    elif fault == "corrupt-sqlite":
        _one_line(outcome, "dri.sqlite", "not a database")
    elif fault == "read-only-data":
        # compare writes only caches (kept graphs, clause vectors): without them it works as well.
        if command in ("store-info", "store-top", "compare"):
            assert outcome.code == 0 and not outcome.errors, outcome.brief()
        else:
            _one_line(outcome)
            assert notes["after"] == notes["before"]
    elif fault == "full-disk":
        if command in WRITERS:
            # The store opens, then every write fails: the batch carries on and says so.
            if command == "evaluate":
                # The store's write fails (a warning: the evaluation goes on), then its report's.
                warning, error = outcome.errors
                assert warning.startswith("WARNING dri.evaluate.core: could not store the results: "), warning
                assert error.startswith("error: "), error
            else:
                _disturbed(outcome, "documents and ", "disk is full", "dri.log")
            assert outcome.code == 1
            assert notes["integrity"] == "ok"
            assert all(notes["after"][t] >= n for t, n in notes["before"].items()), notes
        elif command == "compare":
            assert outcome.code == 0 and not outcome.errors, outcome.brief()
        else:
            _one_line(outcome, "cannot write: ")
    elif fault == "concurrent":
        assert [outcome.code, *(o.code for o in notes["others"])] == [0, 0], outcome.stderr[-2000:]
        assert notes["after"] == notes["clean"] and notes["duplicates"] == 0
    elif fault in ("worker-killed", "neo4j-restart"):
        # The disturbed run ends (never hangs), its failed batches folded into one line.
        line = _disturbed(outcome, "failed" if fault == "worker-killed" else "what to do: ")
        if line and command.startswith("run"):
            logged = (ws.data / "logs" / "dri.log").read_text(encoding="utf-8")
            assert logged.count(" ERROR dri.commands.run: ") >= 2, "each failure in the log file"
        if fault == "worker-killed":
            assert notes["killed"], "no pool worker was seen working"
        else:
            assert notes["stopped_mid_run"], "the run ended before the server was stopped"
            assert notes["reference"].code == 0, notes["reference"].brief()
        assert notes["rerun"].code == 0, notes["rerun"].brief()
        assert notes["after"] == notes["clean"]
    elif fault == "not-a-file":
        first = ws.corpus / ANALOGY[0]
        kind = (
            "FIFO (named pipe)" if command.startswith("run") else "character device (through a symbolic link)"
        )
        _one_line(outcome, f"error: {first}: is a {kind}, not a regular file")
        assert outcome.seconds < FAST_SECONDS or command.startswith("run"), outcome.seconds
        if command.startswith("run"):
            assert "3 documents (2 parsed, 0 unchanged), 1 pairs (1 mapped" in outcome.stdout
    elif fault == "empty-corpus":
        line = _one_line(outcome, f"error: {ws.corpus}: no documents: no .txt, .text or .pdf files")
        assert line.endswith("it holds 1 other file(s) (notes.md)"), line
        assert outcome.seconds < FAST_SECONDS, outcome.seconds  # before Prefect starts
    elif fault in INTERRUPTS:
        _interrupted(outcome, command, fault)
    else:  # pragma: no cover - a new fault without checks
        pytest.fail(f"no checks for {fault}")


#: Prefect's words when a run ends by a signal, none of which the console shows.
_CHATTER = ("Crash detected!", "Error logging to API", "KeyboardInterrupt", "TerminationSignal")
#: After this long, the command's own watchdog would have forced its exit (EXIT_GRACE_SECONDS):
#: it ended on its own, not by the force.
_FORCED_AFTER = 10.0


def _interrupted(outcome: Outcome, command: str, fault: str) -> None:
    """One line, the signal's exit status, soon; nothing left running, nothing
    half-written; a re-run stores what a clean run stores."""
    notes = outcome.notes
    assert notes["signalled"], f"the run ended before it could be signalled: {outcome.brief()}"
    assert outcome.code == (143 if fault == "sigterm" else 130), outcome.stderr[-3000:]
    for words in _CHATTER:
        assert words not in outcome.stderr, outcome.stderr[-3000:]
    errors = [line for line in outcome.errors if not _PREFECT_LINE.match(line)]
    assert len(errors) == 1 and errors[0].endswith(
        "interrupted; what was stored is kept, run the same command again to finish"
    ), errors[-5:]
    assert notes["exit_seconds"] < _FORCED_AFTER, notes["exit_seconds"]
    assert not notes["left"], notes["left"]
    assert not notes["written_after"], "the store is still written after every process is gone"
    if command == "run-flow":  # the process pool: two workers, which start nothing, and the run's one server
        shape = notes["pool"]
        assert shape["workers"] == 2 and not shape["started_by_workers"], shape
        assert shape["servers"] <= 1 and not shape["servers_elsewhere"], shape
    assert notes["integrity"] == "ok"
    assert notes["rerun"].code == 0, notes["rerun"].brief()
    assert notes["after"] == notes["clean"]


def _raise(error: BaseException):
    def handler(args):
        raise error

    return handler


def test_a_bug_prints_its_traceback_and_says_where_the_log_is(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    monkeypatch.setattr("dri.commands.graph.run_graph", _raise(TypeError(f"unexpected {SECRET}")))
    from dri.store.records import register_secret

    register_secret(SECRET)
    assert main(["graph", "x.txt"]) == BUG_STATUS
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and "TypeError: unexpected ***" in err and SECRET not in err
    last = err.splitlines()[-1]
    assert last.startswith("dri: this is a bug in dri, please report it; the traceback is in ")
    log = Path(last.rsplit(" ", 1)[1])
    assert log.parent == tmp_path / "logs" and "TypeError: unexpected ***" in log.read_text()


class _Panic(BaseException):
    """As pyo3's PanicException, which a Rust library (tokenizers) raises: no Exception."""


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (MemoryError(), "out of memory: "),
        (RuntimeError("std::bad_alloc"), "out of memory: "),  # onnxruntime's C++ allocation
        (RuntimeError("can't start new thread"), "cannot start a thread: "),
        (
            _Panic("The global thread pool has not been initialized.: ThreadPoolBuildError"),
            "cannot start a thread: ",
        ),
    ],
)
def test_a_limit_of_the_machine_is_one_line(monkeypatch, tmp_path, capsys, error, reason):
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    monkeypatch.setattr("dri.commands.graph.run_graph", _raise(error))
    assert main(["graph", "x.txt"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {reason}"), err
    assert not list(tmp_path.glob("logs/dri-bug-*"))  # no bug log: it is the machine's fault


def test_any_other_base_exception_is_a_bug_with_its_log(monkeypatch, tmp_path, capsys):
    # It escaped every handler before: Python's own traceback, exit 1, no log.
    monkeypatch.setenv("DRI_DATA_DIR", str(tmp_path))
    monkeypatch.setattr("dri.commands.graph.run_graph", _raise(_Panic("index out of bounds")))
    assert main(["graph", "x.txt"]) == BUG_STATUS
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("dri: this is a bug in dri, please report it; the traceback is in ")


@pytest.mark.parametrize("closed", ["2>&-", ">&- 2>&-", "<&- 2>&-"])
def test_closed_standard_streams_are_no_bug(tmp_path, closed):
    # sys.stderr was None, and _configure_logging's isatty() on it was exit 70.
    text = tmp_path / "t.txt"
    text.write_text("The sun attracts the planets.", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} -m dri.cli graph {shlex.quote(str(text))} --out {shlex.quote(str(tmp_path))} {closed}"
    done = subprocess.run(["bash", "-c", command], env={**os.environ, "DRI_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0
    assert (tmp_path / "t.json").is_file()
    assert not list(tmp_path.glob("data/logs/dri-bug-*"))


def test_an_interrupt_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr("dri.commands.store.run_store", _raise(KeyboardInterrupt()))
    assert main(["store", "info"]) == 130
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: interrupted; what was stored is kept, run the same command again to finish"
    ]
    # SIGTERM, which dri run's handler raises as an Interrupted that knows its signal.
    monkeypatch.setattr("dri.commands.store.run_store", _raise(Interrupted(signal.SIGTERM)))
    assert main(["store", "info"]) == 143
    assert len(capsys.readouterr().err.splitlines()) == 1


def _terminated(args):
    signal.raise_signal(signal.SIGTERM)  # kill PID, a service manager, a CI's timeout
    raise AssertionError("SIGTERM did not stop the command")


def test_sigterm_stops_any_command_as_ctrl_c_does(monkeypatch, tmp_path, capsys):
    # Its default ended the process on the spot: no line, and the log socket's
    # temporary folder left behind for ever.
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr("dri.commands.store.run_store", _terminated)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert main(["store", "info"]) == 143
    assert capsys.readouterr().err.splitlines() == [
        "error: interrupted; what was stored is kept, run the same command again to finish"
    ]
    assert not list(tmp_path.glob("dri-log-*"))
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_signal_after_the_work_does_not_stop_the_clean_up(monkeypatch, tmp_path, capsys):
    # Ctrl-C or SIGTERM while the log server stopped was a traceback of the close
    # (SIGTERM: exit 1), and the log socket's folder stayed.
    from dri.quiet_logs import QuietLogs

    close = QuietLogs.close

    def signalled_close(self):
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGTERM)
        close(self)

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setattr(QuietLogs, "close", signalled_close)
    monkeypatch.setattr("dri.commands.store.run_store", lambda args: 0)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert main(["store", "info"]) == 0
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert capsys.readouterr().err == ""
    assert not list(tmp_path.glob("dri-log-*"))


def test_an_interrupt_a_library_wrapped_is_still_an_interrupt(monkeypatch, capsys):
    # Python wraps one raised in a class body's __set_name__ (numpy importing
    # platform during a Ctrl-C) in a RuntimeError: that was exit 70 and a traceback.
    def wrapped(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as err:
            raise RuntimeError("Error calling __set_name__ on 'cached_property' instance") from err

    monkeypatch.setattr("dri.commands.store.run_store", wrapped)
    assert main(["store", "info"]) == 130
    assert capsys.readouterr().err.splitlines() == [
        "error: interrupted; what was stored is kept, run the same command again to finish"
    ]


def test_a_bad_setting_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("DRI_MAX_TEXT_CHARS", "lots")
    (tmp_path / "a.txt").write_text("The sun attracts the planets.\n")
    code = main(["graph", str(tmp_path / "a.txt")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.splitlines()[-1].endswith(": DRI_MAX_TEXT_CHARS must be a positive whole number, not 'lots'")
