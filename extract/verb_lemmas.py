"""lemminflect's verb lemmas, kept in the data folder so that a process need not load its dictionary.

:func:`extract.lexicon.verb_lemma` asks lemminflect for the lemma of each
verb form. lemminflect reads its whole dictionary (70,000 words of every
part of speech) the first time it lemmatises anything: 0.23 s of CPU in
every process that parses, which is a sixth of a search's first result and
of ``dri compare``, and paid again by each worker of a pool. Only the verb
lemmas are used, so they are written once to
``data/cache/verb-lemmas.sqlite`` (one JSON object of about 27,000 words,
600 KB, keyed by lemminflect's version), which a later process reads in 0.01
s. A word the dictionary lacks goes to lemminflect's rules for unknown
words, which need no dictionary.

The answer is ``lemminflect.getLemma(word, upos="VERB")``, exactly: the
table holds what lemminflect's own lookup gives for each word (tested on
every 20th word of its dictionary, and on words it lacks). The file is a
cache, never a source of truth (:mod:`dri.sqlite_cache`): a folder that
cannot be written, a full disk or a damaged file only means that
lemminflect's dictionary is loaded, as without it; a row that is not a JSON
object is made again, and a word whose entry is not a list of words is
asked of lemminflect.

>>> verb_lemmas("felt")                                         # doctest: +SKIP
('feel',)
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

from dri.extract.spacy_import import import_spacy
from dri.sqlite_cache import SqliteCache, in_data_folder

__all__ = ["VerbLemmaTable", "verb_lemmas"]


_SCHEMA = "CREATE TABLE IF NOT EXISTS verb_lemmas (version TEXT PRIMARY KEY, lemmas TEXT NOT NULL)"


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


def dictionary_verbs() -> dict[str, tuple[str, ...]]:
    """Every lower-case word of lemminflect's dictionary (overrides included) that has a verb lemma:
    its ``getAllLemmas(word, "VERB")``, read from the two tables that method merges (an
    override's verb entry replaces the dictionary's)."""
    lemmatizer = _lemmatizer()
    out = {}
    for table in (lemmatizer._getLemmaDict(), lemmatizer._getOverridesDict()):
        for word, entry in table.items():
            verb = entry.get("VERB")
            if verb and word == word.lower():
                out[word] = tuple(verb)
    return out


class VerbLemmaTable:
    """The verb lemmas of one lemminflect version, kept in one SQLite file as one JSON
    object (word -> lemmas); every failure falls back to lemminflect."""

    def __init__(self, path: Path, version: str) -> None:
        self.path = path
        self.version = version
        self._file = SqliteCache(path, _SCHEMA, name="verb lemma cache")
        self._verbs: dict[str, Any] | None = None
        #: Whether this process made the table (and wrote it, if it could).
        self.made = False
        self._lock = threading.Lock()

    def lemmas(self, word: str) -> tuple[str, ...]:
        """``lemminflect.getLemma(word, upos="VERB")``."""
        if word != word.lower():  # lemminflect keeps a word's capitals in its answer
            return _asked(word)
        found = self._table().get(word)
        if found is None:
            return _unknown(word)
        if not (isinstance(found, list | tuple) and found and all(isinstance(x, str) for x in found)):
            return _asked(word)  # not what this module writes
        return tuple(found)

    def _table(self) -> dict[str, Any]:
        with self._lock:
            if self._verbs is None:
                self._verbs = self._read()
            if self._verbs is None:
                self._verbs = dictionary_verbs()
                self.made = True
                self._write(self._verbs)
            return self._verbs

    def _read(self) -> dict[str, Any] | None:
        def read(db: sqlite3.Connection) -> Any:
            return db.execute("SELECT lemmas FROM verb_lemmas WHERE version = ?", (self.version,)).fetchone()

        row = self._file.run(read, None)
        try:
            verbs = json.loads(row[0]) if row is not None else None
        except (TypeError, ValueError):
            return None
        return verbs if isinstance(verbs, dict) else None

    def _write(self, verbs: dict[str, Any]) -> None:
        text = json.dumps(verbs, separators=(",", ":"), ensure_ascii=False, check_circular=False)

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO verb_lemmas (version, lemmas) VALUES (?, ?)", (self.version, text)
                )

        self._file.run(write, None)


@functools.cache
def _version() -> str:
    return metadata.version("lemminflect")


def verb_lemmas(word: str) -> tuple[str, ...]:
    """``lemminflect.getLemma(word, upos="VERB")``, read from the data folder's table when it can be."""
    table = in_data_folder("verb-lemmas.sqlite", lambda path: VerbLemmaTable(path, _version()))
    return table.lemmas(word) if table is not None else _asked(word)
