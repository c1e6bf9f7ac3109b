"""The sense of an identical word in a mapping, read from the mapping's context.

Two identical words score 1.0 through every sense, so their similarity says
nothing about which sense the texts mean, and their generic space (the
sense itself) must come from elsewhere. The most frequent SemCor sense is
often not the text's: "motion" is most often tagged as gesture.n.02 ("the
use of movements ... to communicate"). Here the sense is chosen by the rest
of the mapping, as in maximum-relatedness disambiguation (Pedersen,
Banerjee and Patwardhan 2005, "Maximizing Semantic Relatedness to Perform
Word Sense Disambiguation"), weighed against how often each sense is used.
Each candidate sense ``x`` scores

    r(x) * (PRIOR_WEIGHT + sum over context words c of  max over senses y of c of  r(y) ** SENSE_EXPONENT * lin(x, y))

where ``r`` is a sense's relative SemCor weight, ``(count + 1) / (top count
+ 1)`` among its word's senses (the word's own senses when WordNet lists
it, as :meth:`WordNet.most_frequent_sense`), and the inner term is the
``"semcor"`` similarity rule of :mod:`mapping.wordnet` between the sense
``x`` and the word ``c``. The context's support is added to
:data:`PRIOR_WEIGHT` (2.0), so a sense the context does not reach keeps its
prior, and a rarer sense replaces the most frequent one only when the
context supports it clearly more; this also keeps WordNet's verb roots,
which Lin relates to nothing but themselves (keep.v.01, "keep in a certain
state", has no hypernym). With 1.0 the rule changed a fifth more generic spaces (202 against 168)
on the demo and C&S mappings, most of the extra ones for the worse
(call.v.03, "get into communication", for "is called"; wing.n.02, an
airfoil, for a bee's wing), and lost one for the better; 3.0 kept more of
the most frequent senses the texts do not mean (rise.v.01, "move upward",
for a rising pressure). The
context of a concept pair is the words of the mapping's other concept pairs
of its part of speech (both documents'); the context of a relation pair is
the head verbs of the mapping's other relation labels. The highest score
wins, the first candidate in order on ties (the most frequent sense).

A relation label is read as its head verbs (:func:`mapping.wordnet.relation_heads`):
``revolve_around`` as WordNet's phrasal verb *revolve around* and as
*revolve* + ``around``. The extractor writes a verb and its preposition as one
label, and WordNet's phrasal verb may be an idiom unrelated to the literal
verb (its most frequent sense of *revolve around* is focus_on.v.01, "center
upon"), so the senses of every reading's head are candidates: the phrasal
verb's first (its most frequent sense is the fallback), then the base verb's.

Only the explanation changes: scores and the mapping come from the similarity
rule as before. Adjectives keep their shared synset, and ``isa`` has none.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, repeat

import numpy as np

from dri.graphs.ros import CONCEPT, RELATION
from dri.mapping.wordnet import (
    NON_WORDNET_RELATIONS,
    PAIR_CACHE_SIZE,
    SENSE_EXPONENT,
    normalise,
    relation_heads,
    wordnet,
)

__all__ = ["PRIOR_WEIGHT", "candidate_senses", "clear_caches", "generics_in_context", "sense_in_context"]

#: How much the SemCor prior of a sense counts against its support from the context.
PRIOR_WEIGHT = 2.0


def candidate_senses(word: str, pos: str, kind: str = CONCEPT) -> list[tuple[int, float]]:
    """``(offset, relative SemCor weight)`` of each sense ``word`` may mean, the most
    frequent first, then in WordNet's order.

    The senses are :meth:`WordNet.sense_counts` (the word's own when WordNet
    lists it), weighted ``(count + 1) / (top count + 1)``; a relation label's
    are those of each reading's head verb (:func:`mapping.wordnet.relation_heads`),
    the longest reading's first.
    """
    return list(_candidates(word, pos, kind))


@lru_cache(maxsize=PAIR_CACHE_SIZE)
def _candidates(word: str, pos: str, kind: str) -> tuple[tuple[int, float], ...]:
    wn = wordnet()
    words = [head for head, _ in relation_heads(word)] if kind == RELATION else [normalise(word)]
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for head in words:
        senses = wn.sense_counts(head, pos)
        top = max((count for _, count in senses), default=0) + 1
        for offset, count in sorted(senses, key=lambda sense: -sense[1]):  # stable: WordNet's order on ties
            if offset not in seen:
                seen.add(offset)
                out.append((offset, (count + 1) / top))
    return tuple(out)


@lru_cache(maxsize=PAIR_CACHE_SIZE)
def _relatedness(pos: str, offset: int, word: str) -> float:
    """max over senses y of ``word`` of r(y) ** SENSE_EXPONENT * lin(offset, y).

    Lin(x, y) is the maximum over the common ancestors c of x and y of
    2 IC(c) / (IC(x) + IC(y)) (the most informative one gives it, the others no
    more), so for the senses of one weight it is found from the least IC of those
    senses under each ancestor of x, as :meth:`WordNet.score` does for two words.
    """
    wn = wordnet()
    ic_x, ancestors = wn.synset_information(pos, offset)
    best = 0.0
    for factor, senses, least in _weighted_tables(pos, word):
        if factor <= best:
            break  # Lin is at most 1, so no lighter sense can win
        if offset in senses:
            return factor  # the sense itself: Lin 1
        lin = 0.0
        for c in ancestors & least.keys():
            denominator = ic_x + least[c]
            if 0 < denominator < math.inf:
                lin = max(lin, 2.0 * wn.information_content(pos, c) / denominator)
        best = max(best, factor * min(1.0, lin))
    return best


@lru_cache(maxsize=PAIR_CACHE_SIZE)
def _weighted_tables(pos: str, word: str) -> tuple[tuple[float, frozenset[int], dict[int, float]], ...]:
    """The senses of ``word`` grouped by ``r(y) ** SENSE_EXPONENT``, heaviest first: each
    group's senses and the least IC of them under each of their ancestors."""
    wn = wordnet()
    groups: dict[float, list[int]] = {}
    for weight, y in zip(wn.sense_weights(word, pos), wn.offsets(word, pos)):
        groups.setdefault(weight**SENSE_EXPONENT, []).append(y)
    out = []
    for factor in sorted(groups, reverse=True):
        least: dict[int, float] = {}
        for y in groups[factor]:
            ic_y, ancestors = wn.synset_information(pos, y)
            for c in ancestors:
                if ic_y < least.get(c, math.inf):
                    least[c] = ic_y
        out.append((factor, frozenset(groups[factor]), least))
    return tuple(out)


