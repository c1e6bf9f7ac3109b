"""Structure mapping between two ROS graphs.

Dr Inventor maps a *source* ROS graph onto a *target* with a customised VF2
search (Cordella et al. 2004) under the constraints of Gentner's Structure
Mapping Theory (Hurley et al., EGPAI 2016, "ROS Mapping"):

1. the mapping is 1-to-1;
2. types match: concept to concept, relation to relation of the same order
   (``order`` 2: a higher-order relation whose arguments are relations) and
   the same arguments (a one-argument relation, subject only, pairs only with
   another one-argument relation);
3. parallel connectivity: when two relations are mapped, their subjects are
   mapped to each other and so are their objects (edge labels are kept); for
   order-2 relations the arguments are relations, whose own arguments are
   then forced in turn.

A :class:`~mapping.profiles.Profile` adds tiered identicality (relation pairs
below its ``relation_floor`` are never mapped) and says which of the
mappings found is kept (``objective``): the most relation pairs (the paper)
or the greatest structural evaluation (SME; :func:`structural_evaluation`).

Because a relation node has one ``subj`` and at most one ``obj`` edge, the
search state grows one *relation pair* at a time, together with the
argument pairs that parallel connectivity forces. A concept is therefore
mapped by the search only as an argument of a mapped relation. A profile
with ``loose_concepts`` then pairs the concepts left over on both sides, one
to one and most similar first, at or above its ``concept_floor``
(:func:`loose_concept_pairs`); none of their relations is mapped, so the result
is still a common induced subgraph of the two graphs.

The search (VF2's state-space growth, greedy with bounded restarts):

* Candidates come from the current state's neighbourhood: relation pairs
  sharing an already-mapped argument pair in the same role. Candidates that
  close the structure (both arguments already mapped) go first, which favours
  connected, systematic structure; among the rest, the candidate with the
  greatest similarity wins -- Dr Inventor's rule. The similarity of a
  candidate is the mean Lin score over the node pairs it adds (the relation
  pair and its newly mapped arguments).
* When the neighbourhood is exhausted the search continues from the best
  unmapped *seed*: the feasible relation pair with the greatest mean Lin over
  relation, subject and object. Seeds are not the cross product of the two
  graphs' relations: the target's relation labels are indexed by the WordNet
  verb synsets through which they can reach the profile's floor (or
  ``SEED_FLOOR`` when it has none; see :func:`_reach`), so each
  source label meets only identical labels and WordNet neighbours at or above
  it; under max-over-senses the similarity of every label pair is instead one
  matrix (:class:`LabelMatrix`), which gives the same pairs. Without a floor
  (the paper) any two relations of one type may still
  pair: after the seeds, the search takes untouched pairs in node order.
  The seeds are scored once for both orderings below, over arrays
  (:class:`SeedTable`), in exactly the order of the search's own keys.
* Remaining ties go to the pair with more identical lemmas, then to the
  lowest node ids (``r:2`` before ``r:10``), source first, so results are
  deterministic.
* Bounded restarts: if the first run (Dr Inventor's rule above) leaves
  relations unmapped, the search runs again with a VF2-style look-ahead
  ordering (prefer new argument pairs that can anchor the most further
  relation pairs, then similarity) and then from the next-best seeds of both
  orderings, up to ``restarts`` runs and ``work_limit`` feasibility checks
  (a count, so results do not depend on the machine; scoring the seeds is
  set-up and does not count, so big graphs still get their restarts). Under the paper's
  objective the mapping with the most relation pairs wins -- each is two
  mapped edges, so this is the largest common subgraph by edges -- then the
  one with most nodes, then the greatest total Lin; under the evaluation
  objective, the greatest structural evaluation. A graph mapped to its clone
  is complete after the first run.

Swapping the inputs: the constraints, Lin similarity (symmetric) and every
score are symmetric, and so is the search except for its last tie-break by
node id, which looks at the source's ids first. Swapping source and target
therefore gives the inverse mapping unless two candidates tie exactly on
structure, similarity and identical lemmas; then a different but equally
scored pair may be chosen, and the greedy search may end with a different
size. ``metrics`` computes Jaccard and the means symmetrically, so any
difference in the scores comes from the mapping alone.

Identical lemmas always count as similarity 1.0, whatever ``similarity`` says;
otherwise concepts are compared by their ``wordnet_lemma`` (a name's entity
class, e.g. ``person``), falling back to ``lemma``.

The work is split by job: :mod:`mapping.sides` holds a graph as index lists
and arrays, :mod:`mapping.search` the greedy search, :mod:`mapping.seeds`
the candidate seeds and their scores, :mod:`mapping.matrices` the similarity
matrices, :mod:`mapping.evaluation` the structural evaluation and loose
concepts (with the valences of :mod:`mapping.valence`); this module runs the search with restarts and
returns a :class:`Mapping`.
"""

