"""Property tests of the corpus loaders with arbitrary bytes: whatever the
index file holds, a loader gives a corpus or a one-line :class:`CorpusError`
naming the file, never another exception."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dri.corpora.judgements import load_choice, load_judgements
from dri.corpora.manifest import read_manifest
from dri.corpora.plagiarism import load_plagiarism
from dri.corpora.ratings import read_ratings
from dri.corpora.text import CorpusError
from dri.corpora.translation import load_translation
from dri.literal import printable

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Arbitrary bytes, and bytes that look like CSV more often than chance would.
CSV_ALPHABET = st.sampled_from(list(',"\n\r\t ;abcAB12.-_é\x00\xff/'))
csv_like = st.lists(CSV_ALPHABET, max_size=300).map(lambda cs: "".join(cs).encode("utf-8", "surrogatepass"))
raw = st.binary(max_size=400)


def _headed(header: str):
    return st.one_of(raw, csv_like, csv_like.map(lambda b: header.encode() + b))


def _one_line_naming(err: CorpusError, path: Path) -> None:
    text = str(err)
    assert "\n" not in text and "\r" not in text
    assert text.startswith(printable(path)), text


def _load_bytes(loader: Callable[[Path], Any], name: str, data: bytes) -> Any:
    """``loader`` on a file ``name`` holding ``data``: what it loaded, or None
    once its :class:`CorpusError` was checked to be one line naming the file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            return loader(path)
        except CorpusError as err:
            _one_line_naming(err, path)
            return None


@SETTINGS
@given(data=_headed("File,Task,Category\n"))
@example(data=b'File,Task,Category\n"\x01\n\x01')  # a quoted file name holding a line break
def test_plagiarism_index_of_any_bytes(data):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "orig_taska.txt").write_text("The sun attracts the planets.\n")
        (root / "file_information.csv").write_bytes(data)
        try:
            corpus = load_plagiarism(root)
        except CorpusError as err:
            _one_line_naming(err, root)
        else:
            assert all("\n" not in p for p in corpus.problems)
            assert all(p.answer.is_relative_to(root) for p in corpus.pairs)


@SETTINGS
@given(data=_headed("source,target,group\n"))
def test_manifest_of_any_bytes(data):
    pairs = _load_bytes(read_manifest, "manifest.csv", data)
    if pairs is not None:
        assert len({(p.source, p.target, p.group) for p in pairs}) == len(pairs)


@SETTINGS
@given(data=_headed("rater,pair,novelty,usefulness,challenge\n"))
def test_ratings_of_any_bytes(data):
    loaded = _load_bytes(read_ratings, "ratings.csv", data)
    if loaded is not None:
        rows, problems = loaded
        assert all("\n" not in p for p in problems)
        for row in rows:
            assert all(
                row[p] is None or row[p] in range(1, 6) for p in ("novelty", "usefulness", "challenge")
            )


names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=40
).filter(lambda n: n not in (".", ".."))


@SETTINGS
@given(
    originals=st.lists(names, max_size=4),
    languages=st.dictionaries(names, st.lists(names, max_size=3), max_size=3),
    manifest=raw,
)
def test_translation_layout_of_any_names_and_bytes(originals, languages, manifest):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        try:
            (root / "originals").mkdir()
            (root / "roundtrip").mkdir()
            for name in originals:
                (root / "originals" / f"{name}.txt").write_bytes(manifest)
            for lang, texts in languages.items():
                (root / "roundtrip" / lang).mkdir(exist_ok=True)
                for name in texts:
                    (root / "roundtrip" / lang / f"{name}.txt").write_bytes(manifest)
        except OSError:
            return  # a name this file system refuses (too long): nothing to load
        (root / "manifest.csv").write_bytes(manifest)
        try:
            corpus = load_translation(root)
        except CorpusError as err:
            _one_line_naming(err, root)
        else:
            assert all("\n" not in p and "\r" not in p for p in corpus.problems)
            assert {p.language for p in corpus.pairs} <= set(languages)


@SETTINGS
@given(data=_headed("a,b,score\n"))
def test_judgements_of_any_bytes(data):
    _load_bytes(load_judgements, "judgements.csv", data)


jsonl_like = st.lists(
    st.sampled_from(
        ['{"query": "q", "options": ["a", "b"], "answer": 0}', "{", "[]", '{"answer": 9}', "", "\x00"]
    ),
    max_size=6,
).map(lambda lines: "\n".join(lines).encode())


@SETTINGS
@given(data=st.one_of(raw, jsonl_like))
def test_choice_items_of_any_bytes(data):
    _load_bytes(load_choice, "choice.jsonl", data)
