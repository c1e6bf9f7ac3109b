"""Stage 1 of analogy search in Neo4j: each document's content vector in a
vector index (HNSW), re-ranked by the structural estimate of
:mod:`store.vectors`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from dri.mapping.clause_coverage import SentenceRows
from dri.store.neo4j_store.documents import Neo4jDocuments
from dri.store.neo4j_store.rows import vector_props
from dri.store.neo4j_store.schema import VECTOR_INDEX
from dri.store.records import DamagedRow, StoreError, stored_json, stored_number
from dri.store.vectors import (
    STORED_VERSION,
    ContentVectors,
    StructureIndex,
    combine,
    covered,
    unpack_label_vectors,
    unpack_sentence_rows,
)

__all__ = ["Neo4jSearch"]


class Neo4jSearch(Neo4jDocuments):
    """Content vectors and the documents nearest to one."""

    def _features(self, doc_id: str, text: Any) -> dict[str, float]:
        """A document's feature counts from their stored JSON; a :class:`DamagedRow` if damaged."""
        what = f"document {doc_id}, features"
        features: dict[str, float] = stored_json(self.location, what, text or "{}")
        for value in features.values():
            stored_number(self.location, what, value)
        return features

    def _fill_vectors(self) -> None:
        """Content vectors for documents stored before them (or with older features)."""
        stale = self._read(
            "MATCH (d:Document) WHERE d.graph IS NOT NULL AND coalesce(d.features_version, '') <> $v "
            "RETURN d.id AS id",
            v=STORED_VERSION,
        )
        for row in stale:
            graph = self.get_graph(row["id"])
            if graph is not None:
                self._write(
                    lambda tx, i, p: tx.run(
                        "MATCH (d:Document {id: $id}) SET d += $props", id=i, props=p
                    ).consume(),
                    row["id"],
                    vector_props(graph),
                )

    def content_vectors(self, corpus: str | None = None) -> ContentVectors:
        self._fill_vectors()
        rows = self._read(
            "MATCH (d:Document) WHERE d.features IS NOT NULL "
            "AND ($corpus IS NULL OR EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(d) }) "
            "RETURN d.id AS id, d.features AS features, d.concepts + d.relations AS size, "
            "d.label_vectors AS labels, d.abstract_sentences AS sentences ORDER BY d.id",
            corpus=corpus,
        )
        return ContentVectors(
            [r["id"] for r in rows],
            [self._features(r["id"], r["features"]) for r in rows],
            [int(r["size"] or 0) for r in rows],
            _label_vectors(r["labels"] for r in rows),
            [unpack_sentence_rows(r["sentences"])[1] for r in rows],
        )

    def similar_documents(
        self, doc_id: str, k: int | None = 100, *, corpus: str | None = None
    ) -> list[tuple[str, float]]:
        """Stage 1 through the server's vector index (HNSW, approximate) on the
        hashed content vectors, without idf weighting: the ``3 k`` nearest (all,
        with a corpus filter) are re-ranked by :func:`store.vectors.combine` of
        their structural estimate (:class:`store.vectors.StructureIndex` over
        those documents) and the index's score mapped back to a cosine, times
        their clause coverage (:func:`store.vectors.covered`)."""
        self._fill_vectors()
        head = self._read(
            "MATCH (d:Document {id: $id}) "
            "RETURN d.content_vector AS v, d.features AS features, d.label_vectors AS labels, "
            "d.abstract_sentences AS sentences",
            id=doc_id,
        )
        if not head:
            raise StoreError(self.location, f"no stored graph for document {doc_id}")
        if head[0]["v"] is None:
            return []
        total = self._read("MATCH (d:Document) WHERE d.content_vector IS NOT NULL RETURN count(d) AS n")[0][
            "n"
        ]
        wanted = total if k is None else min(total, 3 * k + 1)
        if corpus is not None:
            wanted = total  # the index cannot filter by corpus first, so ask for all of them
        rows = self._read(
            f"CALL db.index.vector.queryNodes('{VECTOR_INDEX}', $wanted, $vector) YIELD node, score "
            "WHERE node.id <> $id "
            "AND ($corpus IS NULL OR EXISTS { (:Corpus {name: $corpus})-[:CONTAINS]->(node) }) "
            "RETURN node.id AS id, score, node.features AS features, node.label_vectors AS labels, "
            "node.abstract_sentences AS sentences",
            wanted=max(1, wanted),
            vector=head[0]["v"],
            id=doc_id,
            corpus=corpus,
        )
        if not rows:
            return []
        vectors = _label_vectors([head[0]["labels"], *(r["labels"] for r in rows)])
        pool = StructureIndex.build([self._features(r["id"], r["features"]) for r in rows], vectors=vectors)
        share = pool.share(self._features(doc_id, head[0]["features"]))
        scores = combine(share, [2.0 * float(r["score"]) - 1.0 for r in rows])
        probe = unpack_sentence_rows(head[0]["sentences"])[1]
        if probe is not None:
            sentences = SentenceRows.build([unpack_sentence_rows(r["sentences"])[1] for r in rows])
            scores = covered(scores, probe, sentences, len(rows) if k is None else k)
        found = sorted(((r["id"], float(x)) for r, x in zip(rows, scores)), key=lambda x: (-x[1], x[0]))
        return found if k is None else found[:k]


def _label_vectors(texts: Iterable[str | None]) -> dict[str, np.ndarray]:
    """The clause vectors of the documents' relation labels, from their stored JSON
    (damaged ones are left out, as vectors of another version are: computed when used)."""
    vectors: dict[str, np.ndarray] = {}
    for text in texts:
        if text:
            with contextlib.suppress(DamagedRow):
                vectors.update(unpack_label_vectors(stored_json("", "label vectors", text)))
    return vectors
