"""The one-line error messages every batch prints and carries on after.

Bad input gets one line naming the file and the reason (``docs/architecture.md``):
errors that know their file (:class:`dri.extract.DocumentError`,
:class:`dri.corpora.text.CorpusError`, both with a ``path`` attribute) already
start with it; any other error is named by its type. Like :mod:`dri.settings`,
this module imports nothing of ours, so every layer may use it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["one_line", "prefixed"]


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
