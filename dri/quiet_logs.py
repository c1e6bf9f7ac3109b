"""Quiet by default: a warning repeated over a batch is shown once, then counted.

A batch of hundreds of texts can raise the same warning for most of them
("does not look like English", "line N repeats line M"). On the console
each kind of warning appears the first time as it is; its repeats are held
and, when the command ends, become one line with their count and the first
few examples::

    WARNING dri.extract.reader: a.txt: does not look like English (3% of its words ...); ...
    WARNING dri.extract.reader: 411 more texts do not look like English: b.txt, c.txt, d.txt, ... (each in data/logs/dri.log)

Every record is still written, each on its own line, to the log file
(``<data folder>/logs/dri.log``, rotated at 5 MB, three old files kept), and
``--verbose`` prints each on the console too.

A warning's kind is what its emitter says in ``extra``: ``warning_kind`` (a
plural phrase, "texts do not look like English") and ``warning_item`` (what
this one is about, e.g. a file). Without them, warnings of one logger whose
messages differ only in numbers after a leading ``subject: `` are one kind,
and the subject (a file's name) is the example. A warning whose message is
one already seen (a list read by the command and again by its flow) is the
same event: it is neither shown again nor counted. Only records of the ``dri``
loggers pass through here (the others keep their own handlers): they go to
this module's handlers instead of the root logger's for the duration of one
command, and :meth:`QuietLogs.close` puts things back as they were.

Documents are read in the worker processes of the corpus flow's process
pool, so their warnings are raised there. A worker sends the records of
its ``dri`` loggers to the command's process (:func:`forward_to_parent`,
run by the pool's initializer) with the standard library's
:class:`logging.handlers.SocketHandler`, over a Unix socket in a private
temporary folder named by ``DRI_LOG_SOCKET``; the command's process receives
them on a thread and counts them with its own (the cookbook's "sending and
receiving logging events across a network", on one machine). The folder,
``dri-log-<pid>-<random>``, goes when the command ends; one that a ``kill -9``
left behind is removed by the next command (:func:`remove_abandoned_folders`).

The failures a batch lists at its end (:class:`dri.errors.Failure` records:
what failed -- a document, a pair, a batch, the whole run -- at which stage,
and why) fold the same way (:func:`fold_failures`), read from their fields,
not from their text: those with one reason become one ``error:`` line with
their count and the first few examples (a number the reasons do not share
shown as "N": ``3 documents failed: PDF has no text layer (N page(s) ...)``),
pairs skipped at planning for want
of a failed document's graph join that document's line, and a store that
stopped the run takes the failures that name it into its own line; each
failure is still logged on its own (:func:`log_failures`, with the record
in the log record's :data:`FAILURE`) to the log file, and to the console
with ``--verbose``.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import pickle
import re
import shutil
import socket
import socketserver
import stat
import struct
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from dri.errors import Failure
from dri.literal import PrintableFormatter
from dri.settings import data_dir
from dri.staging import process_running

__all__ = [
    "EXAMPLES",
    "FAILURE",
    "ITEM",
    "KIND",
    "SOCKET_ENV",
    "QuietLogs",
    "default_log_file",
    "fold_failures",
    "forward_to_parent",
    "log_failures",
    "quiet_logs",
    "remove_abandoned_folders",
]

#: ``extra`` keys of a warning that says which kind it is and what it is about.
KIND = "warning_kind"
ITEM = "warning_item"

#: How many examples a summary line names.
EXAMPLES = 3

#: ``extra`` key of a record that a summary line of the command shows folded:
#: it goes to the log file, and to the console only with ``--verbose``.
FOLDED = "dri_folded"

#: ``extra`` key of a log record that carries a :class:`~dri.errors.Failure`.
FAILURE = "dri_failure"

#: Where worker processes send their records: the command's Unix socket.
SOCKET_ENV = "DRI_LOG_SOCKET"

CONSOLE_FORMAT = "%(levelname)s %(name)s: %(message)s"
FILE_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

#: The start of the name of a command's socket folder; its process id follows.
FOLDER_PREFIX = "dri-log-"
#: A folder of dri's: the prefix, the pid of the command that made it (older
#: versions wrote none) and :func:`tempfile.mkdtemp`'s random part.
_OUR_FOLDER = re.compile(r"dri-log-(?:(\d+)-)?[a-z0-9_]{8}")
#: A socket folder this old whose socket refuses connections is abandoned: a
#: live command listens on its socket microseconds after making it.
ABANDONED_AFTER_SECONDS = 10.0

# A number as messages write it: "2,000,000" is one number (its groups were each shown as "N").
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


@dataclass
class _Repeats:
    """The repeats of one kind of warning after the first, which was shown."""

    first: logging.LogRecord
    phrase: str
    count: int = 0
    examples: list[str] = field(default_factory=list)
    #: The first repeat, shown as it is when it is the only one.
    second: logging.LogRecord | None = None


def _kind_of(record: logging.LogRecord) -> tuple[tuple[str, str], str, str | None]:
    """The grouping key of a warning, the phrase its summary uses, and its example."""
    kind = getattr(record, KIND, None)
    if kind:
        item = getattr(record, ITEM, None)
        return (record.name, str(kind)), str(kind), None if item is None else str(item)
    message = record.getMessage().splitlines()[0] if record.getMessage() else ""
    subject, sep, reason = message.partition(": ")
    if sep and subject and " " not in subject.strip():
        return (record.name, _NUMBER.sub("#", reason)), f"like '{reason}'", Path(subject).name or subject
    return (record.name, _NUMBER.sub("#", message)), f"like '{message}'", None


def _same_file_message(message: str) -> str:
    """``message`` with the path it starts with resolved: the command reads a list as
    ``dups/file_information.csv`` and its flow as ``/tmp/dups/file_information.csv``,
    one warning said twice."""
    subject, sep, reason = message.partition(": ")
    if not sep or os.sep not in subject:
        return message
    try:
        return f"{Path(subject).resolve()}: {reason}"
    except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL in the name
        return message


class _HoldRepeats(logging.Filter):
    """Lets through the first warning of each kind and counts its repeats."""

    def __init__(self) -> None:
        super().__init__()
        self.repeats: dict[tuple[str, str], _Repeats] = {}
        self._said: set[tuple[str, str]] = set()
        self._lock = threading.Lock()  # the command's threads and the workers' receiver

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, FOLDED, False):
            return False
        if record.levelno != logging.WARNING:
            return True
        key, phrase, item = _kind_of(record)
        with self._lock:
            # The same warning again (a list read once by the command and once by its
            # flow) is one event: neither shown again nor counted as a repeat.
            said = (record.name, _same_file_message(record.getMessage()))
            if said in self._said:
                return False
            self._said.add(said)
            held = self.repeats.get(key)
            if held is None:
                self.repeats[key] = _Repeats(first=record, phrase=phrase)
                return True
            held.count += 1
            held.second = held.second or record
            if item is not None and len(held.examples) <= EXAMPLES:
                held.examples.append(item)
            return False


class _ReceiveRecords(socketserver.StreamRequestHandler):
    """One worker's connection: length-prefixed pickled records (``SocketHandler``'s format)."""

    server: _RecordServer

    def setup(self) -> None:
        super().setup()
        with self.server.lock:
            self.server.receiving.add(threading.current_thread())

    def finish(self) -> None:
        with self.server.lock:
            self.server.receiving.discard(threading.current_thread())
        super().finish()

    def handle(self) -> None:
        while True:
            header = self.rfile.read(4)
            if len(header) < 4:
                return
            (size,) = struct.unpack(">L", header)
            body = self.rfile.read(size)
            if len(body) < size:
                return  # the worker was killed in the middle of a record
            # Only this user's processes can reach the socket (a 0700 folder of the command's own).
            try:
                attributes = pickle.loads(body)
                record = logging.makeLogRecord(attributes)
            except Exception:
                # Not a record: the stream is out of step, and nothing after it can be read.
                return
            if not logging.getLogger(record.name).isEnabledFor(record.levelno):
                continue  # as if logged here: this process's levels apply
            for handler in self.server.handlers:
                if record.levelno >= handler.level:
                    handler.handle(record)


#: How often the worker-log server looks for its stop: every command waits for
#: it at the end (socketserver's default, 0.5 s, added 0.25 s to each on average).
STOP_POLL_SECONDS = 0.02


class _RecordServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, handlers: list[logging.Handler]) -> None:
        self.handlers = handlers
        self.lock = threading.Lock()
        self.receiving: set[threading.Thread] = set()
        super().__init__(path, _ReceiveRecords)

    def stop(self, timeout: float) -> None:
        """Stop accepting; wait up to ``timeout`` seconds for the records of
        workers that are ending (a worker still alive does not hold it up longer)."""
        self.shutdown()
        deadline = time.monotonic() + timeout
        with self.lock:
            threads = list(self.receiving)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.server_close()


class _LogFile(logging.handlers.RotatingFileHandler):
    """The log file, which stops quietly when it cannot be written (a full
    disk, a read-only folder): the console still shows what matters, and
    the command reports the fault itself, in one line."""

    def handleError(self, record: logging.LogRecord) -> None:
        self.close()
        self.emit = lambda record: None  # type: ignore[method-assign]


class QuietLogs:
    """The console and file handlers of the ``dri`` loggers for one command."""

    def __init__(self, *, verbose: bool, log_file: Path | None) -> None:
        self.log_file = log_file
        self._logger = logging.getLogger("dri")
        self._propagate = self._logger.propagate
        self.console = logging.StreamHandler(sys.stderr)
        # On a terminal a warning first erases a progress line that rewrites itself.
        erase = "\r\x1b[2K" if sys.stderr.isatty() else ""
        # A file name in a message is shown with its control characters escaped (dri.literal).
        self.console.setFormatter(PrintableFormatter(erase + CONSOLE_FORMAT))
        self.held = _HoldRepeats()
        if not verbose:
            self.console.addFilter(self.held)
        self.handlers: list[logging.Handler] = [self.console]
        if log_file is not None:
            # A name that is not UTF-8 (lone surrogates) is written as "\udcff", not lost with the file.
            to_file = _LogFile(
                log_file,
                maxBytes=5_000_000,
                backupCount=3,
                encoding="utf-8",
                errors="backslashreplace",
                delay=True,
            )
            to_file.setFormatter(logging.Formatter(FILE_FORMAT))
            self.handlers.append(to_file)
        for handler in self.handlers:
            self._logger.addHandler(handler)
        self._logger.propagate = False
        self._socket_env = os.environ.get(SOCKET_ENV)
        remove_abandoned_folders()
        self._folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        socket_path = os.path.join(self._folder, "socket")
        try:
            self._server: _RecordServer | None = _RecordServer(socket_path, self.handlers)
        except OSError:  # e.g. a TMPDIR too long for a socket's name: workers print their own
            self._server = None
            return
        threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": STOP_POLL_SECONDS},
            name="dri-worker-logs",
            daemon=True,
        ).start()
        os.environ[SOCKET_ENV] = socket_path  # inherited by the workers the command starts

    def summary_lines(self) -> list[str]:
        """One line per kind of warning that repeated: the count of repeats and the first
        examples (or the one repeat as it is)."""
        return [self.console.format(record) for record in self._summary_records()]

    def _summary_records(self) -> list[logging.LogRecord]:
        records = []
        for held in self.held.repeats.values():
            if held.count == 1 and held.second is not None:
                records.append(held.second)
            elif held.count:
                line = self._summary(held)
                records.append(logging.makeLogRecord({**held.first.__dict__, "msg": line, "args": None}))
        return records

    def _summary(self, held: _Repeats) -> str:
        where = f"each in {self.log_file}" if self.log_file else "--verbose shows each"
        shown = held.examples[:EXAMPLES]
        examples = ": " + ", ".join(shown) + (", ..." if held.count > len(shown) else "") if shown else ""
        return f"{held.count} more {held.phrase}{examples} ({where})"

    def close(self) -> None:
        """Print the summary lines, then give the ``dri`` loggers back their handlers."""
        if self._server is not None:
            self._server.stop(timeout=2.0)
        shutil.rmtree(self._folder, ignore_errors=True)
        if self._socket_env is None:
            os.environ.pop(SOCKET_ENV, None)
        else:
            os.environ[SOCKET_ENV] = self._socket_env
        for record in self._summary_records():
            self.console.emit(record)
        self.held.repeats.clear()
        for handler in self.handlers:
            self._logger.removeHandler(handler)
            handler.close()
        self._logger.propagate = self._propagate


def remove_abandoned_folders() -> None:
    """Remove this user's socket folders (``dri-log-*`` in the temporary folder)
    whose command is gone: killed (``kill -9``, a power cut), it never removed
    its own. A folder whose command may still run, that holds anything but its
    socket, or that is a link, is left alone."""
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return
    for entry in entries:
        match = _OUR_FOLDER.fullmatch(entry.name)
        if match is None or not _abandoned(entry.path, match.group(1)):
            continue
        with contextlib.suppress(OSError):  # another command removing it too
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(entry.path, "socket"))
            os.rmdir(entry.path)


def _abandoned(folder: str, pid: str | None) -> bool:
    """Whether the socket folder ``folder``, made by process ``pid`` (None: not
    named), is this user's and its command is gone: ``pid`` is not running, or
    (``pid`` reused by another process, or not named) its socket, made more than
    :data:`ABANDONED_AFTER_SECONDS` ago, refuses connections."""
    try:
        found = os.lstat(folder)
        names = os.listdir(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or set(names) - {"socket"}:
        return False
    socket_path = os.path.join(folder, "socket")
    if names and not _a_socket(socket_path):
        return False
    if pid is not None and not process_running(int(pid)):
        return True
    if not names or time.time() - found.st_mtime < ABANDONED_AFTER_SECONDS:
        return False
    return _refuses_connections(socket_path)


def _a_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False


def _refuses_connections(path: str) -> bool:
    """Whether ``path`` is a Unix socket that nothing listens on."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.setblocking(False)  # a live command whose backlog is full: no wait
            probe.connect(path)
    except ConnectionRefusedError:
        return True
    except OSError:  # a name too long for a socket, a full backlog: not known to be abandoned
        return False
    return False


