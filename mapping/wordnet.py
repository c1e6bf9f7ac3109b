"""WordNet Lin similarity and generic space, offline.

Dr Inventor pairs nodes by Lin's information-theoretic similarity over
WordNet (Lin 1998, "An information-theoretic definition of similarity";
Hurley et al., EGPAI 2016, "ROS Mapping"):

    lin(s1, s2) = 2 * IC(lcs) / (IC(s1) + IC(s2))

where ``lcs`` is the most informative common subsumer (hypernym or instance
hypernym) of the two synsets and ``IC`` is the SemCor information content
built by :mod:`mapping.wordnet_data`. Word similarity is the maximum over the
synsets of the two words with the given part of speech ("n" or "v").
Identical lemmas score 1.0 and words missing from WordNet score 0.0.

The *generic space* of two words (the third space of the blending model) is
the most informative common subsumer of the best-scoring synset pair, e.g.
``device.n.01`` for "leg" (leg.n.03, a furniture support) and "bus"
(busbar.n.01), a hyponym of ``instrumentality.n.03``.

Why not NLTK's ``Synset.lin_similarity``: the mapper asks for thousands of
pairs per document, so the hypernym closure of every synset and its IC are
read once from the WordNet data files into plain dicts and word pairs are
cached. Word lookup follows NLTK's ``synsets`` exactly, including its
morphology (``morphy``: "mice" -> "mouse"), so the synsets and their order
are NLTK's. Tables are filled by idempotent dict writes (atomic under the
GIL), so the functions are safe to call from Prefect thread runners; the
one-off loading is guarded by a lock.

Relation labels are the extractor's, not WordNet's: ``base_on``,
``try_to_identify``, ``pass_through``. Almost half of them are not WordNet
verbs, and would score 0 against anything but themselves. So a label is
read as a *head verb* and a *tail* of prepositions and particles: the last
verb of an ``_to_`` chain, taken as the longest prefix WordNet knows as a
verb (``take_over``, ``build_on``) and as its first word alone (``build`` +
``on``). :func:`relation_similarity` is the best Lin score of two readings'
heads, halved when their tails differ (``destroy`` against ``destroy_on``
scores 0.5), so the preposition counts without dominating the verb. The
generic space of two relations is that of the best readings' heads.

If WordNet has not been set up it is built from Debian's files on first use
(about a second); without those files a :class:`WordNetSetupError` says to run
``scripts/setup-wordnet``. Nothing is downloaded.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from dri.mapping.wordnet_data import IC_FILE, WordNetSetupError, build_wordnet, is_built, wordnet_root

__all__ = [
    "WordNet",
    "WordNetSetupError",
    "generic_space",
    "lin_and_generic",
    "lin_similarity",
    "normalise",
    "relation_generic_space",
    "relation_heads",
    "relation_similarity",
    "similarity_matrix",
    "wordnet",
]

#: Factor on the head verbs' Lin score when two relation labels' prepositions differ.
TAIL_MISMATCH = 0.5

POS = ("n", "v")
_DATA = {"n": "noun", "v": "verb"}
# WordNet's detachment rules for regular inflections, in NLTK's order.
_SUBSTITUTIONS = {
    "n": [
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    "v": [
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ],
}


def normalise(word: str) -> str:
    """WordNet's spelling of a lemma: lower case, words joined by ``_``."""
    return "_".join(word.strip().lower().replace("-", " ").split())


@dataclass(frozen=True)
class _Synset:
    offset: int
    ic: float
    ancestors: frozenset[int]  # hypernyms and instance hypernyms, self included


