"""Relations matched in their own clauses: each relation's sentence with its nouns and pronouns abstracted to roles.

A relation label says little on its own: ``divide`` and ``split`` pair by
meaning (:mod:`mapping.meaning`), but so do the ``have`` of "his book" and
the ``have`` of "her goal". What a relation does in its story is in its
sentence. So every sentence of a document is kept a second time with the
graph's concepts abstracted: each mention of a noun concept (pronouns
included) becomes *someone* (a person: a PERSON entity, ``wordnet_lemma``
``person``, or a concept mentioned as he/she/they/...) or *something*, and
a determiner or possessor before it goes ("He finally finished the epilogue
of his book" -> "someone finally finished something of something";
"the army divided to attack the fortress" and "the doctor split the rays
onto the tumour" meet). Then the nouns, names and numbers the graph made no
concept of are abstracted too (:mod:`mapping.sentence_nouns`, from WordNet:
"years of hard work and dedication" -> "something of hard work and
something"). The verbs, adjectives and adverbs stay, the nouns
never reach the encoder, so two such sentences are close when they say the
same kind of thing, whoever they say it of (Gentner's relational
similarity).

Under ``sme`` (``clause_context`` 1.0) a mapped order-1 relation pair's
local evidence is scaled by

    1 - w + w x max(0, (cos(a, b) - UNRELATED) / (1 - UNRELATED))

with a, b the encoder vectors of the two relations' abstracted sentences
and :data:`mapping.meaning.UNRELATED` the meaning rescaling. It only
weighs pairs the structural constraints (one to one, type match, parallel
connectivity, the relation floor on the labels) already allow; it never
lets a pair map, and the search keeps the mapping with the greatest
evaluation, so it prefers relation pairs from corresponding sentences.
Higher-order pairs keep their evidence. A mapped concept pair's local
evidence is scaled the same way, with the best cosine between a sentence
that mentions the source concept and one that mentions the target concept
(:func:`concept_context`): a noun the look-alike shares with the query
(identical lemma, Lin 1) weighs little when the two stories say different
things of it. A graph mapped onto itself scores each pair 1, so a clone
still scores 1, and the factor is at most 1, so every bound on the
evaluation still holds.

The sentences are those of the graph's ``text`` (the reader's sentences
joined by a space), split again by :func:`extract.sentences.split_sentences`;
a relation's sentence is the first of its ``sentences`` ids. A graph whose
text does not split into as many sentences as it has (``graph.graph
["sentences"]``), and a relation without a sentence keep their evidence (factor 1), as
before; a sentence whose abstraction is empty (nouns only) is encoded as
"something".

Each document's abstracted sentences are encoded once: their vectors are
kept in the graph attribute :data:`ABSTRACT_SENTENCES` (float16 in base64,
:func:`mapping.content.pack_rows`, after the abstraction's version
:data:`ABSTRACTION`, so that vectors of another abstraction -- a graph
stored before it changed -- are computed again, not reused), which both
stores keep with the graph;
a document is stored with them (``flows/tasks.py``), so comparing stored
documents starts no encoder for them.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence
from typing import Any, overload

import networkx as nx
import numpy as np

from dri.extract.sentences import split_sentences
from dri.graphs.ros import CONCEPT
from dri.mapping.blas import product
from dri.mapping.content import pack_rows, unpack_rows
from dri.mapping.encoder import DIMENSION
from dri.mapping.meaning import UNRELATED
from dri.mapping.sentence_nouns import abstract_other_nouns
from dri.mapping.sides import Side

__all__ = [
    "ABSTRACTION",
    "ABSTRACT_SENTENCES",
    "TableRows",
    "abstract_sentence_vectors",
    "abstract_sentences",
    "clause_context",
    "concept_context",
    "kept_rows",
]

#: The graph attribute that holds the encoder vectors of the abstracted sentences.
ABSTRACT_SENTENCES = "encoder_abstract_sentences"
#: The abstraction's version, kept before the vectors ("a2:<rows>"): vectors of another
#: abstraction (a graph stored before it changed, "<rows>" alone for the first) are not
#: reused but computed again. Raise it whenever :func:`abstract_sentences` changes.
ABSTRACTION = "a2"

_PERSON_WORDS = frozenset(
    [
        "he",
        "she",
        "him",
        "her",
        "his",
        "hers",
        "himself",
        "herself",
        "they",
        "them",
        "their",
        "themselves",
        "who",
        "whom",
        "i",
        "me",
        "my",
        "we",
        "us",
        "our",
        "you",
        "your",
    ]
)
_DETERMINER = re.compile(
    r"\b(?:the|a|an|this|that|these|those|his|her|their|its|my|our|your|some|any)\s+(someone|something)\b",
    re.IGNORECASE,
)
#: A possessor abstracted before its possession ("his assignments": someone something).
_POSSESSED = re.compile(r"\bsomeone(?:'s)?\s+(something|someone)\b")
_SPACE = re.compile(r"\s+")
#: Each graph's kept rows, decoded (by graph object, while it lives; checked against the kept value).
_UNPACKED: weakref.WeakKeyDictionary[nx.DiGraph, tuple[object, np.ndarray]] = weakref.WeakKeyDictionary()
#: Each graph's concepts' sentences (see _concept_sentences), by its number of concepts and sentences.
_SENTENCES_BY_CONCEPT: weakref.WeakKeyDictionary[
    nx.DiGraph, tuple[tuple[int, int], np.ndarray, list[tuple[int, list[int]]]]
] = weakref.WeakKeyDictionary()
#: Each graph's rows by relation (see _relation_rows), kept while its decoded rows are the same.
_ROWS_BY_RELATION: weakref.WeakKeyDictionary[nx.DiGraph, tuple[np.ndarray, int, np.ndarray, np.ndarray]] = (
    weakref.WeakKeyDictionary()
)


def _role(data: dict[str, Any]) -> str:
    if data.get("entity") == "PERSON" or data.get("wordnet_lemma") == "person":
        return "someone"
    if any(str(m).lower() in _PERSON_WORDS for m in data.get("mentions") or ()):
        return "someone"
    return "something"


def _pattern(mentions: list[str]) -> re.Pattern[str] | None:
    words = sorted({m for m in mentions if m.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])")


def _without_determiners(text: str) -> str:
    text = _DETERMINER.sub(r"\1", text)
    text = _POSSESSED.sub(r"\1", text)
    return _SPACE.sub(" ", text).strip(" ,;:.")


def _abstract(text: str, roles: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, role in roles:
        text = pattern.sub(role, text)
    # The concepts first (their roles come from the graph), then the nouns it has no concept of.
    return _without_determiners(abstract_other_nouns(_without_determiners(text)))


def abstract_sentences(graph: nx.DiGraph) -> list[str] | None:
    """The graph's sentences with its noun concepts' mentions abstracted to roles (see the
    module docstring); None if its text does not split into its number of sentences."""
    sentences = split_sentences(str(graph.graph.get("text") or ""))
    if not sentences or len(sentences) != graph.graph.get("sentences"):
        return None
    by_sentence: dict[int, list[tuple[re.Pattern[str], str]]] = {}
    for _, data in graph.nodes(data=True):
        if data.get("type") != CONCEPT or data.get("pos") != "n":
            continue
        pattern = _pattern([str(m) for m in data.get("mentions") or ()])
        if pattern is None:
            continue
        for sid in data.get("sentences") or ():
            by_sentence.setdefault(int(sid), []).append((pattern, _role(data)))
    out = []
    for sid, sentence in enumerate(sentences):
        roles = sorted(by_sentence.get(sid, []), key=lambda x: -len(x[0].pattern))
        out.append(_abstract(sentence, roles))
    return out


def kept_rows(value: object) -> np.ndarray | None:
    """The rows of a kept value (:data:`ABSTRACT_SENTENCES`) of this abstraction's version;
    None for any other value."""
    if not isinstance(value, str) or not value.startswith(ABSTRACTION + ":"):
        return None
    return unpack_rows(value[len(ABSTRACTION) + 1 :])


def abstract_sentence_vectors(graph: nx.DiGraph) -> np.ndarray | None:
    """Unit encoder vectors of :func:`abstract_sentences`, one row each (an empty
    abstraction a zero row), computed on first use and kept in the graph
    (:data:`ABSTRACT_SENTENCES`); None if the graph has no such sentences."""
    count = graph.graph.get("sentences")
    packed = graph.graph.get(ABSTRACT_SENTENCES)
    known = _UNPACKED.get(graph)
    if known is not None and known[0] is packed and len(known[1]) == count:
        return known[1]
    kept = kept_rows(packed)
    if kept is not None and len(kept) == count:
        # Decoded once per graph object: a stored document is compared with many.
        _UNPACKED[graph] = (packed, kept)
        return kept
    sentences = abstract_sentences(graph)
    if sentences is None:
        return None
    from dri.mapping.encoder import sentence_encoder

    # A row per sentence keeps the ids; an empty abstraction (nouns only) must still be a unit row.
    rows = sentence_encoder().encode([x or "something" for x in sentences])
    packed = f"{ABSTRACTION}:{pack_rows(rows)}"
    graph.graph[ABSTRACT_SENTENCES] = packed
    # What is kept is what is used, so a stored graph scores as the fresh one.
    return kept_rows(packed)


def _relation_rows(graph: nx.DiGraph, side: Side) -> tuple[np.ndarray, np.ndarray]:
    """The abstracted-sentence row of each order-1 relation of ``side`` that has one, and
    which relations these are (a mask); kept per graph object, as its decoded rows."""
    rows = abstract_sentence_vectors(graph)
    if rows is None:
        return np.zeros((0, DIMENSION)), np.zeros(len(side.relations), dtype=bool)
    known = _ROWS_BY_RELATION.get(graph)
    if known is not None and known[0] is rows and known[1] == len(side.relations):
        return known[2], known[3]
    nodes = graph.nodes
    index = np.full(len(side.relations), -1, dtype=np.int64)
    for n, relation in enumerate(side.relations):
        ids = nodes[relation].get("sentences") or ()
        if side.order[n] == 1 and ids and 0 <= int(ids[0]) < len(rows):
            index[n] = int(ids[0])
    mask = index >= 0
    chosen = np.ascontiguousarray(rows[index[mask]], dtype=np.float64)
    _ROWS_BY_RELATION[graph] = (rows, len(side.relations), chosen, mask)
    return chosen, mask


#: Tables of at most this many cells are made into Python floats at once (a row
#: read through :class:`TableRows` costs a method call each time; a story pair's
#: table is read about 3,000 times and holds about 10,000 cells), larger ones row by row.
EAGER_CELLS = 100_000


class TableRows(Sequence[list[float]]):
    """A float matrix read as rows of Python floats, each row made when first read.

    The search reads ``table[i][k]`` for the pairs it meets, as Python floats
    (numpy's scalar indexing is several times slower); a whole paper's
    relations x relations table is 800,000 floats, most of which it never meets.
    """

    __slots__ = ("_matrix", "_rows")

    def __init__(self, matrix: np.ndarray) -> None:
        self._matrix = matrix
        self._rows: list[list[float] | None] = [None] * len(matrix)

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> list[float]: ...

    @overload
    def __getitem__(self, i: slice) -> list[list[float]]: ...

    def __getitem__(self, i: int | slice) -> list[float] | list[list[float]]:
        if isinstance(i, slice):
            return [self[n] for n in range(len(self._rows))[i]]
        row = self._rows[i]
        if row is None:
            row = self._rows[i] = self._matrix[i].tolist()
        return row


def _rows(table: np.ndarray) -> Sequence[list[float]]:
    """``table`` as rows of Python floats: all at once when small, else row by row."""
    return table.tolist() if table.size <= EAGER_CELLS else TableRows(table)


def clause_context(
    source: nx.DiGraph, target: nx.DiGraph, s: Side, t: Side, weight: float
) -> Sequence[list[float]]:
    """The factor of every source relation's evidence with every target relation's (see the
    module docstring), as rows of a relations x relations table; 1 where either is of order 2
    or has no abstracted sentence."""
    out = np.ones((len(s.relations), len(t.relations)))
    if not s.relations or not t.relations:
        return _rows(out)
    a, first = _relation_rows(source, s)
    b, second = _relation_rows(target, t)
    if len(a) and len(b):
        own = np.clip((product(a, b.T) - UNRELATED) / (1.0 - UNRELATED), 0.0, 1.0)
        out[np.ix_(first, second)] = 1.0 - weight + weight * own
    return _rows(out)


def _concept_sentences(
    graph: nx.DiGraph, side: Side, count: int
) -> tuple[np.ndarray, list[tuple[int, list[int]]]]:
    """Each concept of ``side``: its first sentence (-1 without one), and the concepts
    mentioned in more than one sentence with all of theirs; kept per graph object."""
    known = _SENTENCES_BY_CONCEPT.get(graph)
    if known is not None and known[0] == (len(side.concepts), count):
        return known[1], known[2]
    first = np.full(len(side.concepts), -1, dtype=np.int64)
    several: list[tuple[int, list[int]]] = []
    nodes = graph.nodes
    for n, concept in enumerate(side.concepts):
        ids = sorted({int(x) for x in nodes[concept].get("sentences") or () if 0 <= int(x) < count})
        if ids:
            first[n] = ids[0]
        if len(ids) > 1:
            several.append((n, ids))
    _SENTENCES_BY_CONCEPT[graph] = ((len(side.concepts), count), first, several)
    return first, several


def concept_context(
    source: nx.DiGraph, target: nx.DiGraph, s: Side, t: Side, weight: float
) -> Sequence[list[float]]:
    """The factor of every source concept pair's local evidence (see the module docstring):
    the best rescaled cosine between a sentence that mentions the source concept and one
    that mentions the target concept, as rows of a concepts x concepts table; 1 where either
    has no abstracted sentence."""
    out = np.ones((len(s.concepts), len(t.concepts)))
    a, b = abstract_sentence_vectors(source), abstract_sentence_vectors(target)
    if a is None or b is None or not len(out) or not len(out[0]):
        return _rows(out)
    own = np.clip((product(a, b.T) - UNRELATED) / (1.0 - UNRELATED), 0.0, 1.0)
    first_s, several_s = _concept_sentences(source, s, len(a))
    first_t, several_t = _concept_sentences(target, t, len(b))
    # Each source concept's best cosine with every target sentence, then with every target concept.
    best = own[np.maximum(first_s, 0)]
    for n, ids in several_s:
        best[n] = own[ids].max(axis=0)
    factor = best[:, np.maximum(first_t, 0)]
    for n, ids in several_t:
        factor[:, n] = best[:, ids].max(axis=1)
    has_s, has_t = first_s >= 0, first_t >= 0
    out[np.ix_(has_s, has_t)] = 1.0 - weight + weight * factor[np.ix_(has_s, has_t)]
    return _rows(out)
