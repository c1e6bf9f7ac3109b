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

from dataclasses import dataclass, field
from pathlib import Path

from dri.corpora.manifest import ManifestPair
from dri.corpora.text import CorpusError, no_corpus_folder
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

    def manifest(self) -> list[ManifestPair]:
        return [p.as_manifest() for p in self.pairs]


def _texts(folder: Path) -> dict[str, Path]:
    """The texts of ``folder`` by name; hidden files are not texts of the corpus
    (an editor's ``.~lock.bees.txt`` was an original missing from every language)."""
    return {
        p.stem: p
        for p in sorted(folder.iterdir())
        if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES and not p.name.startswith(".")
    }


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


def load_translation(corpus_dir: str | Path) -> TranslationCorpus:
    """The original/round-trip pairs of ``corpus_dir``.

    Raises :class:`CorpusError` if ``originals/`` or ``roundtrip/`` is missing
    or empty. A round trip without an original, or an original missing from a
    language, is described in ``problems`` (one line each).
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
    originals = _texts(orig_dir)
    if not originals:
        raise CorpusError(orig_dir, "no .txt originals")
    # Hidden folders are no languages (".ipynb_checkpoints" had no round trip of anything).
    languages = sorted(p.name for p in rt_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not languages:
        raise CorpusError(rt_dir, "no language folders")
    problems = _left_out(orig_dir, rt_dir, languages)
    pairs = []
    for lang in languages:
        versions = _texts(rt_dir / lang)
        for name, path in versions.items():
            if name not in originals:
                problems.append(f"{printable(path)}: no original {printable(f'{ORIGINALS}/{name}.txt')}")
            else:
                pairs.append(TranslationPair(originals[name], path, name, lang))
        for name in sorted(set(originals) - set(versions)):
            problems.append(f"{printable(rt_dir / lang)}: no round trip of {printable(name)}")
    return TranslationCorpus(root, originals, languages, pairs, problems)