def default_log_file() -> Path | None:
    """``<data folder>/logs/dri.log``, or ``None`` when that folder cannot be made."""
    try:
        folder = data_dir() / "logs"
        folder.mkdir(exist_ok=True)
    except Exception:  # a bad data folder is the command's to report; its log is no reason to fail
        return None
    return folder / "dri.log"


def forward_to_parent() -> None:
    """In a worker process of a command: send the ``dri`` loggers' records to
    the command's process instead of printing them (nothing to do elsewhere)."""
    path = os.environ.get(SOCKET_ENV)
    if not path:
        return
    logger = logging.getLogger("dri")
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    logger.addHandler(logging.handlers.SocketHandler(path, None))
    logger.propagate = False


def quiet_logs(*, verbose: bool, log_file: Path | None = None) -> QuietLogs:
    """Route the ``dri`` loggers through :class:`QuietLogs` until its ``close()``;
    the log file is :func:`default_log_file` unless given."""
    return QuietLogs(verbose=verbose, log_file=log_file or default_log_file())


_BATCH = re.compile(r"^(?:extraction|mapping) batch failed: (\w+)")
#: A reason's leading exception name ("StoreError: ..."), left out of its line.
_EXCEPTION = re.compile(r"^[A-Z]\w*(?:Error|Unavailable|Exception): ")
_NOUNS = {"batch": ("batch", "batches"), "document": ("document", "documents"), "pair": ("pair", "pairs")}


