"""pdfminer.six's page layout, bounded for pages that are not prose.

pdfminer lays a page out in three steps: characters into lines, lines into
text boxes, and boxes into a reading order (``LAParams.boxes_flow``,
``LTLayoutContainer.group_textboxes``). The last step merges the closest
pair of boxes again and again over a heap of every pair, so its time and
memory grow faster than the square of the boxes: 965 boxes took 9 s and
250 MB, 4,265 took 225 s and 3.7 GB, 2,500 scattered words over 5 minutes,
where a page of a paper (20 to 60 boxes) takes a fraction of a second. Two
bounds keep any page within seconds:

* a page of more than :data:`FLOW_MAX_BOXES` text boxes (a table, an index,
  junk) is not merged pair by pair: its boxes are read top-left to
  bottom-right as one group, the order pdfminer gives within a group;
* a page of more than :data:`MAX_PAGE_CHARS` characters is no page of text
  this reader can lay out: :class:`PageTooLarge` stops the document as soon
  as the page's characters pass the bound, so memory stays bounded too (a
  25 KB PDF whose page holds 6 million characters took over 20 GB).

The page's drawing is bounded before its layout: lines and shapes are not
kept (a text reader has no use for them; a 26 KB page of a million
rectangles took 1.8 GB and 69 s), a page's content streams, with the forms
they draw, may hold :data:`MAX_PAGE_TOKENS` operators and operands (five
million empty ``q Q`` took 56 s), a document's pages
:data:`MAX_DOCUMENT_TOKENS`, and one token of them :data:`MAX_STRING_BYTES`
(pdfminer builds a token piece by piece, in time that grows with its
square: a string of 60 MB in a 59 KB file took 314 s, a hex string of 32 MB
76 s; an inline image's data, which pdfminer copied whole at each byte, is
bounded so too). Past any of these bounds, :class:`PageTooLarge` stops the
document too, and a token of the document's own objects past the same length
(a string of an object stream) :class:`TokenTooLarge`.

An object that is only a reference to another (``6 0 obj 7 0 R endobj``) is
followed by pdfminer in a loop without end (``pdftypes.resolve1``): two such
objects naming each other, as a stream's ``/Length``, spun forever. The
document here follows such chains itself and stops one that comes back to
an object it has passed (:class:`_AcyclicDocument`).

pdfminer inflates a ``FlateDecode`` stream whole (``zlib.decompress``), and
keeps what it decoded with the document: a 1 MB stream of a gigabyte of
spaces took 2.1 GB and 10 s, and a 20 MB file could ask for 20 GB (more with
the filter twice). ``LZWDecode`` is worse: 12 bits can stand for 3,800
bytes, its table grows by as much, and pdfminer's decoder copied its whole
table for a debug line at every code (51 KB of codes took 15 s for 120 MB;
time grows with the square of the codes); ``RunLengthDecode`` stands for up
to 64 times its size, decoded by pdfminer into a list of one Python integer
a byte (8 bytes each). Their inflating is bounded here: a
document's streams may decode to :data:`MAX_DECODED_BYTES` in all, and
:class:`DecodedTooLarge` stops the document as soon as they would pass it.

This module imports pdfminer; :mod:`extract.pdf` imports it only for PDFs.
"""

from __future__ import annotations

import io
import math
import re
import threading
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import pdfminer.pdfdocument
import pdfminer.pdfinterp
import pdfminer.pdftypes
from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import (
    LAParams,
    LTFigure,
    LTLayoutContainer,
    LTPage,
    LTTextBox,
    LTTextGroup,
    LTTextGroupLRTB,
)
from pdfminer.lzw import CorruptDataError, LZWDecoder
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfinterp import PDFContentParser, PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser, PDFStreamParser, PDFSyntaxError
from pdfminer.pdftypes import PDFObjRef

__all__ = [
    "FLOW_MAX_BOXES",
    "MAX_DECODED_BYTES",
    "MAX_DOCUMENT_TOKENS",
    "MAX_PAGE_CELLS",
    "MAX_PAGE_CHARS",
    "MAX_PAGE_TOKENS",
    "MAX_STRING_BYTES",
    "DecodedTooLarge",
    "DrawingTooLarge",
    "PageTooLarge",
    "TokenTooLarge",
    "lay_out_form",
    "layout_pages",
]

#: Text boxes of a page above which they are not put into reading order pair by pair.
FLOW_MAX_BOXES = 300
#: Characters of a page above which the document is refused (about 70 MB of
#: pdfminer's character objects; a dense page of a paper has 6,000-8,000).
MAX_PAGE_CHARS = 100_000


