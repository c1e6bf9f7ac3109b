"""A folder's new files appear together, or none of them.

A report folder is several files (``scores.csv``, ``stats.json``,
``summary.md``, ``index.html``, plots) that describe one evaluation. Each is
written whole (:mod:`dri.atomic`), but written one after the other into the
folder a command stopped part-way (Ctrl-C, SIGTERM, a full disk) left a
folder of some new files and some old: a new ``summary.md`` beside the
earlier report's ``index.html``. :func:`files_together` has the block write
into a staging folder inside the target folder (the same file system, so a
move is a rename) and moves every file into place when the block ends, with
SIGINT and SIGTERM held meanwhile (:func:`dri.signals.signals_held`); if the
block fails, the staging folder goes and the target folder is as it was.
Files of the target folder that the block did not write are left alone (an
``--out`` folder may hold a user's own files), except those that an earlier
block with the same ``record`` wrote: the record (a hidden list of the files
a block wrote, moved with them) lets a report written again remove the
earlier report's files it has no new version of (a box plot of baselines
that are no longer there), so a folder never shows one report's files beside
another's. While the files move, a mark beside them (the record's name with
``.incomplete``, listing the files of both blocks) says the folder is part
one block's, part another's: a ``kill -9`` there left two reports mixed with
nothing to tell, and :func:`left_incomplete` lets a reader refuse such a
folder; the next block with the record removes the files of both.

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with files_together(folder) as staging:
...     _ = (staging / "summary.md").write_text("new")
>>> sorted(p.name for p in folder.iterdir())
['summary.md']
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from dri import atomic
from dri.files import FileRefused, read_limited
from dri.signals import signals_held

__all__ = [
    "REPORT_INCOMPLETE",
    "REPORT_RECORD",
    "STAGING_PREFIX",
    "files_together",
    "incomplete_mark",
    "left_incomplete",
    "process_running",
    "recorded_files",
    "remove_abandoned",
    "staging_name",
]

#: The name of a staging folder starts so, then the writer's process id (hidden;
#: one left by ``kill -9`` is removed by the next writer of its folder).
STAGING_PREFIX = ".dri-staging-"
#: The record of a report folder's files (:func:`files_together`'s ``record``).
REPORT_RECORD = ".dri-report-files"
#: What a record's mark ends with (:func:`incomplete_mark`).
INCOMPLETE_SUFFIX = ".incomplete"
#: The mark of a report folder whose files were being moved in when its writer stopped.
REPORT_INCOMPLETE = REPORT_RECORD + INCOMPLETE_SUFFIX
#: The largest record read: a report's few dozen names take a few kB.
RECORD_BYTES = 1 << 20


def staging_name(label: str = "") -> str:
    """A new staging folder's name: :data:`STAGING_PREFIX`, this process's id,
    ``label`` (what is built, for a reader of the folder; its first 100 bytes)
    and a random part."""
    label = label.encode("utf-8", "surrogateescape")[:100].decode("utf-8", "ignore")
    return f"{STAGING_PREFIX}{os.getpid()}-{label}{'-' if label else ''}{os.urandom(6).hex()}"


def remove_abandoned(target: Path) -> None:
    """Remove the staging folders in ``target`` whose writer is no longer running
    (``kill -9``, a power cut): each stayed beside the report for good. A folder
    whose process id is alive, or that names none, is left alone."""
    try:
        entries = list(os.scandir(target))
    except OSError:
        return
    for entry in entries:
        pid = entry.name.removeprefix(STAGING_PREFIX).split("-", 1)[0]
        if (
            not entry.name.startswith(STAGING_PREFIX)
            or not pid.isdigit()
            or not entry.is_dir(follow_symlinks=False)
        ):
            continue
        if not process_running(int(pid)):
            shutil.rmtree(entry.path, ignore_errors=True)


def process_running(pid: int) -> bool:
    """Whether a process of id ``pid`` runs: another user's counts, and so does a
    number that is no process id (nothing of a folder named by it is removed)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


