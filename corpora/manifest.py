"""The pairs manifest: one CSV row per comparison, for the flows to consume.

Every evaluation corpus (plagiarism, translation, analogy search) reduces to
a list of document pairs, each in a *group* (a plagiarism level, a language,
a target). The manifest is that list as a CSV with the columns::

    source,target,group
    orig_taska.txt,g0pA_taska.txt,non
    orig_taska.txt,g0pB_taska.txt,cut

``source`` and ``target`` are paths, relative to the manifest's own folder
when written inside it (so a corpus folder can be moved) and absolute
otherwise. Extra columns (e.g. ``task``) may follow and are kept as
``ManifestPair.extra``; readers that only know the three columns ignore them.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.text import CorpusError

__all__ = ["MANIFEST_COLUMNS", "ManifestPair", "read_manifest", "write_manifest"]

MANIFEST_COLUMNS = ("source", "target", "group")


@dataclass(frozen=True)
class ManifestPair:
    """Compare ``source`` with ``target``; ``group`` is what the report groups by."""

    source: Path
    target: Path
    group: str
    extra: dict[str, str] = field(default_factory=dict, compare=False)


def _portable(path: Path, base: Path) -> str:
    path = path.resolve()
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def write_manifest(pairs: Iterable[ManifestPair], path: str | Path) -> Path:
    """Write ``pairs`` to the CSV file ``path``; returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pairs = list(pairs)
    extra_cols = sorted({k for p in pairs for k in p.extra} - set(MANIFEST_COLUMNS))
    base = path.parent.resolve()
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([*MANIFEST_COLUMNS, *extra_cols])
        for p in pairs:
            writer.writerow(
                [
                    _portable(p.source, base),
                    _portable(p.target, base),
                    p.group,
                    *(p.extra.get(c, "") for c in extra_cols),
                ]
            )
    return path


def read_manifest(path: str | Path) -> list[ManifestPair]:
    """The pairs of a manifest, paths resolved against its folder.

    Raises :class:`~corpora.text.CorpusError` (one line) for a missing file,
    missing columns or an incomplete row.
    """
    path = Path(path)
    base = path.parent
    try:
        fh = path.open(newline="", encoding="utf-8-sig")
    except OSError as err:
        raise CorpusError(path, f"cannot read manifest: {err.strerror or err}") from None
    with fh:
        reader = csv.DictReader(fh)
        missing = [c for c in MANIFEST_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CorpusError(path, f"manifest lacks column(s) {', '.join(missing)}")
        pairs = []
        for line, row in enumerate(reader, start=2):
            values = {c: (row.get(c) or "").strip() for c in MANIFEST_COLUMNS}
            empty = [c for c, v in values.items() if not v]
            if empty:
                raise CorpusError(path, f"line {line}: empty {', '.join(empty)}")
            extra = {k: v for k, v in row.items() if k not in MANIFEST_COLUMNS and k is not None}
            pairs.append(
                ManifestPair(
                    source=Path(os.path.join(base, values["source"])),
                    target=Path(os.path.join(base, values["target"])),
                    group=values["group"],
                    extra={k: (v or "") for k, v in extra.items()},
                )
            )
    return pairs
