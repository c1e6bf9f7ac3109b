"""Reading corpus text files whatever their encoding.

The Clough & Stevenson plagiarism corpus mixes UTF-8 and Windows-1252 files
(its SOURCE.md says so), and hand-made corpora often do too. Every loader and
baseline in :mod:`corpora` reads text through :func:`read_text`, so that the
structure scores (which read through ``extract.read_document``) and the
baselines see the same characters.

Errors are :class:`CorpusError`, whose ``str()`` is one line naming the file
and the reason, so that a batch can print it and carry on.
"""

from __future__ import annotations

import codecs
import csv
import io
import logging
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from dri.errors import ProjectError
from dri.files import DOC_ID_DIGITS, FileRefused, NotText, decode_text, document_id, read_limited
from dri.literal import printable

__all__ = [
    "CONTROL_FILES",
    "DOCUMENT_SUFFIXES",
    "CorpusError",
    "csv_rows",
    "decode_bytes",
    "document_with_id",
    "file_lines",
    "first_of",
    "header_record",
    "header_rows",
    "is_document",
    "named_columns",
    "near_miss",
    "no_corpus_folder",
    "outside_link",
    "read_table_text",
    "read_text",
    "refuse_repeated_columns",
]

log = logging.getLogger(__name__)


def first_of(problems: Sequence[str]) -> str:
    """The first of ``problems`` in brackets, and how many more there are, for a
    message that nothing was usable: the first alone hid the one that mattered
    (an empty facet behind an empty query); ``""`` without problems."""
    if not problems:
        return ""
    more = f"; and {len(problems) - 1:,} more" if len(problems) > 1 else ""
    return f" ({problems[0]}{more})"


#: The largest CSV or JSON Lines index file read (a corpus index of a million rows is far below it).
MAX_TABLE_BYTES = 100_000_000
#: The largest text file read, as the extractor's (``dri.extract.reader.DEFAULT_MAX_BYTES``).
MAX_TEXT_BYTES = 20_000_000
#: What a corpus document may be: plain text or a PDF.
DOCUMENT_SUFFIXES = (".txt", ".text", ".pdf")
#: Text files in corpus folders that describe the corpus instead of being part of it.
CONTROL_FILES = frozenset(
    {"targets.txt", "sections.txt", "readme.txt", "manifest.csv", "file_information.csv"}
)

# Tried in order. cp1252 leaves five bytes undefined, so latin-1 (which maps
# every byte) is the last resort and never fails.
ENCODINGS = ("utf-8-sig", "cp1252", "latin-1")


