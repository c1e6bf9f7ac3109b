"""Reading text and PDF files into :class:`~extract.document.Document` objects.

Plain text is decoded as UTF-8 (a byte-order mark selects UTF-8, UTF-16 or UTF-32),
falling back to Windows-1252 with a warning: the Clough & Stevenson
plagiarism corpus (Clough and Stevenson 2011) mixes both. Hard-wrapped lines
are joined into paragraphs (a blank line ends a paragraph); a line break after
a hyphen keeps the hyphen, because editors wrap at spaces, so a hyphen there
is part of the word. Short one-line paragraphs that are numbered, Markdown
headings or known section names ("Abstract", "2 Related Work") open a
section; otherwise a text file's sentences have section ``None``. A
references section is dropped.

PDFs are recognised by the ``.pdf`` extension or the ``%PDF`` magic and read
by :mod:`extract.pdf`.

Bad input raises :class:`~extract.document.DocumentError` with a one-line
reason: missing or unreadable file, not a regular file (a folder, FIFO,
device or socket, or a link to one: :func:`dri.files.read_limited` reads at
most ``max_bytes + 1`` bytes of anything), empty file, too large (``max_bytes``),
binary data (NUL bytes, undecodable bytes or many control characters),
no text, and the PDF failures listed in :mod:`extract.pdf`.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

from dri.errors import json_reason
from dri.extract.document import Document, DocumentError, Sentence, content_ids
from dri.extract.pdf import TooMuchText, pdf_blocks
from dri.extract.sections import is_known_section, is_reference_section, looks_numbered, section_name
from dri.extract.sentences import split_sentences
from dri.files import FileRefused, NotText, read_limited
from dri.files import decode_text as decode_bytes_as_text
from dri.literal import lone_surrogate_problem
from dri.settings import max_text_chars

__all__ = [
    "DEFAULT_MAX_BYTES",
    "decode_text",
    "document_from_text",
    "language_warning",
    "read_document",
    "refuse_too_long",
    "text_blocks",
]

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 20_000_000

# Line ends other than "\n": each is a line end, a paragraph separator a paragraph break.
_LINE_ENDS = (("\r\n", "\n"), ("\r", "\n"), ("\x85", "\n"), ("\u2028", "\n"), ("\u2029", "\n\n"))
# Invisible format characters: a soft hyphen, a joiner or a direction mark
# inside a word makes it a word no dictionary has, so they are dropped. A
# zero-width space marks where a word may break, and a byte order mark inside
# a text is where two files were joined, so both stand for a space (one
# glued to a full stop hid the sentence that follows).
_INVISIBLE = {
    **dict.fromkeys(map(ord, "\u00ad\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064")),
    **dict.fromkeys(range(0x202A, 0x202F)),
    **dict.fromkeys(range(0x2066, 0x206A)),
    0x200B: " ",
    0xFEFF: " ",
}
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n|\f")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+\S")
_HEADING_MAX_WORDS = 10
_HEADING_MAX_CHARS = 80

Block = tuple[str | None, str]  # (section, paragraph text)


def decode_text(data: bytes, path: str = "<text>") -> tuple[str, str, list[str]]:
    """``(text, encoding, warnings)`` for the bytes of a text file (:func:`dri.files.decode_text`).

    Raises :class:`DocumentError` for bytes that are not text.
    """
    try:
        text, encoding = decode_bytes_as_text(data)
    except NotText as err:
        raise DocumentError(path, str(err)) from None
    warnings: list[str] = []
    if encoding == "cp1252":
        message = "not valid UTF-8; read as Windows-1252"
        log.warning("%s: %s", path, message)
        warnings.append(message)
    return text, encoding, warnings


def _is_text_heading(paragraph: str) -> bool:
    if "\n" in paragraph or len(paragraph) > _HEADING_MAX_CHARS:
        return False
    line = paragraph.strip()
    if _MARKDOWN_HEADING.match(line):
        return True
    if len(line.split()) > _HEADING_MAX_WORDS or (line[-1] in ".?!,;" and not is_known_section(line)):
        return False
    return is_known_section(line) or looks_numbered(line)


def _join_lines(paragraph: str) -> str:
    out = ""
    for line in paragraph.split("\n"):
        line = line.strip()
        if not line:
            continue
        out = f"{out}{line}" if out.endswith("-") or not out else f"{out} {line}"
    return out


def text_blocks(text: str) -> list[Block]:
    """``(section, paragraph)`` pairs of plain text, references dropped.

    A text whose every paragraph looks like a heading ("10 Things to Know for
    Wednesday", a headline on its own) is its headings: they are what it says.
    """
    for end, newline in _LINE_ENDS:
        text = text.replace(end, newline)
    text = text.translate(_INVISIBLE)
    blocks: list[Block] = []
    headings: list[str] = []
    only_headings = True
    section: str | None = None
    for paragraph in _PARAGRAPH_BREAK.split(text):
        if not paragraph.strip():
            continue
        if _is_text_heading(paragraph):
            section = section_name(paragraph) or section
            headings.append(paragraph.strip().lstrip("#").strip())
            continue
        only_headings = False
        if not is_reference_section(section):
            blocks.append((section, _join_lines(paragraph)))
    if only_headings:
        return [(None, heading) for heading in headings if heading]
    return blocks


def _sentences(blocks: list[Block]) -> list[Sentence]:
    sentences: list[Sentence] = []
    for section, paragraph in blocks:
        for text in split_sentences(paragraph):
            sentences.append(Sentence(len(sentences), text, section))
    return sentences


# The language check reads this much of a document: enough words to tell, cheap on any size.
_LANGUAGE_SAMPLE_CHARS = 20_000
_LANGUAGE_MIN_WORDS = 20
#: Below this share of common English words (:data:`_ENGLISH_WORDS`) a text is
#: not English: English prose, scientific included, has 30-50 % (the lowest of
#: the Clough & Stevenson corpus, the demo corpora and the validity sets is
#: 31 %), German, Spanish and French under 4 %.
MIN_ENGLISH_SHARE = 0.12
# The commonest English function words; most are not words of other languages
# written in Latin letters ("in", "an", "so", "die" are left out).
_ENGLISH_WORDS = frozenset(
    [
        "the",
        "of",
        "and",
        "to",
        "a",
        "is",
        "that",
        "for",
        "it",
        "as",
        "was",
        "with",
        "be",
        "by",
        "on",
        "not",
        "he",
        "i",
        "this",
        "are",
        "or",
        "his",
        "from",
        "at",
        "which",
        "but",
        "have",
        "they",
        "you",
        "had",
        "she",
        "were",
        "their",
        "been",
        "has",
        "one",
        "its",
        "there",
        "would",
        "we",
        "more",
        "them",
        "her",
        "if",
        "can",
        "will",
        "all",
        "when",
        "who",
        "what",
        "also",
        "than",
        "into",
        "these",
        "those",
        "then",
        "other",
        "only",
        "its",
        "could",
        "because",
        "our",
        "such",
        "should",
        "through",
        "between",
        "each",
        "about",
        "after",
        "before",
        "while",
        "where",
        "how",
        "both",
        "any",
        "some",
        "may",
        "must",
        "our",
        "your",
        "were",
        "does",
        "did",
        "being",
        "over",
        "under",
        "most",
        "very",
    ]
)
_WORD = re.compile(r"[^\W\d_]+")


def language_warning(sentences: list[Sentence]) -> str | None:
    """A one-line warning if the sentences do not look like English, else ``None``.

    The rules and the spaCy model read English only; other languages give
    graphs of misparsed words. Two cheap tests on the first 20,000 characters:
    most letters must be Latin (A-Z), and common English words must make up
    at least :data:`MIN_ENGLISH_SHARE` of the words.
    """
    sample, size = [], 0
    for sentence in sentences:
        sample.append(sentence.text)
        size += len(sentence.text)
        if size >= _LANGUAGE_SAMPLE_CHARS:
            break
    text = " ".join(sample)[:_LANGUAGE_SAMPLE_CHARS]
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) >= 2 * _LANGUAGE_MIN_WORDS:
        latin = sum(1 for ch in letters if "a" <= ch.lower() <= "z") / len(letters)
        if latin < 0.5:
            return f"does not look like English ({latin:.0%} of its letters are A-Z); the extractor reads English only"
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) >= _LANGUAGE_MIN_WORDS:
        common = sum(w in _ENGLISH_WORDS for w in words) / len(words)
        if common < MIN_ENGLISH_SHARE:
            return (
                f"does not look like English (only {common:.0%} of its words are common English words); "
                "the extractor reads English only"
            )
    return None


def document_from_text(text: str, name: str = "text") -> Document:
    """A :class:`Document` for text held in memory (its path is ``name``).

    Raises :class:`TypeError` for ``text`` that is not a ``str`` and
    :class:`DocumentError` for one holding a lone surrogate, which spaCy
    cannot take (a UnicodeEncodeError from its string store, mid-parse).
    """
    if not isinstance(text, str):
        raise TypeError(f"{name}: the text must be a str, not {type(text).__name__}")
    problem = lone_surrogate_problem(text)
    if problem is not None:
        raise DocumentError(name, problem)
    source = text.encode("utf-8", errors="surrogatepass")
    doc_id, graph_id = content_ids(source)
    return Document(
        path=name,
        name=name,
        kind="text",
        doc_id=doc_id,
        graph_id=graph_id,
        title=None,
        sentences=_sentences(text_blocks(text)),
        encoding="utf-8",
        warnings=[],
    )


def _graph_json_problem(data: bytes) -> str | None:
    """Whether a file holds a ROS graph as JSON (``dri graph --format json``,
    networkx's node-link form), whatever its name ends in, as GraphML is known
    by its content: ``""`` for a graph, why it cannot be read for one that is
    damaged (cut short, in UTF-16, a number or nesting JSON cannot read), None
    for anything else. Read as prose, its labels made a graph of their own,
    warned of only as "not English". Only text that opens as a graph's JSON
    does (``{"schema_version":``, ``{"directed":``, ...) is parsed: prose that
    opens with a brace is prose."""
    encoding = json.detect_encoding(data)  # UTF-8, or UTF-16 or UTF-32 by their marks or NULs
    # The opening first, from the head alone: every text document passes here.
    if not _GRAPH_JSON_OPENING.match(data[:_OPENING_BYTES].decode(encoding, "ignore")):
        return None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return None
    if not encoding.startswith("utf-8"):
        # json reads it; dri compare's graph reader takes UTF-8 only.
        return f"in UTF-{encoding.split('-')[1]}; dri writes it in UTF-8"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        return f"not JSON ({json_reason(err)})"
    except RecursionError:
        return "nested too deeply to read"
    except ValueError:  # an integer of more digits than Python converts
        return "a number too long to read (over 4,300 digits)"
    graph = isinstance(value, dict) and "nodes" in value and ("links" in value or "edges" in value)
    return "" if graph else None


#: Bytes of a file's head in which a graph's JSON shows how it opens.
_OPENING_BYTES = 4096
#: How the JSON of a graph opens: dri's (``schema_version`` first) or networkx's
#: node-link form (``directed``, ``multigraph``, ``graph``, ``nodes``, in any order).
_GRAPH_JSON_OPENING = re.compile(r'\A\s*\{\s*"(schema_version|directed|multigraph|graph|nodes)"\s*:')


def _is_graphml(data: bytes) -> bool:
    """A GraphML file (``dri graph --format graphml`` writes one): XML whose root is
    ``<graphml``. Read as prose, its tags and keys made a graph of their own
    (``key="d12">[0`` a concept) and dri compare mapped it with exit 0."""
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<?xml") and b"<graphml" in head


def _is_pdf(path: Path, head: bytes) -> bool:
    return path.suffix.lower() == ".pdf" or head.lstrip()[:5] == b"%PDF-"


def _words(chars: int) -> str:
    """About how many words of English ``chars`` characters are (6.6 a word, the space
    included), to two significant figures: 2,000,000 gives "300,000 words"."""
    words = max(1, round(chars / 6.6))
    return "1 word" if words == 1 else f"{round(words, 2 - len(str(words))):,} words"


def _check_length(where: str, chars: int, limit: int) -> None:
    if chars > limit:
        raise DocumentError(where, _too_long(f"{chars:,} characters of text", limit))


def refuse_too_long(where: str, text: str) -> None:
    """The :class:`DocumentError` :func:`read_document` gives a text over
    :func:`dri.settings.max_text_chars`, for a reader of plain text beside it
    (an evaluation's baselines, which ran the encoder over a text that was
    never parsed)."""
    try:
        limit = max_text_chars()
    except ValueError as err:
        raise DocumentError(where, str(err)) from None
    _check_length(where, len(text), limit)


def _too_long(text: str, limit: int) -> str:
    return f"too long: {text}, the limit is {limit:,} (about {_words(limit)}; DRI_MAX_TEXT_CHARS sets it)"


def _refuse_graphs(where: str, path: Path, data: bytes) -> None:
    """A :class:`DocumentError` for a graph file given as a document."""
    problem = _graph_json_problem(data)
    if problem:
        raise DocumentError(where, f"a damaged graph JSON ({problem}), not a text or PDF")
    if problem == "":
        named = "" if path.suffix.lower() == ".json" else " named .json"
        raise DocumentError(
            where,
            f"a ROS graph (graph JSON), not a text or PDF: dri compare reads it as a graph{named}, "
            "dri.graphs.load_json loads it",
        )
    if _is_graphml(data):
        raise DocumentError(
            where,
            "a graph (GraphML), not a text or PDF: dri compare reads graphs as graph JSON "
            "(dri graph --format json), dri.graphs.export.read_graphml loads it",
        )


def _read_blocks(
    where: str, path: Path, data: bytes, limit: int
) -> tuple[str, str | None, list[tuple[str | None, str]], str | None, list[str], int]:
    """``(kind, title, blocks, encoding, warnings, characters)`` of a PDF's or a text's
    bytes, within ``limit`` characters of text."""
    if _is_pdf(path, data[:1024]):
        try:
            title, blocks, warnings = pdf_blocks(data, where, limit)
        except TooMuchText as err:
            raise DocumentError(where, _too_long(f"{err}, where its reading stopped", limit)) from None
        chars = sum(len(b[1]) for b in blocks)
        _check_length(where, chars, limit)
        return "pdf", title, blocks, None, warnings, chars
    text, encoding, warnings = decode_text(data, where)
    _check_length(where, len(text), limit)
    return "text", None, text_blocks(text), encoding, warnings, len(text)


def read_document(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_chars: int | None = None,
    inside: str | os.PathLike[str] | None = None,
) -> Document:
    """Read a text or PDF file into sentences with their sections.

    Raises :class:`DocumentError` (one line: ``<path>: <reason>``) for input
    that cannot be read: among others a file over ``max_bytes`` (20 MB; PDFs
    with figures are big) or with more than ``max_chars`` characters of text
    (default :func:`dri.settings.max_text_chars`, 2,000,000: a long book;
    a paper is 30,000-100,000). With ``inside`` (a resolved folder), a file
    that is not in it as opened is refused (:func:`dri.files.read_limited`).
    """
    p = Path(path)
    where = str(path)
    try:
        data = read_limited(p, max_bytes, inside=inside)
    except FileRefused as err:
        raise DocumentError(where, err.reason) from None
    if not data:
        raise DocumentError(where, "empty file")
    _refuse_graphs(where, p, data)
    doc_id, graph_id = content_ids(data)
    try:
        limit = max_text_chars() if max_chars is None else max_chars
    except ValueError as err:
        raise DocumentError(where, str(err)) from None
    kind, title, blocks, encoding, warnings, chars = _read_blocks(where, p, data, limit)
    sentences = _sentences(blocks)
    if not sentences:
        raise DocumentError(
            where, "no text" if kind == "text" else "no text outside dropped parts (headers, references)"
        )
    not_english = language_warning(sentences)
    if not_english:
        # A batch's repeats of this warning become one line on the console (dri.quiet_logs).
        log.warning(
            "%s: %s",
            where,
            not_english,
            extra={"warning_kind": "texts do not look like English", "warning_item": p.name},
        )
        warnings.append(not_english)
    return Document(
        path=where,
        name=p.name,
        kind=kind,
        doc_id=doc_id,
        graph_id=graph_id,
        title=title,
        sentences=sentences,
        encoding=encoding,
        warnings=warnings,
        chars=chars,
    )
