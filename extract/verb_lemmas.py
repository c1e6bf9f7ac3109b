"""lemminflect's verb lemmas, read straight from its data file.

:func:`extract.lexicon.verb_lemma` asks lemminflect for the lemma of each
verb form. lemminflect parses its whole dictionary (70,000 words of every
part of speech, line by line in Python) the first time it lemmatises
anything: about 0.45 s of CPU in every process that parses, a quarter of
``dri compare``'s first result. Only the verb lemmas are used, so this
module reads the same gzipped file with one regular expression over its
verb rows (27,000 words, 0.05 s), applies lemminflect's overrides file the
way lemminflect does (an override's verb entry replaces the dictionary's),
and keeps the table for the life of the process. A word the dictionary
lacks goes to lemminflect's rules for unknown words, which need no
dictionary.

The answer is ``lemminflect.getLemma(word, upos="VERB")``, exactly (tested
on every 20th word of its dictionary and on words it lacks). If
lemminflect's files are not where this module looks, or do not read as
the format it knows, lemminflect's own loader is used instead.

>>> verb_lemmas("felt")                                         # doctest: +SKIP
('feel',)
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import logging
import re
from pathlib import Path
from typing import Any

from dri.extract.spacy_import import import_spacy

__all__ = ["dictionary_verbs", "verb_lemmas"]

log = logging.getLogger(__name__)

#: One verb row of ``lemma_lu.csv.gz``: ``word,verb,lemma[/lemma...]``.
_VERB_ROW = re.compile(r"^([^,\n]*),verb,([^,\n]*)$", re.MULTILINE)


@functools.cache
def _lemmatizer() -> Any:
    # Imported here: lemminflect imports spaCy, which a process that only reads
    # the table (all its words known) may not need; when it does, without spaCy's CLI.
    import_spacy()
    from lemminflect.core.Lemmatizer import Lemmatizer

    return Lemmatizer()


def _asked(word: str) -> tuple[str, ...]:
    """lemminflect's own answer."""
    import_spacy()
    import lemminflect

    return tuple(lemminflect.getLemma(word, upos="VERB"))


def _unknown(word: str) -> tuple[str, ...]:
    """What lemminflect answers for a word its dictionary has no verb lemma of: its rules."""
    return tuple(_lemmatizer().getAllLemmasOOV(word, "VERB").get("VERB", ()))


def _resources() -> Path:
    spec = importlib.util.find_spec("lemminflect")  # found, not imported: importing it imports spaCy
    if spec is None or spec.origin is None:
        raise FileNotFoundError("lemminflect is not installed")
    return Path(spec.origin).parent / "resources"


def _read_verbs(resources: Path) -> dict[str, tuple[str, ...]]:
    """The lower-case verb rows of lemminflect's dictionary, with its overrides applied."""
    text = gzip.decompress((resources / "lemma_lu.csv.gz").read_bytes()).decode()
    verbs = {word: tuple(forms.split("/")) for word, forms in _VERB_ROW.findall(text) if word == word.lower()}
    if len(verbs) < 1000:
        raise ValueError(f"{resources / 'lemma_lu.csv.gz'}: {len(verbs)} verb rows, not lemminflect's format")
    for line in (resources / "lemma_overrides.csv").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, upos, lemma = line.split(",")
        if upos == "VERB" and word == word.lower():
            verbs[word] = (lemma,)
    return verbs


def dictionary_verbs() -> dict[str, tuple[str, ...]]:
    """Every lower-case word of lemminflect's dictionary (overrides included) that has a verb
    lemma: its ``getAllLemmas(word, "VERB")``, read from the two tables that method merges,
    through lemminflect's own loader (the slow way, and the reference)."""
    lemmatizer = _lemmatizer()
    out = {}
    for table in (lemmatizer._getLemmaDict(), lemmatizer._getOverridesDict()):
        for word, entry in table.items():
            verb = entry.get("VERB")
            if verb and word == word.lower():
                out[word] = tuple(verb)
    return out


@functools.cache
def _table() -> dict[str, tuple[str, ...]]:
    try:
        return _read_verbs(_resources())
    except (OSError, ValueError, EOFError) as err:
        log.debug("verb lemmas through lemminflect's loader: %s", err)
        return dictionary_verbs()


def verb_lemmas(word: str) -> tuple[str, ...]:
    """``lemminflect.getLemma(word, upos="VERB")``."""
    if word != word.lower():  # lemminflect keeps a word's capitals in its answer
        return _asked(word)
    found = _table().get(word)
    return found if found is not None else _unknown(word)
