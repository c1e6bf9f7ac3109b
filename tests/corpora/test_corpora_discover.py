"""Corpus discovery and format detection (:mod:`dri.corpora.discover`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dri.corpora.discover import corpus_format, corpus_manifest, discover_documents, has_manifest
from dri.corpora.text import CorpusError
from dri.settings import clough_stevenson_dir

MANIFEST = "source,target,group\nsolar.txt,atom.txt,science\nfortress.txt,tumour.txt,story\n"


def _write(folder: Path, manifest: str | None = MANIFEST) -> Path:
    folder.mkdir(parents=True)
    for name in ("solar.txt", "atom.txt", "fortress.txt", "tumour.txt"):
        (folder / name).write_text(f"The {name[:-4]} attracts the planets.\n")
    if manifest:
        (folder / "manifest.csv").write_text(manifest)
    return folder


def test_discover_documents_skips_control_and_hidden_files(tmp_path):
    root = _write(tmp_path / "c")
    (root / "targets.txt").write_text("solar.txt\n")
    (root / ".hidden.txt").write_text("x")
    (root / "notes.md").write_text("x")
    (root / "sub").mkdir()
    (root / "sub" / "extra.TXT").write_text("The cat chased the mouse.")
    (root / ".git").mkdir()
    (root / ".git" / "x.txt").write_text("x")
    found = [Path(p).relative_to(root.resolve()).as_posix() for p in discover_documents(root)]
    assert found == ["atom.txt", "fortress.txt", "solar.txt", "sub/extra.TXT", "tumour.txt"]


def test_discover_documents_names_a_missing_folder(tmp_path):
    with pytest.raises(NotADirectoryError, match="nowhere"):
        discover_documents(tmp_path / "nowhere")


def test_corpus_manifest_reads_manifest_csv(tmp_path):
    pairs, problems = corpus_manifest(_write(tmp_path / "c"))
    assert problems == []
    assert [(Path(s).name, Path(t).name, g) for s, t, g in pairs] == [
        ("solar.txt", "atom.txt", "science"),
        ("fortress.txt", "tumour.txt", "story"),
    ]
    assert all(Path(s).is_absolute() for s, _, _ in pairs)


def test_corpus_manifest_reads_clough_stevenson_index():
    root = clough_stevenson_dir()
    assert corpus_format(root) == "plagiarism"
    pairs, _ = corpus_manifest(root)
    assert len(pairs) == 95
    assert all(Path(s).name.startswith("orig_task") for s, _, _ in pairs)
    assert {g for _, _, g in pairs} == {"cut", "light", "heavy", "non"}


def test_corpus_manifest_without_one_says_what_it_looked_for(tmp_path):
    root = _write(tmp_path / "c", manifest=None)
    assert not has_manifest(root)
    assert corpus_format(root) is None
    with pytest.raises(CorpusError, match="no manifest.csv"):
        corpus_manifest(root)


def test_corpus_format_follows_the_markers(tmp_path):
    (tmp_path / "originals").mkdir()
    assert corpus_format(tmp_path) == "translation"
    (tmp_path / "manifest.csv").write_text(MANIFEST)
    assert corpus_format(tmp_path) == "manifest"
