"""Content similarity of two documents: their sentences matched by a sentence encoder.

MAC/FAC (Forbus, Gentner and Law 1995) keeps a description's *content* (what
it is about) apart from its *structure* (how its parts are connected) and
uses both. Structure mapping (:mod:`mapping.mapper`) scores the structure;
this module scores the content with the sentence encoder
(:mod:`mapping.encoder`, all-MiniLM-L6-v2).

The content similarity of two documents matches their sentences one by one,
a sentence-level BERTScore (Zhang et al., ICLR 2020, with sentences in place
of tokens; the late interaction of ColBERT, Khattab and Zaharia, SIGIR 2020):
every sentence of each text is matched with its most similar sentence of the
other (cosine of their encoder vectors, clipped to [0, 1]), the means of the
two sides are the precision and the recall, and their harmonic mean (F1) is
the score (:func:`sentence_match`). Two one-sentence texts score their
cosine. A reworded copy keeps sentence-for-sentence matches close to 1 that
one vector of the whole text averages away among answers on one topic: on
Clough & Stevenson the whole-text cosine ranks the plagiarism levels at rho
0.48, the sentence match at 0.71; on the other similarity sets the two are
within a point (docs/mapping.md, "Sentences matched one by one").

The source's side alone is its *coverage* (:class:`ContentMatch`): how much
of the source the target says, as ColBERT matches only the query's tokens.
A query-by-example ranks by it, because a candidate is not worse for saying
more than the query asks (one facet of a paper's abstract against whole
abstracts: docs/validity.md, "Paper search by the query's coverage").

Each document's vectors are computed once and kept with it:

* its sentences' vectors (:func:`sentence_vectors`), in the graph attribute
  :data:`SENTENCE_VECTORS` as float16 in base64 (:func:`pack_rows`), so graph
  JSON and both stores keep them with the graph;
* its document vector (:func:`content_vector`), the encoder's vector of the
  whole text (:meth:`~mapping.encoder.SentenceEncoder.encode_document`,
  overlapping windows of any length), in the graph attribute
  :data:`CONTENT_VECTOR`: the stores index it for the first stage of search
  (``store/encoder_vectors.py``), where one vector per document is needed.

The sentences are those of the text the extractor keeps in the graph
attribute ``text`` (split again by :func:`extract.sentences.split_sentences`);
a text of more than :data:`MAX_SENTENCES` sentences is matched by runs of
consecutive sentences, at most that many. A graph made without the extractor
(a graph JSON file of an older version, a graph built by hand) has no text;
its text is then its clauses read back from the graph, "subject verb object",
one per first-order relation (:func:`graph_text`). A graph with neither
scores 0.

The static word vectors this channel used before (WordLlama, words aligned
BERTScore-style, :mod:`mapping.vectors`) are no longer used here; how they
compare on the similarity sets: docs/mapping.md, "The encoder as content".
"""

from __future__ import annotations

import base64
import binascii
import itertools
import math
from dataclasses import dataclass

import networkx as nx
import numpy as np

from dri.extract.sentences import split_sentences
from dri.graphs.ros import CONCEPT, OBJ, RELATION, SUBJ
from dri.mapping.blas import product
from dri.mapping.encoder import DIMENSION

__all__ = [
    "CONTENT_VECTOR",
    "FAR_CONTENT",
    "MAX_SENTENCES",
    "SENTENCE_VECTORS",
    "ContentMatch",
    "content_match",
    "content_similarity",
    "content_vector",
    "graph_text",
    "pack_rows",
    "packed_sentence_vectors",
    "sentence_match",
    "sentence_runs",
    "sentence_vectors",
    "unpack_rows",
    "vector_similarity",
]

#: The graph attribute that holds the document's encoder vector.
CONTENT_VECTOR = "encoder_vector"
#: The graph attribute that holds the encoder vectors of the document's sentences (:func:`pack_rows`).
SENTENCE_VECTORS = "encoder_sentences"
#: A text of more sentences is matched by at most this many runs of
#: consecutive sentences: a whole paper (300 sentences) keeps its sentences,
#: and a pair costs at most a 400 x 400 matrix product and 300 KB per graph.
MAX_SENTENCES = 400
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
    # What is kept is what is used, so a stored graph scores as the fresh one.
    return _kept_vector(graph.graph[CONTENT_VECTOR])