@contextlib.contextmanager
def files_together(folder: str | os.PathLike[str], record: str | None = None) -> Iterator[Path]:
    """Yield a staging folder; when the block ends, its files (subfolders
    too) replace those of the same names in ``folder`` (made if needed).
    With ``record`` (a file name), the names written are kept in that file
    of ``folder``, and the files an earlier block recorded there that this
    one did not write are removed after the move; while the files move, a
    mark says the folder is part old, part new (:func:`left_incomplete`).
    A name in ``folder`` that is a symbolic link is written through (the
    file it names is replaced, as :func:`dri.atomic.write_bytes` does).
    Every place is checked before any file moves: a folder, a pipe or a
    device, a loop of links or a SQLite database in the way is an
    :class:`OSError` naming it, and ``folder`` is left as it was."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    remove_abandoned(target)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=target))
    try:
        yield staging
        if record is None:
            moves = _checked_moves(staging, target, own=set())
            with signals_held():
                _make_moves(moves)
        else:
            _move_recorded(staging, target, record)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def incomplete_mark(record: str) -> str:
    """The name of the mark :func:`files_together` keeps beside ``record`` while its files move."""
    return record + INCOMPLETE_SUFFIX


def left_incomplete(folder: str | os.PathLike[str], record: str = REPORT_RECORD) -> bool:
    """Whether ``folder`` holds files of two blocks with ``record``: the last one
    stopped (``kill -9``, a power cut) while moving its files in, or moves them now."""
    return os.path.lexists(Path(folder) / incomplete_mark(record))


def _move_recorded(staging: Path, target: Path, record: str) -> None:
    """Move the files of ``staging`` into ``target`` with ``record`` listing them,
    under the mark of :func:`incomplete_mark`, and remove the earlier block's
    files that have no new version."""
    mark = target / incomplete_mark(record)
    # A block stopped part-way left its mark: the files of both blocks it names are earlier ones.
    earlier = _recorded(target / record) | _recorded(mark)
    written = _written(staging)
    (staging / record).write_text(_listing(written), encoding="utf-8")
    moves = _checked_moves(staging, target, own={record})
    _refuse_mark_place(mark)
    with signals_held():
        # Marked before the first move and unmarked after the last: a folder
        # without the mark holds one block's files, whenever its writer stopped.
        _replace_plain(mark, _listing(earlier | written))
        _make_moves(moves)
        _remove_stale(target, earlier - written - {record, mark.name})
        mark.unlink()


def _listing(names: set[str]) -> str:
    """The text of a record: ``names`` sorted, one a line."""
    return "".join(f"{name}\n" for name in sorted(names))


def _refuse_mark_place(mark: Path) -> None:
    """An :class:`OSError` naming ``mark`` if a folder is in its place."""
    if mark.is_dir() and not mark.is_symlink():
        raise OSError(errno.EISDIR, "a folder is in the way of the report's own file", str(mark))


def _replace_plain(place: Path, text: str) -> None:
    """``place`` a plain file holding ``text``, written whole and flushed to disk
    (a link, a FIFO or a device there is replaced, not written through)."""
    if os.path.lexists(place) and not _plain_file(place):
        place.unlink()
    atomic.write_text(place, text, sync=True)


def _plain_file(place: Path) -> bool:
    """Whether ``place`` is a plain file of its own (not a link)."""
    return stat.S_ISREG(os.lstat(place).st_mode)


#: A file's move: the made file, its place, and whether it is the folder's own
#: record (which replaces a link in its place instead of writing through it).
Move = tuple[Path, Path, bool]


def _checked_moves(staging: Path, target: Path, own: set[str]) -> list[Move]:
    """The moves of the files of ``staging`` to their places in ``target``, each
    place checked first: a move that failed half-way left some new files beside
    some old ones, the mix this module is here to prevent. The names of ``own``
    are the record's."""
    moves = [
        (made, target / made.relative_to(staging), made.relative_to(staging).as_posix() in own)
        for root, _, names in os.walk(staging)
        for made in (Path(root) / name for name in sorted(names))
    ]
    plain = {os.path.realpath(place) for _, place, _ in moves if not place.is_symlink()}
    for _, place, is_own in moves:
        if is_own and _replaceable(place):
            continue  # the hidden record is the folder's own file: replaced below
        _refuse(place)
        if place.is_symlink() and (
            os.path.realpath(place) in plain or os.path.basename(os.path.realpath(place)) in own
        ):
            # Written through, it overwrote the report's own scores.csv, or a record.
            raise OSError(errno.EEXIST, "a symbolic link to another file of a report", str(place))
    return moves