class CorpusError(ProjectError):
    """A corpus file or folder that cannot be used; ``str()`` is one line."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = Path(path)
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{printable(self.path)}: {self.reason}")


def no_corpus_folder(root: Path) -> CorpusError:
    """The error for a corpus path that is not a folder, saying what it is."""
    if root.is_symlink() and not root.exists():
        return CorpusError(root, "a symbolic link to nothing (no such corpus folder)")
    if root.exists():
        return CorpusError(root, "a file, not a corpus folder (give the folder that holds the documents)")
    return CorpusError(root, "no such corpus folder")


def is_document(path: str | Path) -> bool:
    """Whether ``path`` names a corpus document (not a control file, not hidden)."""
    path = Path(path)
    return (
        path.suffix.lower() in DOCUMENT_SUFFIXES
        and path.name.lower() not in CONTROL_FILES
        and not path.name.startswith(".")
    )


def outside_link(path: Path, root: Path) -> str | None:
    """Why ``path``, a symbolic link, is refused as a document of the corpus
    folder ``root`` (resolved): it leads out of it; else ``None`` (not a link,
    a link inside the folder, a loop or a link to nothing, which reading it
    names: "no such file (a symbolic link to /nope)")."""
    if not path.is_symlink():
        return None
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # a loop: listed, and reading it says so
        return None
    # A link to nothing said "outside the corpus folder" of /nope; it leads nowhere.
    if target.is_relative_to(root) or not os.path.lexists(target):
        return None
    return (
        f"refused, a symbolic link to {target}, outside the corpus folder "
        "(only dri run --allow-outside-links follows such links)"
    )


def decode_bytes(data: bytes) -> tuple[str, str]:
    """``(text, encoding)``: UTF-8 if it decodes, else Windows-1252."""
    for encoding in ENCODINGS:
        try:
            return data.decode(encoding), encoding.replace("-sig", "")
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def read_text(path: str | Path, inside: str | os.PathLike[str] | None = None) -> str:
    """The text of ``path`` with line ends normalised to ``\\n``.

    Raises :class:`CorpusError` for a missing, unreadable, empty or oversized
    file (:data:`MAX_TEXT_BYTES`), for anything that is not a regular file,
    for bytes the extractor does not read as text either, and, with
    ``inside`` (a resolved folder), for a file that leads out of it.
    """
    path = Path(path)
    try:
        data = read_limited(path, MAX_TEXT_BYTES, inside=inside)
    except FileRefused as err:
        raise CorpusError(path, err.reason) from None
    try:
        # The extractor's verdict (dri.files.decode_text): a UTF-16 file it reads was
        # refused here, so a pair scored by its structure failed its baselines.
        text, _ = decode_text(data)
    except NotText as err:
        raise CorpusError(path, str(err)) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise CorpusError(path, "empty file")
    return text


def read_table_text(
    path: str | Path, what: str = "CSV file", inside: str | os.PathLike[str] | None = None
) -> str:
    """The text of a CSV or JSONL index file: UTF-8 (with or without a BOM),
    UTF-16 or UTF-32 with a BOM, else Windows-1252 with a warning.

    Raises :class:`CorpusError` (one line naming the file) for a missing,
    unreadable, oversized (:data:`MAX_TABLE_BYTES`) or binary file, for
    anything that is not a regular file (:func:`dri.files.read_limited`),
    and, with ``inside`` (a corpus's resolved folder, for the corpus's own
    files), for one that leads out of it: a ``manifest.csv`` linked to a
    file of secrets was read, and its first line quoted in the error.
    """
    path = Path(path)
    try:
        data = read_limited(path, MAX_TABLE_BYTES, what=what, inside=inside)
    except FileRefused as err:
        raise CorpusError(path, err.reason) from None
    # UTF-32 first: its little-endian mark begins with UTF-16's (FF FE).
    marked = next(
        (
            name
            for name, marks in (
                ("UTF-32", (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)),
                ("UTF-16", (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)),
            )
            if data.startswith(marks)
        ),
        None,
    )
    if marked:
        try:
            text = data.decode(marked.lower())
        except UnicodeDecodeError:
            raise CorpusError(path, f"{what} starts like {marked} but is not valid {marked}") from None
    elif b"\x00" in data:
        raise CorpusError(path, f"binary data (NUL bytes), not a {what}; save it as UTF-8 text")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                raise CorpusError(path, f"{what} is neither UTF-8 nor Windows-1252 text") from None
            log.warning("%s: not valid UTF-8; read as Windows-1252", path)
    if "\x00" in text:
        raise CorpusError(path, f"binary data (NUL characters), not a {what}")
    return text


def csv_rows(
    path: str | Path, what: str = "CSV file", inside: str | os.PathLike[str] | None = None
) -> Iterator[tuple[int, list[str]]]:
    """``(line, fields)`` of each record of a CSV file after its header, which
    comes first as line 1; errors of the csv module become one-line
    :class:`CorpusError` naming the file and line (``inside``: as
    :func:`read_table_text`).

    The reader is strict: a quote that opens a field and is not closed where
    the field ends (``"unterminated,text``) is an error at its line, where the
    lenient reader would run that field on to the next quote, lines later,
    and silently merge the rows between.
    """
    path = Path(path)
    # A cell may hold a whole text (a judgement's side): the csv module's default
    # limit, 131,072 characters, refused a valid file as "not valid CSV". The file
    # itself is bounded (MAX_TABLE_BYTES), so a field is too.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_TABLE_BYTES))
    reader = csv.reader(io.StringIO(read_table_text(path, what, inside), newline=""), strict=True)
    ended = 0  # the last line of the record before: an error is named by its record's first line
    try:
        for fields in reader:
            yield reader.line_num, fields
            ended = reader.line_num
    except csv.Error as err:
        raise CorpusError(
            path,
            f"line {ended + 1}: not valid CSV ({err}); a field holding commas, quotes or line "
            'breaks must be in double quotes, with its own quotes doubled ("")',
        ) from None


def document_with_id(paths: Iterable[str | Path], doc_id: str) -> Path | None:
    """The first of ``paths`` whose document id (:func:`dri.files.document_id`) is
    ``doc_id``, or ``None`` (also when ``doc_id`` is not shaped like one); a
    file that cannot be read is passed over (reading it says why)."""
    if not re.fullmatch(f"[0-9a-f]{{{DOC_ID_DIGITS}}}", doc_id):
        return None
    for path in paths:
        try:
            if document_id(read_limited(path, MAX_TEXT_BYTES)) == doc_id:
                return Path(path)
        except FileRefused:
            continue
    return None


_LINE_END = re.compile(r"\r\n|\r|\n")


def file_lines(text: str) -> list[str]:
    """``text`` split at its line ends alone (``\\n``, ``\\r\\n``, ``\\r``):
    ``str.splitlines`` also splits at U+2028, U+2029, U+0085 and the other
    Unicode breaks, which a JSON string may hold as they are (a valid JSON
    Lines item was two lines of broken JSON, and every later line's number
    was one off)."""
    lines = _LINE_END.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def named_columns(header: Sequence[str], names: Iterable[str]) -> list[str]:
    """``header``'s cells, stripped, each that is one of ``names`` in another
    case (``A,B,Score``, ``SOURCE``) given the spelling of ``names``: a file's
    columns are read by name in any case. A blank cell is ``column N`` (its
    place, from 1): columns without names were one column holding the last
    of their values."""
    spelled = {name.lower(): name for name in names}
    cells = [cell.strip() for cell in header]
    return [spelled.get(cell.lower(), cell) if cell else f"column {i}" for i, cell in enumerate(cells, 1)]


def refuse_repeated_columns(path: Path, header: Sequence[str]) -> None:
    """A :class:`CorpusError` naming ``path``'s line 1 if ``header`` names a
    column twice: which of the two holds the value would be a guess (a row
    of a dict keeps the last one, silently)."""
    repeated = [c for c in dict.fromkeys(header) if c and header.count(c) > 1]
    if repeated:
        raise CorpusError(
            path, f"line 1: the header names the column(s) {', '.join(repeated)} more than once"
        )


def header_record(records: Iterator[tuple[int, list[str]]]) -> tuple[int, list[str]] | None:
    """The header of :func:`csv_rows`: its first record with a field that is not
    blank, as ``(line, fields)``, or ``None`` for a file of blank lines only (an
    empty file in all but its bytes, which was refused as a header lacking every
    column). Blank lines before the header are passed over, as
    :func:`header_rows` passes over those between rows."""
    for line, fields in records:
        if any(f.strip() for f in fields):
            return line, fields
    return None


def header_rows(
    records: Iterable[tuple[int, list[str]]], header: Sequence[str], required: Sequence[str] = ()
) -> Iterator[tuple[int, dict[str, str] | None, str]]:
    """``(line, row, problem)`` for each non-blank record of :func:`csv_rows`.

    ``row`` maps the header's names to the record's fields, as they are
    (missing trailing fields are ``""``); trailing empty fields, as a trailing
    comma leaves, are dropped first. A record with more fields than the header,
    or too few to reach every column named in ``required``, gives ``row=None``
    and ``problem`` ``"line N: K fields, the header has M"``; otherwise
    ``problem`` is empty.
    """
    needed = max((header.index(name) + 1 for name in required if name in header), default=0)
    for line, fields in records:
        if not any(f.strip() for f in fields):
            continue
        while len(fields) > len(header) and not fields[-1].strip():
            fields.pop()
        if len(fields) > len(header) or len(fields) < needed:
            yield line, None, f"line {line}: {len(fields)} fields, the header has {len(header)}"
            continue
        yield line, {name: (fields[i] if i < len(fields) else "") for i, name in enumerate(header)}, ""


def near_miss(name: str, names: Iterable[str]) -> str:
    """A hint naming the document of ``names`` whose name differs from ``name`` only in its
    Unicode form or its case, as :func:`ascii` shows it; else ``""``. The two look
    the same on a screen ("café.txt", typed, against "cafe\\u0301.txt", copied
    from a Mac), so the refusal alone read as wrong."""

    def nfc(text: str) -> str:
        return unicodedata.normalize("NFC", text)

    names = list(names)
    for how, key in (("in its Unicode form", nfc), ("in case", lambda text: nfc(text).casefold())):
        found = sorted(d for d in names if d != name and key(d) == key(name))
        if found:
            return f"; the corpus has {found[0]!a}, a name that differs only {how}"
    return ""
