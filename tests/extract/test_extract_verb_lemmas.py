"""The data folder's copy of lemminflect's verb lemmas answers as lemminflect does."""

from __future__ import annotations

import sqlite3

import lemminflect
import pytest

from dri.extract import verb_lemmas
from dri.extract.verb_lemmas import VerbLemmaTable, dictionary_verbs

OTHER_WORDS = ["Felt", "xyzzed", "blorfing", "table", "quickly", "", "the", "ran", "misunderstood"]


def _lemminflect(word: str) -> tuple[str, ...]:
    return tuple(lemminflect.getLemma(word, upos="VERB"))


@pytest.fixture(scope="module")
def words() -> list[str]:
    from lemminflect.core.Lemmatizer import Lemmatizer

    # Every 20th word of the dictionary (every word: 12 s of CPU, for nothing more found).
    every = sorted(Lemmatizer()._getLemmaDict())
    return sorted({*every[::20], *OTHER_WORDS})


def test_the_words_of_the_dictionary_get_lemminflects_answer_written_and_read_back(tmp_path, words):
    path = tmp_path / "verb-lemmas.sqlite"
    writer = VerbLemmaTable(path, "1")
    assert [writer.lemmas(w) for w in words] == [_lemminflect(w) for w in words]
    reader = VerbLemmaTable(path, "1")  # another process: reads the file
    assert [reader.lemmas(w) for w in words] == [_lemminflect(w) for w in words]
    assert reader._written is None
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM verb_lemmas").fetchone()[0] == len(dictionary_verbs()) + 1


def test_another_version_or_a_half_written_table_is_written_again(tmp_path, monkeypatch):
    few = {w: _lemminflect(w) for w in ("felt", "found", "ran")}
    monkeypatch.setattr(verb_lemmas, "dictionary_verbs", lambda: dict(few))
    path = tmp_path / "verb-lemmas.sqlite"
    assert VerbLemmaTable(path, "1").lemmas("felt") == few["felt"]
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM verb_lemmas WHERE word LIKE '%complete'")
        db.execute("UPDATE verb_lemmas SET lemmas = 'not json' WHERE word = 'found'")
    again = VerbLemmaTable(path, "1")
    assert again.lemmas("found") == few["found"]
    assert again._written is not None  # the table was not whole: written again
    assert VerbLemmaTable(path, "2").lemmas("ran") == few["ran"]
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT version, word, lemmas FROM verb_lemmas ORDER BY version, word").fetchall()
    assert [(v, w) for v, w, _ in rows if w in few] == [(v, w) for v in "12" for w in sorted(few)]
    assert len(rows) == 2 * (len(few) + 1)


def test_a_damaged_file_or_folder_that_cannot_be_written_asks_lemminflect(tmp_path):
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"\x00not a database" * 100)
    assert VerbLemmaTable(damaged, "1").lemmas("felt") == ("feel",)
    assert damaged.read_bytes().startswith(b"\x00not a database")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert VerbLemmaTable(blocked / "verb-lemmas.sqlite", "1").lemmas("misunderstood") == _lemminflect(
        "misunderstood"
    )
