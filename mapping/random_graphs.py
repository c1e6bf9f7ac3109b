"""Random ROS graphs that look like real ones, for tests and benchmarks.

Concepts carry distinct real WordNet noun lemmas and relations carry verb
lemmas drawn with a Zipf-like skew (real texts repeat "be", "have", "use"),
every relation has exactly one ``subj`` and one ``obj`` edge, every concept
takes part in at least one relation, and arguments are chosen with
preferential attachment so that a few hub concepts appear, as in documents.
"""

from __future__ import annotations

import random
from functools import cache

import networkx as nx

from dri.graphs import add_triple, new_graph
from dri.mapping.wordnet import wordnet

__all__ = ["random_ros_graph", "wordnet_vocabulary"]


@cache
def wordnet_vocabulary(pos: str) -> tuple[str, ...]:
    """Single-word alphabetic WordNet lemmas of ``pos`` ("n" or "v")."""
    return tuple(w for w in wordnet().lemmas(pos) if w.isalpha() and w.islower() and len(w) > 2)


def random_ros_graph(
    nodes: int,
    rng: random.Random,
    *,
    concept_share: float = 0.45,
    verb_pool: int | None = None,
    nouns: tuple[str, ...] | None = None,
    verbs: tuple[str, ...] | None = None,
    name: str = "random",
) -> nx.DiGraph:
    """A ROS graph of exactly ``nodes`` nodes (at least 3)."""
    if nodes < 3:
        raise ValueError("a ROS graph needs at least 3 nodes (two concepts and a relation)")
    nouns = nouns if nouns is not None else wordnet_vocabulary("n")
    verbs = verbs if verbs is not None else wordnet_vocabulary("v")
    n_concepts = min(max(2, round(nodes * concept_share)), nodes - 1)
    n_relations = nodes - n_concepts
    if 2 * n_relations < n_concepts:
        n_concepts = (2 * nodes) // 3
        n_relations = nodes - n_concepts
    concepts = rng.sample(nouns, n_concepts)
    pool = rng.sample(verbs, min(len(verbs), verb_pool or max(3, n_relations // 3)))
    verb_weights = [1.0 / (rank + 1) for rank in range(len(pool))]

    # Every concept once, the remaining slots by preferential attachment.
    slots = list(concepts)
    degree = dict.fromkeys(concepts, 1)
    while len(slots) < 2 * n_relations:
        c = (
            rng.choices(concepts, weights=[degree[x] for x in concepts])[0]
            if len(slots) % 7
            else rng.choice(concepts)
        )
        degree[c] += 1
        slots.append(c)
    rng.shuffle(slots)
    g = new_graph(f"random-{nodes}-{rng.random():.12f}", name=name)
    for j in range(n_relations):
        s, o = slots[2 * j], slots[2 * j + 1]
        if s == o:  # swap with a later slot to avoid self-reference where possible
            for m in range(2 * j + 2, len(slots)):
                if slots[m] != s:
                    slots[2 * j + 1], slots[m] = slots[m], slots[2 * j + 1]
                    o = slots[2 * j + 1]
                    break
        add_triple(g, s, rng.choices(pool, weights=verb_weights)[0], o, sentence=j)
    return g
