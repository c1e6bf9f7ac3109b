"""Scores of a mapping between two ROS graphs.

Dr Inventor rates a mapping with a structural and a semantic score and their
product, the Unified Analogy Similarity (Hurley et al., EGPAI 2016,
"Mapping Metrics"):

* Jaccard = |M| / (|V1| + |V2| - |M|), |M| the number of mapped node pairs:
  how much of the two graphs the mapping covers;
* semantic similarity: the mean Lin score over all mapped pairs;
* conceptual / relational similarity: the same mean over the concept pairs /
  the relation pairs only (the paper's best analogy: 0.37 and 0.79);
* weighted Jaccard = E(M) / (E(G1) + E(G2) - E(M)), where E is the
  structural evaluation of :mod:`mapping.mapper` (each pair's evidence, with
  trickle-down from the pairs it is an argument of) and E(Gi) that of a
  graph mapped onto itself: Jaccard in which each node pair counts by its
  evidence instead of 1, so it divides the mapped similarity by the size of
  both graphs. Under the ``paper`` profile a pair's evidence is its Lin
  score, so this is the Lin-weighted Jaccard over nodes;
* Unified Analogy Similarity (AS): the profile's headline score
  (:mod:`mapping.profiles`); Jaccard x semantic similarity under ``paper``
  (the paper's AS), the weighted Jaccard under ``sme``;
* content: :func:`mapping.content.content_similarity`, the two documents'
  sentences matched by the sentence encoder (a sentence-level BERTScore F1;
  the cosine for two one-sentence texts): what they are about, whatever
  their structure;
* coverage: the source's side of that match alone
  (:class:`mapping.content.ContentMatch`), how much of the source the target
  says: the headline of a query-by-example ranking, where the query is the
  source and a candidate is not worse for saying more;
* combined similarity: ``s x structure + (1 - s) x content`` with the
  structure ``sqrt(AS x semantic)``, the geometric mean of how much of the
  two graphs maps (AS) and how close the mapped words are (semantic: a copy
  maps identical words, an answer on the same topic looser ones), and the
  structure's share ``s = R / (R + STRUCTURE_HALF)``, R the number of
  relations of the smaller graph. Structure mapping has more to go on the
  more relations the graphs have: two graphs of 32 relations weigh structure
  and content equally, two graphs without relations get content alone.
  MAC/FAC keeps content and structure apart and uses both (Forbus, Gentner
  and Law 1995); this is the headline score of the plagiarism and
  translation evaluations, where it beat the encoder alone on data it was
  not fitted on; judgements and ranking put content first, and AS stays the
  headline of the analogy ones. The form and :data:`STRUCTURE_HALF` were
  fitted on the similarity sets and checked leave-one-set-out
  (docs/mapping.md, "The structure as coverage and closeness").

Every score lies in [0, 1] and is 0 when nothing is mapped; then ``message``
says why (an empty graph, a graph without relations, or no feasible pair).
All of them are symmetric functions of the pair set, so
swapping the two graphs changes a score only if it changes the mapping (see
:mod:`mapping.mapper` on tie-breaks).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import networkx as nx

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.content import content_match
from dri.mapping.inference import CandidateInference, candidate_inferences
from dri.mapping.mapper import Mapping, map_graphs
from dri.mapping.profiles import PROFILES, Profile, get_profile

__all__ = [
    "COUNT_NAMES",
    "MAPPING_SECONDS",
    "SCORES_VERSION",
    "SCORE_NAMES",
    "STRUCTURE_HALF",
    "Comparison",
    "Scores",
    "combine",
    "compare",
    "score_mapping",
]


@dataclass(frozen=True)
class Scores:
    # Field names are listed in SCORE_NAMES and COUNT_NAMES below, the one
    # place that reports and their CSV columns take them from.
    jaccard: float
    semantic: float
    conceptual: float
    relational: float
    analogy_similarity: float
    weighted_jaccard: float
    mapped_concepts: int
    mapped_relations: int
    message: str | None = None
    content: float = 0.0
    combined: float = 0.0
    coverage: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: The similarity scores, in the order reports show them (the similarity
#: evaluations put ``combined`` or ``content`` first: :data:`evaluate.core.SIMILARITY_HEADLINES`).
SCORE_NAMES = (
    "analogy_similarity",
    "semantic",
    "jaccard",
    "conceptual",
    "relational",
    "weighted_jaccard",
    "content",
    "combined",
    "coverage",
)
#: Relations of the smaller graph at which the structure and the encoder's
#: content weigh the same in the combined similarity (fitted on every pair of
#: the four similarity sets, checked leave-one-set-out: bench/bench_combined.py,
#: docs/mapping.md "The structure as coverage and closeness").
STRUCTURE_HALF = 32.0
#: Changes whenever a score's definition does, beyond the profile's fields
#: (2: the content matches sentences one by one; 3: the combined similarity's
#: structure is the geometric mean of AS and semantic; 4: coverage), so that a run id
#: (:func:`flows.pipeline.default_run_id`) never reads back scores of another definition.
SCORES_VERSION = "4"
#: The mapped-pair counts that come with them.
COUNT_NAMES = ("mapped_concepts", "mapped_relations")
#: The seconds :func:`compare` took on a pair (mapping and scoring): the
#: evaluation reports' column, and the key under which the store keeps them in
#: a comparison's scores JSON (``store.ComparisonRecord.mapping_seconds``).
MAPPING_SECONDS = "mapping_seconds"


@dataclass
class Comparison:
    """A mapping, its scores and its candidate inferences (:mod:`mapping.inference`),
    as ``dri compare`` and the flows use them."""

    mapping: Mapping
    scores: Scores
    inferences: list[CandidateInference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.mapping.source_name,
            "target": self.mapping.target_name,
            "scores": self.scores.to_dict(),
            "mapping": self.mapping.to_dict(),
            "inferences": [ci.to_dict() for ci in self.inferences],
        }


def _mean(values: list[float]) -> float:
    return min(1.0, max(0.0, sum(values) / len(values))) if values else 0.0


def _why_empty(mapping: Mapping) -> str:
    for side, size, relations in (
        ("source", mapping.source_size, mapping.source_relations),
        ("target", mapping.target_size, mapping.target_relations),
    ):
        if size == 0:
            return f"the {side} graph is empty; nothing to map"
        if relations == 0:
            return f"the {side} graph has no relations (verbs); nothing to map"
    return "no relation pair satisfies the mapping constraints"


def score_mapping(mapping: Mapping, profile: str | Profile | None = None) -> Scores:
    """Jaccard, semantic, conceptual, relational similarity, weighted Jaccard and AS of ``mapping``.

    The AS follows ``profile``, by default the one the mapping was made with.
    """
    prof = get_profile(profile or (mapping.profile if mapping.profile in PROFILES else "paper"))
    concepts = [p.lin for p in mapping.pairs if p.kind == CONCEPT]
    relations = [p.lin for p in mapping.pairs if p.kind == RELATION]
    size = len(mapping.pairs)
    union = mapping.source_size + mapping.target_size - size
    jaccard = size / union if union > 0 else 0.0
    semantic = _mean(concepts + relations)
    whole = mapping.source_evaluation + mapping.target_evaluation - mapping.evaluation
    weighted = min(1.0, max(0.0, mapping.evaluation / whole)) if whole > 0 and size else 0.0
    analogy = weighted if prof.score == "weighted" else jaccard * semantic
    return Scores(
        jaccard=jaccard,
        semantic=semantic,
        conceptual=_mean(concepts),
        relational=_mean(relations),
        analogy_similarity=analogy,
        weighted_jaccard=weighted,
        mapped_concepts=len(concepts),
        mapped_relations=len(relations),
        message=None if size else _why_empty(mapping),
    )


def combine(analogy_similarity: float, semantic: float, content: float, relations: int) -> float:
    """The combined similarity: the structure (the geometric mean of AS and the
    mapped pairs' mean Lin, ``semantic``) and content weighted by the smaller
    graph's ``relations``."""
    structure = math.sqrt(max(0.0, analogy_similarity) * max(0.0, semantic))
    share = relations / (relations + STRUCTURE_HALF) if relations > 0 else 0.0
    return min(1.0, max(0.0, share * structure + (1.0 - share) * content))


def compare(source: nx.DiGraph, target: nx.DiGraph, **kw: Any) -> Comparison:
    """Map ``source`` onto ``target`` (keywords go to :func:`mapping.map_graphs`), score it
    (with the content similarity of the two graphs and the combined similarity)
    and carry its candidate inferences over into the target."""
    mapping = map_graphs(source, target, **kw)
    scores = score_mapping(mapping, kw.get("profile"))
    content = content_match(source, target)
    relations = min(mapping.source_relations, mapping.target_relations)
    return Comparison(
        mapping=mapping,
        scores=replace(
            scores,
            content=content.similarity,
            combined=combine(scores.analogy_similarity, scores.semantic, content.similarity, relations),
            coverage=content.coverage,
        ),
        inferences=candidate_inferences(source, target, mapping),
    )
