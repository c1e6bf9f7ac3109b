"""The one-line error messages every batch prints and carries on after.

Bad input gets one line naming the file and the reason (``docs/architecture.md``):
errors that know their file (:class:`dri.extract.DocumentError`,
:class:`dri.corpora.text.CorpusError`, both with a ``path`` attribute) already
start with it; any other error is named by its type. :class:`ProjectError`
is the base of the errors that are the project's own (``dri/cli.py`` turns
them into one line), :class:`SettingsError` that of bad settings. Like :mod:`dri.settings`,
this module imports nothing of ours, so every layer may use it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ProjectError", "SettingsError", "error_line", "one_line", "prefixed"]


class ProjectError(Exception):
    """An error dri reports itself: bad input, a setting it cannot use, a store
    it cannot use. ``str()`` is one line that names the file, variable or
    server and the reason. The ``dri`` command prints it as ``error: ...``
    and exits with status 1; anything else that escapes a command is a bug."""

    #: What the user can do about it, in one line (printed after the error), or "".
    advice: str = ""


class SettingsError(ProjectError, ValueError):
    """An environment variable or option with a value dri cannot use; the
    message names it."""


def one_line(err: BaseException | str) -> str:
    """``err`` on one line: white space folded, an exception without a
    ``path`` prefixed with its type name, an empty text ``unknown error``."""
    if not isinstance(err, BaseException):
        return " ".join(str(err).split()) or "unknown error"
    text = " ".join(str(err).split()) or type(err).__name__
    return text if hasattr(err, "path") else f"{type(err).__name__}: {text}"


def prefixed(path: str | Path, message: str) -> str:
    """``message`` starting with ``path``, unless it already does."""
    return message if message.startswith(str(path)) else f"{path}: {message}"


def error_line(err: ProjectError) -> str:
    """``err`` as the one line a command prints: ``error: <what>: <reason>``,
    then what to do, when the error says."""
    text = " ".join(str(err).split()) or type(err).__name__
    advice = getattr(err, "advice", "")
    return f"error: {text}; what to do: {advice}" if advice else f"error: {text}"
