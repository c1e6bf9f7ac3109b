"""User-supplied text as data, never as markup, in every format dri writes.

File names, document text, lemmas, group names and CSV cells come from the
user; each output format has characters that mean something to it. One
function per format turns such a string into one that the format shows
literally:

* :func:`printable` -- the terminal, SVG text and plot labels: control
  characters (U+0000-U+001F, U+007F-U+009F), lone surrogates (the bytes of a
  file name that is not UTF-8), the non-characters U+FFFE and U+FFFF, the
  bidirectional overrides and marks and the invisible characters that make two
  names look alike (a zero-width space, U+FEFF) become visible escapes
  (``\\u001b``, ``\\udcff``, ``\\u202e``, ``\\u200b``), a form that is valid in a JSON string too. XML 1.0 forbids most of them, a terminal obeys them.
* :func:`plot_text` -- matplotlib: :func:`printable`, and every ``$``
  escaped, so that ``$x^2$`` is drawn as those five characters, not as math.
* :func:`csv_cell` -- a spreadsheet: a text cell starting with ``=``, ``+``,
  ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (the OWASP
  rule against CSV injection); numbers (``-0.5``) are left alone.
* :func:`markdown_text` -- Markdown: HTML (``<``, ``&``) and the
  inline markup characters (``\\``, backtick, ``*``, ``[``, ``]``, ``~``,
  ``$``, ``_`` outside a word, ``|``) escaped, line breaks folded; at the
  start of a list item also a leading ``#``, ``-``, ``+``, ``>`` or ``1.``
  (a ``>`` elsewhere opens nothing: "spa > epo" stays as it is).
* :func:`storable` -- the stores and the files dri writes: lone surrogates
  (the bytes of a file name that is not UTF-8, as Python decodes them) become
  the escape :func:`printable` shows (``\\udcff``), so that the text is
  valid Unicode (SQLite, Neo4j and UTF-8 files take it) and always the same
  for the same name; everything else is kept. A name that really holds the
  six characters ``\\udcff`` then reads the same: such names are not expected.
* :func:`echo` -- :func:`print` through :func:`printable`, keeping line
  breaks (escaping them too for a row of a table, ``one_line``): every
  command prints what it echoes of the user's through it; a message line
  (standard error) over 2,000 characters keeps its start and end;
  :class:`PrintableFormatter` does the same for log lines on the console.

HTML pages need none of these: Jinja2 escapes every value
(:mod:`dri.metrics.pages`). Like :mod:`dri.errors`, this module imports
nothing of ours, so every layer may use it.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import warnings
from collections.abc import Iterator
from typing import TextIO

__all__ = [
    "PrintableFormatter",
    "csv_cell",
    "cut_line",
    "decimal_number",
    "echo",
    "from_printable",
    "grouped_whole_number",
    "lone_surrogate",
    "lone_surrogate_problem",
    "markdown_text",
    "plot_text",
    "printable",
    "quiet_glyphs",
    "storable",
    "storable_json",
    "whole_number",
]

# C0 and C1 controls, DEL, surrogates, U+FFFE/U+FFFF, bidirectional embeddings, isolates and
# marks, and the invisible ones that make two names look alike (zero-width space, word joiner,
# U+FEFF) or break a line (U+2028, U+2029). The zero-width joiners of scripts and emoji stay.
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)
_UNPRINTABLE_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)
#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# Markdown's inline markup; "_" only where it could open or close emphasis (not inside a word).
_MARKDOWN = re.compile(r"[\\`*\[\]~|<&$]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_BLOCK_START = re.compile(r"^([#+>-])|^(\d+)([.)])")
_HTML = {"<": "&lt;", "&": "&amp;"}


def _escape(match: re.Match[str]) -> str:
    # One form for all, valid inside a JSON string too (``--json`` prints through echo).
    return f"\\u{ord(match.group()):04x}"


def printable(text: object, *, newlines: bool = False) -> str:
    """``str(text)`` with every control character, lone surrogate, non-character
    and bidirectional override as a visible escape (``\\u000b``); ``newlines``
    keeps line breaks (for several lines of output)."""
    pattern = _UNPRINTABLE_BUT_NEWLINE if newlines else _UNPRINTABLE
    return pattern.sub(_escape, str(text))


_ESCAPED = re.compile(r"\\u([0-9a-f]{4})")


def from_printable(text: str) -> str:
    """``text`` with :func:`printable`'s escapes undone, so that a name copied
    from dri's output finds the name it shows. The escape of a lone surrogate
    stays: a stored name holds such a character as that text
    (:func:`storable`)."""

    def undo(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if _UNPRINTABLE.fullmatch(char) and not _SURROGATE.fullmatch(char) else match.group()

    return _ESCAPED.sub(undo, text)


def whole_number(text: str) -> int | None:
    """``text`` as a whole number written in ASCII digits (blanks around it and a
    leading sign allowed), else None. int() also took ``1_0`` as 10 and another
    script's digits (``٣``) as 3, and refuses 4,300 digits and more."""
    digits = text.strip().removeprefix("-").removeprefix("+")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 4000:
        return None
    return int(text)


#: A whole number whose digits are marked in groups of three, one mark throughout:
#: ``1,000,000`` or ``1_000_000``, not ``1,,0``, ``,100``, ``10,00``, ``1,0000`` or ``1,000_000``.
_GROUPED_DIGITS = re.compile(r"[+-]?[0-9]{1,3}(?P<mark>[,_])[0-9]{3}(?:(?P=mark)[0-9]{3})*")


