"""Corpus discovery and format detection (:mod:`dri.corpora.discover`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from processes import bound_by_permissions

from dri.corpora.discover import (
    EmptyCorpus,
    corpus_format,
    corpus_manifest,
    discover,
    discover_documents,
    has_manifest,
)
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


def test_a_listed_link_in_a_loop_is_its_own_path_and_the_other_pairs_stay(tmp_path):
    # Path.resolve() raised RuntimeError on the loop: no pair of the run was planned.
    root = _write(tmp_path / "c", MANIFEST + "loop.txt,solar.txt,story\n")
    (root / "loop.txt").symlink_to(root / "back")
    (root / "back").symlink_to(root / "loop.txt")
    pairs, _ = corpus_manifest(root)
    assert [(Path(s).name, Path(t).name) for s, t, _ in pairs] == [
        ("solar.txt", "atom.txt"),
        ("fortress.txt", "tumour.txt"),
        ("loop.txt", "solar.txt"),
    ]
    assert pairs[2][0] == str(root.resolve() / "loop.txt")


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


@pytest.mark.parametrize("files", [[], ["notes.md", "sub/more.md", "manifest.csv"], [".hidden.txt"]])
def test_a_folder_without_documents_is_an_error_naming_it_and_the_extensions(tmp_path, files):
    root = tmp_path / "c"
    root.mkdir()
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("The sun attracts the planets.")
    with pytest.raises(EmptyCorpus) as caught:
        discover(root)
    text = str(caught.value)
    assert text.startswith(f"{root}: no documents: no .txt, .text or .pdf files in it or its sub-folders")
    assert "\n" not in text
    if "notes.md" in files:
        assert text.endswith("; it holds 2 other file(s) (notes.md, sub/more.md)")


def test_links_to_folders_are_not_followed(tmp_path):
    root = _write(tmp_path / "c")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "far.txt").write_text("The cat chased the mouse.")
    (root / "linked").symlink_to(tmp_path / "elsewhere")
    (root / "folder.txt").symlink_to(tmp_path / "elsewhere")
    assert sorted(Path(p).name for p in discover_documents(root)) == [
        "atom.txt",
        "fortress.txt",
        "solar.txt",
        "tumour.txt",
    ]


def _discover_without_root_rights(root: Path) -> subprocess.CompletedProcess:
    code = "\n".join(
        [
            "import logging, sys",
            "logging.basicConfig(format='%(levelname)s %(message)s')",
            "from dri.corpora.discover import discover",
            f"paths, problems = discover({str(root)!r})",
            "print(len(paths))",
        ]
    )
    return subprocess.run(
        [*bound_by_permissions(), sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )


def test_unreadable_sub_folders_are_left_out_with_a_warning_each(tmp_path):
    root = _write(tmp_path / "c")
    for name in ("locked", "sealed"):
        (root / name).mkdir()
        (root / name / "inside.txt").write_text("The cat chased the mouse.")
        (root / name).chmod(0)
    try:
        done = _discover_without_root_rights(root)
    finally:
        for name in ("locked", "sealed"):
            (root / name).chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"
    assert done.stderr.splitlines() == [
        f"WARNING {root / name}: cannot read the folder (Permission denied); its files are left out"
        for name in ("locked", "sealed")
    ]


def test_an_unreadable_corpus_folder_is_an_error(tmp_path):
    root = _write(tmp_path / "c")
    root.chmod(0)
    try:
        done = _discover_without_root_rights(root)
    finally:
        root.chmod(0o755)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"dri.corpora.text.CorpusError: {root}: cannot read the folder: Permission denied"
    )


def test_a_target_named_by_its_doc_id_or_path_is_found(tmp_path):
    import hashlib

    from dri.corpora.discover import target_problem

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "fortress.txt").write_bytes(b"The army attacks the fortress.\n")
    doc_id = hashlib.sha256(b"The army attacks the fortress.\n").hexdigest()[:32]
    for target in (doc_id, str(corpus / "fortress.txt"), "fortress", "fortress.txt"):
        assert target_problem(corpus, target) is None
    assert target_problem(corpus, "f" * 32)[1] == 2


def test_a_manifests_paths_are_one_spelling_and_a_listed_link_stays_itself(tmp_path, caplog):
    # "./originals//a.txt" and "rt/../rt/b.txt" were another pair than the plain
    # spelling (a pair unaccounted for), and a listed link became the file it
    # leads to, outside the folder: named twice, once under a name never listed.
    from dri.corpora.discover import corpus_manifest

    root = tmp_path / "m"
    (root / "originals").mkdir(parents=True)
    (root / "rt").mkdir()
    (root / "originals" / "a.txt").write_text("x")
    (root / "rt" / "b.txt").write_text("y")
    (tmp_path / "outside.txt").write_text("z")
    (root / "originals" / "out.txt").symlink_to(tmp_path / "outside.txt")
    (root / "manifest.csv").write_text(
        "source,target,group\n"
        "originals/a.txt,rt/b.txt,g\n"
        "./originals//a.txt,rt/../rt/b.txt,g\n"
        "originals/out.txt,rt/b.txt,g\n"
    )
    pairs, _ = corpus_manifest(root)
    real = root.resolve()
    assert pairs == [
        (str(real / "originals" / "a.txt"), str(real / "rt" / "b.txt"), "g"),
        (str(real / "originals" / "out.txt"), str(real / "rt" / "b.txt"), "g"),
    ]
    assert "1 pair(s) listed again under another spelling of their paths" in caplog.text


def test_two_files_whose_names_are_one_name_in_the_stores_keep_the_first(tmp_path):
    # "\xff.txt" (not UTF-8) is stored as the text "\udcff.txt": a file of that literal
    # name became the same document, and one of the two was dropped without a word.
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / os.fsdecode(b"\xff.txt")).write_text("The queen rules the castle.\n", encoding="utf-8")
    (corpus / "\\udcff.txt").write_text("The engine drives the wheel.\n", encoding="utf-8")
    (corpus / "other.txt").write_text("The nurse helps the patient.\n", encoding="utf-8")
    found, problems = discover(corpus)
    assert [Path(p).name for p in found] == ["\\udcff.txt", "other.txt"]
    assert problems == [
        f"{corpus}/\\udcff.txt: refused, the file names '\\\\udcff.txt' and '\\xff.txt' are one name in "
        "the stores (a name that is not UTF-8 is kept as its escape); rename one of them"
    ]


def test_a_link_to_nothing_is_a_document_whose_reading_says_so_not_a_link_out(tmp_path):
    # "originals/dang.txt -> /nope" was refused as "outside the corpus folder":
    # outside_link resolved it without asking whether anything was there.
    from dri.corpora.text import read_text

    root = tmp_path / "c"
    root.mkdir()
    (root / "a.txt").write_text("The sun attracts the planets.\n")
    (root / "dang.txt").symlink_to(tmp_path / "nope")
    (tmp_path / "outside.txt").write_text("z")
    (root / "out.txt").symlink_to(tmp_path / "outside.txt")
    found, problems = discover(root)
    real = root.resolve()
    assert found == [str(real / "a.txt"), str(real / "dang.txt")]
    assert problems == [
        f"{real / 'out.txt'}: refused, a symbolic link to {tmp_path.resolve() / 'outside.txt'}, "
        "outside the corpus folder (only dri run --allow-outside-links follows such links)"
    ]
    with pytest.raises(CorpusError, match=r"dang.txt: no such file \(a symbolic link to .*/nope\)$"):
        read_text(real / "dang.txt", inside=real)
