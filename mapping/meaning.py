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
unrelated everyday verbs the cosine has median 0.31, 90th percentile 0.42 and
99th 0.60, while synonyms reach 0.6-0.97. The cosine is rescaled from
:data:`UNRELATED` (0 below it) to 1:

    meaning(a, b) = max(0, (cos(a, b) - UNRELATED) / (1 - UNRELATED))

so a pair reaches the ``sme`` relation floor of 0.5 from a cosine of 0.6
(``heat``/``warm`` 0.80, ``split``/``divide`` 0.66, ``sing``/``sleep`` 0.08).
:data:`UNRELATED` was chosen once on the two story-analogy development sets
(StoryAnalogy and AnaloBench S1, 300 items each; docs/mapping.md): with
``relation_meaning`` 1, 0.30, 0.20 and 0.10 gave StoryAnalogy 0.490, 0.510
and 0.503 and S1 0.317, 0.320 and 0.323, against 0.477 and 0.317 with Lin alone.

A profile's ``relation_meaning`` weight w blends it with Lin as
``max(lin, w * meaning)``: meaning can add a relation pair WordNet misses,
never take one away, and the structural constraints (one to one, parallel
connectivity) still decide which pairs map. The higher-order labels (cause,
before, ...) and ``isa`` are matched by identity only, as under Lin.

Label vectors are cached per process: relation labels repeat across the
documents of a corpus, so each distinct label is encoded once.

>>> from dri.mapping.meaning import meaning_matrix
>>> m = meaning_matrix(["divide", "sing"], ["split"])
>>> bool(m[0, 0] > m[1, 0])
True
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

import numpy as np

from dri.graphs.ros import HIGHER_ORDER_LEMMAS
from dri.mapping.blas import product

__all__ = [
    "UNRELATED",
    "clause",
    "clause_vectors",
    "cosine_at",
    "identity_only",
    "meaning_matrix",
    "meaning_similarity",
]

#: Cosine of two clauses at which their labels' meaning similarity is 0 (see the docstring).
UNRELATED = 0.20

#: Labels matched by identity only.
_IDENTITY_ONLY = frozenset({*HIGHER_ORDER_LEMMAS, "isa"})

_LOCK = threading.Lock()
_VECTORS: dict[str, np.ndarray] = {}


def clause(label: str) -> str:
    """The clause a relation label is embedded as, its arguments abstracted to roles."""
    return f"someone {label.replace('_', ' ')} something"


def _vectors(labels: Sequence[str]) -> np.ndarray:
    """Unit clause vectors of ``labels``, one row each, encoding only labels not seen before."""
    from dri.mapping.encoder import DIMENSION

    with _LOCK:
        # Identity-only labels are never compared by meaning (meaning_matrix sets
        # their rows and columns): a zero row, not an encoding.
        missing = [x for x in dict.fromkeys(labels) if x not in _VECTORS and x not in _IDENTITY_ONLY]
    if missing:
        found = _kept_or_encoded(missing)
        with _LOCK:
            _VECTORS.update(found)
    if not labels:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    zero = np.zeros(DIMENSION, dtype=np.float32)
    return np.stack([_VECTORS.get(x, zero) if x in _IDENTITY_ONLY else _VECTORS[x] for x in labels])


def _kept_or_encoded(labels: Sequence[str]) -> dict[str, np.ndarray]:
    """The clause vectors of ``labels``: those another process kept
    (:mod:`mapping.clause_cache`), the others encoded now and kept."""
    from dri.mapping.clause_cache import clause_cache
    from dri.mapping.encoder import sentence_encoder

    cache = clause_cache()
    clauses = {x: clause(x) for x in labels}
    kept = cache.get(list(clauses.values())) if cache is not None else {}
    out = {x: kept[c] for x, c in clauses.items() if c in kept}
    new = [x for x in labels if x not in out]
    if new:
        rows = sentence_encoder().encode([clauses[x] for x in new])
        out.update(zip(new, rows))
        if cache is not None:
            cache.put({clauses[x]: row for x, row in zip(new, rows)})
    return out


def clause_vectors(labels: Sequence[str]) -> np.ndarray:
    """Unit clause vectors (float32) of ``labels``, one row each, from the process's cache."""
    return _vectors(labels)


def identity_only(label: str) -> bool:
    """Whether ``label`` is matched by identity only (higher-order labels, ``isa``)."""
    return label in _IDENTITY_ONLY


def cosine_at(meaning: float) -> float:
    """The clause cosine at which two labels' meaning similarity is ``meaning`` (the inverse rescaling)."""
    return UNRELATED + meaning * (1.0 - UNRELATED)


def meaning_matrix(rows: Sequence[str], columns: Sequence[str]) -> np.ndarray:
    """The rescaled clause similarity of every row label with every column label, in [0, 1].

    Identity-only labels score 0 against every other label (1 against themselves)."""
    out = np.zeros((len(rows), len(columns)))
    if not len(rows) or not len(columns):
        return out
    # On one BLAS thread (mapping.blas.product): a whole paper's labels (~400 x 400) are
    # past OpenBLAS's threading size, and its spinning threads then cost more CPU than
    # the rest of the mapping after them; one thread also gives the same floats on any machine.
    cosine = product(_vectors(rows).astype(np.float64), _vectors(columns).astype(np.float64).T)
    np.clip((cosine - UNRELATED) / (1.0 - UNRELATED), 0.0, 1.0, out=out)
    for n, label in enumerate(rows):
        if label in _IDENTITY_ONLY:
            out[n] = [1.0 if c == label else 0.0 for c in columns]
    for n, label in enumerate(columns):
        if label in _IDENTITY_ONLY:
            out[:, n] = [1.0 if r == label else 0.0 for r in rows]
    return out


@functools.lru_cache(maxsize=1 << 16)
def meaning_similarity(a: str, b: str) -> float:
    """:func:`meaning_matrix` of one pair of labels, the same float. Kept per process: a
    pair's meaning never changes (its clause vectors are kept), and the mapper asks
    for hundreds of pairs again in every mapping."""
    if a == b:
        return 1.0
    if a in _IDENTITY_ONLY or b in _IDENTITY_ONLY:
        return 0.0
    va, vb = _VECTORS.get(a), _VECTORS.get(b)
    if va is None or vb is None:
        va, vb = _vectors([a, b])
    # A 1 x 1 matrix product is BLAS's dot of the two rows (numpy's matmul takes
    # that path), and the rescaling the same float operations on one number: a
    # fifth of the time of the matrix, for the pairs a mapping asks before its
    # label matrix is built (tested against meaning_matrix).
    cosine = float(np.dot(va.astype(np.float64), vb.astype(np.float64)))
    return min(1.0, max(0.0, (cosine - UNRELATED) / (1.0 - UNRELATED)))
