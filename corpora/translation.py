"""The round-trip translation corpus format.

The Dr Inventor paper ("Machine Translation Evaluation", Hurley et al.,
EGPAI 2016) translates English texts into another language and back, and
scores each back-translation against its original: the weaker the
translation, the lower the similarity should be.

Layout of a corpus folder::

    originals/NAME.txt            the English originals
    roundtrip/<lang>/NAME.txt     NAME translated to <lang> and back to English
    pivot/<lang>/NAME.<lang>      (optional) the one-way translation, for reading
    manifest.csv                  (optional) the pairs manifest, see corpora.manifest
    translation.json              (optional) how it was built: engine, modes, date

``<lang>`` is a short code, for the Apertium builder the ISO 639-3 code of
the pivot language (``spa``, ``cat``, ``glg``, ``epo``, ``hbs``). The pairs
come from the folder layout alone, so a corpus made by hand or by another
tool needs no manifest (the evaluation names a manifest row that is no pair
of the layout, :func:`dri.evaluate.translation.manifest_problems`). :func:`corpora.translate.build_translation_corpus`
writes this layout.

Example
-------
::

    originals/fortress.txt
    roundtrip/spa/fortress.txt
    roundtrip/hbs/fortress.txt
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.manifest import ManifestPair
from dri.corpora.text import CorpusError, no_corpus_folder, outside_link
from dri.files import what_is_there
from dri.literal import printable

__all__ = ["ORIGINALS", "PIVOT", "ROUNDTRIP", "TranslationCorpus", "TranslationPair", "load_translation"]

ORIGINALS = "originals"
ROUNDTRIP = "roundtrip"
PIVOT = "pivot"
TEXT_SUFFIXES = (".txt",)


@dataclass(frozen=True)
class TranslationPair:
    """An English original and its round trip through ``language``."""

    original: Path
    roundtrip: Path
    name: str
    language: str

    def as_manifest(self) -> ManifestPair:
        return ManifestPair(self.original, self.roundtrip, self.language, {"name": self.name})


@dataclass
class TranslationCorpus:
    root: Path
    originals: dict[str, Path]
    languages: list[str]
    pairs: list[TranslationPair]
    problems: list[str] = field(default_factory=list)
    #: Why each ``.txt`` of the layout is not read, by its path: a link to
    #: nothing, a FIFO, a loop of links, a link out of the folder. Kept apart
    #: from ``problems``: a run's walk of the folder names each already.
    unread_files: dict[Path, str] = field(default_factory=dict)

    @property
    def unread(self) -> list[str]:
        """One line for each ``.txt`` of the layout that is not read (``unread_files``)."""
        return [f"{printable(path)}: {why}" for path, why in self.unread_files.items()]

    def manifest(self) -> list[ManifestPair]:
        return [p.as_manifest() for p in self.pairs]


def _texts(
    folder: Path, root: Path, allow_outside_links: bool
) -> tuple[dict[str, Path], dict[str, tuple[Path, str]]]:
    """``(texts, unread)``: the texts of ``folder`` by name, and by name the path
    and the reason of each ``.txt`` that is no text to read (:func:`_unread`). Hidden files are
    not texts of the corpus (an editor's ``.~lock.bees.txt`` was an original
    missing from every language); folders are :func:`_left_out`'s to name."""
    texts, unread = {}, {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in TEXT_SUFFIXES or p.name.startswith("."):
            continue
        why = _unread(p, root, allow_outside_links)
        if why is None:
            texts[p.stem] = p
        elif why:
            unread[p.stem] = (p, why)
    return texts, unread


def _unread(path: Path, root: Path, allow_outside_links: bool) -> str | None:
    """Why the ``.txt`` at ``path`` is not read as a text of the corpus folder
    ``root`` (resolved), as the flow would refuse it; "" for a folder; ``None``
    for a text. A link to nothing, a FIFO or a loop of links was skipped
    without a word, and a link out of the folder was read as an original."""
    there = what_is_there(path)
    if there == "a regular file":
        return None if allow_outside_links else outside_link(path, root)
    if there == "a folder":
        return ""
    if there == "a symbolic link to nothing":
        return f"a symbolic link to {printable(os.readlink(path))}, which is not there; left out"
    return f"{there}, not a text file; left out"


def _left_out(orig_dir: Path, rt_dir: Path, languages: list[str]) -> list[str]:
    """One problem for each thing the corpus's layout has no place for, which
    was skipped without a word: a folder inside ``originals/`` or a language
    folder (the corpus is flat), a file where a language folder goes."""
    problems = [
        f"{printable(p)}: a file where a language folder goes (roundtrip/<lang>/NAME.txt); left out"
        for p in sorted(rt_dir.iterdir())
        if not p.is_dir() and not p.name.startswith(".")
    ]
    for folder in (orig_dir, *(rt_dir / lang for lang in languages)):
        problems += [
            f"{printable(p)}: a folder inside {printable(folder.name)}/, where only texts are read; left out"
            for p in sorted(folder.iterdir())
            if p.is_dir() and not p.name.startswith(".")
        ]
    return problems


def load_translation(corpus_dir: str | Path, *, allow_outside_links: bool = False) -> TranslationCorpus:
    """The original/round-trip pairs of ``corpus_dir``.

    Raises :class:`CorpusError` if ``originals/`` or ``roundtrip/`` is missing
    or empty. A round trip without an original, or an original missing from a
    language, is described in ``problems`` (one line each); a ``.txt`` that is
    not read (a link to nothing, a FIFO, a link out of the folder unless
    ``allow_outside_links``) in ``unread``, and its name is not missing elsewhere.
    """
    root = Path(corpus_dir)
    if not root.is_dir():
        raise no_corpus_folder(root)
    orig_dir, rt_dir = root / ORIGINALS, root / ROUNDTRIP
    for folder, needs in ((orig_dir, "originals/NAME.txt"), (rt_dir, "roundtrip/<lang>/NAME.txt")):
        if not folder.is_dir():
            # A file of that name said "missing", though something was there.
            what = "missing" if not folder.exists() else "not a folder"
            raise CorpusError(folder, f"{what}: a translation corpus needs {needs}")
    real = root.resolve()
    originals, unread = _texts(orig_dir, real, allow_outside_links)
    if not originals:
        first = next(iter(unread.values()), None)
        raise CorpusError(
            orig_dir, "no .txt originals" + (f" ({printable(first[0])}: {first[1]})" if first else "")
        )
    # Hidden folders are no languages (".ipynb_checkpoints" had no round trip of anything).
    languages = sorted(p.name for p in rt_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not languages:
        raise CorpusError(rt_dir, "no language folders")
    corpus = TranslationCorpus(root, originals, languages, [], _left_out(orig_dir, rt_dir, languages))
    corpus.unread_files = dict(unread.values())
    for lang in languages:
        _pair_language(corpus, lang, set(unread), allow_outside_links)
    return corpus


def _pair_language(corpus: TranslationCorpus, lang: str, unread_originals: set[str], allow: bool) -> None:
    """Add the pairs of ``roundtrip/<lang>/`` to ``corpus``, and its problems:
    a round trip without an original, an original without a round trip (not
    for a name whose original or round trip is unread: its own line says why)."""
    folder = corpus.root / ROUNDTRIP / lang
    versions, unread = _texts(folder, corpus.root.resolve(), allow)
    corpus.unread_files.update(unread.values())
    for name, path in versions.items():
        if name in corpus.originals:
            corpus.pairs.append(TranslationPair(corpus.originals[name], path, name, lang))
        elif name not in unread_originals:
            corpus.problems.append(f"{printable(path)}: no original {printable(f'{ORIGINALS}/{name}.txt')}")
    for name in sorted(set(corpus.originals) - set(versions) - set(unread)):
        corpus.problems.append(f"{printable(folder)}: no round trip of {printable(name)}")
