"""PDF reading with pdfminer.six: text in reading order, by section.

Dr Inventor sent PDFs to the PDFX web service, which found title, abstract,
sections and bibliography (Hurley et al., EGPAI 2016, section 4). This module
does the same from the page layout that pdfminer.six computes:

* **Reading order** is pdfminer's text-box order (``LAParams``' ``boxes_flow``
  handles single and double columns). A paragraph that runs on into the next
  box (a new column or page) is joined when it has no final punctuation and
  the next box starts in lower case.
* **Page numbers and running headers** are lines in the top or bottom margin
  that are only a page number ("3", "Page 3 of 9", "- 3 -"), or whose text,
  with digits ignored, recurs in the margin of another page.
* **Title**: the largest-font line(s) on the first page, if larger than the
  body text.
* **Section headings**: short lines in a larger or bold font (against the
  body text's most common size and weight), or short lines that are a known
  section name ("Abstract", "3 Results"). An inline "Abstract -- We ..." opens
  the abstract too. The references section is dropped up to the next heading
  set in a heading font.
* **Text drawn as a form** (an XObject: a page wrapped whole by ``pdfpages``
  or a PDF printer, pages printed several to a sheet) is read as the page's
  text when the form covers most of its page or holds a few hundred
  characters; a smaller form is a figure, whose labels stay out of the text.
* **De-hyphenation**: a line ending in a hyphen after a letter, followed by
  a line starting in lower case, is joined without the hyphen ("extrac-" +
  "tion"); soft hyphens are removed and ligatures are unfolded (NFKC).

Failures raise :class:`~extract.document.DocumentError`: encrypted (a
password is needed), corrupt (pdfminer cannot parse it, or no pages), and no
text layer (pages but no characters, e.g. a scan).
"""

from __future__ import annotations

import contextlib
import logging
import re
import statistics
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from dri.extract.document import DocumentError
from dri.extract.sections import is_known_section, is_reference_section, section_name

__all__ = ["PdfLine", "TooMuchText", "pdf_blocks", "pdf_lines"]

#: How many times the text limit a PDF's lines may hold before its reading stops:
#: the lines still hold the running headers and the references that the text drops.
_LINES_OVER_LIMIT = 2


#: The share of its page a form XObject covers when it is the page drawn as a form.
_PAGE_FORM_SHARE = 0.6
#: The characters a smaller form holds when it is text, not a figure's labels.
_FORM_TEXT_CHARS = 300


class TooMuchText(Exception):
    """A PDF's lines passed :data:`_LINES_OVER_LIMIT` times the text limit: ``chars``
    characters by page ``page``, where its reading stopped."""

    def __init__(self, chars: int, page: int) -> None:
        super().__init__(f"over {chars:,} characters of text by page {page}")
        self.chars, self.page = chars, page


log = logging.getLogger(__name__)

# Margins, as a share of the page height, where running headers and page numbers live.
_MARGIN = 0.1
_HEADING_MAX_WORDS = 12
_HEADING_MAX_CHARS = 100
# A heading font is this much larger than the body text.
_LARGER = 1.08
_BOLD_SHARE = 0.6
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[-–—\s]*(?:\d+|[ivxlc]+)[-–—\s]*(?:(?:of|/)\s*\d+)?$", re.I)
_INLINE_ABSTRACT = re.compile(r"^abstract\s*[.:—–-]+\s*(?=\S)", re.I)
_DIGITS = re.compile(r"\d+")
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|[,-]b$|bd$", re.I)

Block = tuple[str | None, str]


@dataclass
class PdfLine:
    """One text line of a page, with the layout facts the rules need."""

    text: str
    page: int
    box: int
    x0: float
    y0: float
    y1: float
    page_height: float
    size: float
    bold: float  # share of characters in a bold font

    @property
    def in_margin(self) -> bool:
        return self.y0 > self.page_height * (1 - _MARGIN) or self.y1 < self.page_height * _MARGIN