class WordNet:
    """The noun and verb hierarchies of WordNet 3.0 with SemCor IC, read from ``corpora``."""

    def __init__(self, corpora: Path):
        self.corpora = Path(corpora)
        self._parents: dict[str, dict[int, tuple[int, ...]]] = {}
        self._first_word: dict[str, dict[int, str]] = {}
        self._index: dict[str, dict[str, tuple[int, ...]]] = {}
        self._freq: dict[str, dict[int, float]] = {"n": {}, "v": {}}
        self._total: dict[str, float] = {"n": 0.0, "v": 0.0}
        self._icv: dict[str, dict[int, float]] = {"n": {}, "v": {}}
        self._closure: dict[str, dict[int, frozenset[int]]] = {"n": {}, "v": {}}
        self._synsets: dict[tuple[str, int], _Synset] = {}
        self._words: dict[tuple[str, str], tuple[int, ...]] = {}
        self._pairs: dict[tuple[str, str, str], tuple[float, int | None]] = {}
        self._exceptions: dict[str, dict[str, list[str]]] = {}
        for pos in POS:
            self._read_data(pos)
            self._read_index(pos)
            self._read_exceptions(pos)
        self._read_ic()

    # -- loading -----------------------------------------------------------
    def _read_data(self, pos: str) -> None:
        parents: dict[int, tuple[int, ...]] = {}
        first: dict[int, str] = {}
        with (self.corpora / "wordnet" / f"data.{_DATA[pos]}").open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                fields = line.split(" ")
                offset = int(fields[0])
                words = int(fields[3], 16)
                at = 4 + 2 * words
                ups = []
                for k in range(int(fields[at])):
                    if fields[at + 1 + 4 * k] in ("@", "@i"):
                        ups.append(int(fields[at + 2 + 4 * k]))
                parents[offset] = tuple(ups)
                first[offset] = fields[4].lower()
        self._parents[pos] = parents
        self._first_word[pos] = first

    def _read_index(self, pos: str) -> None:
        index: dict[str, tuple[int, ...]] = {}
        with (self.corpora / "wordnet" / f"index.{_DATA[pos]}").open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                fields = line.split()
                synset_count = int(fields[2])
                index[fields[0]] = tuple(int(f) for f in fields[-synset_count:])
        self._index[pos] = index

    def _read_exceptions(self, pos: str) -> None:
        exceptions: dict[str, list[str]] = {}
        with (self.corpora / "wordnet" / f"{_DATA[pos]}.exc").open(encoding="utf-8") as fh:
            for line in fh:
                inflected, *bases = line.split()
                exceptions[inflected] = bases
        self._exceptions[pos] = exceptions

    def _read_ic(self) -> None:
        with (self.corpora / "wordnet_ic" / IC_FILE).open(encoding="utf-8") as fh:
            next(fh)
            for line in fh:
                fields = line.split()
                pos, offset, value = fields[0][-1], int(fields[0][:-1]), float(fields[1])
                self._freq[pos][offset] = value
                if len(fields) == 3:  # ROOT, as NLTK sums them
                    self._total[pos] += value
        for pos in POS:
            total = self._total[pos]
            self._icv[pos] = {o: -math.log(f / total) for o, f in self._freq[pos].items() if f > 0}

    # -- synsets -------------------------------------------------------------
    def _ancestors(self, pos: str, offset: int) -> frozenset[int]:
        memo = self._closure[pos]
        hit = memo.get(offset)
        if hit is None:
            # Hypernym chains are shared, so closures are built from memoised parents.
            hit = frozenset({offset}).union(
                *(self._ancestors(pos, up) for up in self._parents[pos].get(offset, ()))
            )
            memo[offset] = hit
        return hit

    def _synset(self, pos: str, offset: int) -> _Synset:
        key = (pos, offset)
        hit = self._synsets.get(key)
        if hit is None:
            hit = _Synset(offset, self._icv[pos].get(offset, math.inf), self._ancestors(pos, offset))
            self._synsets[key] = hit
        return hit

    def _morphy(self, word: str, pos: str) -> list[str]:
        """NLTK's ``_morphy``: the word and its base forms that WordNet lists."""
        exceptions = self._exceptions[pos]
        if word in exceptions:
            forms = exceptions[word]
        else:
            forms = [word[: -len(old)] + new for old, new in _SUBSTITUTIONS[pos] if word.endswith(old)]
        index = self._index[pos]
        result: list[str] = []
        for form in [word, *forms]:
            if form in index and form not in result:
                result.append(form)
        return result

    def offsets(self, word: str, pos: str = "n") -> tuple[int, ...]:
        """Synset offsets of ``word`` in NLTK's order (after morphology)."""
        if pos not in POS:
            raise ValueError(f"pos must be 'n' or 'v', not {pos!r}")
        key = (pos, word)
        hit = self._words.get(key)
        if hit is None:
            offsets: list[int] = []
            for form in self._morphy(word, pos) if word else ():
                offsets.extend(o for o in self._index[pos][form] if o not in offsets)
            hit = tuple(offsets)
            self._words[key] = hit
        return hit

    def synsets(self, word: str, pos: str = "n") -> tuple[_Synset, ...]:
        """The synsets of ``word`` in NLTK's order (after morphology)."""
        return tuple(self._synset(pos, o) for o in self.offsets(word, pos))

    def lemmas(self, pos: str = "n") -> list[str]:
        """Every lemma WordNet lists for ``pos``, sorted."""
        return sorted(self._index[pos])

    def synset_name(self, pos: str, offset: int) -> str:
        """NLTK's name of a synset, e.g. ``instrumentality.n.03``."""
        word = self._first_word[pos][offset]
        senses = self._index[pos].get(word, ())
        number = senses.index(offset) + 1 if offset in senses else 1
        return f"{word}.{pos}.{number:02d}"

    # -- similarity ------------------------------------------------------------
    def lin(self, a: str, b: str, pos: str = "n") -> tuple[float, int | None]:
        """(Lin similarity, offset of the generic-space synset or None) of two words."""
        hit = self._pairs.get((pos, a, b))
        if hit is not None:
            return hit
        raw = (pos, a, b)
        a, b = normalise(a), normalise(b)
        if a > b:  # symmetric, so one cache entry serves both orders
            a, b = b, a
        key = (pos, a, b)
        hit = self._pairs.get(key)
        if hit is not None:
            return hit
        if a == b:
            offsets = self.offsets(a, pos)
            result = (1.0, offsets[0] if offsets else None)
        else:
            result = _best_pair(self.synsets(a, pos), self.synsets(b, pos), self._icv[pos])
        self._pairs[key] = result
        self._pairs[raw] = result
        return result