from __future__ import annotations

import gc
import itertools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx

from dri.errors import ProjectError
from dri.graphs.ros import CONCEPT, RELATION, relation_nodes
from dri.mapping.abstract_sentences import clause_context, concept_context
from dri.mapping.evaluation import loose_concept_pairs, structural_evaluation
from dri.mapping.matrices import ConceptMatrix, LabelMatrix
from dri.mapping.meaning import meaning_similarity
from dri.mapping.profiles import Profile, get_profile
from dri.mapping.search import Search, SearchInputs, Step, seed_pairs
from dri.mapping.seeds import FULL_SEEDS, SEED_FLOOR, Candidates, Pair, SeedTable
from dri.mapping.senses import generics_in_context
from dri.mapping.sides import Side
from dri.mapping.wordnet import RULES, similarity_functions

__all__ = [
    "MAX_RELATION_PAIRS",
    "SIMILARITIES",
    "Generic",
    "MappedPair",
    "Mapping",
    "MappingTooLarge",
    "Similarity",
    "map_graphs",
]

#: Relation pairs (source relations x target relations) above which a mapping
#: is refused: its seed tables grow with the product (two texts of 5,000 short
#: sentences took 2.25 GB and 78 s, of 10,000 11.8 GB), where two whole papers
#: of a few hundred relations each make some 100,000 pairs.
MAX_RELATION_PAIRS = 4_000_000


class MappingTooLarge(ProjectError, ValueError):
    """Two graphs whose relations make more than :data:`MAX_RELATION_PAIRS` pairs."""

    advice = "compare shorter documents, or some of their sections (dri run and dri evaluate analogy take --sections)"


Similarity = Callable[[str, str, str], float]
Generic = Callable[[str, str, str], "str | None"]


@dataclass(frozen=True)
class MappedPair:
    """One node of the source paired with one node of the target."""

    source: str
    target: str
    kind: str  # "concept" or "relation"
    source_lemma: str
    target_lemma: str
    lin: float
    generic: str | None
    #: A concept pair outside the matched structure (``Profile.loose_concepts``).
    loose: bool = False
    #: The pair's evidence in the structural evaluation of the mapping: its local score plus
    #: the trickle-down share of the pairs it is an argument of (SME's match-hypothesis score).
    evidence: float = 0.0


@dataclass
class Mapping:
    """The result of :func:`map_graphs`; ``pairs`` are in the order they were mapped."""

    pairs: list[MappedPair]
    source_size: int
    target_size: int
    seconds: float
    source_name: str = ""
    target_name: str = ""
    source_relations: int = 0
    target_relations: int = 0
    runs: int = 0
    checks: int = 0
    similarity: str = "lin-max"
    profile: str = ""
    #: Structural evaluation of the mapping and of each graph mapped onto itself
    #: (see :func:`structural_evaluation`); :mod:`metrics.scores` turns them into a weighted Jaccard.
    evaluation: float = 0.0
    source_evaluation: float = 0.0
    target_evaluation: float = 0.0

    def __len__(self) -> int:
        return len(self.pairs)

    @property
    def concept_pairs(self) -> list[MappedPair]:
        return [p for p in self.pairs if p.kind == CONCEPT]

    @property
    def relation_pairs(self) -> list[MappedPair]:
        return [p for p in self.pairs if p.kind == RELATION]

    def as_dict(self) -> dict[str, str]:
        """Source node id -> target node id."""
        return {p.source: p.target for p in self.pairs}

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["pairs"] = [asdict(p) for p in self.pairs]
        return data


