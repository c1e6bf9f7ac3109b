"""Each document's sentence-encoder vector, kept beside its graph in both stores.

:func:`mapping.content.content_vector` computes a document's vector once and
keeps it in the graph attribute :data:`mapping.content.CONTENT_VECTOR`. The
stores keep it apart from the graph's JSON: SQLite as a float32 blob in the
``encoder`` column of ``graphs``, Neo4j as the ``encoder_vector`` property of
the ``Document`` (a list of floats, in the vector index ``document_encoder``),
and put it back into the graph when they read it, so a stored document is
never encoded twice. A graph stored without one (by an older version, or
never compared) gets it when it is first compared, in memory.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from dri.graphs import to_json
from dri.mapping.content import CONTENT_VECTOR
from dri.mapping.encoder import DIMENSION

__all__ = ["ENCODER_INDEX", "attach_vector", "graph_json", "graph_vector", "vector_blob", "vector_from_blob"]

#: Neo4j's vector index over the documents' encoder vectors.
ENCODER_INDEX = "document_encoder"


def graph_vector(graph: nx.DiGraph) -> list[float] | None:
    """The graph's encoder vector as floats, or None (missing, or not a vector of the encoder's width)."""
    value = graph.graph.get(CONTENT_VECTOR)
    if value is None or len(value) != DIMENSION:
        return None
    try:
        vector = [float(x) for x in value]
    except (TypeError, ValueError):
        return None
    return vector if any(vector) else None


def graph_json(graph: nx.DiGraph) -> dict[str, Any]:
    """:func:`graphs.to_json` of ``graph`` without its encoder vector (kept apart)."""
    data = to_json(graph)
    data["graph"].pop(CONTENT_VECTOR, None)
    return data


def attach_vector(graph: nx.DiGraph, vector: Any) -> nx.DiGraph:
    """``graph`` with the stored ``vector`` (a list or a blob; None leaves it as it is)."""
    if isinstance(vector, (bytes, bytearray, memoryview)):
        vector = vector_from_blob(bytes(vector))
    if vector is not None and len(vector) == DIMENSION:
        graph.graph[CONTENT_VECTOR] = [float(x) for x in vector]
    return graph


def vector_blob(vector: list[float] | None) -> bytes | None:
    """The vector as little-endian float32 bytes (SQLite's ``encoder`` column)."""
    return None if vector is None else np.asarray(vector, dtype="<f4").tobytes()


def vector_from_blob(blob: bytes | None) -> list[float] | None:
    """Inverse of :func:`vector_blob`; None for a blob of the wrong size."""
    if not blob or len(blob) != 4 * DIMENSION:
        return None
    return [round(float(x), 6) for x in np.frombuffer(blob, dtype="<f4")]
