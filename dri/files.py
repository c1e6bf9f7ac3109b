"""Reading a user's file with a bound on what is read.

Every reader of user input (texts and PDFs, stored graph JSON, CSV and JSON
Lines indexes, judgement and rating files, manifests, target lists) reads
through :func:`read_limited`. It opens the path once, without blocking
(a FIFO opened for reading would otherwise wait for a writer), checks on the
open file that it is a regular file (a symbolic link to one is followed),
and reads at most ``limit + 1`` bytes, so ``/dev/zero``, a FIFO, a device or
a file that grows while it is read cost neither memory nor time: the
``stat`` size of such things is 0, so a size check alone lets them through.

Refusals raise :class:`FileRefused`, whose ``str()`` is one line
``<path>: <reason>``; each reader turns it into its own error type with
the same reason, the path shown with :func:`dri.literal.printable`.
:func:`decode_text` gives the text of a text file's bytes, or the one reason
they are not text, the same verdict for the extractor and every other reader
of documents. Like :mod:`dri.errors`, this module imports nothing of ours but
those two, so every layer may use it.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import stat
from pathlib import Path

from dri.errors import ProjectError
from dri.literal import printable

__all__ = [
    "DOC_ID_DIGITS",
    "NAME_BYTES",
    "FileRefused",
    "NotText",
    "decode_text",
    "document_id",
    "name_that_fits",
    "read_limited",
    "what_is_there",
]

#: The longest file name most file systems take, in bytes.
NAME_BYTES = 255

_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(ProjectError):
    """A file that is not read; ``str()`` is ``<path>: <reason>``."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{printable(path)}: {reason}")


def _kind(mode: int) -> str | None:
    """What a file of ``mode`` is, if it is not a regular file."""
    return next(
        (name for test, name in _KINDS if test(mode)), None if stat.S_ISREG(mode) else "something else"
    )


