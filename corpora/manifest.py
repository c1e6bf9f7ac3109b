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
import io
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dri.atomic import write_text
from dri.corpora.text import (
    CorpusError,
    csv_rows,
    header_record,
    header_rows,
    named_columns,
    refuse_repeated_columns,
)
from dri.literal import printable

log = logging.getLogger(__name__)

__all__ = ["MANIFEST_COLUMNS", "ManifestPair", "read_manifest", "write_manifest"]

MANIFEST_COLUMNS = ("source", "target", "group")


@dataclass(frozen=True)
class ManifestPair:
    """Compare ``source`` with ``target``; ``group`` is what the report groups by;
    ``line`` is the pair's line in the manifest it was read from (0: not read from one)."""

    source: Path
    target: Path
    group: str
    extra: dict[str, str] = field(default_factory=dict, compare=False)
    line: int = field(default=0, compare=False)


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
    fh = io.StringIO(newline="")
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
    # Whole or not at all: a run reading the manifest meanwhile sees the old one or the new.
    write_text(path, fh.getvalue(), newline="")
    return path


def read_manifest(path: str | Path) -> list[ManifestPair]:
    """The pairs of a manifest, paths resolved against its folder.

    Raises :class:`~corpora.text.CorpusError` (one line naming the file and
    line) for a missing or unreadable file, missing columns, an incomplete
    row or a row with more fields than the header. A row repeating an
    earlier one (same source, target and group) is left out with a warning,
    so that a pair is compared and counted once. UTF-8, UTF-16 with a BOM and
    Windows-1252 are read (see :func:`corpora.text.read_table_text`).
    """
    path = Path(path)
    base = path.parent
    # The corpus's own file: one that leads out of its folder is refused.
    records = csv_rows(path, "manifest", inside=base.resolve())
    header = named_columns((header_record(records) or (1, []))[1], MANIFEST_COLUMNS)  # in any case
    if not any(header):
        raise CorpusError(path, "empty file: a manifest starts with the header source,target,group")
    missing = [c for c in MANIFEST_COLUMNS if c not in header]
    if missing:
        raise CorpusError(
            path,
            f"manifest lacks column(s) {', '.join(missing)} "
            f"(it needs source,target,group; its header is {printable(','.join(header)[:200])})",
        )
    refuse_repeated_columns(path, header)
    pairs = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, row, problem in header_rows(records, header):
        if row is None:
            raise CorpusError(path, problem)
        values = {c: row[c].strip() for c in MANIFEST_COLUMNS}
        empty = [c for c, v in values.items() if not v]
        if empty:
            raise CorpusError(path, f"line {line}: empty {', '.join(empty)}")
        if any("\x00" in v for v in values.values()):
            raise CorpusError(path, f"line {line}: NUL character in a path")
        key = (values["source"], values["target"], values["group"])
        if key in seen:
            log.warning(
                "%s: line %d repeats line %d; the pair is compared and counted once",
                path,
                line,
                seen[key],
                extra={
                    "warning_kind": f"repeated pairs in {path.name}, each compared and counted once",
                    "warning_item": f"line {line}",
                },
            )
            continue
        seen[key] = line
        pairs.append(
            ManifestPair(
                source=Path(os.path.join(base, values["source"])),
                target=Path(os.path.join(base, values["target"])),
                group=values["group"],
                extra={k: v for k, v in row.items() if k not in MANIFEST_COLUMNS},
                line=line,
            )
        )
    if not pairs:  # a run of no pairs ended with exit 0
        raise CorpusError(
            path, "names no pair: a header and no rows but empty ones (one row a pair: source,target,group)"
        )
    return pairs
