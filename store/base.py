"""The store interface that both backends implement.

The flows, the CLI and the evaluations code against :class:`Store` only; the
contract tests in ``tests/store/test_store_contract.py`` run unchanged against
both backends. See ``docs/store.md`` for the semantics of each method.
"""

from __future__ import annotations

import abc
import datetime as dt
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from dri.literal import storable, storable_json
from dri.settings import data_dir
from dri.store.records import (
    Analogue,
    ComparisonRecord,
    DocumentRecord,
    EvaluationRecord,
    MembersDropped,
    RunRecord,
    StoreError,
)
from dri.store.vectors import ContentVectors, VectorIndex

__all__ = ["Store"]


class Store(abc.ABC):
    """Documents with their ROS graphs, and comparison results, by run."""

    #: ``"sqlite"`` or ``"neo4j"``.
    backend: str = ""
    #: Where the data lives: the SQLite file or the Neo4j URI without credentials.
    location: str = ""

    # -- lifecycle -----------------------------------------------------------------

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.location}>"

    @abc.abstractmethod
    def close(self) -> None:
        """Release the connection; the store cannot be used afterwards."""

    def available(self) -> bool:
        """Whether the store answers now (one quick check, no retries)."""
        return True

    # -- documents -----------------------------------------------------------------

    @abc.abstractmethod
    def put_document(
        self, corpus: str, graph: nx.DiGraph, *, meta: dict[str, Any] | None = None
    ) -> DocumentRecord:
        """Store ``graph`` and its document as a member of ``corpus``.

        Idempotent: the same call twice leaves the same data. A document (its
        content) may belong to several corpora, and to one corpus under several
        names: a membership is keyed by (corpus, name), and has its own name,
        path and ``meta`` (merged into the document's own meta). The document
        keeps the name it was first stored under. A graph of a newer
        extractor version replaces the document's stored graph. Returns the
        document as this membership names it.
        """

    @abc.abstractmethod
    def is_member(self, corpus: str, name: str, doc_id: str) -> bool:
        """Whether ``corpus`` holds the document ``doc_id`` under ``name``."""

    @abc.abstractmethod
    def has_graph(self, graph_id: str) -> bool:
        """Whether the graph ``graph_id`` (source bytes + extractor version) was stored."""

    @abc.abstractmethod
    def get_graph(self, doc_id: str) -> nx.DiGraph | None:
        """The document's graph of the latest extractor version stored, or ``None``."""

    def document_texts(self, doc_ids: Iterable[str]) -> dict[str, tuple[str, list[float] | None]]:
        """``{doc_id: (text, encoder vector)}`` of the latest stored graph of each of
        ``doc_ids`` that is stored: :func:`mapping.content.graph_text` and
        :func:`store.encoder_vectors.graph_vector` of :meth:`get_graph`, which a
        backend may read without building the graphs."""
        from dri.mapping.content import graph_text
        from dri.store.encoder_vectors import graph_vector

        found = {}
        for doc_id in dict.fromkeys(doc_ids):
            graph = self.get_graph(doc_id)
            if graph is not None:
                found[doc_id] = (graph_text(graph), graph_vector(graph))
        return found

    @abc.abstractmethod
    def get_document(self, doc_id: str) -> DocumentRecord | None:
        """The document ``doc_id``, with its merged meta and all its corpora."""

    @abc.abstractmethod
    def _document_candidates(self, text: str, corpus: str | None) -> list[DocumentRecord]:
        """Documents whose id, path or name equals one of the spellings of ``text``."""

    def find_document(self, name_or_path: str, corpus: str | None = None) -> DocumentRecord | None:
        """The document with this id, path or name (in that order of preference).

        Raises :class:`StoreError` if a name matches several documents.
        """
        text = storable(str(name_or_path))  # as names and paths are stored
        found = self._document_candidates(text, corpus)
        spellings = {text, resolved_path(text)}
        for matches in (
            [d for d in found if d.doc_id == text],
            [d for d in found if d.path in spellings],
            [d for d in found if d.name == text],
        ):
            unique = {d.doc_id: d for d in matches}
            if len(unique) == 1:
                return next(iter(unique.values()))
            if len(unique) > 1:
                where = f" in corpus {corpus!r}" if corpus else ""
                raise StoreError(
                    self.location,
                    f"{text!r} names {len(unique)} documents{where}; use a path or a document id",
                )
        return None

    @abc.abstractmethod
    def drop_members(self, corpus: str, names: Iterable[str], run_id: str) -> MembersDropped:
        """Remove ``corpus``'s memberships under ``names`` (files deleted from, or
        renamed inside, its folder), in one transaction.

        Each document these memberships held loses its comparisons of run
        ``run_id`` (a renamed file's pairs are mapped again under the new name,
        which may pair them the other way round); one that is then in no corpus
        at all goes, with its graphs and its comparisons of every run. A
        document still held under another name takes that name and path if it
        was named by a membership that went. Unknown names are ignored.
        """

    @abc.abstractmethod
    def drop_unheld(self, doc_ids: Iterable[str]) -> MembersDropped:
        """Remove those of ``doc_ids`` that no corpus holds any more (a file's old
        content, once its name moved to the new one), with their graphs and
        their comparisons of every run, in one transaction. Documents still
        held, and unknown ids, are left alone."""

    @abc.abstractmethod
    def corpora(self) -> list[str]:
        """The corpus names, sorted."""

    @abc.abstractmethod
    def documents(self, corpus: str) -> list[DocumentRecord]:
        """The documents of ``corpus`` by name, each with that corpus's meta."""

    # -- comparisons ---------------------------------------------------------------

    @abc.abstractmethod
    def put_comparison(self, result: ComparisonRecord) -> None:
        """Store a scored comparison with its mapping pairs.

        Idempotent on ``(source_id, target_id, run_id)``: storing it again
        replaces that result; another run id adds a new result set. Both
        documents must have been stored.
        """

    @abc.abstractmethod
    def drop_comparisons(self, run_id: str, doc_ids: Iterable[str]) -> int:
        """Remove the comparisons of run ``run_id`` in which any of ``doc_ids`` is
        source or target, with everything stored with them (mapped pairs,
        inferences); returns how many comparisons went. For documents whose
        content changed: their new versions' comparisons replace these."""

    @abc.abstractmethod
    def has_comparison(self, source_id: str, target_id: str, run_id: str) -> bool:
        """Whether this pair was stored under ``run_id``."""

    def put_comparisons(self, results: Sequence[ComparisonRecord]) -> None:
        """:meth:`put_comparison` for several results in one transaction:
        all of them are stored, or none. A corpus run writes a batch at a
        time, since a commit per pair costs more than mapping a pair of
        short texts."""
        for result in results:
            self.put_comparison(result)

    def stored_pairs(self, pairs: Sequence[tuple[str, str]], run_id: str) -> set[tuple[str, str]]:
        """The ``(source_id, target_id)`` pairs of ``pairs`` already stored
        under ``run_id``, in one query where the backend allows."""
        return {(s, t) for s, t in pairs if self.has_comparison(s, t, run_id)}

    @abc.abstractmethod
    def get_comparison(self, source_id: str, target_id: str, run_id: str) -> ComparisonRecord | None:
        """One stored comparison with its mapping pairs, or ``None``."""

    @abc.abstractmethod
    def comparisons(
        self, run_id: str | None = None, corpus: str | None = None, *, pairs: bool = False
    ) -> list[ComparisonRecord]:
        """Stored comparisons, optionally of one run and/or between documents
        of one corpus (both ends in it), ordered by source, target, run.
        ``pairs=True`` also loads the mapping pairs."""

    @abc.abstractmethod
    def top_analogues(self, doc_id: str, k: int = 10, run_id: str | None = None) -> list[Analogue]:
        """The ``k`` documents most analogous to ``doc_id`` (``k`` from 1 to
        2**31 - 1, else :class:`ValueError`; both backends alike).

        Both directions of a comparison count. Each other document appears
        once, with its best result (highest analogy similarity; ties to the
        smaller run id, then the outgoing direction); documents are ranked by
        analogy similarity, then name, then id.
        """

    @abc.abstractmethod
    def runs(self) -> list[RunRecord]:
        """The run ids with their comparison counts, oldest first."""

    # -- stage 1 of analogy search -----------------------------------------------

    def content_vectors(self, corpus: str | None = None) -> ContentVectors:
        """The feature counts, node counts, label vectors and abstracted-sentence
        vectors of the latest graph of every document (of ``corpus``), computing and
        storing any that are missing or of older features; the label vectors are the
        clause vectors of all their relation labels. See :mod:`mapping.features`."""
        raise NotImplementedError(f"{type(self).__name__} keeps no content vectors")

    def _vectors_state(self, corpus: str | None) -> tuple[object, ...]:
        """Something that changes whenever :meth:`content_vectors` would."""
        return (object(),)

    def similar_documents(
        self, doc_id: str, k: int | None = 100, *, corpus: str | None = None
    ) -> list[tuple[str, float]]:
        """Stage 1 (MAC) of analogy search: the ``k`` stored documents (of
        ``corpus``; ``k=None``: all of them) whose content vectors are closest
        to ``doc_id``'s, best first, as ``(doc_id, cosine)``; ``doc_id`` itself
        is left out. Raises :class:`StoreError` for a document not stored.

        This default ranks in memory with a sparse tf-idf matrix
        (:class:`store.vectors.VectorIndex`), rebuilt only when the stored
        graphs change; a backend may use its own index instead.
        """
        index = self.vector_index(corpus)
        k = len(index.doc_ids) if k is None else k
        position = index.positions.get(doc_id)
        if position is None:
            every = self.content_vectors(None)
            if doc_id not in every.doc_ids:
                raise StoreError(self.location, f"no stored graph for document {doc_id}")
            at = every.doc_ids.index(doc_id)
            return index.query(
                every.features[at],
                k,
                exclude=frozenset({doc_id}),
                size=every.sizes[at],
                vectors=every.labels,
                sentences=every.sentences[at],
            )
        return index.query_row(position, k, exclude=frozenset({doc_id}))

    def vector_index(self, corpus: str | None = None) -> VectorIndex:
        """The in-memory index of the content vectors (of ``corpus``), cached
        until the stored graphs or memberships change."""
        cache: dict[str | None, tuple[tuple[object, ...], VectorIndex]]
        cache = self.__dict__.setdefault("_vector_indexes", {})
        state = self._vectors_state(corpus)
        hit = cache.get(corpus)
        if hit is None or hit[0] != state:
            hit = (self._vectors_state(corpus), self.content_vectors(corpus).index())
            cache[corpus] = hit
        return hit[1]

    # -- evaluations ---------------------------------------------------------------

    @abc.abstractmethod
    def save_evaluation(self, kind: str, corpus: str, rows: Sequence[dict[str, Any]]) -> str:
        """Store the rows of one evaluation; returns its id (a hash of the
        content, so saving the same evaluation twice stores it once)."""

    @abc.abstractmethod
    def evaluations(self, kind: str | None = None) -> list[EvaluationRecord]:
        """Stored evaluations, oldest first."""

    # -- housekeeping --------------------------------------------------------------

    @abc.abstractmethod
    def counts(self) -> dict[str, int]:
        """Sizes of what is stored, by kind of record (for checks and ``dri store info``)."""

    @abc.abstractmethod
    def clear(self) -> None:
        """Delete everything in this store."""


# -- helpers shared by the backends ----------------------------------------------


def check_k(k: int) -> int:
    """``k`` of :meth:`Store.top_analogues`, checked the same way for both backends."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 2**31 - 1:
        raise ValueError(f"k must be a whole number from 1 to {2**31 - 1}, not {k!r}")
    return k


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def to_json_text(value: Any) -> str:
    # A lone surrogate (a file name that is not UTF-8) is kept as its escape: SQLite and Neo4j take it.
    return storable_json(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str))


def evaluation_id(kind: str, corpus: str, rows: Iterable[dict[str, Any]]) -> str:
    payload = to_json_text([kind, corpus, list(rows)])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]


def default_sqlite_path() -> Path:
    return data_dir() / "dri.sqlite"


def resolved_path(text: str) -> str:
    """``text`` resolved as a path, to match stored paths; unchanged if it cannot be."""
    try:
        return str(Path(text).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL byte, which no path holds
        return text


def env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else None