def _line_facts(line: Any, page: int, box: int, height: float) -> PdfLine | None:
    # pdfminer only for PDFs: reading text files never loads it.
    from pdfminer.layout import LTChar

    chars = [c for c in line if isinstance(c, LTChar) and not c.get_text().isspace()]
    text = line.get_text().strip()
    if not chars or not text:
        return None
    sizes = [round(c.size * 2) / 2 for c in chars]
    bold = sum(1 for c in chars if _BOLD_FONT.search(c.fontname or "")) / len(chars)
    return PdfLine(text, page, box, line.x0, line.y0, line.y1, height, statistics.median(sizes), bold)


def pdf_lines(data: bytes, path: str, max_chars: int | None = None) -> list[PdfLine]:
    """Every text line of the PDF in reading order; raises :class:`DocumentError`,
    or :class:`TooMuchText` as soon as the lines hold more than twice ``max_chars``
    characters (a PDF of thousands of pages spent minutes in pdfminer's layout,
    and was then refused as too long)."""
    # pdfminer only for PDFs: reading text files never loads it.
    from pdfminer.layout import LAParams, LTChar, LTTextBox, LTTextLine
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    from dri.extract.pdf_layout import (
        DecodedTooLarge,
        DrawingTooLarge,
        PageTooLarge,
        TokenTooLarge,
        layout_pages,
    )

    lines: list[PdfLine] = []
    pages = 0
    any_chars = False
    box_no = 0
    chars = 0
    try:
        with _pdfminer_warnings(path):
            laparams = LAParams()
            for page_no, page in enumerate(layout_pages(data, laparams)):
                pages += 1
                for item in _page_items(page, page.width * page.height, laparams):
                    if isinstance(item, LTTextBox):
                        box_no += 1
                        facts = (
                            _line_facts(line, page_no, box_no, page.height)
                            for line in item
                            if isinstance(line, LTTextLine)
                        )
                        merged = _merge_baselines([f for f in facts if f is not None])
                        lines.extend(merged)
                        chars += sum(len(line.text) for line in merged)
                    elif not any_chars and hasattr(item, "__iter__"):
                        # Text inside figures is not body text, but it is a text layer.
                        any_chars = any(isinstance(c, LTChar) for c in _walk(item))
                if max_chars is not None and chars > _LINES_OVER_LIMIT * max_chars:
                    raise TooMuchText(chars, page_no + 1)
    except TooMuchText:
        raise
    except (PageTooLarge, DrawingTooLarge, TokenTooLarge, DecodedTooLarge) as err:
        raise DocumentError(path, f"not a PDF of text pages: {err}") from None
    except PDFPasswordIncorrect:
        raise DocumentError(path, "encrypted PDF (a password is needed to read it)") from None
    except PDFEncryptionError as err:
        raise DocumentError(path, f"encrypted PDF ({err or 'unsupported encryption'})") from None
    except Exception as err:  # pdfminer raises many unrelated types on damaged files
        raise DocumentError(path, f"corrupt PDF ({type(err).__name__}: {err})") from None
    if pages == 0:
        raise DocumentError(path, "a PDF without pages (empty, or damaged)")
    if not lines and not any_chars:
        raise DocumentError(path, f"PDF has no text layer ({pages} page(s) without text; scanned?)")
    return lines


