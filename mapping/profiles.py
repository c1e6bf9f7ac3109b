"""Mapping profiles: which pairs may map, what the search maximises, how a mapping scores.

A :class:`Profile` is configuration only; :mod:`mapping.mapper` and
:mod:`metrics.scores` read it. Two profiles are registered:

``paper``
    Dr Inventor as published (Hurley et al., EGPAI 2016): any two relations
    may pair whatever their similarity, the search maximises the number of
    relation pairs (then nodes, then total Lin), similarity is WordNet Lin as
    the maximum over all senses, and the Analogy Similarity is Jaccard times
    the mean Lin of the mapped pairs.

``sme``
    Structure Mapping Theory as SME implements it (Falkenhainer, Forbus and
    Gentner 1989):

    * *tiered identicality*: two relations pair only when their similarity
      reaches ``relation_floor`` (identical lemmas always do);
    * *structural evaluation*: every mapped pair carries evidence, its own
      local score plus ``trickle`` times the evidence of each mapped pair it
      is an argument of (trickle-down: higher-order relation pairs support
      the relation pairs they connect, which support their concept pairs);
      an order-1 relation pair whose arguments are shared with other mapped
      relation pairs gets ``connectivity`` more local evidence per shared
      argument, so connected structure outweighs the same number of isolated
      matches;
    * the search keeps the mapping with the greatest structural evaluation;
    * the Analogy Similarity is the *structurally weighted Jaccard*: the
      mapping's evaluation divided by the two graphs' own evaluations (each
      graph mapped onto itself) less the mapping's, so the sizes of both
      graphs count and a clone scores 1;
    * *loose concept matches*: after the structure is mapped, concepts left
      over on both sides pair one to one, most similar first, when their Lin
      reaches ``concept_floor``; each counts ``loose_concepts`` of a
      structural concept pair's local evidence and gets no trickle-down, so
      shared entities count, but less than shared structure (SME's literal
      similarity matches entities and attributes as well as relations);
    * *narrative arcs*: events have a valence (:mod:`mapping.valence`); a
      relation pair whose events are both good news or both bad counts
      ``1 + valence`` of its local evidence, one good and one bad ``1 -
      valence``, and a cause/before/contrast pair whose two argument pairs
      both match in valence ``1 + valence``: the same turn of fortune in the
      same order;
    * *relations matched by meaning*: a relation pair's similarity is the
      greater of Lin and the sentence encoder's similarity of the two labels
      as clauses with abstracted arguments (:mod:`mapping.meaning`), so verbs
      WordNet does not relate (``heat``/``warm``) can pair.

Parameters were chosen once on the development sets (docs/validity.md) and
hold for all data. Add a profile by adding an entry to :data:`PROFILES`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = ["DEFAULT_PROFILE", "PROFILES", "Profile", "get_profile"]


@dataclass(frozen=True)
class Profile:
    """How to map and score; see the module docstring."""

    name: str
    #: Named similarity of :data:`mapping.mapper.SIMILARITIES`.
    similarity: str = "lin-max"
    #: Relation pairs less similar than this are never mapped (0: any pair).
    relation_floor: float = 0.0
    #: "size": most relation pairs, then nodes, then Lin (the paper);
    #: "evaluation": greatest structural evaluation.
    objective: str = "size"
    #: Share of a pair's evidence passed down to each of its argument pairs.
    trickle: float = 0.0
    #: Local evidence of a concept pair, as a multiple of its Lin score.
    concept_weight: float = 1.0
    #: Extra local evidence of an order-1 relation pair per argument it shares.
    connectivity: float = 0.0
    #: "paper": AS = Jaccard x semantic; "weighted": AS = weighted Jaccard.
    score: str = "paper"
    #: Extra greedy runs the search may make (within the mapper's work limit).
    restarts: int = 64
    #: Narrative arcs: a relation pair whose events have the same clear valence
    #: (:mod:`mapping.valence`) counts 1 + this much local evidence, opposite
    #: valences 1 - this; a higher-order pair whose argument pairs both match, 1 + this.
    valence: float = 0.0
    #: Relation labels may also pair by meaning: a relation pair's similarity is
    #: ``max(lin, this x meaning)``, with meaning the sentence encoder's rescaled
    #: similarity of the two labels as clauses (:mod:`mapping.meaning`); 0: Lin alone.
    relation_meaning: float = 0.0
    #: Relations matched in their own clauses: a mapped order-1 relation pair's local
    #: evidence is scaled by 1 - this + this x the meaning similarity of the two
    #: relations' sentences, nouns and pronouns abstracted (:mod:`mapping.abstract_sentences`),
    #: and a concept pair's by the same of the closest two sentences that mention them.
    clause_context: float = 0.0
    #: Local evidence of a concept pair matched outside the structure (neither
    #: concept an argument of a mapped relation pair), as a share of a
    #: structural concept pair's; 0: such pairs are not mapped.
    loose_concepts: float = 0.0
    #: Loose concept pairs less similar than this are not mapped.
    concept_floor: float = 0.5

    def but(self, **changes: Any) -> Profile:
        """A copy with some fields changed (variants for benchmarks are built this way)."""
        return replace(self, **changes)


PROFILES: dict[str, Profile] = {
    # The paper's objective is the largest common subgraph; 128 restarts bring
    # the mapper to 0.99 of exact ISMAGS on bench_mapping_exact.py (64: 0.969).
    "paper": Profile(name="paper", restarts=128),
    "sme": Profile(
        name="sme",
        relation_floor=0.5,
        objective="evaluation",
        trickle=0.5,
        concept_weight=1.0,
        connectivity=0.5,
        score="weighted",
        loose_concepts=0.5,
        concept_floor=0.5,
        valence=0.5,
        relation_meaning=1.0,
        clause_context=1.0,
    ),
}

#: The profile used when none is named: the one that validates best (docs/validity.md).
DEFAULT_PROFILE = "sme"


def get_profile(profile: str | Profile | None = None) -> Profile:
    """The profile named ``profile`` (a :class:`Profile` passes through; None is the default)."""
    if isinstance(profile, Profile):
        return profile
    name = profile or DEFAULT_PROFILE
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown mapping profile {name!r}; known: {', '.join(sorted(PROFILES))}") from None
