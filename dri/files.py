"""Reading a user's file with a bound on what is read.

Every reader of user input (texts and PDFs, stored graph JSON, CSV and JSON
Lines indexes, judgement and rating files, manifests, target lists) reads
through :func:`read_limited`. It opens the path once, without blocking
(a FIFO opened for reading would otherwise wait for a writer), checks on the
open file that it is a regular file (a symbolic link to one is followed),
and reads at most ``limit + 1`` bytes, so ``/dev/zero``, a FIFO, a device or
a file that grows while it is read cost neither memory nor time: the
``stat`` size of such things is 0, so a size check alone lets them through.

Refusals raise :class:`FileRefused`, whose ``str()`` is one line
``<path>: <reason>``; each reader turns it into its own error type with
the same reason, the path shown with :func:`dri.literal.printable`. Like
:mod:`dri.errors`, this module imports nothing of ours but those two, so
every layer may use it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dri.errors import ProjectError
from dri.literal import printable

__all__ = ["FileRefused", "read_limited"]

_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(ProjectError):
    """A file that is not read; ``str()`` is ``<path>: <reason>``."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{printable(path)}: {reason}")


def _kind(mode: int) -> str | None:
    """What a file of ``mode`` is, if it is not a regular file."""
    return next(
        (name for test, name in _KINDS if test(mode)), None if stat.S_ISREG(mode) else "something else"
    )


def _open_reason(err: OSError, what: str) -> str:
    if err.errno == errno.ENOENT:
        return f"no such {what}"
    if err.errno == errno.ELOOP:
        return "cannot read: a loop of symbolic links"
    if err.errno == errno.ENXIO:
        return f"is a socket or a device without a reader, not a {what}"
    return f"cannot read: {err.strerror or err}"


def _opened_path(fd: int, path: str | os.PathLike[str]) -> str:
    """The real path of the file open as ``fd``: what was opened, not what
    ``path`` names now (Linux's ``/proc/self/fd``; elsewhere ``path`` resolved)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


def read_limited(
    path: str | os.PathLike[str],
    limit: int,
    *,
    what: str = "file",
    inside: str | os.PathLike[str] | None = None,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises :class:`FileRefused` for a missing or unreadable path, anything
    that is not a regular file (a folder, a FIFO, a device, a socket, or a
    symbolic link to one of them), and a file of more than ``limit`` bytes
    (``what`` names the kind of file in the reasons). With ``inside`` (a
    resolved folder), also for a file that is not in it, as opened: a corpus's
    file that became a link to ``/etc/passwd`` after the folder was listed.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        if err.errno == errno.EISDIR:
            raise FileRefused(path, f"is a folder, not a {what}") from None
        reason = _open_reason(err, what)
        if os.path.islink(path):
            reason += f" (a symbolic link to {printable(os.readlink(path))})"
        raise FileRefused(path, reason) from None
    try:
        if inside is not None and not Path(opened := _opened_path(fd, path)).is_relative_to(inside):
            raise FileRefused(
                path, f"refused, it leads to {printable(opened)}, outside the folder {printable(inside)}"
            )
        mode, size = (info := os.fstat(fd)).st_mode, info.st_size
        kind = _kind(mode)
        if kind is not None:
            link = " (through a symbolic link)" if os.path.islink(path) else ""
            raise FileRefused(path, f"is {kind}{link}, not a regular {what}")
        if size > limit:
            raise FileRefused(path, f"too large ({size} bytes; the limit is {limit})")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as err:
        raise FileRefused(path, f"cannot read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    if total > limit:  # it grew while it was read
        raise FileRefused(path, f"too large (more than {limit} bytes, the limit)")
    return b"".join(chunks)
