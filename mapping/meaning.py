"""Relations matched by what they mean: a sentence encoder's view of two relation labels.

WordNet Lin compares verbs through the verb hierarchy, which is shallow and
blind to phrasal verbs: ``divide`` and ``split`` share a synset, but
``push_into`` and ``pump_into``, or ``revolve_around`` and ``orbit``, score
little or nothing, and so never pair under tiered identicality. A sentence
encoder (:mod:`mapping.encoder`) has read how verbs are used. Each relation
label is embedded as a clause with its arguments abstracted to their roles
(``push_into`` -> "someone push into something"), so two labels meet when
their clauses say the same kind of thing about *someone* and *something*,
whatever the arguments are (Gentner's relational similarity, not attribute
similarity: the nouns never reach the encoder).

Clauses that share the placeholders are never far apart: over 276 pairs of
unrelated everyday verbs (as "someone X something") the cosine has median
0.31, 90th percentile 0.42 and 99th 0.60, while synonyms reach 0.6-0.97.
The cosine is rescaled from :data:`UNRELATED` (0 below it) to 1:

    meaning(a, b) = max(0, (cos(a, b) - UNRELATED) / (1 - UNRELATED))

so a pair reaches the ``sme`` relation floor of 0.5 from a cosine of 0.55
(things heating / warming things 0.86, someone splitting / dividing
something 0.75, something collapsing / falling 0.47, things singing /
sleeping 0.37). :data:`UNRELATED` was chosen once on the three story-analogy
development sets together (StoryAnalogy, AnaloBench S1 and S10, 300 items
each; docs/mapping.md): with the argument roles, 0.40, 0.30, 0.20 and 0.10
gave StoryAnalogy 0.473, 0.477, 0.500 and 0.517, S1 0.323, 0.323, 0.317 and
0.323, S10 0.353, 0.340, 0.347 and 0.343 (bare "someone X something"
clauses at 0.20, the shipped setting before: 0.510, 0.320, 0.337).

A profile's ``relation_meaning`` weight w blends it with Lin as
``max(lin, w * meaning)``: meaning can add a relation pair WordNet misses,
never take one away, and the structural constraints (one to one, parallel
connectivity) still decide which pairs map. The higher-order labels (cause,
before, ...) and ``isa`` are matched by identity only, as under Lin.

A relation keeps its argument roles (:func:`relation_keys`): the subject is
"someone" when its concept is a person (a PERSON entity or narrator, a
concept mentioned as he/she/they/..., or a noun whose first WordNet sense is
a person) and "something" otherwise; the object likewise; a missing argument
is left out, so a one-argument relation is an intransitive clause ("the wall
collapsed" -> "something collapse", "the doctor treats the tumour" ->
"someone treat something"). Matrices are over distinct keys
``(label, subject role, object role)``; a bare label stands for the key
``(label, "someone", "something")``.

Key vectors are cached per process: relation keys repeat across the
documents of a corpus, so each distinct key is encoded once.

>>> from dri.mapping.meaning import meaning_matrix
>>> m = meaning_matrix(["divide", "sing"], ["split"])
>>> bool(m[0, 0] > m[1, 0])
True
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from dri.extract.lexicon import is_person_noun
from dri.graphs.ros import HIGHER_ORDER_LEMMAS
from dri.mapping.sides import Side

__all__ = ["UNRELATED", "RelationKey", "clause", "meaning_matrix", "meaning_similarity", "relation_keys"]

#: A relation as the encoder reads it: (label, subject role, object role); a role
#: is "someone", "something" or "" (no such argument).
RelationKey = tuple[str, str, str]

#: Cosine of two clauses at which their labels' meaning similarity is 0 (see the docstring).
UNRELATED = 0.10

#: Labels matched by identity only.
_IDENTITY_ONLY = frozenset({*HIGHER_ORDER_LEMMAS, "isa"})

_LOCK = threading.Lock()
_VECTORS: dict[RelationKey, np.ndarray] = {}

Relation = str | RelationKey


def _key(relation: Relation) -> RelationKey:
    return (relation, "someone", "something") if isinstance(relation, str) else relation


def clause(label: str, subject: str = "someone", obj: str = "something") -> str:
    """The clause a relation is embedded as, its arguments abstracted to roles ("" leaves one out)."""
    return " ".join(x for x in (subject, label.replace("_", " "), obj) if x)


def relation_keys(side: Side) -> list[RelationKey]:
    """Each relation of ``side`` as (label, subject role, object role)."""
    keys = []
    for i, label in enumerate(side.rel_lemma):
        roles = []
        for arg in (side.subj[i], side.obj[i]):
            if arg < 0:
                roles.append("")
            elif side.order[i] == 2:
                roles.append("something")  # an event or a state
            else:
                person = side.con_someone[arg] or is_person_noun(side.con_word[arg])
                roles.append("someone" if person else "something")
        keys.append((label, roles[0], roles[1]))
    return keys


def _vectors(keys: Sequence[RelationKey]) -> np.ndarray:
    """Unit clause vectors of ``keys``, one row each, encoding only keys not seen before."""
    from dri.mapping.encoder import DIMENSION, sentence_encoder

    with _LOCK:
        missing = [x for x in dict.fromkeys(keys) if x not in _VECTORS]
    if missing:
        rows = sentence_encoder().encode([clause(*x) for x in missing])
        with _LOCK:
            _VECTORS.update(zip(missing, rows))
    if not keys:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return np.stack([_VECTORS[x] for x in keys])


def meaning_matrix(rows: Sequence[Relation], columns: Sequence[Relation]) -> np.ndarray:
    """The rescaled clause similarity of every row relation with every column one, in [0, 1].

    Relations are labels or :data:`RelationKey` s. Identity-only labels score 0
    against every other label (1 against the same label, whatever the roles)."""
    out = np.zeros((len(rows), len(columns)))
    if not len(rows) or not len(columns):
        return out
    row_keys, column_keys = [_key(x) for x in rows], [_key(x) for x in columns]
    cosine = _vectors(row_keys).astype(np.float64) @ _vectors(column_keys).astype(np.float64).T
    np.clip((cosine - UNRELATED) / (1.0 - UNRELATED), 0.0, 1.0, out=out)
    row_labels, column_labels = [k[0] for k in row_keys], [k[0] for k in column_keys]
    for n, label in enumerate(row_labels):
        if label in _IDENTITY_ONLY:
            out[n] = [1.0 if c == label else 0.0 for c in column_labels]
    for n, label in enumerate(column_labels):
        if label in _IDENTITY_ONLY:
            out[:, n] = [1.0 if r == label else 0.0 for r in row_labels]
    return out


def meaning_similarity(a: Relation, b: Relation) -> float:
    """:func:`meaning_matrix` of one pair of relations."""
    if _key(a) == _key(b):
        return 1.0
    return float(meaning_matrix([a], [b])[0, 0])
