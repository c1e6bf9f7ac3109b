"""The reader on text files: encodings, paragraphs, headings and bad input."""

import hashlib
import logging

import pytest

from dri.extract import EXTRACTOR_VERSION, DocumentError, document_from_text, read_document
from dri.settings import clough_stevenson_dir

CORPUS = clough_stevenson_dir()


def test_utf8_text_with_wrapped_lines_and_paragraphs(tmp_path):
    path = tmp_path / "a.txt"
    source = "Analogy is “useful”.\nIt maps one domain\nonto another.\n\nA new paragraph starts here. Object-\noriented code."
    path.write_text(source, encoding="utf-8")
    doc = read_document(path)
    assert doc.kind == "text" and doc.encoding == "utf-8" and doc.warnings == []
    assert doc.name == "a.txt" and doc.path == str(path) and doc.title is None
    assert [s.text for s in doc.sentences] == [
        "Analogy is “useful”.",
        "It maps one domain onto another.",
        "A new paragraph starts here.",
        "Object-oriented code.",
    ]
    assert [s.id for s in doc.sentences] == [0, 1, 2, 3]
    assert {s.section for s in doc.sentences} == {None}


@pytest.mark.parametrize(
    "line_end, paragraph_break",
    [("\x85", "\x85\x85"), ("\u2028", "\u2029"), ("\r\n", "\r\n\r\n")],
    ids=["NEL", "LS-PS", "CRLF"],
)
def test_other_line_ends_read_as_line_ends(tmp_path, line_end, paragraph_break):
    # A text converted from EBCDIC ends its lines with NEL (U+0085), a C1 control:
    # it was refused as "binary data, not text (4% control characters)".
    path = tmp_path / "a.txt"
    lines = ["It maps one domain", "onto another.", "A new paragraph starts here."]
    path.write_text(lines[0] + line_end + lines[1] + paragraph_break + lines[2], encoding="utf-8")
    doc = read_document(path)
    assert [s.text for s in doc.sentences] == [
        "It maps one domain onto another.",
        "A new paragraph starts here.",
    ]


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("The dog barked.\ufeffThe cat ran.", ["The dog barked.", "The cat ran."]),
        ("The dog barked.\n\ufeffThe cat ran.", ["The dog barked.", "The cat ran."]),
        ("The d\u00adog chased the c\u200dat\u200e.", ["The dog chased the cat."]),
        ("The dog\u200bchased the \u2066cat\u2069.", ["The dog chased the cat."]),
    ],
    ids=["BOM-joined", "BOM-line", "soft-hyphen-joiner-mark", "zero-width-space-isolate"],
)
def test_invisible_format_characters_neither_join_sentences_nor_split_words(text, sentences):
    from dri.extract import graph_from_text
    from dri.graphs import triples

    assert [s.text for s in document_from_text(text).sentences] == sentences
    if len(sentences) == 1:
        assert triples(graph_from_text(text)) == [("dog", "chase", "cat")]


def test_ids_hash_the_source_bytes_and_the_extractor_version(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"The sun attracts the planets.")
    doc = read_document(path)
    assert doc.doc_id == hashlib.sha256(b"The sun attracts the planets.").hexdigest()[:32]
    expected = hashlib.sha256(b"The sun attracts the planets." + EXTRACTOR_VERSION.encode()).hexdigest()[:32]
    assert doc.graph_id == expected
    assert len(doc.doc_id) == len(doc.graph_id) == 32
    path.write_bytes(b"The sun attracts the planets!")
    assert read_document(path).doc_id != doc.doc_id


def test_cp1252_fallback_warns_and_decodes(tmp_path, caplog):
    path = tmp_path / "w.txt"
    path.write_bytes("It is “quoted” — and costs €5.".encode("cp1252"))
    with caplog.at_level(logging.WARNING, logger="extract"):
        doc = read_document(path)
    assert doc.encoding == "cp1252"
    assert doc.sentences[0].text == "It is “quoted” — and costs €5."
    assert doc.warnings == ["not valid UTF-8; read as Windows-1252"]
    assert any(str(path) in r.getMessage() for r in caplog.records)


def test_real_corpus_files_in_both_encodings():
    cp1252 = read_document(CORPUS / "g1pB_taska.txt")
    assert cp1252.encoding == "cp1252" and cp1252.warnings
    # The file's smart quotes are Windows-1252 bytes 0x93/0x94 and must decode as such.
    raw = (CORPUS / "g1pB_taska.txt").read_bytes()
    assert b"\x93" in raw or b"\x94" in raw or b"\x92" in raw or b"\x97" in raw
    text = " ".join(s.text for s in cp1252.sentences)
    assert any(ch in text for ch in "“”’—") and "\ufffd" not in text

    utf8 = read_document(CORPUS / "g0pA_taska.txt")
    assert utf8.encoding == "utf-8" and utf8.warnings == []
    assert utf8.sentences[0].text.startswith("Inheritance is a basic concept of Object-Oriented Programming")


def test_whole_corpus_reads_and_cp1252_files_are_flagged():
    paths = sorted(CORPUS.glob("*.txt"))
    assert len(paths) == 100
    docs = [read_document(p) for p in paths]
    assert all(d.sentences for d in docs)
    for path, doc in zip(paths, docs):
        try:
            path.read_bytes().decode("utf-8")
            assert doc.encoding == "utf-8"
        except UnicodeDecodeError:
            assert doc.encoding == "cp1252" and doc.warnings


