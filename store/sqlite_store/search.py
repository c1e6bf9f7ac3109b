"""Stage 1 of analogy search in SQLite: each graph's content vector kept
with it, computed once for graphs stored before them; the ranking itself is
the in-memory index of :class:`dri.store.Store`.
"""

from __future__ import annotations

import numpy as np

from dri.store.records import stored_graph
from dri.store.sqlite_store.documents import SQLiteDocuments
from dri.store.vectors import ContentVectors, decode_stored, encode_features

__all__ = ["SQLiteSearch"]


class SQLiteSearch(SQLiteDocuments):
    """Content vectors, and what tells when they change."""

    def content_vectors(self, corpus: str | None = None) -> ContentVectors:
        where, params = (
            ("", ())
            if corpus is None
            else ("JOIN members m ON m.doc_id = d.doc_id AND m.corpus = ?", (corpus,))
        )
        rows = self._query(
            "SELECT d.doc_id, g.graph_id, g.features, d.concepts + d.relations "
            "FROM documents d JOIN graphs g ON g.graph_id = d.graph_id "
            f"{where} ORDER BY d.doc_id",
            params,
        )
        ids: list[str] = []
        vectors: list[dict[str, float]] = []
        sizes: list[int] = []
        labels: dict[str, np.ndarray] = {}
        sentences: list[np.ndarray | None] = []
        stale: list[tuple[str, str]] = []
        for doc_id, graph_id, text, size in rows:
            stored = decode_stored(text)
            if stored is None:  # stored before content vectors, or by other features: compute once
                data = self._query("SELECT data FROM graphs WHERE graph_id = ?", (graph_id,))[0][0]
                text = encode_features(stored_graph(self.location, doc_id, data))
                stale.append((text, graph_id))
                stored = decode_stored(text)
            ids.append(doc_id)
            vectors.append(stored.features if stored else {})
            sizes.append(int(size))
            labels.update(stored.labels if stored else {})
            sentences.append(stored.sentences if stored else None)
        if stale:
            with self._write() as db:
                db.executemany("UPDATE graphs SET features = ? WHERE graph_id = ?", stale)
        return ContentVectors(ids, vectors, sizes, labels, sentences)

    def _vectors_state(self, corpus: str | None) -> tuple[object, ...]:
        return tuple(
            self._query(
                "SELECT (SELECT COUNT(*) FROM graphs), (SELECT MAX(stored) FROM graphs), "
                "(SELECT COUNT(*) FROM members), (SELECT MAX(updated) FROM documents)"
            )[0]
        )
