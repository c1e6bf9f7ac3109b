"""The one-line error messages every batch prints and carries on after.

Bad input gets one line naming the file and the reason (``docs/architecture.md``):
errors that know their file (:class:`dri.extract.DocumentError`,
:class:`dri.corpora.text.CorpusError`, both with a ``path`` attribute) already
start with it; any other error is named by its type. :class:`ProjectError`
is the base of the errors that are the project's own (``dri/cli.py`` turns
them into one line), :class:`SettingsError` that of bad settings.
:class:`Failure` is one thing a batch could not do, as a record (what, at
which stage, why) that travels from the task that failed to the console, the
log file and the run summary. Like :mod:`dri.settings`, this module imports
nothing of ours, so every layer may use it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "Failure",
    "Interrupted",
    "ProjectError",
    "SettingsError",
    "error_line",
    "joined_reasons",
    "json_reason",
    "machine_limit",
    "one_line",
    "os_reason",
    "pair_failure_lines",
    "prefixed",
]

#: What a failure is about: one document, one pair, a whole batch of either
#: (a worker lost), or the whole run (a store that stopped it, a plan that
#: could not be made, a summary that could not be written).
Scope = Literal["document", "pair", "batch", "run"]


class ProjectError(Exception):
    """An error dri reports itself: bad input, a setting it cannot use, a store
    it cannot use. ``str()`` is one line that names the file, variable or
    server and the reason. The ``dri`` command prints it as ``error: ...``
    and exits with status 1; anything else that escapes a command is a bug."""

    #: What the user can do about it, in one line (printed after the error), or "".
    advice: str = ""


class Interrupted(KeyboardInterrupt):
    """A command stopped by a signal (SIGINT, SIGTERM): Ctrl-C's exception,
    which knows its signal, so that the exit status can say which
    (``128 + signum``: 130 for SIGINT, 143 for SIGTERM)."""

    def __init__(self, signum: int = 2) -> None:
        super().__init__(signum)
        self.signum = signum

    @staticmethod
    def status(err: BaseException) -> int:
        """The exit status of a command that ``err`` (a KeyboardInterrupt) stopped."""
        return 128 + getattr(err, "signum", 2)


class SettingsError(ProjectError, ValueError):
    """An environment variable or option with a value dri cannot use; the
    message names it."""


def one_line(err: BaseException | str) -> str:
    """``err`` on one line: white space folded, an exception prefixed with its
    type name unless it has a ``path`` or is dri's own (a :class:`ProjectError`,
    written for the user: "StoreError: …" told a user nothing), an empty text
    ``unknown error``."""
    if not isinstance(err, BaseException):
        return " ".join(str(err).split()) or "unknown error"
    text = " ".join(str(err).split()) or type(err).__name__
    return text if hasattr(err, "path") or isinstance(err, ProjectError) else f"{type(err).__name__}: {text}"


#: Words of the errors a machine's limits raise from inside the libraries (onnxruntime's
#: C++ ``std::bad_alloc``; the tokenizers' Rust thread pool, a ``PanicException``, which
#: is no ``Exception``, when no thread can be started).
_OUT_OF_MEMORY = ("std::bad_alloc", "Cannot allocate memory")
_NO_THREAD = ("can't start new thread", "ThreadPoolBuildError")


def machine_limit(err: BaseException) -> str | None:
    """What limit of the machine ``err`` met (memory, threads), as a reason for
    one line; None for any other error. These are faults of where a command
    runs (``ulimit -v``, ``ulimit -u``, a full machine), not bugs of dri."""
    text = str(err)
    if isinstance(err, MemoryError) or any(word in text for word in _OUT_OF_MEMORY):
        return (
            "out of memory: close other programs, raise the memory limit (ulimit -v), or give smaller inputs"
        )
    if any(word in text for word in _NO_THREAD):
        return "cannot start a thread: a limit of the machine on threads or memory (ulimit -u, ulimit -v) is reached"
    return None


def prefixed(path: str | Path, message: str) -> str:
    """``message`` starting with ``path``, unless it already does."""
    return message if message.startswith(str(path)) else f"{path}: {message}"


def _names(document: str, reason: str) -> bool:
    """Whether ``reason`` starts with ``document``, as given or resolved (a failure of
    a run names its document by the resolved path, a row by the path given)."""
    try:
        resolved = str(Path(document).resolve())
    except (OSError, RuntimeError, ValueError):  # ValueError: a name with a NUL byte
        resolved = document
    return reason.startswith((document, resolved))


def joined_reasons(error: str) -> list[str]:
    """The reasons a row's ``error`` joins with "; ", split where they were joined:
    at a "; " outside brackets, since a reason may hold one itself ("too long: ...
    (about 15 words; DRI_MAX_TEXT_CHARS sets it)")."""
    reasons, depth, start = [], 0, 0
    for at, char in enumerate(error):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == ";" and depth == 0 and error.startswith("; ", at):
            reasons.append(error[start:at])
            start = at + 2
    reasons.append(error[start:])
    return reasons


def pair_failure_lines(failed: Iterable[tuple[str, str, str]]) -> list[str]:
    """The lines of failed pairs ``(source, target, error)``, each distinct reason once
    (a row joins its documents' reasons and its baselines' with "; "): as it is if it
    names one of the two documents (a file that cannot be read), else after the pair,
    or after the count of pairs it failed (a batch lost whole)."""
    pairs_by_reason: dict[str, dict[str, None]] = {}
    for source, target, error in failed:
        for reason in joined_reasons(error):
            pairs = pairs_by_reason.setdefault(reason, {})
            if not (_names(source, reason) or _names(target, reason)):
                pairs[f"{source} -> {target}"] = None
    lines = []
    for reason, pairs in pairs_by_reason.items():
        if not pairs:
            lines.append(reason)
        elif len(pairs) == 1:
            lines.append(f"{next(iter(pairs))}: {reason}")
        else:
            lines.append(f"{len(pairs)} pairs ({next(iter(pairs))}, ...): {reason}")
    return lines


def os_reason(err: OSError) -> str:
    """The reason of ``err`` for a message: its ``strerror``, except where a file
    stands where a folder is made or written into: the bare "File exists" or
    "Not a directory" of the folder (``data/runs`` a file, a report folder
    that is a file) then says which file is in the way, or which symbolic link
    leads nowhere."""
    reason = err.strerror or one_line(err)
    own_words = err.errno is not None and reason != os.strerror(err.errno)  # kept: they say more
    if isinstance(err, (FileExistsError, NotADirectoryError)) and err.filename and not own_words:
        path = Path(os.fsdecode(err.filename))
        # A link to nothing fails mkdir(exist_ok=True) with a bare "File exists".
        if path.is_symlink() and not path.exists():
            return f"a symbolic link to {os.readlink(path)}, which is not there"
        blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
        if blocker == path and isinstance(err, FileExistsError):
            return "not a folder (a file of that name is in the way)"
        if blocker is not None and blocker != path:
            return f"cannot be made: {blocker} is a file, not a folder"
    return reason


def error_line(err: ProjectError) -> str:
    """``err`` as the one line a command prints: ``error: <what>: <reason>``,
    then what to do, when the error says."""
    text = " ".join(str(err).split()) or type(err).__name__
    advice = getattr(err, "advice", "")
    return f"error: {text}; what to do: {advice}" if advice else f"error: {text}"


@dataclass(frozen=True)
class Failure:
    """One thing a run could not do, and why.

    ``path`` is the document (a pair's source; the corpus folder for a lost
    batch; the store or the file for a failure of the whole run), ``target``
    a pair's target, ``stage`` the step that failed (``discover``,
    ``extract``, ``store``, ``plan``, ``map``, ``summary``), ``reason`` one
    line without the path. ``str()`` is the failure's one line, ``path:
    reason`` or ``source -> target: reason``.
    """

    path: str
    stage: str
    reason: str
    target: str = ""
    scope: Scope = "document"

    @classmethod
    def of(cls, path: str | Path, stage: str, message: str, **fields: Any) -> Failure:
        """The failure of ``path`` whose one line (:func:`one_line`) is ``message``,
        with or without ``path`` in front (as it is, or with its white space folded
        as :func:`one_line` folds it: a file name holding a line break)."""
        path = str(path)
        for head in (f"{path}: ", f"{one_line(path)}: "):
            if message.startswith(head):
                return cls(path, stage, message[len(head) :], **fields)
        return cls(path, stage, message, **fields)

    @classmethod
    def from_line(cls, line: str, stage: str) -> Failure:
        """The failure a ``path: reason`` line names (the problem lines of the
        corpus readers, which report in text)."""
        path, sep, reason = line.partition(": ")
        return cls(path, stage, reason) if sep and path else cls("", stage, line, scope="run")

    @property
    def subject(self) -> str:
        return f"{self.path} -> {self.target}" if self.target else self.path

    def __str__(self) -> str:
        return prefixed(self.subject, self.reason) if self.subject else self.reason

    def mentions(self, path: str) -> bool:
        """Whether this failure is about ``path`` or names it in its reason."""
        return path in (self.path, self.target) or path in self.reason

    def to_dict(self) -> dict[str, str]:
        """The record, and its one line as ``message``, for JSON."""
        return {**asdict(self), "message": str(self)}


def json_reason(err: json.JSONDecodeError, *, line: bool = True) -> str:
    """What is wrong with a JSON text, in json's words and where (``line``: its
    line too, else the column of a one-line text): "Unterminated string
    starting at line 1, column 36" (json's own ends in "at", which the place
    doubled)."""
    where = f"line {err.lineno}, column {err.colno}" if line else f"column {err.colno}"
    return f"{err.msg.removesuffix(' at')} at {where}"