@dataclass
class _Fold:
    reason: str
    #: The first failure as it was, shown when it is the only one.
    first: str
    items: dict[str, list[str]] = field(default_factory=lambda: {kind: [] for kind in _NOUNS})
    #: Of the pairs, those skipped at planning for want of this fold's documents.
    skipped: int = 0

    def size(self) -> int:
        return sum(len(items) for items in self.items.values())

    def line(self, where: str) -> str:
        """The fold's ``error:`` text: the failure as it was when it is the only
        one (with the count of pairs skipped for its document), else counted."""
        if self.size() == 1:
            return self.first
        if self.size() == 1 + self.skipped and len(self.items["document"]) == 1:
            return f"{self.first} ({self.skipped} {_NOUNS['pair'][self.skipped != 1]} skipped for it)"
        return f"{self.count()} failed: {self.reason} ({self.examples(where)})"

    def count(self) -> str:
        return " and ".join(
            f"{len(items)} {_NOUNS[kind][len(items) != 1]}" for kind, items in self.items.items() if items
        )

    def examples(self, where: str) -> str:
        items = list(dict.fromkeys(next(items for items in self.items.values() if items)))
        shown = ", ".join(items[:EXAMPLES]) + (", ..." if len(items) > EXAMPLES else "")
        return f"{shown}; each in {where}"