def sense_in_context(candidates: Sequence[tuple[int, float]], pos: str, context: Sequence[str]) -> int | None:
    """The candidate sense most related to the ``context`` words (see the module
    docstring); the first candidate when none relates or on ties."""
    return _sense_in_context(candidates, _context_table(pos, tuple(context)), None)


def _sense_in_context(
    candidates: Sequence[tuple[int, float]], table: _ContextTable, own: set[str] | None
) -> int | None:
    """:func:`sense_in_context` over ``table``'s words, those in ``own`` left out."""
    if not candidates:
        return None
    keep = [own is None or w not in own for w in table.words]
    size = sum(keep)
    best, chosen = -1.0, candidates[0][0]
    for offset, weight in candidates:
        if weight * (PRIOR_WEIGHT + size) <= best:
            continue  # each context word adds at most 1, so this sense cannot win
        related = table.relatedness(offset)
        # Summed in the context's order, one by one, as the words come.
        total = weight * (PRIOR_WEIGHT + sum(compress(related, keep)))
        if total > best:
            best, chosen = total, offset
    return chosen


class _ContextTable:
    """The context words' weighted sense groups (:func:`_weighted_tables`) as flat
    arrays, so that the relatedness of one sense to every context word is a few
    array operations instead of a loop per word: the same numbers as
    :func:`_relatedness`, about ten times faster on a mapping's first meeting
    with its words (docs/mapping.md)."""

    def __init__(self, pos: str, words: Sequence[str]) -> None:
        wn = wordnet()
        self.pos = pos
        self.words = list(words)
        factors: list[float] = []
        word_of: list[int] = []
        self.senses: list[frozenset[int]] = []
        ancestors: list[int] = []
        least: list[float] = []
        group_of: list[int] = []
        for n, word in enumerate(self.words):
            for factor, senses, table in _weighted_tables(pos, word):
                group_of.extend([len(factors)] * len(table))
                factors.append(factor)
                word_of.append(n)
                self.senses.append(senses)
                ancestors.extend(table.keys())
                least.extend(table.values())
        self.factor = np.asarray(factors, dtype=float)
        self.word_of = np.asarray(word_of, dtype=np.int64)
        self.ancestor = np.asarray(ancestors, dtype=np.int64)
        self.least = np.asarray(least, dtype=float)
        self.group_of = np.asarray(group_of, dtype=np.int64)
        # WordNet.information_content of every ancestor, looked up by map at C speed (a
        # whole paper's context has tens of thousands).
        ic = wn._icv[pos]  # read only
        self.ancestor_ic = np.fromiter(map(ic.get, ancestors, repeat(0.0)), dtype=float, count=len(ancestors))
        self._related: dict[int, list[float]] = {}
        # The groups each sense is in, so a sense finds its own groups without a loop over all.
        self._groups_with: dict[int, list[int]] = {}
        for n, senses in enumerate(self.senses):
            for sense in senses:
                self._groups_with.setdefault(sense, []).append(n)

    def relatedness(self, offset: int) -> list[float]:
        """:func:`_relatedness` of sense ``offset`` to each word, in order."""
        hit = self._related.get(offset)
        if hit is not None:
            return hit
        ic_x, ancestors = wordnet().synset_information(self.pos, offset)
        lin = np.zeros(len(self.factor))
        if len(self.ancestor) and ancestors:
            shared = np.isin(self.ancestor, np.fromiter(ancestors, dtype=np.int64, count=len(ancestors)))
            denominator = ic_x + self.least[shared]
            ok = (denominator > 0) & (denominator < math.inf)
            np.maximum.at(
                lin, self.group_of[shared][ok], 2.0 * self.ancestor_ic[shared][ok] / denominator[ok]
            )
        value = self.factor * np.minimum(1.0, lin)
        for n in self._groups_with.get(offset, ()):
            value[n] = self.factor[n]  # the sense itself: Lin 1
        out = np.zeros(len(self.words))
        np.maximum.at(out, self.word_of, value)
        self._related[offset] = hit = out.tolist()
        return hit


