"""How far two documents say the same kinds of thing: their abstracted sentences matched one by one.

Under ``sme`` the mapper scales each relation pair's and concept pair's
evidence by how close their abstracted sentences are
(:mod:`mapping.abstract_sentences`: nouns and pronouns replaced by roles,
rescaled cosine ``max(0, (cos - UNRELATED) / (1 - UNRELATED))``). A stage-1
estimate that sees only which relation labels may pair cannot tell a
document whose sentences say what the target's say from one that merely
uses verbs that may pair with them, and the first loses far less of its
evidence. :func:`coverage` is that missing part for a whole document: every
abstracted sentence of each side matched with its closest on the other
(the rescaled cosine), the mean of each side, and the mean of the two sides
(both graphs count, as in the Jaccard share). It is a BERTScore-style
sentence match (:func:`mapping.content.sentence_match`) on the abstracted
sentences, with the mapper's own rescaling, so it brings no new parameter.

The abstraction keeps verbs, adjectives and adverbs and drops the nouns,
so a look-alike that shares the target's entities but not what happens to
them gains nothing here: stage 1 stays an estimate of structure, not of
topic (docs/search.md, "The clause coverage").

A document without abstracted sentences (no text, or a text that does not
split into its graph's sentences) covers 1, as the mapper's factor is 1 for
pairs without a sentence.

Example::

    >>> import numpy as np
    >>> rows = SentenceRows.build([np.eye(384, dtype=np.float32)[:2], None])
    >>> [round(float(x), 3) for x in coverage(np.eye(384, dtype=np.float32)[:1], rows, np.arange(2))]
    [0.75, 1.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dri.mapping.blas import product
from dri.mapping.encoder import DIMENSION
from dri.mapping.meaning import UNRELATED

__all__ = ["SentenceRows", "coverage"]


@dataclass(frozen=True)
class SentenceRows:
    """The abstracted-sentence rows of many documents in one float16 matrix:
    document ``i``'s rows are ``rows[starts[i]:starts[i + 1]]`` (none: it has no such sentences)."""

    rows: np.ndarray  # (total rows, DIMENSION), float16, unit length
    starts: np.ndarray  # (documents + 1,), int64

    @classmethod
    def build(cls, per_document: Sequence[np.ndarray | None]) -> SentenceRows:
        counts = [0 if r is None else len(r) for r in per_document]
        starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        kept = [np.asarray(r, dtype=np.float16) for r in per_document if r is not None and len(r)]
        rows = np.concatenate(kept) if kept else np.zeros((0, DIMENSION), dtype=np.float16)
        return cls(rows, starts)

    def of(self, position: int) -> np.ndarray | None:
        """One document's rows (float32), or None if it has none."""
        start, end = self.starts[position], self.starts[position + 1]
        return self.rows[start:end].astype(np.float32) if end > start else None


def _rescaled(cosines: np.ndarray) -> np.ndarray:
    return np.clip((cosines - UNRELATED) / (1.0 - UNRELATED), 0.0, 1.0)


def coverage(probe: np.ndarray | None, rows: SentenceRows, positions: np.ndarray) -> np.ndarray:
    """The clause coverage of the probe's abstracted sentences (``probe``, unit rows) with
    each document at ``positions`` of ``rows``, in [0, 1] (module docstring); 1 where
    either side has no abstracted sentence."""
    out = np.ones(len(positions))
    if probe is None or not len(probe) or not len(positions):
        return out
    starts, ends = rows.starts[positions], rows.starts[np.asarray(positions) + 1]
    counts = ends - starts
    has = counts > 0
    if not has.any():
        return out
    wanted = np.concatenate([np.arange(s, e) for s, e in zip(starts[has], ends[has])])
    block = rows.rows[wanted].astype(np.float32)
    scores = _rescaled(product(block, np.asarray(probe, dtype=np.float32).T))  # document rows x probe rows
    offsets = np.zeros(int(has.sum()), dtype=np.int64)
    np.cumsum(counts[has][:-1], out=offsets[1:])
    # Each document sentence's best probe sentence, averaged per document ...
    backward = np.add.reduceat(scores.max(axis=1), offsets) / counts[has]
    # ... and each probe sentence's best sentence of the document, averaged.
    forward = np.maximum.reduceat(scores, offsets, axis=0).mean(axis=1)
    out[has] = (forward + backward) / 2.0
    return out
