"""lemminflect's verb lemmas, kept in the data folder so that a process need not load its dictionary.

:func:`extract.lexicon.verb_lemma` asks lemminflect for the lemma of each
verb form. lemminflect reads its whole dictionary (70,000 words of every
part of speech) the first time it lemmatises anything: 0.23 s of CPU in
every process that parses, which is a sixth of a search's first result and
of ``dri compare``, and paid again by each worker of a pool. Only the verb
lemmas are used, so they are written once to
``data/cache/verb-lemmas.sqlite`` (about 27,000 rows), keyed by lemminflect's
version, and read one word at a time. A word the dictionary lacks goes to
lemminflect's rules for unknown words, which need no dictionary.

The answer is ``lemminflect.getLemma(word, upos="VERB")``, exactly: the
table holds what lemminflect's own lookup gives for each word (tested on
every 20th word of its dictionary, and on words it lacks). The file is a cache, never a source of
truth (:mod:`dri.sqlite_cache`): a folder that cannot be written, a full
disk or a damaged file only means that lemminflect is asked itself, as
without it. The table is written in one transaction that ends with a
marker row, so a reader never takes a half-written table for a whole one.

>>> verb_lemmas("felt")                                         # doctest: +SKIP
('feel',)
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sqlite3
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

from dri.sqlite_cache import SqliteCache

__all__ = ["VerbLemmaTable", "verb_lemmas"]

log = logging.getLogger(__name__)

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS verb_lemmas "
    "(version TEXT NOT NULL, word TEXT NOT NULL, lemmas TEXT NOT NULL, PRIMARY KEY (version, word))"
)
#: The row written last: no word of the dictionary looks like it.
_COMPLETE = "\x00complete"


def _lemmatizer() -> Any:
    # Imported here: lemminflect imports spaCy, which a process that only reads
    # the table (all its words known) may not need.
    from lemminflect.core.Lemmatizer import Lemmatizer

    return Lemmatizer()


def _asked(word: str) -> tuple[str, ...]:
    """lemminflect's own answer."""
    import lemminflect

    return tuple(lemminflect.getLemma(word, upos="VERB"))


def _unknown(word: str) -> tuple[str, ...]:
    """What lemminflect answers for a word its dictionary has no verb lemma of: its rules."""
    return tuple(_lemmatizer().getAllLemmasOOV(word, "VERB").get("VERB", ()))


def dictionary_verbs() -> dict[str, tuple[str, ...]]:
    """Every lower-case word of lemminflect's dictionary (overrides included) that has a verb lemma."""
    lemmatizer = _lemmatizer()
    words = {*lemmatizer._getLemmaDict(), *lemmatizer._getOverridesDict()}
    out = {}
    for word in words:
        if word == word.lower():
            lemmas = lemmatizer.getAllLemmas(word, "VERB").get("VERB")
            if lemmas:
                out[word] = tuple(lemmas)
    return out


class VerbLemmaTable:
    """The verb lemmas of one lemminflect version in one SQLite file; every failure falls back to lemminflect."""

    def __init__(self, path: Path, version: str) -> None:
        self.path = path
        self.version = version
        self._file = SqliteCache(path, _SCHEMA, name="verb lemma cache")
        #: The table as written by this process, read instead of the file.
        self._written: dict[str, tuple[str, ...]] | None = None
        self._lock = threading.Lock()

    def lemmas(self, word: str) -> tuple[str, ...]:
        """``lemminflect.getLemma(word, upos="VERB")``."""
        if word != word.lower():  # lemminflect keeps a word's capitals in its answer
            return _asked(word)
        if self._written is not None:
            return self._written.get(word) or _unknown(word)

        def read(db: sqlite3.Connection) -> tuple[bool, str | None]:
            rows = dict(
                db.execute(
                    "SELECT word, lemmas FROM verb_lemmas WHERE version = ? AND word IN (?, ?)",
                    (self.version, word, _COMPLETE),
                ).fetchall()
            )
            return _COMPLETE in rows, rows.get(word)

        kept = self._file.run(read, None)
        if kept is None:  # the file cannot be used
            return _asked(word)
        complete, found = kept
        if complete:
            lemmas = _decoded(found)
            if lemmas is not None:
                return lemmas or _unknown(word)
        return self._write_and_answer(word)

    def _write_and_answer(self, word: str) -> tuple[str, ...]:
        with self._lock:
            if self._written is None:
                self._written = dictionary_verbs()
                rows = [(self.version, w, json.dumps(lemmas)) for w, lemmas in self._written.items()]
                rows.append((self.version, _COMPLETE, "[]"))

                def write(db: sqlite3.Connection) -> None:
                    with db:
                        db.execute("DELETE FROM verb_lemmas WHERE version = ?", (self.version,))
                        db.executemany("INSERT INTO verb_lemmas (version, word, lemmas) VALUES (?,?,?)", rows)

                self._file.run(write, None)
        return self._written.get(word) or _unknown(word)


def _decoded(text: str | None) -> tuple[str, ...] | None:
    """A row's lemmas (empty for no row), or None if the row is not what this module writes."""
    if text is None:
        return ()
    try:
        lemmas = json.loads(text)
    except ValueError:
        return None
    if not (isinstance(lemmas, list) and lemmas and all(isinstance(x, str) for x in lemmas)):
        return None
    return tuple(lemmas)


_TABLES: dict[tuple[int, Path], VerbLemmaTable] = {}
_TABLES_LOCK = threading.Lock()


@functools.cache
def _version() -> str:
    return metadata.version("lemminflect")


def _table() -> VerbLemmaTable | None:
    """The process's table in the data folder (a new one in a forked child: a SQLite
    connection must not cross a fork), or None if there is no data folder."""
    from dri.settings import data_dir

    try:
        path = data_dir() / "cache" / "verb-lemmas.sqlite"
    except Exception as err:  # a data folder that cannot be made: lemminflect is asked
        log.debug("no verb lemma cache: %s", err)
        return None
    key = (os.getpid(), path)
    with _TABLES_LOCK:
        table = _TABLES.get(key)
        if table is None:
            table = _TABLES[key] = VerbLemmaTable(path, _version())
    return table


def verb_lemmas(word: str) -> tuple[str, ...]:
    """``lemminflect.getLemma(word, upos="VERB")``, read from the data folder's table when it can be."""
    table = _table()
    return table.lemmas(word) if table is not None else _asked(word)
