"""Content vectors of ROS graphs: the cheap first stage (MAC) of analogy search.

MAC/FAC (Forbus, Gentner and Law, *MAC/FAC: A Model of Similarity-Based
Retrieval*, Cognitive Science 19, 1995) retrieves analogues in two stages.
MAC ("many are called") scores every stored description against the probe
with the dot product of two *content vectors* -- how often each predicate and
entity type occurs -- which is cheap enough for the whole memory and keeps a
few candidates; FAC ("few are chosen") runs full structure mapping on those
only. This module computes the content vector of a ROS graph; ranking lives
in the stores (a sparse-matrix product on SQLite, the vector index on Neo4j)
and the two stages are put together in :mod:`dri.flows.search`.

A graph's vector counts string features:

* ``c:<lemma>`` each concept (its ``wordnet_lemma`` when it has one, so named
  people count as ``person``);
* ``r:<head>`` each first-order relation by its head verb
  (:func:`mapping.wordnet.relation_heads`: ``try_to_build_on`` -> ``build_on``);
* ``o:<lemma>`` each higher-order relation (``cause``, ``purpose``, ...);
* ``hc:<synset>`` / ``hr:<synset>`` the WordNet hypernyms of each concept's
  and each relation head's first sense, so that "planet" and "electron", or
  "attract" and "pull", share features though not words -- the far analogies
  that structure mapping finds and word overlap does not;
* ``s:c<degree>`` / ``s:r<subject degree>-<object degree>`` each node's
  structural signature: structure mapping scores the share of two graphs
  that maps (the Jaccard part of the Analogy Similarity), which depends on
  their shapes more than on their words.

Hypernyms at the very top of the hierarchy (``entity``, ``abstraction``,
...) say nothing; they are left out below :data:`MIN_HYPERNYM_IC` bits of
information content. The raw counts are stored; :func:`weigh` turns a matrix
of them into sublinear tf-idf rows of unit length, so a dot product is a
cosine. Which features to use was measured, not assumed: ``docs/search.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import networkx as nx

from dri.mapping.wordnet import normalise, relation_heads, wordnet

__all__ = ["FEATURES_VERSION", "FEATURE_SETS", "MIN_HYPERNYM_IC", "content_features"]

#: Bumped whenever the features change, so stored vectors are recomputed.
FEATURES_VERSION = "2"
#: Hypernyms with less information content (in bits... nats, as WordNet IC) are too general to count.
MIN_HYPERNYM_IC = 3.0
#: Weight of a hypernym feature against a word feature (a shared word says more).
HYPERNYM_WEIGHT = 0.5

#: Node degrees above this count as this in the structural signatures.
MAX_DEGREE = 6

#: The feature kinds compared in ``bench/bench_search.py``; ``"all"`` is the default.
FEATURE_SETS = {
    "lemmas": ("c", "r"),
    "hypernyms": ("hc", "hr"),
    "lemmas+hypernyms": ("c", "r", "hc", "hr"),
    "lemmas+hypernyms+order2": ("c", "r", "o", "hc", "hr"),
    "all": ("c", "r", "o", "hc", "hr", "s"),  # with the structural signatures
}


def _signature(graph: nx.DiGraph, node: str, data: dict) -> str:
    """The node's place in the structure: a concept by its degree, a relation by
    the degrees of its subject and object (0 when it has none)."""
    if data.get("type") != "relation":
        return f"s:c{min(graph.degree(node), MAX_DEGREE)}"
    ends = []
    for neighbours in (graph.predecessors(node), graph.successors(node)):
        first = next(iter(neighbours), None)
        ends.append(min(graph.degree(first), MAX_DEGREE) if first is not None else 0)
    return f"s:r{ends[0]}-{ends[1]}"


@lru_cache(maxsize=65536)
def _hypernyms(word: str, pos: str) -> tuple[int, ...]:
    wn = wordnet()
    synsets = wn.synsets(normalise(word), pos)
    if not synsets:
        return ()
    first = synsets[0]
    ic = wn._icv[pos]
    return tuple(
        sorted(o for o in first.ancestors if o != first.offset and ic.get(o, 0.0) >= MIN_HYPERNYM_IC)
    )


def content_features(graph: nx.DiGraph, kinds: Iterable[str] = FEATURE_SETS["all"]) -> dict[str, float]:
    """The content vector of ``graph``: feature -> count (hypernyms weighted by
    :data:`HYPERNYM_WEIGHT`). Empty for an empty graph."""
    kinds = frozenset(kinds)
    counts: Counter[str] = Counter()
    for node, data in graph.nodes(data=True):
        if "s" in kinds:
            counts[_signature(graph, node, data)] += 1
        lemma = str(data.get("wordnet_lemma") or data.get("lemma") or "")
        if not lemma:
            continue
        if data.get("type") == "relation":
            if int(data.get("order", 1) or 1) > 1:
                if "o" in kinds:
                    counts[f"o:{lemma}"] += 1
                continue
            head = relation_heads(lemma)[0][0]
            if "r" in kinds:
                counts[f"r:{head}"] += 1
            if "hr" in kinds:
                for offset in _hypernyms(head, "v"):
                    counts[f"hr:{offset}"] += HYPERNYM_WEIGHT
        else:
            if "c" in kinds:
                counts[f"c:{normalise(lemma)}"] += 1
            if "hc" in kinds and data.get("pos", "n") == "n":
                for offset in _hypernyms(lemma, "n"):
                    counts[f"hc:{offset}"] += HYPERNYM_WEIGHT
    return dict(counts)