def _make_moves(moves: list[Move]) -> None:
    """Move each made file to its place (:func:`_checked_moves`), in their order."""
    for made, place, is_own in moves:
        place.parent.mkdir(parents=True, exist_ok=True)
        if is_own and _replaceable(place) and os.path.lexists(place):
            place.unlink()
        if place.is_symlink():
            atomic.write_bytes(place, made.read_bytes())
        else:
            os.replace(made, place)


def _replaceable(place: Path) -> bool:
    """Whether the record's place holds something that is simply replaced: a
    link, a FIFO, a device (not read: :func:`_recorded`), or nothing."""
    try:
        mode = os.lstat(place).st_mode
    except FileNotFoundError:
        return True
    return not stat.S_ISDIR(mode)


def _written(staging: Path) -> set[str]:
    """The files under ``staging``, as POSIX paths relative to it."""
    return {
        (Path(root) / name).relative_to(staging).as_posix()
        for root, _, names in os.walk(staging)
        for name in names
    }


def recorded_files(folder: str | os.PathLike[str]) -> set[str]:
    """The names of the files the last :func:`files_together` block with
    ``record=REPORT_RECORD`` wrote into ``folder`` (none, if it kept no record)."""
    return _recorded(Path(folder) / REPORT_RECORD)


def _recorded(path: Path) -> set[str]:
    """The names an earlier block recorded in ``path``; none if it is missing,
    unreadable, not a plain file of its own (a link, a FIFO: read without
    blocking) or larger than :data:`RECORD_BYTES` (an older report, or one a
    user edited)."""
    if path.is_symlink():
        return set()
    try:
        text = read_limited(path, RECORD_BYTES).decode("utf-8")
    except (FileRefused, OSError, UnicodeDecodeError):
        return set()
    return {line for line in text.splitlines() if line}


def _remove_stale(target: Path, names: set[str]) -> None:
    """Remove the plain files ``names`` (relative to ``target``) that stay inside
    it, and the folders they leave empty; a name that escapes the folder,
    passes a link or is no plain file is left alone, since a record is a file
    a user can edit."""
    root = target.resolve()
    for name in sorted(names):
        place = target / name
        if ".." in Path(name).parts or Path(name).is_absolute():
            continue
        try:
            if place.is_symlink() or not place.is_file() or place.resolve().parent != (root / name).parent:
                continue
            place.unlink()
        except OSError:
            continue
        parent = place.parent
        while parent != target:
            try:
                parent.rmdir()  # only if empty
            except OSError:
                break
            parent = parent.parent


def _refuse(place: Path) -> None:
    """An :class:`OSError` naming ``place`` if a file cannot be moved there whole."""
    try:
        real = Path(os.path.realpath(place, strict=True)) if place.is_symlink() else place
        mode = os.stat(real).st_mode if real.exists() else None
    except FileNotFoundError:  # a dangling link: the file goes where it points, if it can
        if not Path(os.path.realpath(place)).parent.is_dir():
            raise OSError(
                errno.ENOENT, "a symbolic link to a place whose folder does not exist", str(place)
            ) from None
        mode = None
    except OSError as err:
        reason = "a loop of symbolic links" if err.errno == errno.ELOOP else err.strerror
        raise OSError(err.errno, reason, str(place)) from None
    if place.is_symlink() and not os.access(Path(os.path.realpath(place)).parent, os.W_OK):
        raise OSError(errno.EACCES, "a symbolic link into a folder that cannot be written to", str(place))
    if mode is None:
        return
    if stat.S_ISDIR(mode):
        raise OSError(errno.EISDIR, "a folder is in the way of the report's file", str(place))
    if not stat.S_ISREG(mode):
        raise OSError(
            errno.EINVAL,
            "not a plain file (a pipe or a device): a report's files are written whole",
            str(place),
        )
    if atomic.database_at(real):
        raise OSError(
            errno.EEXIST, "a SQLite database (a store or a cache) is there; not written over", str(place)
        )