def pack_rows(rows: np.ndarray) -> str:
    """Unit rows as float16 in base64: half the bytes, cosines within 1e-3."""
    return base64.b64encode(np.asarray(rows, dtype="<f2").tobytes()).decode("ascii")


def unpack_rows(value: object) -> np.ndarray | None:
    """Inverse of :func:`pack_rows` as float32 unit rows; None if ``value`` is not such rows."""
    if not isinstance(value, str) or not value:
        return None
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None
    if len(raw) % (2 * DIMENSION):
        return None
    rows = np.frombuffer(raw, dtype="<f2").astype(np.float32).reshape(-1, DIMENSION)
    if not np.isfinite(rows).all():
        return None
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    if not (norms > 0).all():
        return None
    unit: np.ndarray = rows / norms
    return unit


def sentence_runs(text: str) -> list[str]:
    """The sentences of ``text``, joined into at most :data:`MAX_SENTENCES` runs of consecutive ones."""
    sentences = [s for s in split_sentences(text) if s.strip()] or [text]
    if len(sentences) <= MAX_SENTENCES:
        return sentences
    bounds = np.linspace(0, len(sentences), MAX_SENTENCES + 1).round().astype(int)
    return [" ".join(sentences[a:b]) for a, b in itertools.pairwise(bounds.tolist()) if b > a]


def sentence_vectors(graph: nx.DiGraph) -> np.ndarray | None:
    """The unit encoder vectors of the document's sentences, one row each, computed on
    first use and kept in the graph (:data:`SENTENCE_VECTORS`); None without text."""
    kept = unpack_rows(graph.graph.get(SENTENCE_VECTORS))
    if kept is not None:
        return kept
    text = graph_text(graph)
    if not text.strip():
        return None
    packed = packed_sentence_vectors(text)
    graph.graph[SENTENCE_VECTORS] = packed
    # What is kept is what is used, so a stored graph scores as the fresh one.
    return unpack_rows(packed)


def packed_sentence_vectors(text: str) -> str:
    """What :func:`sentence_vectors` keeps for a document of ``text``: its sentence runs'
    unit vectors, packed (:func:`pack_rows`)."""
    from dri.mapping.encoder import sentence_encoder

    return pack_rows(sentence_encoder().encode(sentence_runs(text)))


@dataclass(frozen=True)
class ContentMatch:
    """Two documents' sentences matched: the source's side, the target's and their harmonic mean."""

    coverage: float  # each source sentence's best match in the target, averaged (precision)
    recall: float  # each target sentence's best match in the source, averaged
    similarity: float  # their harmonic mean (F1): the content similarity

    @classmethod
    def of(cls, a: np.ndarray, b: np.ndarray) -> ContentMatch:
        """The match of unit sentence vectors ``a`` (the source's rows) and ``b`` (the target's)."""
        # One BLAS thread: two cost a whole-paper pair (300 x 300 sentences) 5-13 ms of CPU
        # instead of 0.6, and their spinning slows what runs next.
        similarity = np.clip(product(a, b.T), 0.0, 1.0)
        coverage = float(similarity.max(axis=1).mean())
        recall = float(similarity.max(axis=0).mean())
        f1 = 2 * coverage * recall / (coverage + recall) if coverage + recall > 0 else 0.0
        return cls(min(1.0, coverage), min(1.0, recall), min(1.0, f1))


#: Two documents of which one has no text.
NO_MATCH = ContentMatch(0.0, 0.0, 0.0)


def sentence_match(a: np.ndarray, b: np.ndarray) -> float:
    """Sentence-level BERTScore F1 of two texts' unit sentence vectors (rows), in [0, 1]."""
    return ContentMatch.of(a, b).similarity


def vector_similarity(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """Cosine of two unit vectors clipped to [0, 1]; 0 if either is missing."""
    if a is None or b is None:
        return 0.0
    return min(1.0, max(0.0, float(np.dot(a, b))))


def content_match(source: nx.DiGraph, target: nx.DiGraph) -> ContentMatch:
    """The two documents' sentences matched (:class:`ContentMatch`); zeros if either has no text."""
    a, b = sentence_vectors(source), sentence_vectors(target)
    if a is None or b is None:
        return NO_MATCH
    return ContentMatch.of(a, b)


def content_similarity(source: nx.DiGraph, target: nx.DiGraph) -> float:
    """The two documents' sentences matched (:func:`sentence_match`); 0 if either has no text."""
    return content_match(source, target).similarity
