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

from pathlib import Path

__all__ = ["CONTROL_FILES", "DOCUMENT_SUFFIXES", "CorpusError", "decode_bytes", "is_document", "read_text"]

#: What a corpus document may be: plain text or a PDF.
DOCUMENT_SUFFIXES = (".txt", ".text", ".pdf")
#: Text files in corpus folders that describe the corpus instead of being part of it.
CONTROL_FILES = frozenset(
    {"targets.txt", "sections.txt", "readme.txt", "manifest.csv", "file_information.csv"}
)

# Tried in order. cp1252 leaves five bytes undefined, so latin-1 (which maps
# every byte) is the last resort and never fails.
ENCODINGS = ("utf-8-sig", "cp1252", "latin-1")


class CorpusError(Exception):
    """A corpus file or folder that cannot be used; ``str()`` is one line."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = Path(path)
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{self.path}: {self.reason}")


def is_document(path: str | Path) -> bool:
    """Whether ``path`` names a corpus document (not a control file, not hidden)."""
    path = Path(path)
    return (
        path.suffix.lower() in DOCUMENT_SUFFIXES
        and path.name.lower() not in CONTROL_FILES
        and not path.name.startswith(".")
    )


def decode_bytes(data: bytes) -> tuple[str, str]:
    """``(text, encoding)``: UTF-8 if it decodes, else Windows-1252."""
    for encoding in ENCODINGS:
        try:
            return data.decode(encoding), encoding.replace("-sig", "")
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def read_text(path: str | Path) -> str:
    """The text of ``path`` with line ends normalised to ``\\n``.

    Raises :class:`CorpusError` for a missing, unreadable or empty file.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(path, "no such file") from None
    except IsADirectoryError:
        raise CorpusError(path, "is a folder, not a text file") from None
    except OSError as err:
        raise CorpusError(path, f"cannot read: {err.strerror or err}") from None
    if b"\x00" in data[:4096]:
        raise CorpusError(path, "looks binary (NUL bytes), not a text file")
    text, _ = decode_bytes(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise CorpusError(path, "empty file")
    return text
