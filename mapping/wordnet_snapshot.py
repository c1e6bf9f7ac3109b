"""A snapshot of the WordNet tables as read, so a process loads them in a quarter of the time.

:class:`mapping.wordnet.WordNet` parses the WordNet 3.0 data, index,
exception and sense files and the SemCor IC file at load time: 0.8 s of CPU,
paid by every process that maps (each ``dri`` command, each pool worker).
Unpickling the same tables takes 0.25 s. The snapshot is written beside the
files it was read from (``corpora/wordnet/``), by the first process that
reads them, and is used only while its key matches: the snapshot format, the
code of the reader and the size and modification time of every file read.
Any other snapshot, a damaged one included, is ignored and the files are
read as before; a snapshot that cannot be written (a read-only folder, a
full disk) is not written, silently. Loading makes nothing but the tables'
containers, strings, numbers and paths: a pickle that names any other class
or function (one written by another user who can write into the folder) is
ignored like a damaged one, and nothing in it runs. The files are the user's own setup
(``scripts/setup-wordnet``), read from the same place as the text files.

>>> from pathlib import Path
>>> load_snapshot(Path("/nonexistent")) is None
True
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

from dri import atomic

__all__ = ["load_snapshot", "save_snapshot"]

#: Bump when the shape of the saved tables changes.
SNAPSHOT_VERSION = 1
_NAME = "dri-tables.pickle"
_READER = Path(__file__).with_name("wordnet.py")


def _key(corpora: Path) -> str:
    """What the snapshot was made from: its format, the reader's code, every file's size and time."""
    digest = hashlib.sha256(f"{SNAPSHOT_VERSION}".encode())
    digest.update(_READER.read_bytes())
    for folder in ("wordnet", "wordnet_ic"):
        for path in sorted((corpora / folder).iterdir()):
            if path.name != _NAME and path.is_file() and not path.name.startswith("."):
                stat = path.stat()
                digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()


#: The only classes a snapshot names: the tables are built-in containers, strings and numbers, and paths.
_ALLOWED_CLASSES = {("pathlib", "PosixPath"), ("pathlib", "PurePosixPath")}


class _TablesUnpickler(pickle.Unpickler):
    """An unpickler that makes nothing but the tables' own kinds of object: a
    pickle can name any function to call, and ``DRI_NLTK_DATA`` may be a folder
    another user can write to."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_CLASSES:
            raise pickle.UnpicklingError(f"{module}.{name} is not a part of WordNet's tables")
        return super().find_class(module, name)


def load_snapshot(corpora: Path) -> dict[str, Any] | None:
    """The tables saved from the files under ``corpora``, or None (none, stale,
    damaged, or naming any class but a path)."""
    try:
        key = _key(corpora)
        with (corpora / "wordnet" / _NAME).open("rb") as fh:
            saved = _TablesUnpickler(fh).load()
    except Exception:  # missing, unreadable or damaged: the files are read instead
        return None
    if not isinstance(saved, dict) or saved.get("key") != key or not isinstance(saved.get("tables"), dict):
        return None
    tables: dict[str, Any] = saved["tables"]
    return tables


def save_snapshot(corpora: Path, tables: dict[str, Any]) -> None:
    """Save ``tables`` (read from ``corpora``) for the next process; nothing if it cannot be written."""
    target = corpora / "wordnet" / _NAME
    try:
        payload = pickle.dumps({"key": _key(corpora), "tables": tables}, protocol=pickle.HIGHEST_PROTOCOL)
        atomic.write_bytes(target, payload)  # whole or not at all, whoever else writes it
        os.chmod(target, 0o644)  # readable like the files it was read from
    except (OSError, pickle.PicklingError):
        pass
