"""What a corpus folder holds: its documents and its own list of pairs.

A corpus run (:mod:`dri.flows.corpus`) and an evaluation both start here:

* :func:`discover` lists the documents under a folder
  (:func:`dri.corpora.text.is_document`), refusing symbolic links that leave it,
  warning of sub-folders it cannot read, and refusing a folder without
  documents (:class:`EmptyCorpus`);
* :func:`corpus_format` tells which description of its pairs a folder
  carries, looked for in the order of :data:`FORMATS`;
* :func:`corpus_manifest` reads those pairs with the format's loader
  (:mod:`dri.corpora.manifest`, :mod:`dri.corpora.plagiarism`,
  :mod:`dri.corpora.translation`, :mod:`dri.corpora.analogy`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Protocol

from dri.corpora.analogy import load_analogy
from dri.corpora.manifest import ManifestPair, read_manifest
from dri.corpora.plagiarism import load_plagiarism
from dri.corpora.text import (
    CONTROL_FILES,
    DOCUMENT_SUFFIXES,
    MAX_TEXT_BYTES,
    CorpusError,
    document_with_id,
    is_document,
    near_miss,
    outside_link,
)
from dri.corpora.translation import load_translation
from dri.files import FileRefused, NotText, decode_text, read_limited
from dri.literal import printable, storable

__all__ = [
    "FORMATS",
    "EmptyCorpus",
    "corpus_format",
    "corpus_manifest",
    "discover",
    "discover_documents",
    "find_target",
    "has_manifest",
    "listed_path",
    "outside_link",
    "target_problem",
]

log = logging.getLogger(__name__)

#: The warning kind of a sub-folder that cannot be read (:mod:`dri.quiet_logs` folds repeats).
_UNREADABLE_KIND = "folders cannot be read, their files left out"


def find_target(target: str, documents: dict[str, str]) -> str | None:
    """The path of ``documents`` (path -> doc id) that ``target`` names: the path
    itself (resolved from the working folder), the doc id, the file name, its
    stem, or a tail of the path; ``None`` if none does."""
    resolved = os.path.realpath(target)  # not Path.resolve(), which raises on a link loop
    if resolved in documents:
        return resolved
    for path, doc_id in sorted(documents.items()):
        if target in (doc_id, Path(path).name, Path(path).stem):
            return path
    matches = [p for p in sorted(documents) if p.endswith(os.sep + target)]
    return matches[0] if matches else None


def target_problem(
    corpus_dir: str | Path, target: str, *, allow_outside_links: bool = False
) -> tuple[str, int] | None:
    """Why ``target`` cannot be searched for in ``corpus_dir``, with the exit
    status (2: it names no document of the folder; 1: its file cannot be
    read), or ``None``: found before any document is parsed (a run found it
    after parsing them all, then recorded a run of no pairs). A target given
    as a doc id (:func:`dri.files.document_id`) is checked against the files'
    bytes; a folder that cannot be read is left to the run to name."""
    try:
        paths, refused = discover(corpus_dir, allow_outside_links=allow_outside_links, warn=False)
    except (CorpusError, OSError):
        return None
    found = find_target(target, dict.fromkeys(paths, ""))
    if found is not None:
        reason = _unreadable(found)
        return (f"{found}: {reason} (the --target; nothing was run)", 1) if reason else None
    # A link out of the folder is refused, not missing: its own line says why.
    links = {line.split(": refused, ", 1)[0]: line for line in refused}
    link = find_target(target, dict.fromkeys(links, ""))
    if link is not None:
        return f"{links[link]} (the --target; nothing was run)", 1
    if document_with_id(paths, target) is not None:
        return None
    hint = near_miss(Path(target).name, (Path(p).name for p in paths))
    unknown = f"--target {target!r} names no document of the folder (a file name, path or doc id){hint}"
    return f"{corpus_dir}: {unknown}", 2


def _unreadable(path: str) -> str | None:
    """Why a document's file cannot be read, as a run would say after parsing
    every other document, or ``None`` (a PDF with its header is left to the extractor)."""
    try:
        data = read_limited(path, MAX_TEXT_BYTES)
    except FileRefused as err:
        return err.reason
    if Path(path).suffix.lower() == ".pdf":
        # The rest is the extractor's to say; a file without a PDF's header is no PDF.
        if not data.strip():
            return "an empty file"
        return (
            None if b"%PDF-" in data[:1024] else "not a PDF file (no %PDF- header in its first 1,024 bytes)"
        )
    try:
        text, _ = decode_text(data)
    except NotText as err:
        return str(err)
    return None if text.strip() else "an empty file"


def discover_documents(corpus_dir: str | Path) -> list[str]:
    """Absolute paths of the documents under ``corpus_dir``, sorted
    (see :func:`discover`; refused links are left out)."""
    return discover(corpus_dir)[0]


class EmptyCorpus(CorpusError):
    """A corpus folder without a document; the message names the folder,
    the extensions looked for and what else it holds."""


def _others(names: list[str]) -> str:
    shown_names = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"; it holds {len(names)} other file(s) ({shown_names})" if names else ""


def _empty(root: Path, others: list[str], unreadable: list[str]) -> EmptyCorpus:
    looked_for = ", ".join(DOCUMENT_SUFFIXES[:-1]) + " or " + DOCUMENT_SUFFIXES[-1]
    reason = f"no documents: no {looked_for} files in it or its sub-folders{_others(sorted(others))}"
    if unreadable:
        reason += f"; {len(unreadable)} folder(s) could not be read ({unreadable[0]}, ...)"
    return EmptyCorpus(root, reason)


def _walk(root: Path) -> tuple[list[Path], list[str], list[str]]:
    """``(candidate files, other file names, unreadable folders)`` under ``root``,
    hidden files and folders left out, links to folders not followed."""
    unreadable: list[str] = []

    def cannot_list(err: OSError) -> None:
        if Path(err.filename or root) == root:
            raise CorpusError(root, f"cannot read the folder: {err.strerror or err}")
        unreadable.append(
            f"{err.filename}: cannot read the folder ({err.strerror or err}); its files are left out"
        )

    files, others = [], []
    for folder, dirnames, filenames in os.walk(root, onerror=cannot_list):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            path = Path(folder, name)
            if is_document(path):
                files.append(path)
            elif not name.startswith(".") and name.lower() not in CONTROL_FILES:
                others.append(path.relative_to(root).as_posix())
    return files, others, unreadable


def discover(
    corpus_dir: str | Path, *, allow_outside_links: bool = False, warn: bool = True
) -> tuple[list[str], list[str]]:
    """``(paths, problems)``: the documents under ``corpus_dir``, sorted, and
    one line per file refused.

    Sub-folders count (the translation corpus keeps ``originals/`` and
    ``roundtrip/<lang>/``); hidden files and folders do not, nor do symbolic
    links to folders. A symbolic link with a document's name is listed even
    when it leads nowhere (dangling, or a loop), so that reading it reports
    it like any other unreadable document instead of it vanishing from the
    run. A symbolic link to a file outside the corpus folder (``/etc/passwd``,
    say) is refused unless ``allow_outside_links``; a link inside the folder
    is a document under the link's own name.

    A sub-folder that cannot be read is left out with a warning (``warn``;
    many fold into one line on the console, :mod:`dri.quiet_logs`). A folder
    without documents (empty, or only ``.md`` files, say) raises
    :class:`EmptyCorpus`; one that cannot be read, :class:`CorpusError`.
    """
    root = Path(corpus_dir).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"{corpus_dir}: not a folder")
    files, others, unreadable = _walk(root)
    if warn:
        for line in unreadable:
            log.warning(
                "%s", line, extra={"warning_kind": _UNREADABLE_KIND, "warning_item": line.split(": ")[0]}
            )
    found, problems = [], []
    stored_as: dict[str, Path] = {}  # each name as the stores keep it -> the file of that name
    for path in sorted(files):
        first = stored_as.setdefault(storable(str(path)), path)
        if first != path:
            # "\xff.txt" (not UTF-8) is kept as the text "\udcff.txt": a file of that literal
            # name became the same document, and one of the two was dropped without a word.
            names = " and ".join(repr(os.fsencode(p.name))[1:] for p in (first, path))
            problems.append(
                f"{printable(path)}: refused, the file names {names} are one name in the stores "
                "(a name that is not UTF-8 is kept as its escape); rename one of them"
            )
            continue
        refused = None if allow_outside_links else outside_link(path, root)
        if refused:
            problems.append(f"{path}: {refused}")
            continue
        found.append(str(path))
    if not found and not problems:
        raise _empty(root, others, unreadable)
    return sorted(found), sorted(problems)


def _from_manifest(root: Path) -> tuple[list[ManifestPair], list[str]]:
    return read_manifest(root / "manifest.csv"), []


class _Corpus(Protocol):
    problems: list[str]

    def manifest(self) -> list[ManifestPair]: ...


def _loaded(load: Callable[[Path], _Corpus]) -> Callable[[Path], tuple[list[ManifestPair], list[str]]]:
    def read(root: Path) -> tuple[list[ManifestPair], list[str]]:
        corpus = load(root)
        return corpus.manifest(), list(corpus.problems)

    return read


#: ``(name, marker, reader)`` in the order they are looked for: a folder
#: holding ``marker`` is read by ``reader`` into ``(pairs, problems)``.
FORMATS: tuple[tuple[str, str, Callable[[Path], tuple[list[ManifestPair], list[str]]]], ...] = (
    ("manifest", "manifest.csv", _from_manifest),
    ("plagiarism", "file_information.csv", _loaded(load_plagiarism)),  # Clough & Stevenson
    # Round-trip translations. The walk refuses a link out of the folder (unless
    # --allow-outside-links) and names what cannot be read, so the layout's
    # unread lines would be said twice.
    ("translation", "originals", _loaded(partial(load_translation, allow_outside_links=True))),
    ("analogy", "targets.txt", _loaded(load_analogy)),  # analogy search
)


def corpus_format(corpus_dir: str | Path) -> str | None:
    """The name of the first of :data:`FORMATS` whose marker ``corpus_dir`` holds, else ``None``."""
    root = Path(corpus_dir)
    # lexists: a manifest.csv that is a link to nothing ran the corpus as all pairs, without a word.
    return next((name for name, marker, _ in FORMATS if os.path.lexists(root / marker)), None)


def has_manifest(corpus_dir: str | Path) -> bool:
    """Whether :func:`corpus_manifest` would find pairs to read."""
    return corpus_format(corpus_dir) is not None


def corpus_manifest(corpus_dir: str | Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    """``(pairs, problems)`` from the corpus's own description of its pairs.

    Pairs are ``(source path, target path, group)`` with absolute paths.
    Raises :class:`dri.corpora.text.CorpusError` if the folder has none.
    """
    root = Path(corpus_dir)
    name = corpus_format(root)
    if name is None:
        raise CorpusError(
            root,
            "no manifest.csv, file_information.csv, originals/ or targets.txt "
            "to take pairs from (use --mode all-pairs or --mode target)",
        )
    read = next(reader for fmt, _, reader in FORMATS if fmt == name)
    rows, problems = read(root)
    pairs = list(dict.fromkeys((listed_path(r.source), listed_path(r.target), r.group) for r in rows))
    if len(pairs) < len(rows):
        log.warning(
            "%s: %d pair(s) listed again under another spelling of their paths; each compared and counted once",
            root,
            len(rows) - len(pairs),
        )
    return pairs, problems


def listed_path(path: Path) -> str:
    """A document's path as the corpus lists it, in one spelling (``./a//b``,
    ``c/../c``), its folders resolved but not the file: a listed link stays the
    document of its own name, as the folder's walk finds it (resolved, it was
    the file outside the folder it leads to, named twice). realpath, not
    Path.resolve(): a folder link in a loop is left, and its reading says so."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
