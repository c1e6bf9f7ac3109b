"""Content similarity of two ROS graphs: their words aligned through word vectors.

MAC/FAC (Forbus, Gentner and Law 1995) keeps a description's *content* (which
predicates and entities it mentions) apart from its *structure* (how they are
connected) and uses both. Structure mapping (:mod:`mapping.mapper`) scores
the structure; this module scores the content, the way BERTScore (Zhang et
al., ICLR 2020) compares two texts, with static word vectors in place of
contextual ones:

* a graph's words are its concepts (the ``wordnet_lemma`` where there is one,
  so names count as ``person``) and the head verb of each first-order
  relation (:func:`mapping.wordnet.relation_heads`), one per relation node,
  so a verb used three times counts three times;
* each word weighs its informativeness, :meth:`mapping.wordnet.WordNet.information`
  (SemCor information content of its first sense, 1.0 for words WordNet does
  not know: names and technical terms), so "be" and "have" count little, as
  IDF would make them, without needing the corpus;
* each word of one graph is matched with its most similar word of the other
  (cosine of :mod:`mapping.vectors`, clipped at 0; identical words 1.0), and
  recall and precision are the weighted means of those best matches;
  the content similarity is their harmonic mean (F1), in [0, 1].

A graph without words scores 0. The score is symmetric and needs no mapping,
so it also rates pairs in which structure mapping finds nothing (graphs
without relations). Which variant (soft alignment or mean vectors, with or
without informativeness weights, vectors centred or not) was chosen
leave-one-set-out on the similarity sets: docs/mapping.md, "Content and the
combined similarity score".
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.vectors import word_vectors
from dri.mapping.wordnet import NON_WORDNET_RELATIONS, relation_heads, wordnet

__all__ = ["content_similarity", "content_words"]


def content_words(graph: nx.DiGraph) -> list[tuple[str, str]]:
    """The (word, part of speech) of every concept and first-order relation of ``graph``."""
    out = []
    for _, d in graph.nodes(data=True):
        if d.get("type") == CONCEPT:
            out.append((str(d.get("wordnet_lemma") or d["lemma"]), str(d.get("pos", "n"))))
        elif d.get("type") == RELATION and d.get("order", 1) == 1:
            heads = relation_heads(d["lemma"])
            head = heads[0][0] if heads else d["lemma"]
            out.append(("be" if head in NON_WORDNET_RELATIONS else head, "v"))
    return out


def _weights(words: Sequence[tuple[str, str]]) -> np.ndarray:
    wn = wordnet()
    return np.array([wn.information(w, pos) for w, pos in words], dtype=np.float64)


def content_similarity(source: nx.DiGraph, target: nx.DiGraph) -> float:
    """F1 of the informativeness-weighted best word matches of the two graphs; see the module docstring."""
    a, b = content_words(source), content_words(target)
    if not a or not b:
        return 0.0
    wa, wb = _weights(a), _weights(b)
    if wa.sum() <= 0 or wb.sum() <= 0:
        return 0.0
    sim = word_vectors().matrix([w for w, _ in a], [w for w, _ in b])
    recall = float(sim.max(axis=1) @ wa / wa.sum())
    precision = float(sim.max(axis=0) @ wb / wb.sum())
    if recall + precision <= 0:
        return 0.0
    return min(1.0, max(0.0, 2 * recall * precision / (recall + precision)))
