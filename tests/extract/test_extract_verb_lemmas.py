"""The data folder's copy of lemminflect's verb lemmas answers as lemminflect does."""

from __future__ import annotations

import json
import sqlite3

import lemminflect
import pytest

from dri.extract import verb_lemmas
from dri.extract.verb_lemmas import VerbLemmaTable

OTHER_WORDS = ["Felt", "xyzzed", "blorfing", "table", "quickly", "", "the", "ran", "misunderstood"]


def _lemminflect(word: str) -> tuple[str, ...]:
    return tuple(lemminflect.getLemma(word, upos="VERB"))


@pytest.fixture(scope="module")
def words() -> list[str]:
    from lemminflect.core.Lemmatizer import Lemmatizer

    # Every 20th word of the dictionary (every word: 12 s of CPU, for nothing more found).
    every = sorted({*Lemmatizer()._getLemmaDict(), *Lemmatizer()._getOverridesDict()})
    return sorted({*every[::20], *OTHER_WORDS})


def test_the_words_of_the_dictionary_get_lemminflects_answer_made_and_read_back(tmp_path, words):
    path = tmp_path / "verb-lemmas.sqlite"
    maker = VerbLemmaTable(path, "1")
    assert [maker.lemmas(w) for w in words] == [_lemminflect(w) for w in words]
    reader = VerbLemmaTable(path, "1")  # another process: reads the file
    assert [reader.lemmas(w) for w in words] == [_lemminflect(w) for w in words]
    assert maker.made and not reader.made


def _rows(path) -> dict[str, str]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT version, lemmas FROM verb_lemmas").fetchall())


def test_a_damaged_row_is_made_again_a_damaged_entry_asked_and_versions_kept_apart(tmp_path, monkeypatch):
    few = {w: _lemminflect(w) for w in ("felt", "found", "ran")}
    monkeypatch.setattr(verb_lemmas, "dictionary_verbs", lambda: dict(few))
    path = tmp_path / "verb-lemmas.sqlite"
    assert VerbLemmaTable(path, "1").lemmas("felt") == few["felt"]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE verb_lemmas SET lemmas = '[\"not an object\"]'")
    again = VerbLemmaTable(path, "1")
    assert again.lemmas("found") == few["found"] and again.made
    assert json.loads(_rows(path)["1"]) == {w: list(v) for w, v in few.items()}
    with sqlite3.connect(path) as db:
        db.execute("UPDATE verb_lemmas SET lemmas = ?", (json.dumps({"felt": [3], "ran": "run"}),))
    damaged = VerbLemmaTable(path, "1")
    assert (damaged.lemmas("felt"), damaged.lemmas("ran")) == (_lemminflect("felt"), _lemminflect("ran"))
    assert not damaged.made
    assert VerbLemmaTable(path, "2").lemmas("ran") == few["ran"]
    assert set(_rows(path)) == {"1", "2"}


def test_a_damaged_file_or_a_folder_that_cannot_be_written_still_gives_lemminflects_answer(tmp_path):
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"\x00not a database" * 100)
    assert VerbLemmaTable(damaged, "1").lemmas("felt") == _lemminflect("felt")
    assert damaged.read_bytes().startswith(b"\x00not a database")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    table = VerbLemmaTable(blocked / "verb-lemmas.sqlite", "1")
    assert table.lemmas("misunderstood") == _lemminflect("misunderstood")
