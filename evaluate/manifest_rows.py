"""The rows of a corpus's own ``manifest.csv`` that are no pair of its layout.

A plagiarism or translation evaluation compares the pairs of its folder's
layout (``file_information.csv``; ``originals/`` against ``roundtrip/<lang>/``),
and a ``manifest.csv`` beside them is what the corpus flow compares. A row of
it that is no pair of the layout (a path or link out of the folder, no such
file, a folder, a text of no place in the layout, a mismatched pair or group)
was passed over without a word; :func:`manifest_problems` names each, one line
with the manifest's file and line, and a text of the layout that is not read
(``Layout.unread``) once: on the row that names it, else on a line of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.discover import listed_path
from dri.corpora.manifest import ManifestPair, read_manifest
from dri.corpora.text import CorpusError, outside_link
from dri.literal import printable

__all__ = ["Layout", "manifest_problems"]


@dataclass(frozen=True)
class Layout:
    """The pairs a corpus folder's layout gives, and how a row is told off.

    ``sources``: every text that may be a pair's source; ``pairs``: the layout's
    pairs; ``places``: why a row's source or target is no text of the layout;
    ``group_of``: what a pair's group is ("the language of its round trip");
    ``mismatch``: why a row pairs two texts the layout does not, formatted
    with ``source`` and ``target``; ``unread``: why each text of the layout
    that is not read (a FIFO, a link to nothing or out of the folder) is not,
    by its path."""

    root: Path
    sources: Iterable[Path]
    pairs: Sequence[ManifestPair]
    places: tuple[str, str]
    group_of: str
    mismatch: str
    unread: Mapping[Path, str] = field(default_factory=dict)


def manifest_problems(layout: Layout) -> list[str]:
    """One line for each text of the layout that is not read (``layout.unread``)
    and each row of ``layout.root``'s own ``manifest.csv`` that is not a pair of
    the layout, naming the file, the line and why, or one line for a manifest
    that cannot be read.

    An unread text that a row names is told once, on that row, with the
    text's own reason: the file's line and the row's said the same twice (a
    FIFO's row said less, "not a round trip the evaluation compares")."""
    unread = {listed_path(path): (path, why) for path, why in layout.unread.items()}
    manifest = layout.root / "manifest.csv"
    if not os.path.lexists(manifest):
        return _unread_lines(unread, told=set())
    try:
        rows = read_manifest(manifest)
    except CorpusError as err:
        return [*_unread_lines(unread, told=set()), f"{err}; its rows are not checked against the layout"]
    pairs = {(listed_path(p.source), listed_path(p.target)): p.group for p in layout.pairs}
    texts = ({listed_path(p) for p in layout.sources}, {listed_path(p.target) for p in layout.pairs})
    # The row says "; left out of the evaluation" itself.
    reasons = {listed: why.removesuffix("; left out") for listed, (_, why) in unread.items()}
    problems: list[str] = []
    told: set[str | None] = set()
    for row in rows:
        found = _row_problem(row, layout, pairs, texts, reasons)
        if found:
            why, about = found
            told.add(about)
            problems.append(f"{printable(manifest)}: line {row.line}: {why}; left out of the evaluation")
    return [*_unread_lines(unread, told), *problems]


def _unread_lines(unread: dict[str, tuple[Path, str]], told: set[str | None]) -> list[str]:
    """The line of each unread text (by its listed path) that no row's line ``told``."""
    return [f"{printable(path)}: {why}" for listed, (path, why) in unread.items() if listed not in told]


def _row_problem(
    row: ManifestPair,
    layout: Layout,
    pairs: dict[tuple[str, str], str],
    texts: tuple[set[str], set[str]],
    unread: dict[str, str],
) -> tuple[str, str | None] | None:
    """Why a row of the manifest in ``layout.root`` is no pair of the layout
    (``pairs``: its ends, listed, and group; ``texts``: its sources and targets;
    ``unread``: why a text of the layout is not read, by its listed path), and the
    listed path of the end it names (None: the pair's), or None."""
    ends = (listed_path(row.source), listed_path(row.target))
    if pairs.get(ends) == row.group:
        return None
    base = layout.root
    root = Path(os.path.realpath(base))
    for path, listed, known, place in zip((row.source, row.target), ends, texts, layout.places, strict=True):
        why = unread.get(listed) or _not_a_text(path, listed, root) or (None if listed in known else place)
        if why:
            return f"{printable(_as_written(path, base))}: {why}", listed
    if ends in pairs:
        return f"its group {printable(row.group)!r} is not {layout.group_of}, {pairs[ends]}", None
    source, target = (printable(_as_written(p, base)) for p in (row.source, row.target))
    return layout.mismatch.format(source=source, target=target), None


def _not_a_text(path: Path, listed: str, root: Path) -> str | None:
    """Why ``path`` (``listed``: as the flow spells it) is no text of the corpus
    folder ``root`` (resolved): outside it, a link out of it, no such file, a folder."""
    if not Path(listed).is_relative_to(root):
        return "outside the corpus folder"
    if not os.path.exists(path):
        link = f" (a symbolic link to {printable(os.readlink(path))})" if os.path.islink(path) else ""
        return f"no such file{link}"
    refused = outside_link(path, root)
    if refused:
        return refused
    return "a folder, not a text" if os.path.isdir(path) else None


def _as_written(path: Path, base: Path) -> str:
    """``path`` as its manifest row gives it: relative to the manifest's folder ``base``, or absolute."""
    prefix = str(base) + os.sep
    return str(path)[len(prefix) :] if str(path).startswith(prefix) else str(path)