_TABLES: OrderedDict[tuple[str, tuple[str, ...]], _ContextTable] = OrderedDict()
_TABLES_KEPT = 8


def _context_table(pos: str, words: tuple[str, ...]) -> _ContextTable:
    """The table of ``words``, kept for the last few contexts (a pair compared again)."""
    key = (pos, words)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = _ContextTable(pos, words)
        while len(_TABLES) > _TABLES_KEPT:
            _TABLES.popitem(last=False)
    _TABLES.move_to_end(key)
    return table


def generics_in_context(pairs: Sequence[tuple[str, str, str, str]]) -> dict[int, str | None]:
    """The generic space of each pair of identical words among one mapping's ``pairs``
    (``(kind, source word, target word, pos)``, kind ``"concept"`` or ``"relation"``),
    by index, read from the other pairs; other pairs are left out."""
    wn = wordnet()
    words: dict[tuple[str, str], list[str]] = {}
    for kind, a, b, pos in pairs:
        for word in (a, b):
            if kind == RELATION:
                heads = [h for h, _ in relation_heads(word) if h not in NON_WORDNET_RELATIONS]
            else:
                heads = [normalise(word)]
            words.setdefault((kind, pos), []).extend(heads)
    # Words WordNet does not know relate to no sense.
    known = {
        key: tuple(w for w in dict.fromkeys(found) if wn.offsets(w, key[1]))
        for key, found in words.items()
        if key[1] in ("n", "v")
    }
    out: dict[int, str | None] = {}
    for n, (kind, a, b, pos) in enumerate(pairs):
        if normalise(a) != normalise(b) or pos not in ("n", "v"):
            continue
        if kind == RELATION and normalise(a) in NON_WORDNET_RELATIONS:
            out[n] = None
            continue
        own = {h for h, _ in relation_heads(a)} if kind == RELATION else {normalise(a)}
        table = _context_table(pos, known[(kind, pos)])
        sense = _sense_in_context(_candidates(a, pos, kind), table, own)
        out[n] = None if sense is None else wn.synset_name(pos, sense)
    return out


def clear_caches() -> None:
    """Forget the candidate senses and sense-to-word relatedness filled on use."""
    for fn in (_candidates, _relatedness, _weighted_tables):
        fn.cache_clear()
    _TABLES.clear()