class _PdfminerRecords(logging.Handler):
    """pdfminer's warnings, kept for the file the thread that raised them is reading
    (a thread pool reads several PDFs at once); a warning raised outside a read is
    passed on as this module's."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.reading = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        kept: list[str] | None = getattr(self.reading, "messages", None)
        if kept is not None:
            kept.append(record.getMessage())
        else:
            log.warning("pdfminer: %s", record.getMessage())


_RECORDS = _PdfminerRecords()


@contextlib.contextmanager
def _pdfminer_warnings(path: str) -> Iterator[None]:
    """pdfminer's warnings while this thread reads ``path``, logged as this module's,
    each once and naming the file ("MediaBox missing from /Page ..." said nothing of
    which file, on every page)."""
    pdfminer = logging.getLogger("pdfminer")
    if _RECORDS not in pdfminer.handlers:
        pdfminer.addHandler(_RECORDS)
        pdfminer.propagate = False
    messages: list[str] = []
    _RECORDS.reading.messages = messages
    try:
        yield
    finally:
        _RECORDS.reading.messages = None
        for message, count in Counter(messages).items():
            repeats = f" ({count} times)" if count > 1 else ""
            log.warning(
                "%s: pdfminer: %s%s",
                path,
                message,
                repeats,
                extra={"warning_kind": "PDFs with pdfminer warnings", "warning_item": path},
            )


def _merge_baselines(lines: list[PdfLine]) -> list[PdfLine]:
    """Rejoin pieces of one visual line, top to bottom.

    pdfminer splits a justified line where the word spacing is wide, and may
    list the pieces out of order.
    """
    groups: list[list[PdfLine]] = []
    for line in sorted(lines, key=lambda line: -line.y0):
        last = groups[-1][0] if groups else None
        if last is not None and abs(last.y0 - line.y0) < 0.5 * max(last.size, line.size, 1.0):
            groups[-1].append(line)
        else:
            groups.append([line])
    merged = []
    for group in groups:
        group.sort(key=lambda line: line.x0)
        first = group[0]
        if len(group) > 1:
            chars = sum(len(line.text) for line in group)
            first.bold = sum(line.bold * len(line.text) for line in group) / chars
            first.y1 = max(line.y1 for line in group)
            first.text = " ".join(line.text for line in group)
        merged.append(first)
    return merged


def _page_items(
    container: Iterable[Any], page_area: float, laparams: Any, counted: dict[int, int] | None = None
) -> Iterator[Any]:
    """The items of a page, with the items of a form XObject that holds the page's
    text in place of the form (pdfminer leaves a form's characters loose in an
    ``LTFigure``, so text drawn as a form was no text at all).

    A form holds the page's text when it covers :data:`_PAGE_FORM_SHARE` of the
    page (a page drawn whole as a form: ``pdfpages``, some PDF printers) or
    holds :data:`_FORM_TEXT_CHARS` characters (pages printed several to a
    sheet); a figure's labels are fewer, and stay out of the text. ``counted``
    keeps each form's characters, its forms' included, counted once (counted
    again at each level, forms 300 deep took minutes)."""
    from pdfminer.layout import LTFigure

    from dri.extract.pdf_layout import lay_out_form

    counted = {} if counted is None else counted
    for item in container:
        if isinstance(item, LTFigure):
            chars = _form_chars(item, counted)
            if chars and (
                item.width * item.height >= _PAGE_FORM_SHARE * page_area or chars >= _FORM_TEXT_CHARS
            ):
                lay_out_form(item, laparams)
                yield from _page_items(item, page_area, laparams, counted)
                continue
        yield item


def _form_chars(form: Any, counted: dict[int, int]) -> int:
    """The characters of ``form`` and of the forms it draws, each form counted once."""
    from pdfminer.layout import LTChar, LTFigure

    if id(form) not in counted:
        counted[id(form)] = sum(
            _form_chars(child, counted) if isinstance(child, LTFigure) else isinstance(child, LTChar)
            for child in form
        )
    return counted[id(form)]


def _walk(item: Iterable[Any]) -> Iterator[Any]:
    for child in item:
        yield child
        if hasattr(child, "__iter__") and not isinstance(child, str):
            yield from _walk(child)


def _margin_key(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _running_lines(lines: list[PdfLine]) -> set[int]:
    """Indexes of page numbers and running headers/footers."""
    drop = set()
    pages_with: dict[str, set[int]] = {}
    for i, line in enumerate(lines):
        if line.in_margin:
            if _PAGE_NUMBER.match(line.text):
                drop.add(i)
            else:
                pages_with.setdefault(_margin_key(line.text), set()).add(line.page)
    for i, line in enumerate(lines):
        if line.in_margin and len(pages_with.get(_margin_key(line.text), ())) >= 2:
            drop.add(i)
    return drop


def _body_style(lines: list[PdfLine]) -> tuple[float, bool]:
    """The most common font size (by characters) and whether body text is bold."""
    sizes: Counter[float] = Counter()
    bold = 0
    total = 0
    for line in lines:
        sizes[line.size] += len(line.text)
        bold += int(line.bold >= _BOLD_SHARE) * len(line.text)
        total += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    return body, bold > total / 2


def _short(text: str) -> bool:
    return len(text) <= _HEADING_MAX_CHARS and len(text.split()) <= _HEADING_MAX_WORDS


def _styled_heading(line: PdfLine, body: float, body_bold: bool) -> bool:
    """A heading by layout: short, in a larger or (against plain body text) bold font."""
    if not _short(line.text) or line.text.endswith((",", ";")) or not any(c.isalpha() for c in line.text):
        return False
    return line.size >= body * _LARGER or (not body_bold and line.bold >= _BOLD_SHARE)


def _join(paragraph: str, line: str) -> str:
    if not paragraph:
        return line
    if paragraph.endswith("-") and len(paragraph) > 1 and paragraph[-2].isalpha() and line[:1].islower():
        return paragraph[:-1] + line
    return f"{paragraph} {line}"


def _title(lines: list[PdfLine], body: float, skip: set[int]) -> tuple[str | None, set[int]]:
    # A title sits in the upper half of the first page.
    first_page = [
        i
        for i, line in enumerate(lines)
        if line.page == 0 and i not in skip and line.y0 > line.page_height / 2
    ]
    if not first_page:
        return None, set()
    largest = max(lines[i].size for i in first_page)
    if largest < body * _LARGER:
        return None, set()
    picked = []
    for i in first_page:
        if lines[i].size == largest:
            picked.append(i)
        elif picked:
            break
    text = " ".join(lines[i].text for i in picked)
    return (" ".join(text.split()) or None), set(picked)


def pdf_blocks(
    data: bytes, path: str, max_chars: int | None = None
) -> tuple[str | None, list[Block], list[str]]:
    """``(title, [(section, paragraph)], warnings)`` of a PDF's bytes; :class:`TooMuchText`
    as :func:`pdf_lines` raises it."""
    lines = pdf_lines(data, path, max_chars)
    skip = _running_lines(lines)
    body_lines = [line for i, line in enumerate(lines) if i not in skip]
    body, body_bold = _body_style(body_lines)
    title, title_lines = _title(lines, body, skip)
    skip |= title_lines

    blocks: list[Block] = []
    section: str | None = None
    paragraph = ""
    box = None

    def flush() -> None:
        nonlocal paragraph
        text = unicodedata.normalize("NFKC", paragraph.replace("\xad", "")).strip()
        if text and not is_reference_section(section):
            blocks.append((section, text))
        paragraph = ""

    for i, line in enumerate(lines):
        if i in skip:
            continue
        text = line.text
        styled = _styled_heading(line, body, body_bold)
        known = _short(text) and is_known_section(text)
        # Inside the references only a heading set in a heading font ends them:
        # reference entries can look like anything else.
        if styled or (known and not is_reference_section(section)):
            flush()
            section = section_name(text) or section
            box = line.box
            continue
        inline = _INLINE_ABSTRACT.match(text)
        if inline:
            flush()
            section = "abstract"
            text = text[inline.end() :]
        elif line.box != box:
            continues = paragraph and paragraph[-1] not in ".!?:" and text[:1].islower()
            if not continues:
                flush()
        box = line.box
        paragraph = _join(paragraph, text)
    flush()
    warnings = [] if blocks else ["no body text found in the PDF"]
    return title, blocks, warnings