# -- similarity -------------------------------------------------------------


#: Named similarities a profile may choose: name -> WordNet sense rule, whose
#: ``(similarity, generic space)`` functions :func:`mapping.wordnet.similarity_functions` gives.
SIMILARITIES: dict[str, str] = {f"lin-{rule}": rule for rule in RULES}


def map_graphs(
    source: nx.DiGraph,
    target: nx.DiGraph,
    *,
    profile: str | Profile | None = None,
    similarity: Similarity | None = None,
    generic: Generic | None = None,
    restarts: int | None = None,
    work_limit: int = 60_000,
) -> Mapping:
    """Map ``source`` onto ``target``; see the module docstring for the rules.

    ``profile`` (a name of :data:`mapping.profiles.PROFILES` or a
    :class:`Profile`; None is the default profile) sets the similarity, the
    relation floor and what the search maximises. ``similarity(a, b, pos)``
    scores two lemmas in [0, 1] instead of the profile's; with a custom
    similarity and no ``generic``, pairs have no generic space; with neither,
    identical words take the sense the rest of the mapping supports
    (:mod:`mapping.senses`) and other pairs the profile's generic space.
    ``restarts`` (default: the profile's)
    bounds the extra greedy runs (0 for one run) and ``work_limit`` the
    feasibility checks they may spend in all (a count, not a clock, so
    results do not depend on the machine).

    Raises :class:`TypeError` for a side that is not a directed graph, and
    :class:`MappingTooLarge` for two whose relations make more than
    :data:`MAX_RELATION_PAIRS` pairs.
    """
    for side, graph in (("source", source), ("target", target)):
        # A path, a text or an undirected graph failed deep inside with an
        # AttributeError ('str' object has no attribute 'nodes', no '_pred').
        if not isinstance(graph, nx.DiGraph):
            raise TypeError(
                f"map_graphs: {side} must be a ROS graph (networkx.DiGraph, e.g. from "
                f"dri.graph_from_text or dri.graph_from_path), not {type(graph).__name__}"
            )
    _refuse_too_large(source, target)
    with _collector_paused():
        return _map_graphs(source, target, profile, similarity, generic, restarts, work_limit)