def grouped_whole_number(text: str) -> int | None:
    """:func:`whole_number`, also with its digit groups marked (``1,000,000``,
    ``1_000_000``) as :data:`_GROUPED_DIGITS` says, else None. Dropping every
    mark wherever it stood read ``1,,0`` as 10 and ``10,00`` as 1000."""
    bare = text.strip()
    if _GROUPED_DIGITS.fullmatch(bare):
        bare = bare.replace(",", "").replace("_", "")
    return whole_number(bare)


def decimal_number(text: str) -> float | None:
    """``text`` as float() reads it (``1.5``, ``2e3``, ``nan``, ``inf``), written in
    ASCII without ``_``, else None: float() also took another script's digits
    (``٣``) as 3 and ``1_0`` as 10."""
    if not text.isascii() or "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in ``text`` (a JSON ``\\ud800`` escape, a name that is not
    UTF-8), which no UTF-8 file or store takes as it is; None if there is none."""
    found = _SURROGATE.search(text)
    return found.group() if found else None


def lone_surrogate_problem(text: str) -> str | None:
    """``holds a lone surrogate (\\ud800), which is not text`` if ``text`` holds one
    (:func:`lone_surrogate`): the reason a reader gives for refusing it; else None."""
    found = lone_surrogate(text)
    return None if found is None else f"holds a lone surrogate ({printable(found)}), which is not text"


def storable(text: str) -> str:
    """``text`` with each lone surrogate as its escape (``\\udcff``): valid Unicode
    for a store or a UTF-8 file, shown as :func:`printable` shows the original."""
    return _SURROGATE.sub(_escape, text)


def storable_json(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) whose strings read
    back :func:`storable`: each lone surrogate, which can only be inside a
    string, becomes an escaped backslash and ``udcff``."""
    return _SURROGATE.sub(lambda m: f"\\\\u{ord(m.group()):04x}", text)


def plot_text(text: object) -> str:
    """``text`` as matplotlib draws it literally: :func:`printable`, ``$`` escaped
    (matplotlib reads text between two ``$`` as math and unescapes ``\\$``)."""
    return printable(text, newlines=True).replace("$", r"\$")


#: The longest text cell :func:`csv_cell` keeps whole: Python's ``csv`` module
#: refuses to read a field over 131,072 characters (its default field limit).
MAX_CSV_CELL = 100_000


def csv_cell(value: object) -> object:
    """``value`` safe in a spreadsheet: a text starting with a formula character
    gets a leading ``'``, unless it is a plain number (``-0.5``); a text over
    :data:`MAX_CSV_CELL` characters is cut there, saying how much; anything else
    is returned as it is."""
    if not isinstance(value, str):
        return value
    if len(value) > MAX_CSV_CELL:
        value = f"{value[:MAX_CSV_CELL]}… ({len(value) - MAX_CSV_CELL:,} more characters cut)"
    if value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def markdown_text(text: object, *, block_start: bool = False) -> str:
    """``text`` as Markdown shows it literally, on one line (a table cell, a
    heading); ``block_start`` also escapes what would open a heading or a list
    at the start of a list item or paragraph (``#``, ``-``, ``+``, ``>``, ``1.``)."""
    one_line = " ".join(printable(text, newlines=True).split())

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return _HTML.get(char, "\\" + char)

    escaped = _MARKDOWN.sub(escape, one_line)
    if not block_start:
        return escaped
    return _BLOCK_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", escaped)


def echo(
    *parts: object,
    file: TextIO | None = None,
    end: str = "\n",
    flush: bool = False,
    lead: str = "",
    one_line: bool = False,
) -> None:
    """:func:`print` of ``parts`` with their control characters made visible
    (line breaks kept), so that a file name cannot drive the terminal;
    ``lead`` is the command's own terminal control (a progress line's ``\\r``),
    written as it is. ``one_line`` escapes line breaks too: a row of a table or
    a progress line, which a name holding a line break must not split into a
    forged row."""
    text = " ".join(printable(p, newlines=not one_line) for p in parts)
    if file is sys.stderr and len(text) > MAX_MESSAGE_CHARS:
        text = "\n".join(map(cut_line, text.split("\n")))
    print(lead + text, end=end, file=file if file is not None else sys.stdout, flush=flush)


#: The longest line of a message (standard error) printed whole.
MAX_MESSAGE_CHARS = 2000


def cut_line(line: str) -> str:
    """``line``, or its start and end around a note of its length when it is longer
    than :data:`MAX_MESSAGE_CHARS`: a message quoting a variable of 100,000
    characters keeps what it is about and its reason."""
    if len(line) <= MAX_MESSAGE_CHARS:
        return line
    head, tail = MAX_MESSAGE_CHARS * 3 // 4, MAX_MESSAGE_CHARS // 4
    return f"{line[:head]} … ({len(line) - head - tail:,} characters left out) … {line[-tail:]}"


class PrintableFormatter(logging.Formatter):
    """Log lines whose message has its control characters made visible: a
    file name in a warning cannot drive the terminal. The message's own line
    breaks are kept, but those of its text arguments (``log.warning("%s: %s",
    path, reason)``) are escaped too: a file name's line break does not split
    the warning. The format's own text (a progress line's erase sequence) is
    left as it is."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        message = record.message
        if isinstance(record.args, tuple) and any(isinstance(a, str) for a in record.args):
            args = tuple(printable(a) if isinstance(a, str) else a for a in record.args)
            with contextlib.suppress(TypeError, ValueError, KeyError):
                message = str(record.msg) % args
        record.message = printable(message, newlines=True)
        return super().formatMessage(record)


@contextlib.contextmanager
def quiet_glyphs() -> Iterator[None]:
    """matplotlib's "Glyph ... missing from font" warnings silenced: a name in a
    script the font lacks is drawn as boxes, which is what the warning says."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        warnings.filterwarnings(
            "ignore", message=r"Matplotlib currently does not support", category=UserWarning
        )
        yield
