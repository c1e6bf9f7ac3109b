"""The word lists the extractor reads from WordNet's files: a file missing or
damaged since WordNet was set up is one error naming it."""

from __future__ import annotations

import pytest

from dri.errors import error_line, joined_reasons
from dri.extract import lexicon
from dri.extract.lexicon import WordNetFileError, is_person_noun, is_wordnet_lemma, verb_lemma

_CACHED = (lexicon._lemmas, lexicon._verb_exceptions, lexicon._person_nouns, lexicon.verb_lemma)


@pytest.fixture
def wordnet_folder(tmp_path, monkeypatch):
    """An nltk_data folder of WordNet files for the lexicon, with the lists read afresh."""
    folder = tmp_path / "nltk_data" / "corpora" / "wordnet"
    folder.mkdir(parents=True)
    (folder / "index.noun").write_text("engineer n 1 1 @ 1 0 09615807\n")
    (folder / "index.verb").write_text("feel v 1 1 @ 1 0 01771535\n")
    (folder / "verb.exc").write_text("felt feel\n")
    (folder / "index.sense").write_text("engineer%1:18:00:: 09615807 1 8\n")
    monkeypatch.setenv("DRI_NLTK_DATA", str(tmp_path / "nltk_data"))
    for fn in _CACHED:
        fn.cache_clear()
    yield folder
    for fn in _CACHED:
        fn.cache_clear()


def test_the_lists_are_read_from_the_files(wordnet_folder):
    assert is_wordnet_lemma("engineer", "n") and is_person_noun("engineer")
    assert verb_lemma("felt", "felt") == "feel"


@pytest.mark.parametrize(
    "name, damage, says",
    [
        ("index.verb", None, "(No such file or directory)"),
        ("index.noun", b"\xcd\xff junk", "(a damaged file, not UTF-8: invalid continuation byte at byte 0)"),
        ("verb.exc", b"felt \xff", "(a damaged file, not UTF-8: invalid start byte at byte 5)"),
        ("index.sense", b"\xff", "(a damaged file, not UTF-8"),
    ],
)
def test_a_missing_or_damaged_file_is_one_error_naming_it(wordnet_folder, name, damage, says):
    # A RuntimeError (missing) or a UnicodeDecodeError (damaged) of every document's extraction: exit 70.
    path = wordnet_folder / name
    if damage is None:
        path.unlink()
    else:
        path.write_bytes(damage)
    with pytest.raises(WordNetFileError) as err:
        for read in (lambda: lexicon._lemmas("n"), lambda: lexicon._lemmas("v"), lexicon._verb_exceptions):
            read()
        is_person_noun("engineer")
    line = error_line(err.value)
    assert line.startswith(f"error: {path}: cannot read WordNet's ") and says in line
    assert line.endswith("set WordNet up again: scripts/setup-wordnet --force")


def test_a_variable_naming_a_folder_without_wordnet_is_named(wordnet_folder, tmp_path, monkeypatch):
    # It blamed WordNet's verb.exc and told to set WordNet up again, never the variable.
    monkeypatch.setenv("DRI_NLTK_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(WordNetFileError) as err:
        lexicon._verb_exceptions()
    assert error_line(err.value) == (
        f"error: DRI_NLTK_DATA={tmp_path / 'nowhere'}: no WordNet there (no {tmp_path / 'nowhere' / 'corpora' / 'wordnet'}): "
        "point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
    )


def test_a_variable_naming_a_file_is_named_as_a_file(wordnet_folder, tmp_path, monkeypatch):
    # dri graph said "no WordNet there" where dri compare said "a file, not a folder".
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("x", encoding="utf-8")
    monkeypatch.setenv("DRI_NLTK_DATA", str(in_the_way))
    with pytest.raises(WordNetFileError) as err:
        lexicon._verb_exceptions()
    assert str(err.value) == (
        f"DRI_NLTK_DATA={in_the_way}: a file, not a folder: "
        "point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
    )
    assert joined_reasons(str(err.value)) == [str(err.value)]  # one reason, not two
