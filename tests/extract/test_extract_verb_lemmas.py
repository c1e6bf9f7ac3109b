"""The verb lemmas read from lemminflect's file answer as lemminflect does."""

from __future__ import annotations

import gzip
import shutil

import lemminflect
import pytest

from dri.extract import verb_lemmas

OTHER_WORDS = ["Felt", "xyzzed", "blorfing", "table", "quickly", "", "the", "ran", "misunderstood"]


def _lemminflect(word: str) -> tuple[str, ...]:
    return tuple(lemminflect.getLemma(word, upos="VERB"))


@pytest.fixture(scope="module")
def words() -> list[str]:
    from lemminflect.core.Lemmatizer import Lemmatizer

    # Every 20th word of the dictionary (every word: 12 s of CPU, for nothing more found).
    every = sorted({*Lemmatizer()._getLemmaDict(), *Lemmatizer()._getOverridesDict()})
    return sorted({*every[::20], *OTHER_WORDS})


def test_the_words_of_the_dictionary_get_lemminflects_answer(words):
    assert [verb_lemmas.verb_lemmas(w) for w in words] == [_lemminflect(w) for w in words]


def test_the_fast_read_is_the_table_lemminflects_loader_gives():
    assert verb_lemmas._read_verbs(verb_lemmas._resources()) == verb_lemmas.dictionary_verbs()


def test_an_override_replaces_the_dictionarys_verb_entry_and_other_parts_of_speech_are_left(tmp_path):
    shutil.copy(verb_lemmas._resources() / "lemma_lu.csv.gz", tmp_path / "lemma_lu.csv.gz")
    (tmp_path / "lemma_overrides.csv").write_text("# comment\n\nfelt,VERB,felter\nran,NOUN,rannoun\n")
    verbs = verb_lemmas._read_verbs(tmp_path)
    assert verbs["felt"] == ("felter",) and verbs["ran"] == ("run",)


def test_a_file_not_in_lemminflects_format_is_refused_for_its_loader(tmp_path):
    (tmp_path / "lemma_lu.csv.gz").write_bytes(gzip.compress(b"felt;verb;feel\n"))
    (tmp_path / "lemma_overrides.csv").write_text("")
    with pytest.raises(ValueError, match="not lemminflect's format"):
        verb_lemmas._read_verbs(tmp_path)
    (tmp_path / "lemma_lu.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(OSError):
        verb_lemmas._read_verbs(tmp_path)
