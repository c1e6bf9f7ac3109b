"""Content similarity of two documents: the cosine of their sentence-encoder vectors.

MAC/FAC (Forbus, Gentner and Law 1995) keeps a description's *content* (what
it is about) apart from its *structure* (how its parts are connected) and
uses both. Structure mapping (:mod:`mapping.mapper`) scores the structure;
this module scores the content with the sentence encoder
(:mod:`mapping.encoder`, all-MiniLM-L6-v2): the content similarity of two
graphs is the cosine of their documents' vectors, clipped to [0, 1].

A graph's vector (:func:`content_vector`) is computed once per document and
kept with it: in the graph attribute :data:`CONTENT_VECTOR` (a list of
floats, so graph JSON keeps it) and in both stores beside the graph. It is
the encoder's document vector (:meth:`~mapping.encoder.SentenceEncoder.encode_document`,
overlapping windows of any length) of the text the extractor keeps in the
graph attribute ``text``. A graph made without the extractor (a graph JSON
file of an older version, a graph built by hand) has no text; its vector is
then that of its clauses read back from the graph, "subject verb object",
one per first-order relation (:func:`graph_text`). A graph with neither
scores 0.

The static word vectors this channel used before (WordLlama, words aligned
BERTScore-style, :mod:`mapping.vectors`) are no longer used here; how the two
compare on the similarity sets: docs/mapping.md, "The encoder as content".
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from dri.graphs.ros import CONCEPT, OBJ, RELATION, SUBJ
from dri.mapping.encoder import DIMENSION

__all__ = [
    "CONTENT_VECTOR",
    "FAR_CONTENT",
    "content_similarity",
    "content_vector",
    "graph_text",
    "vector_similarity",
]

#: The graph attribute that holds the document's encoder vector.
CONTENT_VECTOR = "encoder_vector"
#: Below this content similarity two texts are about different things, for
#: ``dri evaluate analogy --far`` and ``dri compare``: on STS-B, pairs the
#: annotators rated "not even on the same topic" fall mostly below it and pairs
#: on one topic mostly above (docs/mapping.md, "Far analogies").
FAR_CONTENT = 0.3


def _phrase(graph: nx.DiGraph, node: str) -> str:
    attrs = graph.nodes[node]
    mentions = attrs.get("mentions") or []
    return str(mentions[0] if mentions else attrs.get("lemma", "")).replace("_", " ")


def graph_text(graph: nx.DiGraph) -> str:
    """The document's text, else its first-order clauses read back from the graph (see the module docstring)."""
    text = graph.graph.get("text")
    if isinstance(text, str) and text.strip():
        return text
    clauses = []
    for node, attrs in graph.nodes(data=True):
        if attrs.get("type") != RELATION or attrs.get("order", 1) != 1:
            continue
        subject = [s for s, _, label in graph.in_edges(node, data="label") if label == SUBJ]
        obj = [o for _, o, label in graph.out_edges(node, data="label") if label == OBJ]
        words = [_phrase(graph, n) for n in subject if graph.nodes[n].get("type") == CONCEPT]
        words.append(str(attrs.get("lemma", "")).replace("_", " "))
        words += [_phrase(graph, n) for n in obj if graph.nodes[n].get("type") == CONCEPT]
        clauses.append((min(attrs.get("sentences") or [0]), " ".join(w for w in words if w) + "."))
    if not clauses:
        return " ".join(_phrase(graph, n) for n, t in graph.nodes(data="type") if t == CONCEPT)
    return " ".join(c for _, c in sorted(clauses, key=lambda c: c[0]))


def _kept_vector(value: object) -> np.ndarray | None:
    """A kept vector if it is one of the encoder's (a graph JSON file may hold anything there)."""
    if not isinstance(value, list) or len(value) != DIMENSION:
        return None
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value):
        return None
    vector = np.asarray(value, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else None


def content_vector(graph: nx.DiGraph) -> np.ndarray | None:
    """The document's unit encoder vector, computed on first use and kept in the graph; None without text."""
    kept = _kept_vector(graph.graph.get(CONTENT_VECTOR))
    if kept is not None:
        return kept
    text = graph_text(graph)
    if not text.strip():
        return None
    # The encoder loads onnxruntime: only when a vector is first needed.
    from dri.mapping.encoder import sentence_encoder

    vector = sentence_encoder().encode_document(text)
    graph.graph[CONTENT_VECTOR] = [round(float(x), 6) for x in vector]
    return vector


def vector_similarity(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """Cosine of two unit vectors clipped to [0, 1]; 0 if either is missing."""
    if a is None or b is None:
        return 0.0
    return min(1.0, max(0.0, float(np.dot(a, b))))


def content_similarity(source: nx.DiGraph, target: nx.DiGraph) -> float:
    """Cosine of the two documents' encoder vectors, clipped to [0, 1] (:func:`content_vector`)."""
    return vector_similarity(content_vector(source), content_vector(target))