def _name(path: str) -> str:
    return Path(path).name or path


def _common_numbers(shown: str, reason: str) -> str:
    """``shown`` with each number that ``reason`` (of the same fold) has otherwise
    as "N": a fold of PDFs of 3, 5,000 and 1 pages said "3 page(s)" for them all."""
    if shown == reason:
        return shown
    ours, theirs = _NUMBER.findall(shown), _NUMBER.findall(reason)
    if len(ours) != len(theirs):
        return shown  # folded by another rule (a lost batch's exception): its words are the reason
    pieces = _NUMBER.split(shown)
    numbers = [a if a == b else "N" for a, b in zip(ours, theirs, strict=True)]
    return "".join(piece + number for piece, number in zip(pieces, [*numbers, ""], strict=True))


def _fold_key(failure: Failure) -> tuple[str, str]:
    """``(reason shown, grouping key)``: the reason without a leading
    exception name; a lost batch is grouped by its exception, whichever stage lost it."""
    reason = _EXCEPTION.sub("", failure.reason)
    batch = _BATCH.match(reason) if failure.scope == "batch" else None
    if batch:
        return reason, f"batch failed: {batch.group(1)}"
    return reason, _NUMBER.sub("#", reason)


def fold_failures(failures: list[Failure], *, advice: str | None = None) -> list[str]:
    """The ``error:`` lines of a batch's ``failures``: one per reason (see the
    module docstring); ``advice`` (what to do) ends the last line."""
    log_file = default_log_file()
    where = str(log_file) if log_file else "the log (--verbose shows each)"
    folds: dict[str, _Fold] = {}
    by_document: dict[str, _Fold] = {}
    skipped: list[tuple[str, Failure]] = []
    whole: list[Failure] = []
    for failure in failures:
        if failure.scope == "run":
            whole.append(failure)
            continue
        example = " -> ".join(_name(p) for p in (failure.path, failure.target) if p)
        if failure.scope == "pair" and failure.stage == "plan":
            skipped.append((example, failure))
            continue
        reason, key = _fold_key(failure)
        fold = folds.setdefault(key, _Fold(reason, str(failure)))
        fold.reason = _common_numbers(fold.reason, reason)
        fold.items[failure.scope].append(example)
        if failure.scope == "document":
            by_document[failure.path] = fold
    ranked = sorted(folds.values(), key=lambda f: -len(f.items["document"]) - len(f.items["batch"]))
    unclaimed = []
    for example, failure in skipped:
        # A pair skipped for a failed document (its source or target) joins that document's line.
        named = by_document.get(failure.path) or by_document.get(failure.target)
        if named is None:
            unclaimed.append(example)
        else:
            named.items["pair"].append(example)
            named.skipped += 1
    if unclaimed:
        if not ranked or not (ranked[0].items["document"] or ranked[0].items["batch"]):
            first = f"{unclaimed[0]}: skipped, no graph for its documents"
            ranked.insert(0, _Fold("skipped, no graph for their documents", first))
        ranked[0].items["pair"].extend(unclaimed)
    lines: list[str] = []
    for failure in whole:
        # A store that stopped the run names itself ("Neo4j at URI"): the
        # failures that name it too are part of that line.
        text, store = str(failure), failure.path if failure.stage == "store" else ""
        for fold in [f for f in ranked if store and store in f.reason]:
            ranked.remove(fold)
            text += f" ({fold.count()}: {fold.examples(where)})"
        lines.append(text)
    folded = [fold.line(where) for fold in ranked]
    lines = [f"error: {line}" for line in folded + lines]
    if lines and advice:
        lines[-1] += f"; what to do: {advice}"
    return lines


def log_failures(logger: logging.Logger, failures: list[Failure]) -> None:
    """Each of ``failures`` as an error record of ``logger``, for the log file
    (and the console with ``--verbose``): the console shows them folded."""
    for failure in failures:
        logger.error("%s", failure, extra={FOLDED: True, FAILURE: failure})
