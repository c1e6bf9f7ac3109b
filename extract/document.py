"""The document model shared by the readers and the graph builder.

A :class:`Document` is what a reader makes of one file: its sentences, each
with the section it came from, plus the identifiers that let later stages
skip work. ``doc_id`` hashes the source bytes only; ``graph_id`` hashes the
source bytes plus :data:`EXTRACTOR_VERSION`, so a graph is rebuilt exactly
when the document or the extraction rules change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from dri.errors import ProjectError
from dri.files import document_id

__all__ = ["EXTRACTOR_VERSION", "Document", "DocumentError", "Sentence", "content_ids"]

#: Bump whenever reading or extraction rules change what a graph contains.
EXTRACTOR_VERSION = "1.6"


class DocumentError(ProjectError):
    """A file that cannot be read; ``str(err)`` is one line, ``<path>: <reason>``."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        # One line, whatever a library's message looked like.
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{self.path}: {self.reason}")


@dataclass
class Sentence:
    id: int
    text: str
    section: str | None = None


@dataclass
class Document:
    path: str
    name: str
    kind: str
    doc_id: str
    graph_id: str
    title: str | None
    sentences: list[Sentence]
    encoding: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: Characters of text read, the count ``DRI_MAX_TEXT_CHARS`` limits.
    chars: int = 0


def content_ids(source: bytes, version: str = EXTRACTOR_VERSION) -> tuple[str, str]:
    """``(doc_id, graph_id)`` for the source bytes of a document."""
    doc_id = document_id(source)
    graph_id = hashlib.sha256(source + version.encode("utf-8")).hexdigest()[:32]
    return doc_id, graph_id
