"""Valence of events: whether a relation tells of something good or bad happening.

Far analogies share a shape of events -- effort then reward, pride then a
fall -- more than words or verbs. The valence of an event is read from the
VADER sentiment lexicon (Hutto and Gilbert 2014, "VADER: A Parsimonious
Rule-based Model for Sentiment Analysis of Social Media Text"; 7,500 words
rated -4 ... +4 by ten people each; the ``vaderSentiment`` package ships it,
MIT licence, nothing is downloaded):

* a relation's valence is the sum of the ratings of the words of its label
  (``try_to_win``: *win* +2.8); when they sum to 0 (``receive``), that of its
  object concept (*reward* +2.7), so "gets a reward" is good news and "meets
  a wolf" bad;
* a negated label (``win_not``, extractor 1.4) turns the sign;
* only clear valence counts: a sum of at least :data:`VALENCE_THRESHOLD` in
  size gives +1 or -1, anything weaker 0.

:func:`relation_valences` gives the sign of every relation of a graph, by the
index of :class:`mapping.sides.Side`; a profile's ``valence`` uses them in
the structural evaluation (:mod:`mapping.evaluation`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

__all__ = ["VALENCE_THRESHOLD", "lexicon", "relation_valences", "word_valence"]

#: Ratings of smaller size than this are not clear valence (VADER's scale is -4 ... +4).
VALENCE_THRESHOLD = 1.0
#: Label parts that are not words of the event.
_NOT_WORDS = frozenset({"not", "to"})


@lru_cache(maxsize=1)
def lexicon() -> dict[str, float]:
    """VADER's word -> mean rating, loaded once from the package's own file."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return dict(SentimentIntensityAnalyzer().lexicon)


def word_valence(word: str) -> float:
    """The summed VADER rating of the words of ``word`` (a lemma or a label, ``_``-joined)."""
    words = lexicon()
    return sum(words.get(part, 0.0) for part in word.lower().split("_") if part not in _NOT_WORDS)


def _sign(value: float) -> int:
    if value >= VALENCE_THRESHOLD:
        return 1
    if value <= -VALENCE_THRESHOLD:
        return -1
    return 0


def relation_valences(
    labels: Sequence[str], objects: Sequence[str | None], orders: Sequence[int]
) -> list[int]:
    """The valence sign (-1, 0, 1) of each relation: its label's, else its object's;
    a negated label turns it. Higher-order relations (cause, before) have none."""
    out = []
    for label, obj, order in zip(labels, objects, orders):
        if order != 1:
            out.append(0)
            continue
        value = word_valence(label)
        if value == 0.0 and obj:
            value = word_valence(obj)
        if label.endswith("_not"):
            value = -value
        out.append(_sign(value))
    return out