def _refuse_too_large(source: nx.DiGraph, target: nx.DiGraph) -> None:
    """:class:`MappingTooLarge` if the two graphs' relations make too many pairs."""
    sizes = len(relation_nodes(source)), len(relation_nodes(target))
    if sizes[0] * sizes[1] > MAX_RELATION_PAIRS:
        # Without names: a run's failure and dri compare's line name the pair as the user gave it.
        raise MappingTooLarge(
            f"{sizes[0]:,} relations against {sizes[1]:,}: {sizes[0] * sizes[1]:,} relation pairs, "
            f"over the {MAX_RELATION_PAIRS:,} a mapping takes"
        )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while mapping.

    A mapping allocates many small objects and makes no reference cycles, yet
    the allocations trigger collections that scan every object the process
    holds (WordNet's tables among them): a tenth to a fifth of a cold mapping's
    time. Reference counting still frees everything. Mappings in other threads
    may overlap: whichever found the collector on turns it back on.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _map_graphs(
    source: nx.DiGraph,
    target: nx.DiGraph,
    profile: str | Profile | None,
    similarity: Similarity | None,
    generic: Generic | None,
    restarts: int | None,
    work_limit: int,
) -> Mapping:
    prof = get_profile(profile)
    if restarts is None:
        restarts = prof.restarts
    # Candidate seeds come from a WordNet index of the relation labels when the
    # similarity is WordNet's; a custom similarity gets every pair.
    wordnet_labels = similarity is None
    # WordNet's own generic spaces read identical words' senses from the mapping.
    senses_in_context = wordnet_labels and generic is None
    # Loading WordNet is a one-off per process, not part of the mapping time.
    similarity, generic, name = _similarity(prof, similarity, generic)
    started = time.perf_counter()
    cached = _checked(similarity)
    s, t = Side.of(source), Side.of(target)
    floor = prof.relation_floor
    # Under a named WordNet rule, similarities come in matrices (computed on first use).
    rule = SIMILARITIES[prof.similarity] if wordnet_labels else None
    concepts = ConceptMatrix(s, t, rule, cached) if rule else None
    labels = LabelMatrix(s, t, rule, cached, prof.relation_meaning) if rule else None
    candidates = None
    if wordnet_labels and (floor > 0.0 or len(s.relations) * len(t.relations) > FULL_SEEDS):
        candidates = Candidates(s, t, lambda a, b: cached(a, b, "v"), max(floor, SEED_FLOOR), labels)
    inputs = SearchInputs(
        s,
        t,
        cached,
        floor=floor,
        candidates=candidates,
        table=SeedTable(candidates),
        concepts=concepts,
        labels=labels,
        context=clause_context(source, target, s, t, prof.clause_context)
        if prof.clause_context > 0.0
        else None,
        concept_context=concept_context(source, target, s, t, prof.clause_context)
        if prof.clause_context > 0.0
        else None,
    )
    search = Search(inputs)
    best, runs, ahead = _best_order(s, t, search, prof, restarts, work_limit)
    structural = len(best)
    if prof.loose_concepts > 0.0:
        best = best + loose_concept_pairs(s, t, best, search, prof.concept_floor)
    evidence: dict[tuple[str, int], float] = {}
    evaluation = structural_evaluation(s, t, best, search.rel_evidence, search.con_evidence, prof, evidence)
    return Mapping(
        pairs=_mapped_pairs(s, t, best, structural, search, generic, evidence, senses_in_context),
        source_size=source.number_of_nodes(),
        target_size=target.number_of_nodes(),
        seconds=time.perf_counter() - started,
        source_name=str(source.graph.get("name", "")),
        target_name=str(target.graph.get("name", "")),
        source_relations=len(s.relations),
        target_relations=len(t.relations),
        runs=runs,
        checks=search.work + (ahead.work if ahead else 0),
        similarity=name,
        profile=prof.name,
        evaluation=evaluation,
        source_evaluation=structural_evaluation(s, None, None, search.rel_lin, search.con_lin, prof),
        target_evaluation=structural_evaluation(t, None, None, search.rel_lin, search.con_lin, prof),
    )


def _similarity(
    prof: Profile, similarity: Similarity | None, generic: Generic | None
) -> tuple[Similarity, Generic | None, str]:
    """The similarity and generic space to map with, and the similarity's name: the
    profile's named WordNet rule unless the caller gives a similarity of its own."""
    if similarity is not None:
        return similarity, generic, getattr(similarity, "__name__", "custom")
    if prof.similarity not in SIMILARITIES:
        raise ValueError(
            f"profile {prof.name!r}: unknown similarity {prof.similarity!r}; known: {', '.join(SIMILARITIES)}"
        )
    similarity, default_generic = similarity_functions(SIMILARITIES[prof.similarity])
    if prof.relation_meaning > 0.0:
        similarity = _with_meaning(similarity, prof.relation_meaning)
    return similarity, generic or default_generic, prof.similarity


def _with_meaning(lin: Similarity, weight: float) -> Similarity:
    """``lin``, with relation labels also paired by meaning (:mod:`mapping.meaning`):
    ``max(lin, weight x meaning)`` for verbs, as :class:`LabelMatrix` computes it."""

    def similarity(a: str, b: str, pos: str) -> float:
        value = lin(a, b, pos)
        return max(value, weight * meaning_similarity(a, b)) if pos == "v" else value

    return similarity


def _checked(similarity: Similarity) -> Similarity:
    """``similarity`` cached per lemma pair and part of speech, refusing values outside [0, 1]."""
    cache: dict[tuple[str, str, str], float] = {}

    def cached(a: str, b: str, pos: str) -> float:
        key = (a, b, pos)
        value = cache.get(key)
        if value is None:
            value = float(similarity(a, b, pos))
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"similarity({a!r}, {b!r}, {pos!r}) = {value}, outside [0, 1]")
            cache[key] = value
        return value

    return cached


