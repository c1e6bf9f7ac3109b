"""How informative each word is in the corpus being compared: document frequencies.

TF-IDF ranks well because it knows which words are rare among the texts at
hand (Sparck Jones 1972, "A statistical interpretation of term specificity").
A mapping pairs words too, and a pair of words every text uses (``use``,
``be``, ``people``) says less about two texts than a pair of words few texts
use (``bootstrap``, ``inheritance``). :class:`CorpusStatistics` holds, for a
corpus of ROS graphs, the number of graphs each *term* occurs in, with the
terms of the content vectors (:func:`mapping.features.content_features`):
``c:<lemma>`` a concept (its ``wordnet_lemma`` when it has one), ``r:<head>``
an order-1 relation by its head verb, ``o:<label>`` a higher-order relation.
The stored content vectors carry the same terms, so a store's statistics are
the counts of its vectors' keys (:meth:`CorpusStatistics.of_features`).

The informativeness of a term is its inverse document frequency scaled to
[0, 1]::

    informativeness(t) = log((N + 1) / (df(t) + 1)) / log(N + 1)

1 for a term no graph of the corpus has (the texts compared may be outside
it), near 0 for a term every graph has. A profile's ``corpus_information``
weighs each mapped pair's local evidence by the mean informativeness of its
two terms (:mod:`mapping.evaluation`); without statistics every term counts
1, so a single comparison of two files is scored as before.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import networkx as nx

from dri.mapping.features import content_features
from dri.mapping.wordnet import normalise, relation_heads

__all__ = ["CORPUS_TERMS", "CorpusStatistics", "concept_term", "relation_term"]

#: The content-vector feature kinds that are terms (concepts, relations, higher-order relations).
CORPUS_TERMS = ("c", "r", "o")


def concept_term(word: str) -> str:
    """The term of a concept looked up as ``word`` (its ``wordnet_lemma``, else its lemma)."""
    return f"c:{normalise(word)}"


def relation_term(label: str, order: int) -> str:
    """The term of a relation with label ``label`` and order ``order``."""
    if order > 1:
        return f"o:{label}"
    heads = relation_heads(label)
    return f"r:{heads[0][0] if heads else label}"


@dataclass(frozen=True)
class CorpusStatistics:
    """Document frequencies of terms over ``documents`` graphs; see the module docstring."""

    documents: int
    frequency: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of_features(cls, vectors: Iterable[Mapping[str, float]]) -> CorpusStatistics:
        """From content vectors (feature -> count), one per document."""
        counts: Counter[str] = Counter()
        documents = 0
        for vector in vectors:
            documents += 1
            counts.update(k for k, v in vector.items() if v > 0 and k.split(":", 1)[0] in CORPUS_TERMS)
        return cls(documents, dict(counts))

    @classmethod
    def of_graphs(cls, graphs: Iterable[nx.DiGraph]) -> CorpusStatistics:
        """From ROS graphs, one per document."""
        return cls.of_features(content_features(g, CORPUS_TERMS) for g in graphs)

    def informativeness(self, term: str) -> float:
        """Inverse document frequency of ``term`` in [0, 1] (1: in no document)."""
        if self.documents <= 0:
            return 1.0
        scale = math.log(self.documents + 1)
        return math.log((self.documents + 1) / (self.frequency.get(term, 0) + 1)) / scale
