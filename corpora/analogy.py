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

from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.manifest import ManifestPair
from dri.corpora.text import CorpusError, is_document, read_table_text

__all__ = ["AnalogyCorpus", "load_analogy", "read_list"]

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
    """Non-empty lines of ``path`` with ``#`` comments removed."""
    lines = []
    for raw in read_table_text(path, "list file").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def load_analogy(
    corpus_dir: str | Path,
    targets: list[str] | None = None,
    sections: list[str] | tuple[str, ...] | None = None,
) -> AnalogyCorpus:
    """The documents and targets of ``corpus_dir``.

    ``targets`` (file names or paths) overrides ``targets.txt``; ``sections``
    overrides ``sections.txt`` (an empty list means the whole documents).
    A target that is not a document of the corpus is a :class:`CorpusError`.
    """
    root = Path(corpus_dir)
    if not root.is_dir():
        raise CorpusError(root, "no such corpus folder")
    documents = sorted(p for p in root.iterdir() if p.is_file() and is_document(p))
    if len(documents) < 2:
        raise CorpusError(root, "an analogy-search corpus needs at least two .txt or .pdf documents")
    if targets is None:
        listed = root / TARGETS_FILE
        if not listed.is_file():
            raise CorpusError(listed, "missing: name the target documents here, one a line (or pass targets)")
        targets = read_list(listed)
        if not targets:
            raise CorpusError(listed, "names no target")
    by_name = {d.name: d for d in documents}
    chosen = []
    for t in targets:
        # Documents are flat in the folder, so the file name identifies one.
        doc = by_name.get(Path(t).name)
        if doc is None:
            raise CorpusError(root / Path(t).name, "target is not a document of the corpus")
        chosen.append(doc)
    if sections is None and (root / SECTIONS_FILE).is_file():
        sections = read_list(root / SECTIONS_FILE)
    return AnalogyCorpus(root, documents, chosen, tuple(s.lower() for s in sections) if sections else None)
