"""Writing a file whole or not at all, whoever else writes it at the same time.

:func:`write_text` writes to a temporary file of its own in the target's
folder, then renames it over the target (``os.replace``, atomic on one file
system): a reader sees the old file or the new one, never half of one, and
two processes that write the same file at once (two runs of one corpus end
together) each rename their own whole file, the last one winning. A shared
temporary name (``summary.tmp``) would let the second rename find the file
already moved by the first. :func:`locked` serialises a read, change and
write of one file across processes (two ``dri ratings import`` at once): each
writes whole, but without it the second would write what it read before the
first wrote, and the first's rows would be lost. A symbolic link keeps its
place (the file it names is the one replaced), and a device or a pipe
(``/dev/null``, ``/dev/stdout``, a FIFO) is written into as it is, not
replaced by a file. Like :mod:`dri.errors`, this
module imports nothing of ours, so every layer may use it.

Example::

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_text(folder / "a.json", "{}")
    >>> (folder / "a.json").read_text()
    '{}'
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = ["database_at", "locked", "open_lock", "write_bytes", "write_text"]


def write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    sync: bool = False,
    newline: str | None = None,
    errors: str = "strict",
) -> None:
    """Replace ``path`` by a file holding ``text`` (UTF-8, ``errors`` as
    :func:`open` has them) in one rename; ``sync`` flushes it to disk first.
    The temporary file is removed if anything fails, and the error (an
    ``OSError``, or a ``UnicodeEncodeError`` under ``errors="strict"``) is
    raised as it came."""
    ending = os.linesep if newline is None else newline
    if ending not in ("", "\n"):
        text = text.replace("\n", ending)  # what a text file opened with ``newline`` writes
    _replace(Path(path), text.encode("utf-8", errors), sync=sync)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, sync: bool = False) -> None:
    """:func:`write_text` for bytes (a picture): ``path`` holds ``data`` whole, or is as it was."""
    _replace(Path(path), data, sync=sync)


#: The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: The files SQLite keeps beside a database while it is open.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
#: Names an empty file has as a database (SQLite makes one so, and writes its header later).
DATABASE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def database_at(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (through links) is a SQLite database, a file SQLite
    keeps beside one, or an empty file named as one: dri's store or a cache,
    which no output may replace (every later command failed on "file is not
    a database"). A pipe, a device or a name not there is none."""
    target = Path(path)
    try:
        if not target.is_file():
            return False
        with open(target, "rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except OSError:
        return False
    real = Path(os.path.realpath(target))
    if head == SQLITE_HEADER or (not head and real.suffix.lower() in DATABASE_SUFFIXES):
        return True
    side = next((end for end in SQLITE_SIDE_FILES if real.name.endswith(end)), None)
    return side is not None and real.with_name(real.name[: -len(side)]).is_file()


def _replace(target: Path, data: bytes, *, sync: bool) -> None:
    if database_at(target):
        raise OSError(
            errno.EEXIST, "a SQLite database (a store or a cache) is there; not written over", str(target)
        )
    try:
        kind = os.stat(target).st_mode  # through a link
    except OSError:
        kind = None
    if kind is not None and not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
        # A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written into, as the
        # shell's ">" does: a rename would put a plain file in its place.
        _write_into(target, data)
        return
    named = target  # what errors name: the path asked for, never the temporary file
    if target.is_symlink():
        # The link stays; the file it names is replaced (a link to a file elsewhere,
        # a dangling link that names where the file goes).
        target = _link_target(target)
    # Created new (O_EXCL) under a name no other writer uses, with the mode a
    # plain open gives (0666 less the umask; mkstemp's would be 0600).
    temporary = target.with_name(f".{target.name[:64]}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as err:
        reason = err.strerror
        if err.errno == errno.ENOENT and target.parent.is_dir():
            # A folder that exists but refuses new names (/proc, /sys) says ENOENT,
            # which read as "no such folder".
            reason = f"{target.parent} takes no new files"
        raise OSError(err.errno, reason, str(named)) from None
    try:
        with open(handle, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        try:
            os.replace(temporary, target)
        except OSError as err:
            # os.replace's error names the temporary file, which the user never
            # asked for: a name too long for the folder ("l" * 250 + ".graphml")
            # was reported as ".lll….24285-8cea1d71.tmp: File name too long".
            raise OSError(err.errno, err.strerror, str(named)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


#: How long a FIFO given as an output may wait for its reader.
FIFO_READER_SECONDS = 10.0


def _write_into(target: Path, data: bytes) -> None:
    """Write ``data`` into a device or a pipe. A FIFO waits for a reader
    :data:`FIFO_READER_SECONDS` at most, not for ever as the shell's ">" does."""
    deadline = time.monotonic() + FIFO_READER_SECONDS
    while True:
        try:
            handle = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as err:
            if err.errno != errno.ENXIO:  # ENXIO: a FIFO without a reader yet
                raise
            if time.monotonic() > deadline:
                reason = f"a FIFO that no process read in {FIFO_READER_SECONDS:g} s"
                raise OSError(err.errno, reason, str(target)) from None
            time.sleep(0.05)
    os.set_blocking(handle, True)  # the reader may take its time
    with open(handle, "wb") as fh:
        fh.write(data)


def _link_target(link: Path) -> Path:
    """The file a symbolic link names, existing or not; a loop of links is an
    error (the non-strict realpath gave the link itself, which the rename replaced)."""
    try:
        return Path(os.path.realpath(link, strict=True))
    except FileNotFoundError:  # a dangling link: where the file goes
        return Path(os.path.realpath(link))
    except OSError as err:
        reason = "a loop of symbolic links" if err.errno == errno.ELOOP else err.strerror
        raise OSError(err.errno, reason, str(link)) from None


def open_lock(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened to hold an ``flock`` on, made if it is not there.

    Only a plain file is a lock: opening a FIFO in its place for writing
    waited for a reader for ever (the command hung), and a folder or device
    is no lock either. Raises :class:`OSError` naming ``path`` (a FIFO or
    device: "not a plain file, so not a lock").
    """
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o666)
    except OSError as err:
        if err.errno == errno.ENXIO:  # a FIFO no one reads
            raise OSError(err.errno, "not a plain file, so not a lock (a FIFO)", os.fspath(path)) from None
        raise
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise OSError(errno.EINVAL, "not a plain file, so not a lock", os.fspath(path))
    return open(handle, "ab")


@contextlib.contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive lock for ``path`` (on ``<path>.lock`` beside it, its
    folder made if needed) while the block runs: one process at a time reads
    and rewrites the file. The lock goes with the process, so one killed
    part-way leaves none behind."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open_lock(target.with_name(f"{target.name}.lock")) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
