"""Word lists the extraction rules consult: WordNet's lemmas and verb lemmas.

Verb lemmas decide relation labels, and a label that is not a WordNet verb
("hat" for "hated", spaCy's rule lemmatiser's guess) scores 0 against every
other verb. :func:`verb_lemma` therefore prefers, in order, the first
candidate that WordNet knows as a verb among

1. ``lemminflect``'s lemma (Jascob's dictionary-based English lemmatiser,
   made for spaCy: it knows irregular forms, "felt" is *feel*, "found" is
   *find*, which WordNet's morphy returns unchanged because *felt* and
   *found* are verbs too), read from the data folder's copy of its verb
   lemmas (:mod:`extract.verb_lemmas`);
2. spaCy's lemma;
3. WordNet's own morphy (the detachment rules plus ``verb.exc``);

and falls back to lemminflect's lemma, then spaCy's, when WordNet has none.
The comparison of the three on the corpora is in ``docs/extraction.md``.

:func:`is_person_noun` tells pronoun resolution which nouns name people:
those whose most frequent WordNet sense is in the lexicographer file
``noun.person`` (engineer, lawyer, king; not pump, committee, fox).

Only WordNet's index files are read (a set of lemmas per part of speech, a
fraction of a second), not the full database, so the extractor stays light.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from dri.errors import ProjectError
from dri.extract.verb_lemmas import verb_lemmas
from dri.literal import printable
from dri.morphy import SUBSTITUTIONS
from dri.settings import nltk_data_dir

__all__ = ["WordNetFileError", "is_person_noun", "is_wordnet_lemma", "verb_lemma"]

_FILES = {"n": "noun", "v": "verb", "a": "adj"}


class WordNetFileError(ProjectError, RuntimeError):
    """One of WordNet's files that the extractor reads is missing or damaged."""


def _wordnet_dir() -> Path:
    return nltk_data_dir() / "corpora" / "wordnet"


def _lines(path: Path, what: str) -> list[str]:
    """The lines of the WordNet file ``path``; a :class:`WordNetFileError` naming it if
    it cannot be read or is not UTF-8 (damaged since it was set up). Before, a
    RuntimeError or UnicodeDecodeError in every document's extraction (exit 70)."""
    folder = _wordnet_dir()
    chosen = os.environ.get("DRI_NLTK_DATA")
    # ": " before the advice, not "; ": a run's failures split their reasons at "; ".
    if chosen and os.path.exists(chosen) and not os.path.isdir(chosen):
        raise WordNetFileError(
            f"DRI_NLTK_DATA={printable(chosen)}: a file, not a folder: "
            "point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
        )
    if chosen and not folder.is_dir():
        # Not a damaged file: the variable names a folder without WordNet.
        raise WordNetFileError(
            f"DRI_NLTK_DATA={printable(chosen)}: no WordNet there (no {printable(folder)}): "
            "point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
        )
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        reason = err.strerror or str(err)
    except UnicodeDecodeError as err:
        reason = f"a damaged file, not UTF-8: {err.reason} at byte {err.start}"
    raise WordNetFileError(
        f"{path}: cannot read WordNet's {what} ({reason}); set WordNet up again: scripts/setup-wordnet --force"
    )


@functools.cache
def _lemmas(pos: str) -> frozenset[str]:
    lines = _lines(_wordnet_dir() / f"index.{_FILES[pos]}", "index")
    # Licence lines start with two spaces; every other line starts with its lemma.
    return frozenset(line.split(" ", 1)[0] for line in lines if line and not line.startswith(" "))


@functools.cache
def _verb_exceptions() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in _lines(_wordnet_dir() / "verb.exc", "verb exceptions"):
        parts = line.split()
        if len(parts) >= 2:
            out.setdefault(parts[0], parts[1])
    return out


def is_wordnet_lemma(word: str, pos: str) -> bool:
    """Whether WordNet has ``word`` (lower case, "_" for spaces) as a lemma of ``pos``."""
    return word in _lemmas(pos)


def _morphy(word: str) -> str | None:
    if word in _verb_exceptions():
        return _verb_exceptions()[word]
    if is_wordnet_lemma(word, "v"):
        return word
    for suffix, ending in SUBSTITUTIONS["v"]:
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)] + ending
            if is_wordnet_lemma(stem, "v"):
                return stem
    return None


@functools.lru_cache(maxsize=65536)
def verb_lemma(word: str, spacy_lemma: str) -> str:
    """The lemma of the verb form ``word`` (lower case), given spaCy's lemma."""
    found = verb_lemmas(word)
    ours = found[0].lower() if found else ""
    for candidate in (ours, spacy_lemma, _morphy(word)):
        if candidate and is_wordnet_lemma(candidate, "v"):
            return candidate
    return ours or spacy_lemma or word


@functools.cache
def _person_nouns() -> frozenset[str]:
    out = set()
    for line in _lines(_wordnet_dir() / "index.sense", "sense index"):
        # "engineer%1:18:00:: 09615807 1 8": noun (1), lexicographer file 18 (noun.person), sense 1.
        key, _, rest = line.partition(" ")
        if "%1:18:" in key and rest.split(" ")[1:2] == ["1"]:
            out.add(key.split("%", 1)[0])
    return frozenset(out)


def is_person_noun(lemma: str) -> bool:
    """Whether the noun's first WordNet sense is a person (the head of a compound decides)."""
    return lemma.rsplit("_", 1)[-1] in _person_nouns()
