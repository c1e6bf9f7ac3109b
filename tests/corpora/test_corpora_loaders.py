"""Corpus formats: plagiarism (Clough & Stevenson), translation, analogy search, manifest, text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dri.corpora.analogy import load_analogy
from dri.corpora.manifest import ManifestPair, read_manifest, write_manifest
from dri.corpora.plagiarism import LEVELS, load_plagiarism
from dri.corpora.text import CorpusError, decode_bytes, read_text
from dri.corpora.translation import load_translation
from dri.settings import clough_stevenson_dir

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "corpora" / "demo"
# The shared corpus sits beside the checkout (../shared), as in CI.
CLOUGH = clough_stevenson_dir()

CP1252_TEXT = "Inheritance \u2013 the \u201cis a\u201d relation \u2026 caf\u00e9"


def _plagiarism_fixture(root: Path) -> Path:
    root.mkdir()
    (root / "orig_taska.txt").write_text("The original text about trees and roots.", encoding="utf-8")
    (root / "orig_taskb.txt").write_bytes(CP1252_TEXT.encode("cp1252"))
    (root / "g0_taska.txt").write_bytes(("Copied: " + CP1252_TEXT).encode("cp1252"))
    (root / "g1_taska.txt").write_text("Not copied at all, caf\u00e9.", encoding="utf-8")
    (root / "g0_taskb.txt").write_text("Heavy revision of b.", encoding="utf-8")
    (root / "file_information.csv").write_text(
        "File,Task,Category\n"
        "g0_taska.txt,a,cut\n"
        "g1_taska.txt,a,non\n"
        "g0_taskb.txt,b,heavy\n"
        "g2_taskb.txt,b,light\n"  # listed but missing
        "g3_taska.txt,a,sloppy\n"  # unknown category
        "g4_taskz.txt,z,cut\n"  # no original for task z
        "orig_taska.txt,a,orig\n"
        "orig_taskb.txt,b,orig\n",
        encoding="utf-8",
    )
    return root


def test_read_text_reads_a_byte_order_mark_as_the_extractor_does(tmp_path):
    # A UTF-16 text was parsed for the structure scores and refused for the baselines.
    from dri.extract.reader import read_document

    for encoding in ("utf-16", "utf-32", "utf-8-sig"):
        path = tmp_path / f"{encoding}.txt"
        path.write_text(CP1252_TEXT, encoding=encoding)
        assert read_text(path) == CP1252_TEXT
        assert read_document(path).sentences


def test_read_text_decodes_utf8_and_cp1252(tmp_path):
    (tmp_path / "u.txt").write_text(CP1252_TEXT, encoding="utf-8")
    (tmp_path / "w.txt").write_bytes(CP1252_TEXT.encode("cp1252"))
    assert read_text(tmp_path / "u.txt") == CP1252_TEXT
    assert read_text(tmp_path / "w.txt") == CP1252_TEXT
    assert decode_bytes(CP1252_TEXT.encode("cp1252"))[1] == "cp1252"
    assert decode_bytes(CP1252_TEXT.encode("utf-8"))[1] == "utf-8"


@pytest.mark.parametrize(
    "content, reason",
    [
        (None, "no such file"),
        (b"  \n", "empty"),
        (b"\x00\x01ab", "binary"),
        (b"\x01\x02\x03\x7f a b", "control characters"),  # as the extractor refuses it
    ],
)
def test_read_text_one_line_errors(tmp_path, content, reason):
    path = tmp_path / "bad.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(CorpusError) as info:
        read_text(path)
    message = str(info.value)
    assert message.startswith(str(path)) and reason in message and "\n" not in message


def test_plagiarism_loader_pairs_and_problems(tmp_path):
    corpus = load_plagiarism(_plagiarism_fixture(tmp_path / "c"))
    got = {(p.answer.name, p.original.name, p.task, p.level) for p in corpus.pairs}
    assert got == {
        ("g0_taska.txt", "orig_taska.txt", "a", "cut"),
        ("g1_taska.txt", "orig_taska.txt", "a", "non"),
        ("g0_taskb.txt", "orig_taskb.txt", "b", "heavy"),
    }
    assert len(corpus.problems) == 3
    joined = "\n".join(corpus.problems)
    assert "g2_taskb.txt" in joined and "sloppy" in joined and "task 'z'" in joined
    assert all("\n" not in p for p in corpus.problems)
    # The cp1252 answer reads as the same characters as its source.
    cut = next(p for p in corpus.pairs if p.level == "cut")
    assert CP1252_TEXT in read_text(cut.answer)
    assert [m.group for m in corpus.manifest()] == [p.level for p in corpus.pairs]
    assert cut.level_code == LEVELS["cut"] == 3


def test_an_original_listed_as_an_answer_or_twice_is_a_problem_not_a_pair(tmp_path):
    root = _plagiarism_fixture(tmp_path / "c")
    (root / "other_taska.txt").write_text("Another original of a.", encoding="utf-8")
    with (root / "file_information.csv").open("a", encoding="utf-8") as fh:
        fh.write("orig_taska.txt,a,non\nother_taska.txt,a,orig\n")
    corpus = load_plagiarism(root)
    assert ("orig_taska.txt", "orig_taska.txt") not in {
        (p.answer.name, p.original.name) for p in corpus.pairs
    }
    assert {p.original.name for p in corpus.pairs if p.task == "a"} == {"orig_taska.txt"}
    info = root / "file_information.csv"
    assert (
        f"{info}: line 10: orig_taska.txt is the original of task a, not an answer to it" in corpus.problems
    )
    assert f"{info}: line 11: a second original for task a (other_taska.txt); orig_taska.txt is kept" in (
        corpus.problems
    )


def test_plagiarism_loader_rejects_missing_index(tmp_path):
    with pytest.raises(CorpusError, match="file_information.csv"):
        load_plagiarism(tmp_path)
    (tmp_path / "file_information.csv").write_text("Name,Task\nx,a\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="File, Category|File|Category"):
        load_plagiarism(tmp_path)


def test_full_clough_stevenson_corpus_in_place():
    corpus = load_plagiarism(CLOUGH)
    assert corpus.problems == []
    assert len(corpus.pairs) == 95
    counts = {lvl: sum(p.level == lvl for p in corpus.pairs) for lvl in LEVELS}
    assert counts == {"cut": 19, "light": 19, "heavy": 19, "non": 38}
    assert sorted(corpus.originals) == ["a", "b", "c", "d", "e"]
    encodings = {decode_bytes(p.answer.read_bytes())[1] for p in corpus.pairs}
    assert encodings == {"utf-8", "cp1252"}


def test_demo_plagiarism_set_has_every_level_per_task():
    corpus = load_plagiarism(DEMO / "plagiarism")
    assert corpus.problems == []
    assert sorted((p.task, p.level) for p in corpus.pairs) == sorted(
        (t, lvl) for t in "abc" for lvl in LEVELS
    )
    for task, original in corpus.originals.items():
        assert 120 <= len(read_text(original).split()) <= 200, task


def test_translation_loader(tmp_path):
    root = tmp_path / "t"
    (root / "originals").mkdir(parents=True)
    (root / "originals" / "a.txt").write_text("A text.", encoding="utf-8")
    (root / "originals" / "b.txt").write_text("B text.", encoding="utf-8")
    for lang in ("spa", "hbs"):
        (root / "roundtrip" / lang).mkdir(parents=True)
        (root / "roundtrip" / lang / "a.txt").write_text("A text back.", encoding="utf-8")
    (root / "roundtrip" / "spa" / "b.txt").write_bytes("B t\u00e9xt.".encode("cp1252"))
    (root / "roundtrip" / "spa" / "stray.txt").write_text("no original", encoding="utf-8")
    corpus = load_translation(root)
    assert corpus.languages == ["hbs", "spa"]
    assert sorted((p.name, p.language) for p in corpus.pairs) == [("a", "hbs"), ("a", "spa"), ("b", "spa")]
    assert any("stray.txt" in p for p in corpus.problems)
    assert any("no round trip of b" in p for p in corpus.problems)


def test_translation_loader_needs_layout(tmp_path):
    with pytest.raises(CorpusError, match="originals"):
        load_translation(tmp_path)
    # Something in the way is named as such; it said "missing".
    (tmp_path / "originals").mkdir()
    (tmp_path / "roundtrip").write_text("x", encoding="utf-8")
    with pytest.raises(CorpusError, match="roundtrip: not a folder: a translation corpus needs roundtrip/"):
        load_translation(tmp_path)
    (tmp_path / "file_information.csv").mkdir()
    with pytest.raises(CorpusError, match="file_information.csv: a folder: a plagiarism corpus needs"):
        load_plagiarism(tmp_path)


def test_what_a_translation_corpus_has_no_place_for_is_a_problem_not_skipped(tmp_path):
    root = tmp_path / "t"
    (root / "originals" / "sub").mkdir(parents=True)
    (root / "originals" / "a.txt").write_text("A text.", encoding="utf-8")
    (root / "originals" / "sub" / "b.txt").write_text("B text.", encoding="utf-8")
    (root / "roundtrip" / "spa" / "nested").mkdir(parents=True)
    (root / "roundtrip" / "spa" / "a.txt").write_text("A text back.", encoding="utf-8")
    (root / "roundtrip" / "cat").write_text("not a folder", encoding="utf-8")
    corpus = load_translation(root)
    assert [(p.name, p.language) for p in corpus.pairs] == [("a", "spa")]
    assert corpus.problems == [
        f"{root / 'roundtrip' / 'cat'}: a file where a language folder goes (roundtrip/<lang>/NAME.txt); left out",
        f"{root / 'originals' / 'sub'}: a folder inside originals/, where only texts are read; left out",
        f"{root / 'roundtrip' / 'spa' / 'nested'}: a folder inside spa/, where only texts are read; left out",
    ]


def test_demo_translation_set_is_complete():
    corpus = load_translation(DEMO / "translation")
    assert corpus.problems == []
    assert corpus.languages == sorted(["spa", "cat", "glg", "epo", "hbs"])
    assert len(corpus.pairs) == 5 * len(corpus.originals) == 15
    manifest = read_manifest(DEMO / "translation" / "manifest.csv")
    assert {(m.source.resolve(), m.target.resolve(), m.group) for m in manifest} == {
        (p.original.resolve(), p.roundtrip.resolve(), p.language) for p in corpus.pairs
    }


def test_analogy_loader_targets_and_sections(tmp_path):
    for name in ("a.txt", "b.txt", "c.pdf"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "targets.txt").write_text("# comment\na.txt  # the first\n\n", encoding="utf-8")
    (tmp_path / "sections.txt").write_text("Abstract\nBackground\n", encoding="utf-8")
    corpus = load_analogy(tmp_path)
    assert [d.name for d in corpus.documents] == ["a.txt", "b.txt", "c.pdf"]
    assert [t.name for t in corpus.targets] == ["a.txt"]
    assert corpus.sections == ("abstract", "background")
    pairs = corpus.manifest()
    assert [(p.source.name, p.target.name, p.group) for p in pairs] == [
        ("b.txt", "a.txt", "a.txt"),
        ("c.pdf", "a.txt", "a.txt"),
    ]
    assert load_analogy(tmp_path, targets=["b.txt"], sections=[]).sections is None
    with pytest.raises(CorpusError, match="not a document"):
        load_analogy(tmp_path, targets=["zzz.txt"])


def test_demo_analogy_set():
    corpus = load_analogy(DEMO / "analogy")
    assert 6 <= len(corpus.documents) <= 10
    assert {t.name for t in corpus.targets} >= {"rutherford-atom.txt", "radiation-tumour.txt"}


def test_manifest_round_trip(tmp_path):
    inside = tmp_path / "docs" / "a.txt"
    outside = Path("/elsewhere/b.txt")
    pairs = [ManifestPair(inside, outside, "cut", {"task": "a"}), ManifestPair(outside, inside, "non")]
    path = write_manifest(pairs, tmp_path / "manifest.csv")
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == "source,target,group,task"
    assert "docs/a.txt" in path.read_text(encoding="utf-8")  # relative inside the folder
    back = read_manifest(path)
    assert [(p.source, p.target, p.group) for p in back] == [
        (inside, outside, "cut"),
        (outside, inside, "non"),
    ]
    assert back[0].extra == {"task": "a"}


def test_a_manifest_is_written_whole_or_left_as_it_was(tmp_path):
    class Unwritable:
        def __str__(self) -> str:
            raise ValueError("cannot be written")

    path = write_manifest([ManifestPair(tmp_path / "a.txt", tmp_path / "b.txt", "cut")], tmp_path / "m.csv")
    before = path.read_bytes()
    pairs = [
        ManifestPair(tmp_path / f"{n}.txt", tmp_path / "b.txt", "cut", {"note": "x"}) for n in range(500)
    ]
    pairs.append(ManifestPair(tmp_path / "z.txt", tmp_path / "b.txt", "cut", {"note": Unwritable()}))  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="cannot be written"):
        write_manifest(pairs, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.csv"]


def test_manifest_errors_are_one_line(tmp_path):
    bad = tmp_path / "m.csv"
    bad.write_text("source,target\na,b\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="group"):
        read_manifest(bad)
    bad.write_text("source,target,group\na,,cut\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="line 2: empty target"):
        read_manifest(bad)


def test_analogy_loader_names_each_target_once_and_the_list_for_a_bad_one(tmp_path, caplog):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (corpus_dir / name).write_text("x", encoding="utf-8")
    (tmp_path / "a.txt").write_text("another file of the same name", encoding="utf-8")
    listed = corpus_dir / "targets.txt"
    listed.write_text("a.txt\n./a.txt\nb.txt\n", encoding="utf-8")
    corpus = load_analogy(corpus_dir)
    assert [t.name for t in corpus.targets] == ["a.txt", "b.txt"]
    assert [(p.source.name, p.target.name) for p in corpus.manifest()] == [
        ("b.txt", "a.txt"),
        ("c.txt", "a.txt"),
        ("a.txt", "b.txt"),
        ("c.txt", "b.txt"),
    ]
    assert f"{listed}: target 'a.txt' is named twice; it is compared once" in caplog.messages
    caplog.clear()
    listed.write_text("a.txt\n./a.txt\nb.txt\na.txt\n", encoding="utf-8")
    assert [t.name for t in load_analogy(corpus_dir).targets] == ["a.txt", "b.txt"]
    assert caplog.messages == [f"{listed}: target 'a.txt' is named 3 times; it is compared once"]
    # A bad line of targets.txt is left out, named; the others are searched (it stopped them all).
    for entry in ("../a.txt", "/etc/c.txt"):
        listed.write_text(f"a.txt\n{entry}\n", encoding="utf-8")
        corpus = load_analogy(corpus_dir)
        assert [t.name for t in corpus.targets] == ["a.txt"]
        assert corpus.problems == [
            f"{listed}: target {entry!r} is not a document of the corpus {corpus_dir}; left out"
        ]
    listed.write_text("/etc/c.txt\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        load_analogy(corpus_dir)
    assert str(err.value) == (
        f"{listed}: names no document of the corpus "
        f"({listed}: target '/etc/c.txt' is not a document of the corpus {corpus_dir}; left out)"
    )
    with pytest.raises(CorpusError) as err:
        load_analogy(corpus_dir, targets=["a.txt", "/etc/c.txt"])
    assert str(err.value) == f"--target: target '/etc/c.txt' is not a document of the corpus {corpus_dir}"


def test_a_target_that_differs_from_a_document_only_in_unicode_form_or_case_says_so(tmp_path):
    # "café.txt" typed (NFC) against "cafe\u0301.txt" copied from a Mac (NFD): the refusal
    # named a target that looked exactly like a file of the corpus.
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name in ("cafe\u0301.txt", "Atom.txt", "b.txt"):
        (corpus_dir / name).write_text("x", encoding="utf-8")
    for entry, hint in (
        ("caf\u00e9.txt", "'cafe\\u0301.txt', a name that differs only in its Unicode form"),
        ("atom.TXT", "'Atom.txt', a name that differs only in case"),
    ):
        with pytest.raises(CorpusError) as err:
            load_analogy(corpus_dir, targets=[entry])
        assert str(err.value) == (
            f"--target: target {entry!r} is not a document of the corpus {corpus_dir}; the corpus has {hint}"
        )
    assert [t.name for t in load_analogy(corpus_dir, targets=["cafe\u0301.txt"]).targets] == [
        "cafe\u0301.txt"
    ]


def test_a_table_in_utf32_with_its_mark_is_read_as_documents_are(tmp_path):
    # Its little-endian mark begins with UTF-16's: read as UTF-16, it was "binary data (NUL characters)".
    from dri.corpora.text import read_table_text

    for encoding in ("utf-32", "utf-16"):
        path = tmp_path / f"{encoding}.txt"
        path.write_text("bread.txt\ncafé.txt\n", encoding=encoding)
        assert read_table_text(path, "list file") == "bread.txt\ncafé.txt\n"


def test_an_analogy_target_may_be_named_by_its_doc_id(tmp_path):
    # dri run --target took a doc id, dri evaluate analogy --target did not.
    import hashlib

    for name, text in (("a.txt", b"The sun attracts the planets."), ("b.txt", b"The dog bites.")):
        (tmp_path / name).write_bytes(text)
    doc_id = hashlib.sha256(b"The dog bites.").hexdigest()[:32]
    assert [t.name for t in load_analogy(tmp_path, targets=[doc_id]).targets] == ["b.txt"]
    with pytest.raises(CorpusError, match="is not a document of the corpus"):
        load_analogy(tmp_path, targets=["f" * 32])


def test_hidden_files_and_folders_are_not_part_of_a_translation_corpus(tmp_path: Path):
    # An editor's lock file was an original missing from every language, and a
    # notebook's checkpoint folder a language with no round trip of anything.
    (tmp_path / "originals").mkdir()
    (tmp_path / "roundtrip" / "spa").mkdir(parents=True)
    (tmp_path / "originals" / "bees.txt").write_text("Bees make honey.", encoding="utf-8")
    (tmp_path / "roundtrip" / "spa" / "bees.txt").write_text("Bees do honey.", encoding="utf-8")
    (tmp_path / "originals" / ".~lock.bees.txt").write_text("junk", encoding="utf-8")
    (tmp_path / "roundtrip" / ".ipynb_checkpoints").mkdir()
    corpus = load_translation(tmp_path)
    assert corpus.languages == ["spa"] and list(corpus.originals) == ["bees"] and corpus.problems == []


def test_corpus_files_that_lead_out_of_the_corpus_or_to_nothing_are_refused(tmp_path: Path):
    from dri.corpora.discover import corpus_manifest

    secret = tmp_path / "secret.env"
    secret.write_text("source,target,group\nAPI_KEY=sk-live-123456,b,c\n", encoding="utf-8")
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The sun attracts the planet.", encoding="utf-8")
    (corpus / "manifest.csv").symlink_to(secret)
    with pytest.raises(CorpusError, match="outside the folder") as err:
        corpus_manifest(corpus)
    assert "sk-live" not in str(err.value)
    # A link to nothing ran the corpus as all pairs, without a word.
    (corpus / "manifest.csv").unlink()
    (corpus / "manifest.csv").symlink_to(corpus / "gone.csv")
    with pytest.raises(CorpusError, match="manifest.csv: no such manifest"):
        corpus_manifest(corpus)
    (corpus / "manifest.csv").unlink()
    (corpus / "b.txt").write_text("The nucleus attracts the electron.", encoding="utf-8")
    (corpus / "targets.txt").write_text("a.txt\n", encoding="utf-8")
    (corpus / "sections.txt").symlink_to(corpus / "gone.txt")  # compared whole documents, without a word
    with pytest.raises(CorpusError, match="sections.txt: no such list file"):
        load_analogy(corpus)
    (corpus / "sections.txt").unlink()
    (corpus / "targets.txt").unlink()
    (corpus / "targets.txt").mkdir()
    with pytest.raises(CorpusError, match="targets.txt: not a file: name the target documents"):
        load_analogy(corpus)


def test_a_listed_answer_that_is_no_file_is_called_what_it_is(tmp_path: Path):
    # A folder, a FIFO and a loop of links were each "listed … but missing".
    import os

    (tmp_path / "orig_taska.txt").write_text("The sun attracts the planet.", encoding="utf-8")
    (tmp_path / "ok.txt").write_text("The moon attracts the sea.", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")
    (tmp_path / "file_information.csv").write_text(
        "File,Task,Category\nsub,a,non\npipe.txt,a,cut\nloop.txt,a,light\ngone.txt,a,heavy\n"
        "ok.txt,a,cut\norig_taska.txt,a,orig\n",
        encoding="utf-8",
    )
    corpus = load_plagiarism(tmp_path)
    assert [p.split(" of file_information.csv but ")[1] for p in corpus.problems] == [
        "a folder",
        "a FIFO (named pipe)",
        "a loop of symbolic links",
        "missing",
    ]
    assert len(corpus.pairs) == 1


def _unread_corpus(tmp_path: Path) -> tuple[Path, Path]:
    """A translation corpus of one good pair beside ``.txt`` names that are no
    texts: a link to nothing, a FIFO, a loop of links, a link out of the
    folder, a folder; and the file outside it."""
    root = tmp_path / "t"
    orig, spa = root / "originals", root / "roundtrip" / "spa"
    spa.mkdir(parents=True)
    orig.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("The sun attracts the planets.\n", encoding="utf-8")
    for folder in (orig, spa):
        (folder / "a.txt").write_text("A text.", encoding="utf-8")
        (folder / "dang.txt").symlink_to(tmp_path / "nope")
        os.mkfifo(folder / "fifo.txt")
        (folder / "out.txt").symlink_to(outside)
        (folder / "dir.txt").mkdir()
    (orig / "loop.txt").symlink_to(orig / "loop.txt")
    (spa / "stray.txt").symlink_to(tmp_path / "nope")  # a round trip of no original
    return root, outside


def test_translation_files_that_are_no_texts_are_named_each_and_the_rest_paired(tmp_path):
    # A link to nothing, a FIFO or a loop of links in originals/ or roundtrip/<lang>/
    # was skipped without a word, and a link out of the folder was read as an original.
    root, outside = _unread_corpus(tmp_path)
    corpus = load_translation(root)
    assert [(p.name, p.language) for p in corpus.pairs] == [("a", "spa")]
    assert sorted(corpus.originals) == ["a"]
    orig, spa = root / "originals", root / "roundtrip" / "spa"
    refused = (
        f"refused, a symbolic link to {outside.resolve()}, outside the corpus folder "
        "(only dri run --allow-outside-links follows such links)"
    )
    assert corpus.unread == [
        f"{orig / 'dang.txt'}: a symbolic link to {tmp_path / 'nope'}, which is not there; left out",
        f"{orig / 'fifo.txt'}: a FIFO (named pipe), not a text file; left out",
        f"{orig / 'loop.txt'}: a loop of symbolic links, not a text file; left out",
        f"{orig / 'out.txt'}: {refused}",
        f"{spa / 'dang.txt'}: a symbolic link to {tmp_path / 'nope'}, which is not there; left out",
        f"{spa / 'fifo.txt'}: a FIFO (named pipe), not a text file; left out",
        f"{spa / 'out.txt'}: {refused}",
        f"{spa / 'stray.txt'}: a symbolic link to {tmp_path / 'nope'}, which is not there; left out",
    ]
    # A folder named *.txt is named as a folder once; an unread name is missing nowhere else.
    assert corpus.problems == [
        f"{orig / 'dir.txt'}: a folder inside originals/, where only texts are read; left out",
        f"{spa / 'dir.txt'}: a folder inside spa/, where only texts are read; left out",
    ]


def test_a_run_allowed_outside_links_pairs_a_link_out_as_before(tmp_path):
    # dri run --allow-outside-links maps such a link: its walk, not the layout, refuses it.
    root, _ = _unread_corpus(tmp_path)
    corpus = load_translation(root, allow_outside_links=True)
    assert [(p.name, p.language) for p in corpus.pairs] == [("a", "spa"), ("out", "spa")]
    assert not any("out.txt" in line for line in corpus.unread)


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda p, tmp: p.symlink_to(tmp / "nope"), "a symbolic link to nothing"),
        (lambda p, tmp: os.mkfifo(p), "a FIFO (named pipe)"),
        (lambda p, tmp: p.mkdir(), "a folder"),
    ],
)
def test_an_unlisted_original_found_by_its_name_but_no_file_is_named(tmp_path, make, what):
    # The index lists no original of task z, and orig_taskz.txt is no file: its
    # answers said "no original for task 'z'", the file there never named.
    root = _plagiarism_fixture(tmp_path / "c")
    make(root / "orig_taskz.txt", tmp_path)
    (root / "g4_taskz.txt").write_text("An answer to z.", encoding="utf-8")
    corpus = load_plagiarism(root)
    assert f"{root / 'orig_taskz.txt'}: original of task z is {what}" in corpus.problems
    assert f"{root / 'g4_taskz.txt'}: no original for task 'z' (line 7)" in corpus.problems
    assert len(corpus.pairs) == 3
