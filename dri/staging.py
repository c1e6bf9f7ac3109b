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
``--out`` folder may hold a user's own files).

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with files_together(folder) as staging:
...     _ = (staging / "summary.md").write_text("new")
>>> sorted(p.name for p in folder.iterdir())
['summary.md']
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from dri import atomic
from dri.signals import signals_held

__all__ = ["STAGING_PREFIX", "files_together"]

#: The name of a staging folder starts so (hidden; one left by ``kill -9`` is
#: safe to delete).
STAGING_PREFIX = ".dri-staging-"


@contextlib.contextmanager
def files_together(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a staging folder; when the block ends, its files (subfolders
    too) replace those of the same names in ``folder`` (made if needed).
    A name in ``folder`` that is a symbolic link, a pipe or a device is
    written through, as :func:`dri.atomic.write_bytes` does."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=target))
    try:
        yield staging
        with signals_held():
            _move_files(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _move_files(staging: Path, target: Path) -> None:
    for root, _, names in os.walk(staging):
        here = Path(root)
        destination = target / here.relative_to(staging)
        destination.mkdir(parents=True, exist_ok=True)
        for name in sorted(names):
            made, place = here / name, destination / name
            if place.is_symlink() or _special(place):
                atomic.write_bytes(place, made.read_bytes())
            else:
                os.replace(made, place)


def _special(path: Path) -> bool:
    """A pipe, a device or a socket: written into, not replaced by a file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)