def what_is_there(path: str | os.PathLike[str]) -> str:
    """What stands at ``path`` where a regular file was expected, for a message:
    "missing", "a symbolic link to nothing", "a loop of symbolic links",
    "a folder", "a FIFO (named pipe)", … ("a regular file" if it is one)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a symbolic link to nothing" if os.path.islink(path) else "missing"
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "a loop of symbolic links"
        return f"not to be looked at ({err.strerror or err})"
    except ValueError:  # a NUL in the name
        return "not a name the system takes"
    return _kind(mode) or "a regular file"


def _open_reason(err: OSError, what: str) -> str:
    if err.errno == errno.ENOENT:
        return f"no such {what}"
    if err.errno == errno.ELOOP:
        return "cannot read: a loop of symbolic links"
    if err.errno == errno.ENXIO:
        return f"is a socket or a device without a reader, not a {what}"
    return f"cannot read: {err.strerror or err}"


def _opened_path(fd: int, path: str | os.PathLike[str]) -> str:
    """The real path of the file open as ``fd``: what was opened, not what
    ``path`` names now (Linux's ``/proc/self/fd``; elsewhere ``path`` resolved)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(path)


def read_limited(
    path: str | os.PathLike[str],
    limit: int,
    *,
    what: str = "file",
    inside: str | os.PathLike[str] | None = None,
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises :class:`FileRefused` for a missing or unreadable path, anything
    that is not a regular file (a folder, a FIFO, a device, a socket, or a
    symbolic link to one of them), and a file of more than ``limit`` bytes
    (``what`` names the kind of file in the reasons). With ``inside`` (a
    resolved folder), also for a file that is not in it, as opened: a corpus's
    file that became a link to ``/etc/passwd`` after the folder was listed.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        if err.errno == errno.EISDIR:
            raise FileRefused(path, f"is a folder, not a {what}") from None
        reason = _open_reason(err, what)
        if os.path.islink(path):
            reason += f" (a symbolic link to {printable(os.readlink(path))})"
        raise FileRefused(path, reason) from None
    try:
        mode, size = (info := os.fstat(fd)).st_mode, info.st_size
        kind = _kind(mode)
        if kind is not None:  # what it is says more than where it is (a link to /dev/zero)
            link = " (through a symbolic link)" if os.path.islink(path) else ""
            raise FileRefused(path, f"is {kind}{link}, not a regular {what}")
        if inside is not None and not Path(opened := _opened_path(fd, path)).is_relative_to(inside):
            raise FileRefused(
                path, f"refused, it leads to {printable(opened)}, outside the folder {printable(inside)}"
            )
        if size > limit:
            raise FileRefused(path, f"too large ({size} bytes; the limit is {limit})")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as err:
        raise FileRefused(path, f"cannot read: {err.strerror or err}") from None
    finally:
        os.close(fd)
    if total > limit:  # it grew while it was read
        raise FileRefused(path, f"too large (more than {limit} bytes, the limit)")
    return b"".join(chunks)


# More control characters than this (as a share of all characters) means binary data.
_MAX_CONTROL_SHARE = 0.01
# NEL (U+0085) ends the lines of texts converted from EBCDIC, as Python's splitlines reads it.
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v\x85")


class NotText(ValueError):
    """Bytes that are not text; ``str()`` is the reason."""


def _control_share(text: str) -> float:
    controls = sum(1 for ch in text if (ch < " " or "\x7f" <= ch < "\xa0") and ch not in _ALLOWED_CONTROLS)
    return controls / max(len(text), 1)


def _nul_reason(data: bytes) -> str:
    """Why bytes with NULs are refused: text in UTF-16 or UTF-32 without a byte-order
    mark (ASCII text, every second or fourth byte NUL), which is not guessed at, or binary data."""
    sample = data[:4096]
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        if len(sample) >= 2 * width and len(sample) % width == 0:
            units = [sample[i : i + width] for i in range(0, len(sample), width)]
            for order, zeros in (("little-endian", slice(1, None)), ("big-endian", slice(None, -1))):
                if all(u[zeros] == b"\x00" * (width - 1) and u != b"\x00" * width for u in units):
                    return f"{name} text ({order}) without a byte-order mark: save it as UTF-8"
    return "binary data, not text (contains NUL bytes)"


def decode_text(data: bytes) -> tuple[str, str]:
    """``(text, encoding)`` of the bytes of a text file: UTF-8, or the UTF-8,
    UTF-16 or UTF-32 of a byte-order mark, else Windows-1252 (``"cp1252"``,
    which a caller warns about). Raises :class:`NotText` for NUL bytes without
    a byte-order mark, invalid UTF-16/32, and more than 1 % control characters."""
    if data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16: FF FE 00 00
        encoding = "utf-32"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    elif b"\x00" in data:
        raise NotText(_nul_reason(data))
    else:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        body = data[len(codecs.BOM_UTF8) :] if encoding == "utf-8-sig" else data
        if encoding in ("utf-8", "utf-8-sig") and _cut_in_a_character(body, err):
            # UTF-8 cut short inside its last character (a copy stopped part-way): read
            # as Windows-1252, every accented letter of the file was two signs.
            return decode_text(data[: len(data) - len(body) + err.start])
        if encoding != "utf-8":
            raise NotText(f"binary data, not text (invalid {encoding})") from None
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            # Shift-JIS or GB18030 text lands here too: the encoding is the likely fault.
            raise NotText(
                "neither UTF-8 nor Windows-1252 text (another encoding, or binary data): save it as UTF-8"
            ) from None
        encoding = "cp1252"
    share = _control_share(text)
    if share > _MAX_CONTROL_SHARE:
        raise NotText(f"binary data, not text ({share:.0%} control characters)")
    return text, encoding


def _cut_in_a_character(data: bytes, err: UnicodeDecodeError) -> bool:
    """Whether ``data`` is UTF-8 cut inside its last character: the one error is
    an incomplete character at the end, and the rest holds UTF-8's own
    characters of several bytes (a Windows-1252 file whose one accented letter
    is its last, ``caf\\xe9``, stays Windows-1252)."""
    return err.end == len(data) and err.reason == "unexpected end of data" and not data[: err.start].isascii()


#: Hex digits of a document's id: the start of its bytes' sha256.
DOC_ID_DIGITS = 32


def document_id(data: bytes) -> str:
    """The id of a document of bytes ``data`` (the start of their sha256): the
    same bytes are one document wherever they are, and what a user may name a
    target by (``--target``)."""
    return hashlib.sha256(data).hexdigest()[:DOC_ID_DIGITS]


def name_that_fits(name: str, limit: int = NAME_BYTES) -> str:
    """``name`` if its UTF-8 takes at most ``limit`` bytes; else its start, cut
    to fit (never within a character), and a digest of the whole, so that two
    long names that begin alike stay two names.

    >>> name_that_fits("report-" + "x" * 300)[-13:]
    '-d1d397547ded'
    >>> len(name_that_fits("report-" + "x" * 300).encode())
    255
    """
    encoded = name.encode("utf-8", "surrogateescape")
    if len(encoded) <= limit:
        return name
    digest = hashlib.sha256(encoded).hexdigest()[:12]
    return f"{encoded[: limit - len(digest) - 1].decode('utf-8', 'ignore')}-{digest}"