def test_utf8_and_utf16_byte_order_marks(tmp_path):
    (tmp_path / "bom8.txt").write_bytes("\ufeffPlain text here.".encode("utf-8"))
    (tmp_path / "bom16.txt").write_bytes("Wide text here.".encode("utf-16"))
    assert read_document(tmp_path / "bom8.txt").sentences[0].text == "Plain text here."
    assert read_document(tmp_path / "bom16.txt").sentences[0].text == "Wide text here."
    # UTF-32's mark begins with UTF-16's: it was read as UTF-16, "binary data (50% control characters)".
    (tmp_path / "bom32.txt").write_bytes("Wider text here.".encode("utf-32"))
    assert read_document(tmp_path / "bom32.txt").sentences[0].text == "Wider text here."


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_without_a_byte_order_mark_are_named_not_binary(tmp_path, encoding):
    path = tmp_path / "wide.txt"
    path.write_bytes("The sun attracts the planets.\n".encode(encoding) * 3)
    name, order = encoding[:6].upper(), "little-endian" if encoding.endswith("le") else "big-endian"
    assert _error(path).reason == f"{name} text ({order}) without a byte-order mark: save it as UTF-8"


def test_text_headings_open_sections_and_references_are_dropped(tmp_path):
    path = tmp_path / "paper.txt"
    path.write_text(
        "Abstract\n\nWe study analogy.\n\n1 Introduction\n\nAnalogy maps domains.\n\n"
        "# Background\n\nGentner proposed a theory.\n\nReferences\n\n[1] Gentner, D. Structure mapping. 1983.\n",
        encoding="utf-8",
    )
    doc = read_document(path)
    assert [(s.section, s.text) for s in doc.sentences] == [
        ("abstract", "We study analogy."),
        ("introduction", "Analogy maps domains."),
        ("background", "Gentner proposed a theory."),
    ]


def test_a_text_of_headings_alone_is_its_headings(tmp_path):
    # A headline on its own (an STS-B sentence, a title) looks like a numbered heading.
    path = tmp_path / "headline.txt"
    path.write_text("10 Things to Know for Wednesday\n", encoding="utf-8")
    assert [(s.section, s.text) for s in read_document(path).sentences] == [
        (None, "10 Things to Know for Wednesday")
    ]
    assert [s.text for s in document_from_text("1 Killed in Bangladesh Protest").sentences] == [
        "1 Killed in Bangladesh Protest"
    ]
    assert [s.text for s in document_from_text("# A title\n\nIntroduction").sentences] == [
        "A title",
        "Introduction",
    ]
    # A heading over text is still a heading, and references alone are still no text.
    assert [s.text for s in document_from_text("# A title\n\nThe sun shines.").sentences] == [
        "The sun shines."
    ]
    (tmp_path / "refs.txt").write_text(
        "References\n\n[1] Gentner, D. Structure mapping. 1983.\n", encoding="utf-8"
    )
    assert _error(tmp_path / "refs.txt").reason == "no text"


def test_document_from_text():
    doc = document_from_text("First one. Second one.", name="mem")
    assert (doc.name, doc.path, doc.kind) == ("mem", "mem", "text")
    assert [s.text for s in doc.sentences] == ["First one.", "Second one."]
    assert doc.doc_id == hashlib.sha256(b"First one. Second one.").hexdigest()[:32]
    assert document_from_text("").sentences == []


def _error(path, **kwargs) -> DocumentError:
    with pytest.raises(DocumentError) as info:
        read_document(path, **kwargs)
    err = info.value
    assert str(err) == f"{path}: {err.reason}"
    assert "\n" not in str(err)
    assert err.path == str(path)
    return err


def test_empty_file(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    assert _error(tmp_path / "empty.txt").reason == "empty file"


def test_whitespace_only_file(tmp_path):
    (tmp_path / "blank.txt").write_bytes(b"  \n\n\t \n")
    assert _error(tmp_path / "blank.txt").reason == "no text"


def test_binary_junk(tmp_path):
    junk = bytes(range(256)) * 8
    (tmp_path / "junk.bin").write_bytes(junk)
    assert "binary data" in _error(tmp_path / "junk.bin").reason
    # Without NUL bytes, control characters give it away.
    (tmp_path / "junk2.dat").write_bytes(
        bytes(b for b in range(1, 256) if b not in b"\x81\x8d\x8f\x90\x9d") * 4
    )
    assert "binary data" in _error(tmp_path / "junk2.dat").reason
    # Bytes that are neither UTF-8 nor Windows-1252.
    (tmp_path / "junk3.txt").write_bytes(b"abc \x81\x8d def")
    assert "neither UTF-8 nor Windows-1252" in _error(tmp_path / "junk3.txt").reason
    # Text in another encoding was called binary data.
    (tmp_path / "sjis.txt").write_bytes("太陽は惑星を引き付ける。The sun attracts.".encode("shift_jis"))
    assert _error(tmp_path / "sjis.txt").reason == (
        "neither UTF-8 nor Windows-1252 text (another encoding, or binary data): save it as UTF-8"
    )


def test_too_large(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("The sun attracts the planets. " * 100, encoding="utf-8")
    reason = _error(path, max_bytes=1000).reason
    assert reason.startswith("too large") and "1000" in reason
    assert read_document(path, max_bytes=10_000).sentences


def test_missing_file_and_directory(tmp_path):
    assert "no such file" in _error(tmp_path / "nope.txt").reason
    assert "is a folder" in _error(tmp_path).reason
