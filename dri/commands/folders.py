"""Folders named on the command line, checked when parsed: the ``--out DIR`` of ``dri graph``,
``dri evaluate`` and ``dri demo``, and the corpus or root that ``dri run``,
``dri evaluate`` and ``dri watch`` read; the files ``dri compare``, ``dri graph``,
``dri ratings`` and ``dri report`` read or write.

An empty ``--out ""`` (a shell variable that was not set) is the current
folder to :class:`pathlib.Path`, so the command's files would land among the
user's own; a path that is a file, or lies under one, would fail only when
the first file is written, for ``dri evaluate`` after every comparison, with
the bare "File exists". Both are usage errors before any work. So is the
filesystem's root or a top-level system folder (``/``, ``/usr``, ``/etc``...):
the files would land straight among the system's own, which nobody means.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from dri.atomic import database_at
from dri.files import what_is_there
from dri.literal import printable
from dri.staging import REPORT_INCOMPLETE, REPORT_RECORD, left_incomplete

__all__ = [
    "REPORT_FILES",
    "claimed_report_folder",
    "earlier_report",
    "file_in_the_way",
    "given_file",
    "given_path",
    "not_a_folder",
    "output_file",
    "output_folder",
    "output_name",
    "overwrites_a_database",
    "system_folder",
    "system_folder_refusal",
    "why_not_a_folder",
]


#: The files of a report (metrics.report.write_report and the judgement kinds'
#: pictures and statistics); one of them in ``--out`` is an earlier report, or
#: a user's file of that name, which the report would replace.
REPORT_FILES = (
    "summary.md",
    "index.html",
    "stats.json",
    "scores.csv",
    "validity.json",
    "boxplots.png",
    "boxplots_baselines.png",
    "scatter.png",
    "scatter_baselines.png",
    "ranking.png",
    REPORT_RECORD,
    REPORT_INCOMPLETE,
)


def earlier_report(out: Path | None) -> Path | None:
    """The file of an earlier report in ``out`` (an explicit ``--out``), if any.
    A folder left part-written (:func:`dri.staging.left_incomplete`) holds none:
    its files are of two reports, neither whole, and the next report replaces
    them all, so that running the stopped command again finishes its work."""
    if out is None or left_incomplete(out):
        return None
    return next((out / name for name in REPORT_FILES if (out / name).is_file()), None)


def file_in_the_way(path: Path) -> Path | None:
    """``path`` or the nearest of its parents that exists and is not a folder, if any."""
    for part in (path, *path.parents):
        if part.exists():
            return None if part.is_dir() else part
        if part.is_symlink():  # a dangling link: nothing can be made there
            return part
    return None


def _a_loop(path: Path) -> bool:
    """Whether ``path`` is a symbolic link that leads back to itself."""
    try:
        os.path.realpath(path, strict=True)
    except OSError as err:
        return err.errno == errno.ELOOP
    return False


#: The filesystem's root and its system folders: a command writing its files straight
#: into one was surely given the wrong folder (``--out /``, ``--out $UNSET/..``).
SYSTEM_FOLDERS = ("/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/proc", "/sbin", "/sys", "/usr")


def system_folder(path: Path) -> str | None:
    """The one of :data:`SYSTEM_FOLDERS` that ``path`` is, however it is written
    (``//``, ``/usr/..``, a link to it); None for any other folder or none there."""
    try:
        found = path.stat()
    except OSError:
        return None
    for name in SYSTEM_FOLDERS:
        with contextlib.suppress(OSError):
            if os.path.samestat(found, os.stat(name)):
                return name
    return None


def system_folder_refusal(path: Path) -> str | None:
    """Why ``path`` cannot take a command's files: it is the filesystem's root or a system folder."""
    name = system_folder(path)
    if name is None:
        return None
    what = "the root of the filesystem" if name == "/" else f"the system folder {name}"
    return f"{printable(path)}: {what}, not a folder for this command's files; name a folder of their own"


def output_folder(text: str) -> Path:
    """A folder to write into, existing or to be made (argparse's ``type``)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty folder name (give . for the current folder)")
    path = Path(text)
    refusal = system_folder_refusal(path)
    if refusal:
        raise argparse.ArgumentTypeError(refusal)
    blocker = file_in_the_way(path)
    if blocker is not None and _a_loop(blocker):
        raise argparse.ArgumentTypeError(f"{printable(blocker)}: a loop of symbolic links, not a folder")
    if blocker == path and path.is_symlink() and not path.exists():
        raise argparse.ArgumentTypeError(f"{printable(text)}: a symbolic link to nothing, not a folder")
    if blocker == path:
        raise argparse.ArgumentTypeError(f"{printable(text)}: not a folder (a file of that name is there)")
    if blocker is not None:
        raise argparse.ArgumentTypeError(
            f"{printable(text)}: cannot be a folder, {printable(blocker)} is {not_a_folder(blocker)}"
        )
    return path


def not_a_folder(path: Path) -> str:
    """What ``path`` is, where a folder was to be: "a file", "a symbolic link to
    nothing", "a loop of symbolic links" (each was "a file")."""
    there = what_is_there(path)
    return "a file" if there == "a regular file" else there


def why_not_a_folder(path: Path) -> str:
    """Why the folder a command reads is not one: "no such folder", or "not a
    folder (a regular file)" (a folder not there was "not a folder" too, as if
    something else stood in its place)."""
    there = what_is_there(path)
    return "no such folder" if there == "missing" else f"not a folder ({there})"


def given_path(text: str) -> Path:
    """A path the command reads, never the empty string (argparse's ``type``).

    ``dri run ""`` (an unset shell variable) would run the corpus flow on the
    current folder, as :class:`pathlib.Path` reads ``""`` as ``.``.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (give . for the current folder)")
    return Path(text)


def given_file(text: str) -> Path:
    """A file the command reads, never the empty string (argparse's ``type``):
    ``dri compare "" b.txt`` was told ".: is a folder"."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    return Path(text)


def output_name(text: str) -> str:
    """A file (or folder) to write, never the empty string (argparse's ``type``);
    kept a str, whose trailing "/" may say "a folder"."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    return text


def output_file(text: str) -> Path:
    """:func:`output_name` as a :class:`~pathlib.Path`, which must name a file:
    a path ending in "/" says "a folder", and a :class:`~pathlib.Path` drops
    the "/" (``--svg newdir/`` wrote a file named ``newdir``)."""
    if output_name(text).endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(
            f"{printable(text)}: names a folder (it ends in /); give a file name"
        )
    return Path(text)


def overwrites_a_database(path: Path) -> str | None:
    """Why an output at ``path`` must not be written, or None: ``path`` is a
    SQLite database (:func:`dri.atomic.database_at`: dri's store, a cache of
    its data folder, any other, or a file SQLite keeps beside one). ``dri
    compare A B --html data/dri.sqlite`` replaced the store with a page, and
    every later command failed on it."""
    return "a SQLite database (a store or a cache) is there" if database_at(path) else None


@contextlib.contextmanager
def claimed_report_folder(out: Path) -> Iterator[bool]:
    """Whether this process alone writes a report in ``out`` while the block
    runs: an ``flock`` on the folder itself (made if it is not there, and
    removed again if the block left it empty), taken without waiting and held
    to the end. Two commands given one ``--out`` at once each found no earlier
    report there, and both wrote it, the second replacing the first's report.
    The lock is the folder's own, not a file under a data folder: two commands
    of different data folders (``DRI_DATA_DIR``), or of one that cannot be
    written, each took a lock of its own and both wrote. Nothing is left in
    the user's folder."""
    made = _made_folders(out)
    try:
        handle = _locked_folder(out)
    except BlockingIOError:
        yield False  # what this process made is the other's now, to fill
        return
    try:
        yield True
    finally:
        # Removed while still locked: a command that opened the folder meanwhile
        # finds it gone once it gets the lock, and makes its own.
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if the block left it empty
        if handle is not None:
            os.close(handle)  # the lock goes with it


def _made_folders(out: Path) -> list[Path]:
    """Make ``out`` and its missing parents; the ones made here, outermost first
    (none if one cannot be made: the report's own write then says why)."""
    missing = [folder for folder in (out, *out.parents) if not os.path.lexists(folder)]
    made: list[Path] = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue  # another command made it meanwhile: its own to remove
        except OSError:
            break
        made.append(folder)
    return made


def _locked_folder(out: Path) -> int | None:
    """A descriptor of the folder ``out`` holding an exclusive ``flock`` on it;
    :class:`BlockingIOError` if another process holds one. None for a folder
    that cannot be opened (not there, not readable) or locked: no claim can be
    kept, and the report's own write says what is wrong with the folder."""
    for _ in range(10):
        try:
            handle = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(handle)
            if isinstance(err, BlockingIOError):
                raise
            return None
        # The folder locked may have been removed (its first writer made it and
        # left it empty) and made again since it was opened: the lock of a
        # folder no longer there guards nothing.
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(handle), os.stat(out)):
                return handle
        os.close(handle)
    return None
