"""The analogy-search corpus format.

The Dr Inventor paper ("Finding and Evaluating a Computer Graphics Analogy",
Hurley et al., EGPAI 2016) maps a target paper against every other paper of
a corpus (957 SIGGRAPH papers, 956 comparisons per target), ranks them by
Analogy Similarity and reads the best ones; it mapped only the abstract plus
the background sections.

Layout of a corpus folder::

    solar-system.txt        the documents (.txt or .pdf), flat in the folder
    rutherford-atom.txt
    ...
    targets.txt             target file names, one a line; '#' starts a comment
    sections.txt            (optional) section names to restrict to, one a line,
                            e.g. "abstract" and "background"

Each target is compared with every other document. ``sections`` restricts
both graphs with :func:`graphs.restrict_to_sections` before mapping.

Example ``targets.txt``::

    # the atom should find the solar system
    rutherford-atom.txt
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.manifest import ManifestPair
from dri.corpora.text import (
    CorpusError,
    document_with_id,
    file_lines,
    is_document,
    near_miss,
    no_corpus_folder,
    read_table_text,
)
from dri.literal import printable

__all__ = ["AnalogyCorpus", "load_analogy", "read_list"]

log = logging.getLogger(__name__)

TARGETS_FILE = "targets.txt"
SECTIONS_FILE = "sections.txt"


@dataclass
class AnalogyCorpus:
    root: Path
    documents: list[Path]
    targets: list[Path]
    sections: tuple[str, ...] | None = None
    problems: list[str] = field(default_factory=list)

    def pairs_for(self, target: Path) -> list[ManifestPair]:
        """Every other document (source) against ``target``, grouped by target name."""
        return [ManifestPair(doc, target, target.name) for doc in self.documents if doc != target]

    def manifest(self) -> list[ManifestPair]:
        return [p for t in self.targets for p in self.pairs_for(t)]


def read_list(path: Path) -> list[str]:
    """Non-empty lines of ``path`` with ``#`` comments removed; ``path`` is a
    corpus's own file, refused if it leads out of the corpus folder."""
    lines = []
    for raw in file_lines(read_table_text(path, "list file", inside=path.parent.resolve())):
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def _is_listed_document(root: Path, entry: str, doc: Path) -> bool:
    """Whether ``entry`` names ``doc``: its bare file name, or a path to that very file
    (relative to the corpus folder or to the working folder), not another file of the same name."""
    if Path(entry).name == entry:
        return True
    real = os.path.realpath(doc)
    candidates = [Path(entry).expanduser()] if entry.startswith("~") else [root / entry, Path(entry)]
    return any(os.path.realpath(c) == real for c in candidates)


def _warn_repeated(listed_in: Path | None, entry: str, times: int) -> None:
    """A target named again is compared once, as a manifest's repeated pair is (a warning, not a failure)."""
    # The real path: the command and its flow read the list under one name, so the warning is said once.
    where = printable(os.path.realpath(listed_in)) if listed_in else "--target"
    log.warning(
        "%s: target %r is named %s; it is compared once",
        where,
        entry,
        "twice" if times == 2 else f"{times} times",
        extra={"warning_kind": "targets named twice, each compared once", "warning_item": entry},
    )


def _choose_targets(
    root: Path, documents: list[Path], entries: list[str], listed_in: Path | None, problems: list[str]
) -> list[Path]:
    """The documents ``entries`` name, each once. An entry that names none is a
    :class:`CorpusError` naming ``--target`` and the entry as written; in
    ``targets.txt`` (``listed_in``) it is a line of ``problems`` and the other
    targets are searched, unless none is left (one mistyped line stopped the
    whole search).

    A target named twice would be compared twice (every row and rank of its
    report doubled); an entry naming a file outside the corpus would be
    reported as the corpus folder joined with its file name, a path that
    does not exist.
    """
    by_name = {d.name: d for d in documents}
    chosen: list[Path] = []
    named: dict[Path, list[str]] = {}  # each target's entries
    for entry in entries:
        # Documents are flat in the folder, so the file name identifies one.
        doc = by_name.get(Path(entry).name)
        if doc is None:
            doc = document_with_id(documents, entry)  # a doc id, as dri run --target takes it
            entry = doc.name if doc is not None else entry
        if doc is None or not _is_listed_document(root, entry, doc):
            where = listed_in if listed_in else "--target"
            unknown = CorpusError(
                where,
                f"target {entry!r} is not a document of the corpus {printable(root)}"
                + near_miss(Path(entry).name, by_name),
            )
            if listed_in is None:
                raise unknown
            problems.append(f"{unknown}; left out")
            continue
        if doc not in chosen:
            chosen.append(doc)
        named[doc] = [*named.get(doc, []), entry]
    for entries_of_one in named.values():
        if len(entries_of_one) > 1:
            _warn_repeated(listed_in, entries_of_one[0], len(entries_of_one))
    if not chosen:
        raise CorpusError(listed_in or "--target", f"names no document of the corpus ({problems[0]})")
    return chosen


def load_analogy(
    corpus_dir: str | Path,
    targets: list[str] | None = None,
    sections: list[str] | tuple[str, ...] | None = None,
) -> AnalogyCorpus:
    """The documents and targets of ``corpus_dir``.

    ``targets`` (file names or paths) overrides ``targets.txt``; ``sections``
    overrides ``sections.txt`` (an empty list means the whole documents).
    A target of ``targets`` that is not a document of the corpus is a
    :class:`CorpusError` naming ``--target`` and the entry; one of
    ``targets.txt`` a line of ``problems`` (an error if no target is left);
    one named twice is compared once, with a warning.
    """
    root = Path(corpus_dir)
    if not root.is_dir():
        raise no_corpus_folder(root)
    documents = sorted(p for p in root.iterdir() if p.is_file() and is_document(p))
    if len(documents) < 2:
        raise CorpusError(root, "an analogy-search corpus needs at least two .txt or .pdf documents")
    from_file = targets is None
    if targets is None:
        listed = root / TARGETS_FILE
        if not listed.is_file():
            # A folder of that name, or a link to nothing, said "missing".
            what = "not a file" if os.path.lexists(listed) else "missing"
            raise CorpusError(listed, f"{what}: name the target documents here, one a line (or pass targets)")
        targets = read_list(listed)
        if not targets:
            raise CorpusError(listed, "names no target")
    listed_in = root / TARGETS_FILE if from_file else None
    problems: list[str] = []
    chosen = _choose_targets(root, documents, targets, listed_in, problems)
    # lexists: a link to nothing, or a folder, compared whole documents without a word.
    if sections is None and os.path.lexists(root / SECTIONS_FILE):
        sections = read_list(root / SECTIONS_FILE)
    chosen_sections = tuple(s.lower() for s in sections) if sections else None
    return AnalogyCorpus(root, documents, chosen, chosen_sections, problems)