#: Operators and operands of a page's content streams (with the forms they draw)
#: above which the document is refused: a page of a paper has a few thousand,
#: a page with a dense vector plot a few hundred thousand; pdfminer reads about
#: 200,000 a second.
MAX_PAGE_TOKENS = 1_000_000
#: The longest token (a string, a hex string, a name) of a content stream, in
#: bytes (a page shows at most :data:`MAX_PAGE_CHARS` characters).
MAX_STRING_BYTES = 10 * MAX_PAGE_CHARS
#: Operators and operands of a whole document's pages: a paper of 200 pages has
#: a few million; a file of many pages each just under :data:`MAX_PAGE_TOKENS`
#: took 7 s a page.
MAX_DOCUMENT_TOKENS = 10 * MAX_PAGE_TOKENS


#: Cells of pdfminer's layout grid (squares of :data:`GRID_POINTS`) that a page's
#: characters may cover, counted a character at a time: the layout indexes each
#: character, line and box in every cell it covers, so characters scaled up
#: (a form drawn 10,000 times its size, a font of 10^12 points) took gigabytes
#: for a line of text; a dense page of a paper covers a few tens of thousands.
MAX_PAGE_CELLS = 1_000_000
#: The side of a cell of pdfminer's layout grid (``Plane``'s default), in points.
GRID_POINTS = 50