def _best_pair(
    sa: Sequence[_Synset], sb: Sequence[_Synset], ic: dict[int, float]
) -> tuple[float, int | None]:
    best, generic = -1.0, None
    for x in sa:
        for y in sb:
            if x.offset == y.offset:
                return 1.0, x.offset
            common = x.ancestors & y.ancestors
            if not common:
                continue
            # The most informative subsumer; equal IC goes to the lower offset.
            lcs = max(common, key=lambda o: (ic.get(o, 0.0), -o))
            denominator = x.ic + y.ic
            score = 2.0 * ic.get(lcs, 0.0) / denominator if 0 < denominator < math.inf else 0.0
            score = min(1.0, max(0.0, score))
            # Strictly greater keeps the first pair in sense order on ties.
            if score > best:
                best, generic = score, lcs
    return max(best, 0.0), generic


_instance: WordNet | None = None
_instance_lock = threading.Lock()


def wordnet() -> WordNet:
    """The process-wide :class:`WordNet`, loaded on first use."""
    global _instance
    if _instance is None:
        with _instance_lock:
            if _instance is None:
                if not is_built():
                    try:
                        build_wordnet()
                    except (WordNetSetupError, OSError) as err:
                        raise WordNetSetupError(
                            f"WordNet is not set up in {wordnet_root()}: run scripts/setup-wordnet ({err})"
                        ) from err
                _instance = WordNet(wordnet_root())
    return _instance


def lin_and_generic(a: str, b: str, pos: str = "n") -> tuple[float, str | None]:
    """Lin similarity and generic-space synset name of two lemmas."""
    wn = wordnet()
    score, offset = wn.lin(a, b, pos)
    return score, (None if offset is None else _name(pos, offset))


@cache
def _name(pos: str, offset: int) -> str:
    return wordnet().synset_name(pos, offset)


def lin_similarity(a: str, b: str, pos: str = "n") -> float:
    """Maximum Lin similarity over the two lemmas' synsets of part of speech ``pos``.

    >>> lin_similarity("dog", "dog")
    1.0
    >>> 0.8 < lin_similarity("dog", "cat") < 0.9
    True
    """
    return wordnet().lin(a, b, pos)[0]


def generic_space(a: str, b: str, pos: str = "n") -> str | None:
    """The most informative common hypernym of the best Lin synset pair, or None.

    >>> generic_space("dog", "cat")
    'carnivore.n.01'
    """
    return lin_and_generic(a, b, pos)[1]


def similarity_matrix(rows: Iterable[str], columns: Iterable[str], pos: str = "n") -> list[list[float]]:
    """Lin similarity of every row lemma against every column lemma."""
    wn = wordnet()
    columns = list(columns)
    return [[wn.lin(r, c, pos)[0] for c in columns] for r in rows]


@lru_cache(maxsize=65536)
def relation_heads(label: str) -> tuple[tuple[str, str], ...]:
    """The (head verb, tail) readings of a relation label, longest head first.

    ``"try_to_build_on"`` -> ``(("build_on", ""), ("build", "on"))``: the
    last verb of an ``_to_`` chain, read as the longest prefix WordNet knows
    as a verb and as its first word alone. A label WordNet does not know at
    all is read as its first word.
    """
    label = normalise(label)
    if "_to_" in label:
        label = label.rsplit("_to_", 1)[1]
    parts = label.split("_")
    wn = wordnet()
    whole = next((end for end in range(len(parts), 1, -1) if wn.offsets("_".join(parts[:end]), "v")), None)
    first_word = (parts[0], "_".join(parts[1:]))
    if whole is None:
        return (first_word,)
    return ("_".join(parts[:whole]), "_".join(parts[whole:])), first_word


@lru_cache(maxsize=262144)
def _relation_best(a: str, b: str) -> tuple[float, str, str]:
    best = (0.0, relation_heads(a)[-1][0], relation_heads(b)[-1][0])
    for head_a, tail_a in relation_heads(a):
        for head_b, tail_b in relation_heads(b):
            score = wordnet().lin(head_a, head_b, "v")[0] * (1.0 if tail_a == tail_b else TAIL_MISMATCH)
            if score > best[0]:
                best = (score, head_a, head_b)
    return best


def relation_similarity(a: str, b: str) -> float:
    """The best Lin score of two relation labels' head verbs, reduced if their tails differ.

    >>> relation_similarity("base_on", "base_on")
    1.0
    >>> relation_similarity("destroy", "destroy_on")
    0.5
    """
    if normalise(a) == normalise(b):
        return 1.0
    return _relation_best(a, b)[0]


def relation_generic_space(a: str, b: str) -> str | None:
    """The generic space of two relation labels: that of their best-scoring head verbs."""
    _, head_a, head_b = _relation_best(a, b)
    return lin_and_generic(head_a, head_b, "v")[1]