def _best_order(
    s: Side,
    t: Side,
    search: Search,
    prof: Profile,
    restarts: int,
    work_limit: int,
) -> tuple[list[Step], int, Search | None]:
    """The best mapping (as the search's order of pairs) of a first greedy run and
    bounded restarts, the number of runs, and the look-ahead search if it ran."""
    floor, candidates = prof.relation_floor, search.candidates
    relation_bound = min(len(s.relations), len(t.relations))
    bound = (
        relation_bound,
        relation_bound + min(s.reachable_concepts, t.reachable_concepts, 2 * relation_bound),
    )

    def quality(order: list[Step]) -> tuple[float, float, float]:
        relations, total = 0, 0.0
        for kind, a, b in order:
            if kind == RELATION:
                relations += 1
                total += search.rel_lin(a, b)
            else:
                total += search.con_lin(a, b)
        if prof.objective == "evaluation":
            # The greatest structural evaluation: systematic, similar structure.
            return (
                round(structural_evaluation(s, t, order, search.rel_evidence, search.con_evidence, prof), 9),
                relations,
                len(order),
            )
        # Relation pairs first (each is two mapped edges: the largest common
        # subgraph by edges, i.e. systematic structure), then nodes, then Lin.
        return relations, len(order), round(total, 9)

    def complete(order: list[Step]) -> bool:
        relations = sum(1 for kind, _, _ in order if kind == RELATION)
        if (relations, len(order)) >= bound:
            return True
        if floor > 0.0 and candidates is not None:
            # Under a floor no pair outside the candidates is feasible, so fewer
            # relations may already be all there are.
            return relations >= candidates.mappable()
        return False

    best = search.run(None)
    best_quality = quality(best)
    runs = 1
    ahead: Search | None = None
    if best and not complete(best) and restarts > 0:
        # Bounded restarts: the look-ahead search from its best seed, then both
        # searches from their next-best seeds in turn; the best mapping wins.
        ahead = Search(search.inputs, structure=True)
        tried: list[set[Pair]] = [{best[0][1:]}, set()]
        exact = ((key[-2], key[-1]) for key in search.exact_seeds())
        queues = [itertools.chain(exact, seed_pairs(search)), seed_pairs(ahead)]
        plans: list[tuple[int, Pair | None]] = [(1, None)]
        while runs <= restarts and search.work + ahead.work < work_limit:
            if not plans:
                for mode in (0, 1):
                    for pair in queues[mode]:
                        if pair not in tried[mode]:
                            plans.append((mode, pair))
                            break
                if not plans:
                    break
            mode, first = plans.pop(0)
            order = (search, ahead)[mode].run(first)
            runs += 1
            if order:
                tried[mode].add(order[0][1:])
            q = quality(order)
            if q > best_quality:
                best, best_quality = order, q
            if complete(best):
                break
    return best, runs, ahead


def _mapped_pairs(
    s: Side,
    t: Side,
    order: list[Step],
    structural: int,
    search: Search,
    generic: Generic | None,
    evidence: dict[tuple[str, int], float],
    senses_in_context: bool = False,
) -> list[MappedPair]:
    """The pairs of ``order`` as node ids and lemmas, with their ``evidence`` by (kind,
    source index); those past ``structural`` are loose. With ``senses_in_context``,
    identical words take the sense the rest of the mapping suggests as their generic
    space (:func:`mapping.senses.generics_in_context`)."""
    words = [
        (RELATION, s.rel_lemma[a], t.rel_lemma[b], "v")
        if kind == RELATION
        else (CONCEPT, s.con_word[a], t.con_word[b], s.con_pos[a])
        for kind, a, b in order
    ]
    in_context = generics_in_context(words) if senses_in_context and generic else {}
    pairs = []
    for n, (kind, a, b) in enumerate(order):
        if kind == RELATION:
            sn, tn, sl, tl = s.relations[a], t.relations[b], s.rel_lemma[a], t.rel_lemma[b]
            lin = search.rel_lin(a, b)
        else:
            sn, tn, sl, tl = s.concepts[a], t.concepts[b], s.con_lemma[a], t.con_lemma[b]
            lin = search.con_lin(a, b)
        if n in in_context:
            gen = in_context[n]
        else:
            gen = generic(*words[n][1:]) if generic else None
        pairs.append(MappedPair(sn, tn, kind, sl, tl, lin, gen, n >= structural, evidence[(kind, a)]))
    return pairs