def _cells(width: float, height: float) -> int:
    """The grid cells a character of this size covers, at most (any that is not finite: past every bound)."""
    if not (math.isfinite(width) and math.isfinite(height)):
        return MAX_PAGE_CELLS + 1
    return (int(abs(width) // GRID_POINTS) + 2) * (int(abs(height) // GRID_POINTS) + 2)


class PageTooLarge(Exception):
    """A page holds more than :data:`MAX_PAGE_CHARS` characters, or its drawing
    more than :data:`MAX_PAGE_TOKENS` tokens or a string of over :data:`MAX_STRING_BYTES`."""

    def __init__(
        self, page: int, holds: str = f"over {MAX_PAGE_CHARS:,} characters", than: str = "a page of text"
    ) -> None:
        super().__init__(f"page {page} holds {holds}, more than {than}")
        self.page = page


class DrawingTooLarge(Exception):
    """A document's pages hold more than :data:`MAX_DOCUMENT_TOKENS` tokens."""

    def __init__(self, page: int) -> None:
        super().__init__(f"its pages hold over {MAX_DOCUMENT_TOKENS:,} drawing instructions (by page {page})")


#: Bytes that a document's compressed streams may inflate to, in all (a paper's
#: pages, fonts and images take a few megabytes; the reader takes 20 MB files).
MAX_DECODED_BYTES = 100_000_000


class DecodedTooLarge(Exception):
    """A document's streams inflate to more than :data:`MAX_DECODED_BYTES`."""

    def __init__(self) -> None:
        super().__init__(
            f"its compressed streams inflate to over {MAX_DECODED_BYTES:,} bytes (a decompression bomb?)"
        )


#: What the document read in this thread may still inflate (``left``); None outside :func:`layout_pages`.
_inflating = threading.local()


def _spend(data: bytes) -> bytes:
    left = getattr(_inflating, "left", None)
    if left is not None:
        if len(data) > left:
            raise DecodedTooLarge()
        _inflating.left = left - len(data)
    return data


class _BoundedDecompressor:
    """``zlib.decompressobj()`` whose output is spent from the thread's budget."""

    def __init__(self) -> None:
        self._inflate = zlib.decompressobj()

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        left = getattr(_inflating, "left", None)
        if left is not None and (max_length == 0 or max_length > left + 1):
            max_length = left + 1  # one byte over the budget is enough to know
        return _spend(self._inflate.decompress(data, max_length))

    def flush(self, *args: int) -> bytes:
        return _spend(self._inflate.flush(*args))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inflate, name)


class _BoundedZlib:
    """The ``zlib`` pdfminer's streams decode with (``pdfminer.pdftypes.zlib``):
    ``decompress`` and ``decompressobj`` inflate within the thread's budget."""

    error = zlib.error

    @staticmethod
    def decompress(data: bytes) -> bytes:
        inflate = _BoundedDecompressor()
        out = inflate.decompress(data)
        if not inflate.eof:
            if inflate.unconsumed_tail:  # stopped at the budget, more to come
                raise DecodedTooLarge()
            # As zlib.decompress says of a stream cut short (pdfminer then reads what it can).
            raise zlib.error("Error -5 while decompressing data: incomplete or truncated stream")
        return out

    @staticmethod
    def decompressobj() -> _BoundedDecompressor:
        return _BoundedDecompressor()

    def __getattr__(self, name: str) -> Any:
        return getattr(zlib, name)


def _bounded_lzwdecode(data: bytes) -> bytes:
    """``pdfminer.lzw.lzwdecode`` within the thread's budget, without its
    decoder's debug line (a copy of the whole table at every code)."""
    decoder = LZWDecoder(io.BytesIO(data))
    out: list[bytes] = []
    while True:
        try:
            code = decoder.readbits(decoder.nbits)
        except EOFError:
            break
        try:
            out.append(_spend(decoder.feed(code)))
        except CorruptDataError:
            break  # as pdfminer does: what came before is the stream
    return b"".join(out)


def _bounded_rldecode(data: bytes) -> bytes:
    """``pdfminer.runlength.rldecode`` within the thread's budget, into bytes
    (pdfminer's made a list of one integer a byte); a run cut short ends it."""
    out = bytearray()
    at, end = 0, len(data)
    while at < end and data[at] != 128:  # 128 is the end of the data
        length = data[at]
        if length < 128:  # the next length + 1 bytes as they are
            run = data[at + 1 : at + 2 + length]
            at += length + 2
        else:  # the next byte 257 - length times
            run = data[at + 1 : at + 2] * (257 - length)
            at += 2
        out += _spend(run)
    return bytes(out)


# pdftypes decodes with these names of its own (``import zlib``, ``from pdfminer.lzw import lzwdecode``).
pdfminer.pdftypes.zlib = _BoundedZlib()  # type: ignore[attr-defined, assignment]
pdfminer.pdftypes.lzwdecode = _bounded_lzwdecode  # type: ignore[attr-defined]
pdfminer.pdftypes.rldecode = _bounded_rldecode  # type: ignore[attr-defined]


#: The page being read in this thread (``number``) and the tokens its content has
#: taken so far (``tokens``); set by :class:`_BoundedAggregator` at each page.
_page = threading.local()


class _BoundedContentParser(PDFContentParser):
    """pdfminer's content-stream parser, counting the page's tokens and bounding
    the length of a string (:data:`MAX_PAGE_TOKENS`, :data:`MAX_STRING_BYTES`)."""

    def nexttoken(self) -> tuple[int, Any]:
        token = super().nexttoken()
        tokens = getattr(_page, "tokens", None)
        if tokens is not None:
            _page.tokens = tokens + 1
            _page.document_tokens += 1
            if tokens >= MAX_PAGE_TOKENS:
                raise PageTooLarge(_page.number, f"over {MAX_PAGE_TOKENS:,} drawing instructions")
            if _page.document_tokens > MAX_DOCUMENT_TOKENS:
                raise DrawingTooLarge(_page.number)
        return token

    def fillbuf(self) -> bool:
        # Before each next piece of the stream: a token still growing (a string, a
        # hex string, a keyword, a name of megabytes) grows by copying itself whole.
        if len(self._curtoken) > MAX_STRING_BYTES:
            raise PageTooLarge(getattr(_page, "number", 0), f"a token of over {MAX_STRING_BYTES:,} bytes")
        return super().fillbuf()

    def get_inline_data(self, pos: int, target: bytes = b"EI") -> tuple[int, bytes]:
        """pdfminer's reading of an inline image's data up to ``target``, into a
        buffer that grows in place and within :data:`MAX_STRING_BYTES` (pdfminer's
        copied its data whole at each byte: 1.6 MB of it in a 2 KB file took 35 s)."""
        self.seek(pos)
        i = 0
        data = bytearray()
        while i <= len(target):
            self.fillbuf()
            if len(data) > MAX_STRING_BYTES:
                raise PageTooLarge(
                    getattr(_page, "number", 0), f"an inline image of over {MAX_STRING_BYTES:,} bytes"
                )
            if i:
                c = self.buf[self.charpos : self.charpos + 1]
                data += c
                self.charpos += 1
                if (len(target) <= i and c.isspace()) or (i < len(target) and c == target[i : i + 1]):
                    i += 1
                else:
                    i = 0
            else:
                try:
                    j = self.buf.index(target[0], self.charpos)
                    data += self.buf[self.charpos : j + 1]
                    self.charpos = j + 1
                    i = 1
                except ValueError:
                    data += self.buf[self.charpos :]
                    self.charpos = len(self.buf)
        found = bytes(data[: -(len(target) + 1)])
        return (pos, re.sub(rb"(\x0d\x0a|[\x0d\x0a])$", b"", found))


# The interpreter makes its parser by this name of its module.
pdfminer.pdfinterp.PDFContentParser = _BoundedContentParser  # type: ignore[misc]


class TokenTooLarge(Exception):
    """A token of the document's own objects is longer than :data:`MAX_STRING_BYTES`."""

    def __init__(self) -> None:
        super().__init__(f"an object holds a token of over {MAX_STRING_BYTES:,} bytes")


class _BoundedParser(PDFParser):
    """pdfminer's parser of the document's objects, with the token bound of the
    content streams (a 32 MB string in an object stream took 83 s)."""

    def fillbuf(self) -> bool:
        if len(self._curtoken) > MAX_STRING_BYTES:
            raise TokenTooLarge()
        return super().fillbuf()


class _BoundedStreamParser(PDFStreamParser, _BoundedParser):
    """pdfminer's parser of an object stream, bounded as :class:`_BoundedParser`."""


# The document parses its object streams by this name of its module.
pdfminer.pdfdocument.PDFStreamParser = _BoundedStreamParser  # type: ignore[attr-defined]


def _bound_reading_order(layout: LTLayoutContainer) -> None:
    """Read a container of over :data:`FLOW_MAX_BOXES` text boxes top-left to bottom-right."""
    merge_pairs = layout.group_textboxes

    def group_textboxes(laparams: LAParams, boxes: Sequence[LTTextBox]) -> list[LTTextGroup]:
        if len(boxes) <= FLOW_MAX_BOXES:
            return merge_pairs(laparams, boxes)
        return [LTTextGroupLRTB(boxes)]

    # The container's analysis calls this method of its own instance.
    layout.group_textboxes = group_textboxes  # type: ignore[method-assign]


def lay_out_form(form: LTFigure, laparams: LAParams) -> None:
    """Lay out the characters of a form XObject into lines and text boxes, as a
    page's are, within the same bounds (pdfminer leaves them loose unless
    ``LAParams.all_texts``, which would do so for every figure's labels)."""
    _bound_reading_order(form)
    LTLayoutContainer.analyze(form, laparams)


class _BoundedAggregator(PDFPageAggregator):
    """pdfminer's page aggregator with the bounds of the module docstring."""

    def begin_page(self, page: PDFPage, ctm: Any) -> None:
        super().begin_page(page, ctm)
        _page.number, _page.tokens = self.pageno, 0
        self.chars_on_page = self.cells_on_page = 0
        _bound_reading_order(self.cur_item)

    def paint_path(self, *args: Any, **kwargs: Any) -> None:
        """Nothing: lines and shapes are not text (pdfminer kept an object for each)."""

    def render_char(self, *args: Any, **kwargs: Any) -> float:
        self.chars_on_page += 1
        if self.chars_on_page > MAX_PAGE_CHARS:
            raise PageTooLarge(self.pageno)
        advance: float = super().render_char(*args, **kwargs)
        char = self.cur_item._objs[-1]  # the LTChar just made, on the page or in a form
        self.cells_on_page += _cells(char.width, char.height)
        if self.cells_on_page > MAX_PAGE_CELLS:
            raise PageTooLarge(self.pageno, "characters scaled up past any print", "its layout can take")
        return advance


class _AcyclicDocument(PDFDocument):
    """pdfminer's document whose objects never resolve to a bare reference: a
    chain of objects that are references is followed to its end here, and one
    that loops is a :class:`PDFSyntaxError` naming the objects."""

    def getobj(self, objid: int) -> object:
        obj = super().getobj(objid)
        chain = [objid]
        while isinstance(obj, PDFObjRef):
            if obj.objid in chain:
                loop = " -> ".join(str(n) for n in [*chain, obj.objid])
                raise PDFSyntaxError(f"objects that refer to each other in a loop ({loop})")
            chain.append(obj.objid)
            obj = super().getobj(obj.objid)
        return obj


def layout_pages(data: bytes, laparams: LAParams) -> Iterator[LTPage]:
    """Each page of the PDF ``data`` laid out, as ``pdfminer.high_level.extract_pages``
    gives them, within the bounds above; raises :class:`PageTooLarge` or
    :class:`DecodedTooLarge`."""
    _inflating.left = MAX_DECODED_BYTES
    _page.document_tokens = 0
    try:
        yield from _layout_pages(data, laparams)
    finally:
        _inflating.left = None
        _page.tokens = None


def _layout_pages(data: bytes, laparams: LAParams) -> Iterator[LTPage]:
    resources = PDFResourceManager(caching=True)
    device = _BoundedAggregator(resources, laparams=laparams)
    interpreter = PDFPageInterpreter(resources, device)
    # PDFPage.get_pages, with the document above (and without its warning on a
    # "no text extraction" flag, which it ignores, as this reader does).
    document = _AcyclicDocument(_BoundedParser(io.BytesIO(data)), caching=True)
    for page in PDFPage.create_pages(document):
        interpreter.process_page(page)
        yield device.get_result()
