"""WordNet Lin similarity and generic space, offline.

Dr Inventor pairs nodes by Lin's information-theoretic similarity over
WordNet (Lin 1998, "An information-theoretic definition of similarity";
Hurley et al., EGPAI 2016, "ROS Mapping"):

    lin(s1, s2) = 2 * IC(lcs) / (IC(s1) + IC(s2))

where ``lcs`` is the most informative common subsumer (hypernym or instance
hypernym) of the two synsets and ``IC`` is the SemCor information content
built by :mod:`mapping.wordnet_data`. Identical lemmas score 1.0 and words
missing from WordNet score 0.0. How the synsets of two *words* combine is a
named **rule** (:data:`RULES`):

* ``"max"`` -- the paper's: the maximum Lin over every pair of the two words'
  synsets. Frequent words have many senses, so almost any two common verbs
  meet in some pair of rare senses: take/guide, have/make and get/become all
  score 1.0 (Hurley et al. used it; the ``paper`` mapping profile keeps it).
* ``"semcor"`` -- each sense is weighted by how often it is
  tagged in SemCor (the ``tag_cnt`` of ``index.sense``, the counts of
  ``cntlist``), add-one smoothed: ``r(s) = (count(s) + 1) / (count(s_top) + 1)``
  relative to the word's most frequent sense, and the score is
  ``max over (s1, s2) of (r(s1) * r(s2)) ** SENSE_EXPONENT * lin(s1, s2)``.
  A rare sense can still match, but only as far as it is used; a word with no
  SemCor counts keeps max-over-senses. ``bench/bench_wordnet.py`` measures it
  against the others on SimLex-999 and WordSim-353 (figures in docs/mapping.md).
  ``bench/bench_validity.py --rule`` measures what each rule does to the
  scores (docs/validity.md), which decides :data:`DEFAULT_RULE`.
* ``"first"`` -- Lin of the two most frequent senses only;
* ``"expected"`` -- the mean Lin over sense pairs weighted by their SemCor
  probabilities.

Adjectives (``pos="a"``, attribute concepts such as "weak" in "the wall was
weak") have no hypernyms, so Lin does not apply. Two adjectives score 1.0 when
they share a synset, :data:`ADJ_CLUSTER` when they are in the same
similar-to cluster (a head synset and its satellites: "weak" and "feeble"),
:data:`ADJ_ATTRIBUTE` when their clusters are values of the same attribute noun
("weak" and "strong", both of ``strength``), and 0.0 otherwise; the generic
space is the cluster's head synset or the attribute noun.

The *generic space* of two words (the third space of the blending model) is
the most informative common subsumer of the best-scoring synset pair, e.g.
``device.n.01`` for "leg" (leg.n.03, a furniture support) and "bus"
(busbar.n.01), a hyponym of ``instrumentality.n.03``.

Why not NLTK's ``Synset.lin_similarity``: the mapper asks for thousands of
pairs per document, so the hypernym closure of every synset and its IC are
read once from the WordNet data files into plain dicts, and word pairs are
cached in a per-process LRU of :data:`PAIR_CACHE_SIZE` entries (about 300
bytes each, so at most some 40 MB however many documents a process maps);
the synset tables are bounded by WordNet's size. Word lookup follows NLTK's ``synsets`` exactly, including its
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

import contextlib
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dri.errors import one_line, os_reason
from dri.literal import printable
from dri.mapping.wordnet_data import (
    IC_FILE,
    ForeignWordNet,
    WordNetSetupError,
    WordNetSourceError,
    build_wordnet,
    is_built,
    wordnet_root,
)
from dri.mapping.wordnet_snapshot import load_snapshot, save_snapshot
from dri.morphy import SUBSTITUTIONS

__all__ = [
    "DEFAULT_RULE",
    "RULES",
    "WordNet",
    "WordNetSetupError",
    "clear_caches",
    "generic_space",
    "lin_and_generic",
    "lin_similarity",
    "normalise",
    "relation_generic_space",
    "relation_heads",
    "relation_similarity",
    "relation_similarity_matrix",
    "similarity_functions",
    "similarity_matrix",
    "wordnet",
]

#: Factor on the head verbs' Lin score when two relation labels' prepositions differ.
TAIL_MISMATCH = 0.5

#: Ways of combining the senses of two words (see the module docstring).
RULES = ("semcor", "max", "first", "expected")
#: The rule used unless one is named; the ``paper`` mapping profile names ``"max"``.
DEFAULT_RULE = "max"
#: Exponent on the product of the two senses' relative SemCor weights (rule ``"semcor"``).
SENSE_EXPONENT = 0.5
#: Adjectives in the same similar-to cluster, and adjectives of the same attribute.
ADJ_CLUSTER = 0.8
ADJ_ATTRIBUTE = 0.5
#: Relation lemmas that are the extractor's own, not WordNet verbs: equal only to themselves.
NON_WORDNET_RELATIONS = frozenset({"isa"})
#: Word-pair entries kept per process (least recently used dropped first).
PAIR_CACHE_SIZE = 131_072
#: Words whose ancestor tables (for the fast max-over-senses score) are kept per process.
WORD_CACHE_SIZE = 16_384

POS = ("n", "v", "a")
_DATA = {"n": "noun", "v": "verb", "a": "adj"}
# index.sense's ss_type digit -> our part of speech (5: adjective satellite).
_SENSE_POS = {"1": "n", "2": "v", "3": "a", "5": "a"}


@lru_cache(maxsize=PAIR_CACHE_SIZE)
def normalise(word: str) -> str:
    """WordNet's spelling of a lemma: lower case, words joined by ``_`` (cached: every
    similarity asked for normalises both words)."""
    return "_".join(word.strip().lower().replace("-", " ").split())


@dataclass(frozen=True)
class _WordTable:
    """A word's ancestors for the max-over-senses score (see :meth:`WordNet.score`)."""

    least: dict[int, float]  # ancestor offset -> least IC of the word's senses under it
    senses: frozenset[int]
    informative: np.ndarray  # the ancestors with IC > 0, sorted (only they can score above 0)
    informative_least: np.ndarray
    #: The senses without a finite IC > 0 (the noun root): they meet the other word's only as a shared synset.
    uninformative: tuple[int, ...] = ()


class _Numbered:
    """The lines of an open file, counting them."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self.number = 0

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        self.number += 1  # first: a line that cannot be decoded is named too
        return next(self._lines)


@contextlib.contextmanager
def _lines(path: Path) -> Iterator[_Numbered]:
    """The lines of one of WordNet's files. One that does not read as the file
    reads (not UTF-8, a line cut short or of junk: the file damaged since it
    was set up) is a :class:`WordNetSetupError` naming the file and the line;
    before, the parser's IndexError or UnicodeDecodeError (exit 70)."""
    with path.open(encoding="utf-8") as fh:
        lines = _Numbered(fh)
        try:
            yield lines
        except (ValueError, IndexError, KeyError, ArithmeticError) as err:
            raise WordNetSetupError(
                f"{path}: line {lines.number}: a damaged WordNet file ({one_line(err)[:200]}); "
                "set WordNet up again: scripts/setup-wordnet --force"
            ) from None


@dataclass(frozen=True)
class _Synset:
    offset: int
    ic: float
    ancestors: frozenset[int]  # hypernyms and instance hypernyms, self included


#: The tables the reader makes from WordNet's files, which a snapshot must hold.
_TABLE_NAMES = frozenset(
    {
        "_adj_attributes",
        "_adj_head",
        "_closure",
        "_exceptions",
        "_first_word",
        "_freq",
        "_ic_max",
        "_icv",
        "_index",
        "_information",
        "_parents",
        "_sense_counts",
        "_synsets",
        "_total",
        "_weights",
        "_words",
    }
)


class WordNet:
    """The noun and verb hierarchies of WordNet 3.0 with SemCor IC, read from ``corpora``."""

    def __init__(self, corpora: Path, cache_size: int = PAIR_CACHE_SIZE):
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
        self._exceptions: dict[str, dict[str, list[str]]] = {}
        # Adjectives: the similar-to cluster head of each synset and the attribute nouns of each head.
        self._adj_head: dict[int, tuple[int, ...]] = {}
        self._adj_attributes: dict[int, frozenset[int]] = {}
        # SemCor tag counts of (lemma, synset offset) senses, from index.sense.
        self._sense_counts: dict[str, dict[tuple[str, int], int]] = {pos: {} for pos in POS}
        self._weights: dict[tuple[str, str], tuple[float, ...]] = {}
        self._ic_max: dict[str, float] = {"n": 1.0, "v": 1.0}
        self._information: dict[tuple[str, str], float] = {}
        for pos in POS:
            self._read_data(pos)
            self._read_index(pos)
            self._read_exceptions(pos)
        self._read_ic()
        self._read_sense_counts()
        self._add_caches(cache_size)

    def _add_caches(self, cache_size: int) -> None:
        # Bounded per instance: the mapper asks for millions of pairs over a long run.
        self._lin_cached = lru_cache(maxsize=cache_size)(self._lin_uncached)
        self._score_cached = lru_cache(maxsize=cache_size)(self._score_uncached)
        self._table_cached = lru_cache(maxsize=WORD_CACHE_SIZE)(self._ancestor_table)

    @classmethod
    def load(cls, corpora: Path, cache_size: int = PAIR_CACHE_SIZE) -> WordNet:
        """The tables of ``corpora``, from their snapshot when it is current
        (:mod:`mapping.wordnet_snapshot`), else read from the files and saved as one."""
        tables = load_snapshot(Path(corpora))
        if tables is not None and not cls.fits(tables):
            tables = None  # a snapshot of other tables (edited, or of another reader): read the files
        if tables is None:
            read = cls(corpora, cache_size)
            save_snapshot(Path(corpora), read._tables())
            return read
        loaded = cls.__new__(cls)
        loaded.__dict__.update(tables)
        loaded.corpora = Path(corpora)
        loaded._add_caches(cache_size)
        return loaded

    @staticmethod
    def fits(tables: dict[str, Any]) -> bool:
        """Whether ``tables`` are this reader's: its table names, each a dict (one
        with the right key but other tables was an AttributeError, exit 70)."""
        return set(tables) == _TABLE_NAMES | {"corpora"} and all(
            isinstance(tables[name], dict) for name in _TABLE_NAMES
        )

    def _tables(self) -> dict[str, Any]:
        """What the files gave (the caches filled on use are left out)."""
        return {k: v for k, v in self.__dict__.items() if not k.endswith("_cached")}

    # -- loading -----------------------------------------------------------
    def _read_data(self, pos: str) -> None:
        parents: dict[int, tuple[int, ...]] = {}
        first: dict[int, str] = {}
        with _lines(self.corpora / "wordnet" / f"data.{_DATA[pos]}") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                fields = line.split(" ")
                offset = int(fields[0])
                words = int(fields[3], 16)
                at = 4 + 2 * words
                ups, similar, attributes = [], [], []
                for k in range(int(fields[at])):
                    symbol, target = fields[at + 1 + 4 * k], int(fields[at + 2 + 4 * k])
                    if symbol in ("@", "@i"):
                        ups.append(target)
                    elif symbol == "&":
                        similar.append(target)
                    elif symbol == "=":
                        attributes.append(target)
                parents[offset] = tuple(ups)
                first[offset] = fields[4].lower()
                if pos == "a":
                    # A head synset ("a") is its own cluster; a satellite ("s") points to its head.
                    self._adj_head[offset] = (offset,) if fields[2] == "a" else tuple(similar)
                    if attributes:
                        self._adj_attributes[offset] = frozenset(attributes)
        self._parents[pos] = parents
        self._first_word[pos] = first

    def _read_index(self, pos: str) -> None:
        index: dict[str, tuple[int, ...]] = {}
        with _lines(self.corpora / "wordnet" / f"index.{_DATA[pos]}") as fh:
            for line in fh:
                if line.startswith("  "):
                    continue
                fields = line.split()
                synset_count = int(fields[2])
                index[fields[0]] = tuple(int(f) for f in fields[-synset_count:])
        self._index[pos] = index

    def _read_exceptions(self, pos: str) -> None:
        exceptions: dict[str, list[str]] = {}
        with _lines(self.corpora / "wordnet" / f"{_DATA[pos]}.exc") as fh:
            for line in fh:
                inflected, *bases = line.split()
                exceptions[inflected] = bases
        self._exceptions[pos] = exceptions

    def _read_ic(self) -> None:
        with _lines(self.corpora / "wordnet_ic" / IC_FILE) as fh:
            next(fh, None)
            for line in fh:
                fields = line.split()
                pos, offset, value = fields[0][-1], int(fields[0][:-1]), float(fields[1])
                self._freq[pos][offset] = value
                if len(fields) == 3:  # ROOT, as NLTK sums them
                    self._total[pos] += value
            for pos in ("n", "v"):
                total = self._total[pos]
                self._icv[pos] = {o: -math.log(f / total) for o, f in self._freq[pos].items() if f > 0}
                self._ic_max[pos] = max(self._icv[pos].values(), default=1.0) or 1.0

    def _read_sense_counts(self) -> None:
        # index.sense: "sense_key synset_offset sense_number tag_cnt", e.g. "dog%1:05:00:: 02084071 1 42".
        with _lines(self.corpora / "wordnet" / "index.sense") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) < 4 or fields[3] == "0":
                    continue
                lemma, _, lex = fields[0].partition("%")
                pos = _SENSE_POS.get(lex[:1])
                if pos is not None:
                    counts = self._sense_counts[pos]
                    key = (lemma, int(fields[1]))
                    counts[key] = counts.get(key, 0) + int(fields[3])

    # -- synsets -------------------------------------------------------------
    def _ancestors(self, pos: str, offset: int) -> frozenset[int]:
        memo = self._closure.setdefault(pos, {})
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
            hit = _Synset(offset, self._icv.get(pos, {}).get(offset, math.inf), self._ancestors(pos, offset))
            self._synsets[key] = hit
        return hit

    def _morphy(self, word: str, pos: str) -> list[str]:
        """NLTK's ``_morphy``: the word and its base forms that WordNet lists."""
        exceptions = self._exceptions[pos]
        if word in exceptions:
            forms = exceptions[word]
        else:
            forms = [word[: -len(old)] + new for old, new in SUBSTITUTIONS[pos] if word.endswith(old)]
        index = self._index[pos]
        result: list[str] = []
        for form in [word, *forms]:
            if form in index and form not in result:
                result.append(form)
        return result

    def offsets(self, word: str, pos: str = "n") -> tuple[int, ...]:
        """Synset offsets of ``word`` in NLTK's order (after morphology)."""
        if pos not in POS:
            raise ValueError(f"pos must be one of {', '.join(POS)}, not {pos!r}")
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

    def has_lemma(self, word: str, pos: str = "n") -> bool:
        """Whether WordNet lists ``word`` itself (no morphology) for ``pos``."""
        return word in self._index[pos]

    def lemmas(self, pos: str = "n") -> list[str]:
        """Every lemma WordNet lists for ``pos``, sorted."""
        return sorted(self._index[pos])

    def synset_name(self, pos: str, offset: int) -> str:
        """NLTK's name of a synset, e.g. ``instrumentality.n.03``."""
        word = self._first_word[pos][offset]
        senses = self._index[pos].get(word, ())
        number = senses.index(offset) + 1 if offset in senses else 1
        return f"{word}.{pos}.{number:02d}"

    def sense_weights(self, word: str, pos: str = "n") -> tuple[float, ...]:
        """Relative SemCor weight of each synset of ``word`` (same order as :meth:`offsets`).

        ``(count + 1) / (top count + 1)``: 1.0 for the most frequent sense, and
        1.0 for every sense of a word SemCor never tagged.
        """
        key = (pos, word)
        hit = self._weights.get(key)
        if hit is None:
            counts = self._sense_counts[pos]
            forms = self._morphy(word, pos) if word else []
            raw = [
                max((counts.get((f, o), 0) for f in forms), default=0) + 1 for o in self.offsets(word, pos)
            ]
            top = max(raw, default=1)
            hit = tuple(c / top for c in raw)
            self._weights[key] = hit
        return hit

    def sense_counts(self, word: str, pos: str = "n") -> tuple[tuple[int, int], ...]:
        """``(offset, SemCor tag count)`` of each sense of ``word`` itself, in WordNet's order.

        The senses and counts are those of ``word`` when WordNet lists it, else
        of its base forms (``axes``: axis.n.01 and ax.n.01), so "found" is the verb
        of founding a company and "lay" is not read as the past of "lie".
        """
        if word in self._index[pos]:
            counts = self._sense_counts[pos]
            return tuple((o, counts.get((word, o), 0)) for o in self._index[pos][word])
        offsets = self.offsets(word, pos)
        counts = self._sense_counts[pos]
        forms = self._morphy(word, pos)
        return tuple((o, max((counts.get((f, o), 0) for f in forms), default=0)) for o in offsets)

    def most_frequent_sense(self, word: str, pos: str = "n") -> int | None:
        """The offset of ``word``'s sense most often tagged in SemCor (``cntlist``), or None.

        Among :meth:`sense_counts` (``axes``: axis.n.01, tagged 6 times, not
        ax.n.01, 2); ties and untagged words go to the first sense in WordNet's order.
        """
        senses = self.sense_counts(word, pos) if pos in POS else ()
        if not senses:
            return None
        return senses[max(range(len(senses)), key=lambda n: (senses[n][1], -n))][0]

    def information(self, word: str, pos: str = "n") -> float:
        """How informative ``word`` is, in [0, 1]: the SemCor information content of its
        most frequent sense over the greatest of ``pos`` (1.0 when WordNet or SemCor
        does not know it, as for most names and rare terms; adjectives have no IC).

        Frequent, general words ("be", "have", "person") score low and rare,
        specific ones ("guitar", "inherit") high, the way IDF weighs words, but
        from a fixed corpus, so it is the same for every data set.
        """
        key = (pos, word)
        hit = self._information.get(key)
        if hit is None:
            icv = self._icv.get(pos)
            offsets = self.offsets(word, pos) if icv else ()
            if not icv or not offsets:
                hit = 1.0
            else:
                weights = self.sense_weights(word, pos)
                top = max(range(len(offsets)), key=lambda n: (weights[n], -n))
                ic = icv.get(offsets[top])
                hit = 1.0 if ic is None else min(1.0, ic / self._ic_max[pos])
            self._information[key] = hit
        return hit

    # -- similarity ------------------------------------------------------------
    def lin(self, a: str, b: str, pos: str = "n", rule: str = DEFAULT_RULE) -> tuple[float, int | None]:
        """(similarity, offset of the generic-space synset or None) of two words under ``rule``.

        For ``pos="a"`` the generic space is an adjective synset (the cluster
        head) or, for adjectives of one attribute, a noun synset: see
        :meth:`generic_name`.
        """
        a, b = normalise(a), normalise(b)
        if a > b:  # symmetric, so one cache entry serves both orders
            a, b = b, a
        return self._lin_cached(pos, a, b, rule)

    def score(self, a: str, b: str, pos: str = "n", rule: str = DEFAULT_RULE) -> float:
        """The similarity of :meth:`lin` without the generic space, the same float, faster.

        Under ``"max"`` Lin is maximised over every pair of senses. For a common
        ancestor c of a sense x of ``a`` and a sense y of ``b``, 2 IC(c) / (IC(x) +
        IC(y)) is greatest for the least informative senses under c, and never
        exceeds Lin(x, y) (IC(lcs) >= IC(c)); so the best pair's Lin is the
        maximum over the words' common ancestors c of 2 IC(c) / (least IC of
        ``a``'s senses under c + least IC of ``b``'s). Each word's ancestors
        with that least IC are a table built once (:data:`WORD_CACHE_SIZE`
        words kept), so a word pair costs one set intersection instead of Lin
        for every pair of senses (verbs such as "make" have 49). The result is
        the same float as :meth:`lin` (tested); other rules use :meth:`lin`.
        """
        a, b = normalise(a), normalise(b)
        if a > b:
            a, b = b, a
        return self._score_cached(pos, a, b, rule)

    def score_matrix(
        self, rows: Sequence[str], columns: Sequence[str], pos: str = "n", rule: str = DEFAULT_RULE
    ) -> np.ndarray:
        """:meth:`score` of every row word against every column word, as a float array.

        Under ``"max"`` for nouns and verbs the whole matrix is computed at once
        from the words' ancestor tables: for each ancestor c shared by some row
        and some column word, 2 IC(c) / (least IC of the row word under c + that
        of the column word) for the block of those words, keeping the maximum.
        The arithmetic is :meth:`score`'s, so every entry is the same float
        (tested); nothing goes into the pair cache. Adjectives, whose score does not
        depend on the rule, come from :meth:`_adjective_matrix`; other rules ask
        :meth:`score` pair by pair.
        """
        out = np.zeros((len(rows), len(columns)))
        if not len(rows) or not len(columns):
            return out
        if pos == "a" and rule in RULES:
            self._adjective_matrix(out, [normalise(w) for w in rows], [normalise(w) for w in columns])
            return out
        if rule != "max" or pos not in ("n", "v"):
            for r, a in enumerate(rows):
                out[r] = [self.score(a, b, pos, rule) for b in columns]
            return out
        ic = self._icv[pos]
        rows_n = [normalise(w) for w in rows]
        cols_n = [normalise(w) for w in columns]
        anc_r, idx_r, least_r, senses_r = self._ancestor_entries(pos, rows_n)
        anc_c, idx_c, least_c, senses_c = self._ancestor_entries(pos, cols_n)
        _max_over_shared_ancestors(out, ic, (anc_r, idx_r, least_r), (anc_c, idx_c, least_c))
        np.minimum(out, 1.0, out=out)
        # A shared synset scores 1.0: above through itself (the least IC under it is its
        # own), here for a sense without IC > 0 (the noun root); identical words too.
        uninformative: dict[int, list[int]] = {}
        for n, table in enumerate(senses_c):
            for o in table.uninformative:
                uninformative.setdefault(o, []).append(n)
        if uninformative:
            for r, table in enumerate(senses_r):
                for o in table.senses:
                    if o in uninformative:
                        out[r, uninformative[o]] = 1.0
        where_c: dict[str, list[int]] = {}
        for n, word in enumerate(cols_n):
            where_c.setdefault(word, []).append(n)
        for r, word in enumerate(rows_n):
            if word in where_c:
                out[r, where_c[word]] = 1.0
        return out

    def _adjective_matrix(self, out: np.ndarray, rows: list[str], columns: list[str]) -> None:
        """:meth:`_adjectives` of every row word against every column word (normalised)
        into ``out``, through an index of the columns' synsets, cluster heads and
        attribute nouns: each row meets only the columns it shares one of them with.
        The scores are the same constants in the same precedence (shared synset, then
        cluster, then attribute; identical words 1.0), whatever the rule."""
        by_synset: dict[int, list[int]] = {}
        by_head: dict[int, list[int]] = {}
        by_attribute: dict[int, list[int]] = {}
        for n, word in enumerate(columns):
            offsets = self.offsets(word, "a")
            heads = {h for o in offsets for h in self._adj_head.get(o, ())}
            for o in set(offsets):
                by_synset.setdefault(o, []).append(n)
            for h in heads:
                by_head.setdefault(h, []).append(n)
            for noun in {a for h in heads for a in self._adj_attributes.get(h, ())}:
                by_attribute.setdefault(noun, []).append(n)
        where: dict[str, list[int]] = {}
        for n, word in enumerate(columns):
            where.setdefault(word, []).append(n)
        for r, word in enumerate(rows):
            offsets = self.offsets(word, "a")
            heads = {h for o in offsets for h in self._adj_head.get(o, ())}
            # Lowest tier first, so a pair ends with the best tier it reaches.
            tiers = (
                (ADJ_ATTRIBUTE, by_attribute, {a for h in heads for a in self._adj_attributes.get(h, ())}),
                (ADJ_CLUSTER, by_head, heads),
                (1.0, by_synset, set(offsets)),
            )
            for value, index, keys in tiers:
                hit = [n for key in keys for n in index.get(key, ())]
                if hit:
                    out[r, hit] = value
            if word in where:
                out[r, where[word]] = 1.0

    def _ancestor_entries(
        self, pos: str, words: list[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[_WordTable]]:
        """(ancestor, word index, least IC) for every informative ancestor of every
        word, sorted by ancestor; and the words' tables."""
        tables = [self._table_cached(pos, word) for word in words]
        anc = np.concatenate([t.informative for t in tables])
        least = np.concatenate([t.informative_least for t in tables])
        idx = np.repeat(np.arange(len(tables)), [len(t.informative) for t in tables])
        order = np.argsort(anc, kind="stable")
        return anc[order], idx[order], least[order], tables

    def cache_info(self) -> Any:
        """The word-pair LRU's hits, misses and size (``functools`` ``CacheInfo``)."""
        return self._lin_cached.cache_info()

    def cache_sizes(self) -> dict[str, int]:
        """Entries held by each bounded cache: word pairs with and without generic space, word tables."""
        return {
            "lin": self._lin_cached.cache_info().currsize,
            "score": self._score_cached.cache_info().currsize,
            "word tables": self._table_cached.cache_info().currsize,
        }

    def clear_caches(self) -> None:
        """Forget every table filled on use (word pairs, word tables, synsets, closures), as in
        a fresh process; the files read at load time are kept."""
        self._lin_cached.cache_clear()
        self._score_cached.cache_clear()
        self._table_cached.cache_clear()
        for closure in self._closure.values():
            closure.clear()
        self._synsets.clear()
        self._words.clear()
        self._weights.clear()
        self._information.clear()

    def _ancestor_table(self, pos: str, word: str) -> _WordTable:
        table: dict[int, float] = {}
        senses = self.synsets(word, pos)
        for x in senses:
            ic = x.ic
            for c in x.ancestors:
                if ic < table.get(c, math.inf):
                    table[c] = ic
        known = self._icv.get(pos, {})
        informative = sorted(c for c in table if known.get(c, 0.0) > 0.0)
        return _WordTable(
            table,
            frozenset(x.offset for x in senses),
            np.array(informative, dtype=np.int64),
            np.array([table[c] for c in informative], dtype=np.float64),
            tuple(
                o for o in dict.fromkeys(x.offset for x in senses) if not 0.0 < known.get(o, 0.0) < math.inf
            ),
        )

    def _score_uncached(self, pos: str, a: str, b: str, rule: str) -> float:
        if rule != "max" or pos not in ("n", "v") or a == b:
            return self._lin_cached(pos, a, b, rule)[0]
        wa, wb = self._table_cached(pos, a), self._table_cached(pos, b)
        ta, oa, tb, ob = wa.least, wa.senses, wb.least, wb.senses
        if not oa or not ob:
            return 0.0
        if not oa.isdisjoint(ob):
            return 1.0  # a shared synset, as _best_pair returns at once
        ic = self._icv[pos]
        best = 0.0
        for c in ta.keys() & tb.keys():
            denominator = ta[c] + tb[c]
            if 0 < denominator < math.inf:
                value = 2.0 * ic.get(c, 0.0) / denominator
                if value > best:
                    best = value
        return min(1.0, best)

    def _lin_uncached(self, pos: str, a: str, b: str, rule: str) -> tuple[float, int | None]:
        if rule not in RULES:
            raise ValueError(f"unknown similarity rule {rule!r}; known: {', '.join(RULES)}")
        if pos not in POS:
            return (1.0, None) if a == b else (0.0, None)
        if a == b:
            return 1.0, self.most_frequent_sense(a, pos)
        if pos == "a":
            return self._adjectives(a, b)
        sa, sb = self.synsets(a, pos), self.synsets(b, pos)
        if not sa or not sb:
            return 0.0, None
        ic = self._icv[pos]
        if rule == "max":
            return self._first_best_pair(pos, a, b, sa, sb, ic)
        if rule == "first":
            return _lin_pair(sa[0], sb[0], ic)
        wa, wb = self.sense_weights(a, pos), self.sense_weights(b, pos)
        if rule == "expected":
            ta, tb = sum(wa), sum(wb)
            total, best, generic = 0.0, -1.0, None
            for x, px in zip(sa, wa):
                for y, py in zip(sb, wb):
                    score, lcs = _lin_pair(x, y, ic)
                    part = px * py * score
                    total += part
                    if part > best:
                        best, generic = part, lcs
            return min(1.0, total / (ta * tb)), generic
        best, generic = -1.0, None
        for x, px in zip(sa, wa):
            for y, py in zip(sb, wb):
                factor = (px * py) ** SENSE_EXPONENT
                if factor <= best:
                    continue  # Lin is at most 1, so this pair cannot win
                score, lcs = _lin_pair(x, y, ic)
                if factor * score > best:
                    best, generic = factor * score, lcs
        return max(best, 0.0), generic

    def _first_best_pair(
        self, pos: str, a: str, b: str, sa: Sequence[_Synset], sb: Sequence[_Synset], ic: dict[int, float]
    ) -> tuple[float, int | None]:
        """:func:`_best_pair`'s result (the first best pair in sense order and its most
        informative subsumer), found knowing the best score from :meth:`score`: pairs
        that cannot reach it (Lin <= 2 min(IC) / (IC(x) + IC(y))) are skipped unscored."""
        theirs = {y.offset for y in sb}
        for x in sa:
            if x.offset in theirs:
                return 1.0, x.offset  # _best_pair stops at the first shared synset
        best = self._score_cached(pos, a, b, "max")
        # The best pair's subsumer is one of the common ancestors through which the
        # words' least informative senses reach the best score (see score()).
        reaching = None
        if best > 0.0:
            ta, tb = self._table_cached(pos, a).least, self._table_cached(pos, b).least
            reaching = set()
            for c in ta.keys() & tb.keys():
                denominator = ta[c] + tb[c]
                if 0 < denominator < math.inf and min(1.0, 2.0 * ic.get(c, 0.0) / denominator) == best:
                    reaching.add(c)
        for x in sa:
            if reaching is not None and x.ancestors.isdisjoint(reaching):
                continue
            for y in sb:
                if x.ancestors.isdisjoint(y.ancestors):
                    continue
                if reaching is not None and y.ancestors.isdisjoint(reaching):
                    continue
                score, lcs = _lin_pair(x, y, ic)
                if score == best:
                    return score, lcs
        return _best_pair(sa, sb, ic)  # not reached: the best score is some pair's

    def _adjectives(self, a: str, b: str) -> tuple[float, int | None]:
        """Shared synset 1.0, shared similar-to cluster ADJ_CLUSTER, shared attribute ADJ_ATTRIBUTE."""
        oa, ob = self.offsets(a, "a"), self.offsets(b, "a")
        shared = [o for o in oa if o in ob]
        if shared:
            return 1.0, shared[0]
        heads_a = [h for o in oa for h in self._adj_head.get(o, ())]
        heads_b = {h for o in ob for h in self._adj_head.get(o, ())}
        common = [h for h in heads_a if h in heads_b]
        if common:
            return ADJ_CLUSTER, common[0]
        attr_b = {n for h in heads_b for n in self._adj_attributes.get(h, ())}
        for h in heads_a:
            for noun in sorted(self._adj_attributes.get(h, ())):
                if noun in attr_b:
                    return ADJ_ATTRIBUTE, -noun - 1  # a noun offset, marked negative (see generic_name)
        return 0.0, None

    def synset_lin(self, pos: str, x: int, y: int) -> float:
        """Lin similarity of two synsets of ``pos`` ("n" or "v"), given by offset."""
        return _lin_pair(self._synset(pos, x), self._synset(pos, y), self._icv[pos])[0]

    def synset_information(self, pos: str, offset: int) -> tuple[float, frozenset[int]]:
        """A synset's information content (infinite if SemCor never reaches it) and its
        ancestors (hypernyms and instance hypernyms, itself included), for ``pos`` "n" or "v"."""
        synset = self._synset(pos, offset)
        return synset.ic, synset.ancestors

    def information_content(self, pos: str, offset: int) -> float:
        """The SemCor information content of a synset of ``pos`` ("n" or "v"), 0 if unseen."""
        return self._icv[pos].get(offset, 0.0)

    def generic_name(self, pos: str, offset: int) -> str:
        """The synset name of a generic-space offset returned by :meth:`lin`."""
        if pos == "a" and offset < 0:
            return self.synset_name("n", -offset - 1)
        return self.synset_name(pos, offset)


def _lin_pair(x: _Synset, y: _Synset, ic: dict[int, float]) -> tuple[float, int | None]:
    """Lin similarity of two synsets and their most informative common subsumer."""
    if x.offset == y.offset:
        return 1.0, x.offset
    common = x.ancestors & y.ancestors
    if not common:
        return 0.0, None
    # The most informative subsumer; equal IC goes to the lower offset.
    lcs = max(common, key=lambda o: (ic.get(o, 0.0), -o))
    denominator = x.ic + y.ic
    score = 2.0 * ic.get(lcs, 0.0) / denominator if 0 < denominator < math.inf else 0.0
    return min(1.0, max(0.0, score)), lcs


def _best_pair(
    sa: Sequence[_Synset], sb: Sequence[_Synset], ic: dict[int, float]
) -> tuple[float, int | None]:
    """The paper's rule: the best Lin over every synset pair (first pair in sense order on ties)."""
    best, generic = -1.0, None
    for x in sa:
        for y in sb:
            if x.offset == y.offset:
                return 1.0, x.offset
            score, lcs = _lin_pair(x, y, ic)
            if lcs is None:
                continue
            # Strictly greater keeps the first pair in sense order on ties.
            if score > best:
                best, generic = score, lcs
    return max(best, 0.0), generic


_instance: WordNet | None = None
_instance_lock = threading.Lock()


def _set_up() -> None:
    """Build WordNet in the project's data folder on first use. A folder that
    ``DRI_NLTK_DATA`` names is the user's choice: one without WordNet is refused,
    as the extractor refuses it, and any failure there names the variable."""
    chosen = (os.environ.get("DRI_NLTK_DATA") or "").strip()
    named = f"DRI_NLTK_DATA={printable(chosen)}"
    if chosen and os.path.exists(chosen) and not os.path.isdir(chosen):
        raise WordNetSetupError(
            f"{named}: a file, not a folder: point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
        )
    if chosen and not any((wordnet_root() / name).exists() for name in ("wordnet", "wordnet_ic")):
        # dri graph refused such a folder while dri compare built 47 MB of WordNet in it.
        raise WordNetSetupError(
            f"{named}: no WordNet there (no {printable(wordnet_root() / 'wordnet')}): "
            "point it at the nltk_data folder scripts/setup-wordnet made, or unset it"
        )
    try:
        build_wordnet()
    except (ForeignWordNet, WordNetSourceError):
        raise
    except (WordNetSetupError, OSError) as err:
        reason = os_reason(err) if isinstance(err, OSError) else str(err)
        where = f"{named} ({wordnet_root()})" if chosen else str(wordnet_root())
        raise WordNetSetupError(
            f"WordNet is not set up in {where}: run scripts/setup-wordnet ({reason})"
        ) from err


def wordnet() -> WordNet:
    """The process-wide :class:`WordNet`, loaded on first use."""
    global _instance
    if _instance is None:
        with _instance_lock:
            if _instance is None:
                if not is_built():
                    _set_up()
                _instance = WordNet.load(wordnet_root())
    return _instance


def clear_caches() -> None:
    """Forget every similarity table filled on use, in the process-wide WordNet and here
    (word pairs, relation labels, generic-space names), as in a fresh process."""
    wordnet().clear_caches()
    for fn in (_relation_best, relation_heads, _name, normalise):
        fn.cache_clear()


def lin_and_generic(a: str, b: str, pos: str = "n", rule: str = DEFAULT_RULE) -> tuple[float, str | None]:
    """Similarity under ``rule`` and generic-space synset name of two lemmas."""
    wn = wordnet()
    score, offset = wn.lin(a, b, pos, rule)
    return score, (None if offset is None else _name(pos, offset))


@lru_cache(maxsize=65536)
def _name(pos: str, offset: int) -> str:
    return wordnet().generic_name(pos, offset)


def lin_similarity(a: str, b: str, pos: str = "n", rule: str = DEFAULT_RULE) -> float:
    """Similarity of two lemmas of part of speech ``pos`` under ``rule`` (see :data:`RULES`).

    >>> lin_similarity("dog", "dog")
    1.0
    >>> 0.8 < lin_similarity("dog", "cat", rule="max") < 0.9
    True
    """
    return wordnet().score(a, b, pos, rule)


def generic_space(a: str, b: str, pos: str = "n", rule: str = DEFAULT_RULE) -> str | None:
    """The most informative common hypernym of the best-scoring synset pair, or None.

    >>> generic_space("dog", "cat")
    'carnivore.n.01'
    """
    return lin_and_generic(a, b, pos, rule)[1]


def similarity_matrix(
    rows: Iterable[str], columns: Iterable[str], pos: str = "n", rule: str = DEFAULT_RULE
) -> list[list[float]]:
    """Similarity of every row lemma against every column lemma."""
    wn = wordnet()
    columns = list(columns)
    return [[wn.score(r, c, pos, rule) for c in columns] for r in rows]


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


@lru_cache(maxsize=PAIR_CACHE_SIZE)
def _relation_best(a: str, b: str, rule: str = DEFAULT_RULE) -> tuple[float, str, str]:
    heads_a, heads_b = relation_heads(a), relation_heads(b)
    best = (0.0, heads_a[-1][0], heads_b[-1][0])
    if {heads_a[0][0], heads_b[0][0]} & NON_WORDNET_RELATIONS:
        return best  # "isa" is the extractor's, not a WordNet verb: equal only to itself
    for head_a, tail_a in heads_a:
        for head_b, tail_b in heads_b:
            score = wordnet().score(head_a, head_b, "v", rule) * (1.0 if tail_a == tail_b else TAIL_MISMATCH)
            if score > best[0]:
                best = (score, head_a, head_b)
    return best


def relation_similarity(a: str, b: str, rule: str = DEFAULT_RULE) -> float:
    """The best similarity of two relation labels' head verbs, reduced if their tails differ.

    ``isa`` (and the other :data:`NON_WORDNET_RELATIONS`) is 1.0 against
    itself and 0.0 against anything else; ``have`` is the WordNet verb.

    >>> relation_similarity("base_on", "base_on")
    1.0
    >>> relation_similarity("destroy", "destroy_on")
    0.5
    >>> relation_similarity("isa", "be")
    0.0
    """
    if normalise(a) == normalise(b):
        return 1.0
    return _relation_best(a, b, rule)[0]


def relation_similarity_matrix(
    rows: Sequence[str], columns: Sequence[str], rule: str = DEFAULT_RULE
) -> np.ndarray:
    """:func:`relation_similarity` of every row label against every column label.

    The head verbs of all readings are scored at once (:meth:`WordNet.score_matrix`),
    then each label pair takes its best reading pair, times :data:`TAIL_MISMATCH`
    when the tails differ: the same floats as asking pair by pair (tested).
    """
    out = np.zeros((len(rows), len(columns)))
    if not len(rows) or not len(columns):
        return out
    read_r = [relation_heads(label) for label in rows]
    read_c = [relation_heads(label) for label in columns]
    heads_r = list(dict.fromkeys(head for readings in read_r for head, _ in readings))
    heads_c = list(dict.fromkeys(head for readings in read_c for head, _ in readings))
    heads = wordnet().score_matrix(heads_r, heads_c, "v", rule)
    where_r = {h: n for n, h in enumerate(heads_r)}
    where_c = {h: n for n, h in enumerate(heads_c)}
    tails = {t: n for n, t in enumerate(dict.fromkeys(t for rd in read_r + read_c for _, t in rd))}
    # Up to two readings a label (longest head, first word); a missing one repeats the
    # first, so the second readings are taken only for the labels that have one (few).
    for p in (0, 1):
        rows_p = [n for n, rd in enumerate(read_r) if p < len(rd)]
        head_r = np.array([where_r[read_r[n][p][0]] for n in rows_p], dtype=np.int64)
        tail_r = np.array([tails[read_r[n][p][1]] for n in rows_p], dtype=np.int64)
        for q in (0, 1):
            cols_q = [n for n, rd in enumerate(read_c) if q < len(rd)]
            head_c = np.array([where_c[read_c[n][q][0]] for n in cols_q], dtype=np.int64)
            tail_c = np.array([tails[read_c[n][q][1]] for n in cols_q], dtype=np.int64)
            factor = np.where(tail_r[:, None] == tail_c[None, :], 1.0, TAIL_MISMATCH)
            value = heads[np.ix_(head_r, head_c)] * factor
            if p == 0 and q == 0:
                np.maximum(out, value, out=out)
            else:
                block = np.ix_(rows_p, cols_q)
                out[block] = np.maximum(out[block], value)
    # "isa" and the like are equal only to themselves; identical labels score 1.0.
    for n, rd in enumerate(read_r):
        if rd[0][0] in NON_WORDNET_RELATIONS:
            out[n] = 0.0
    for n, rd in enumerate(read_c):
        if rd[0][0] in NON_WORDNET_RELATIONS:
            out[:, n] = 0.0
    by_label: dict[str, list[int]] = {}
    for n, label in enumerate(columns):
        by_label.setdefault(normalise(label), []).append(n)
    for n, label in enumerate(rows):
        hit = by_label.get(normalise(label))
        if hit:
            out[n, hit] = 1.0
    return out


def relation_generic_space(a: str, b: str, rule: str = DEFAULT_RULE) -> str | None:
    """The generic space of two relation labels: that of their best-scoring head verbs."""
    if normalise(a) == normalise(b) and normalise(a) in NON_WORDNET_RELATIONS:
        return None
    score, head_a, head_b = _relation_best(a, b, rule)
    if score == 0.0 and normalise(a) != normalise(b):
        return None
    return lin_and_generic(head_a, head_b, "v", rule)[1]


def similarity_functions(
    rule: str = DEFAULT_RULE,
) -> tuple[Callable[[str, str, str], float], Callable[[str, str, str], str | None]]:
    """``(similarity(a, b, pos), generic(a, b, pos))`` for the mapper under ``rule``.

    Relations (``pos="v"``) compare as labels (:func:`relation_similarity`);
    nouns (``"n"``) and adjectives (``"a"``) as words (:meth:`WordNet.lin`).
    The mapper passes a concept's ``wordnet_lemma`` where it has one (names and
    narrators as ``person``, ``location``, ...), so identical ``lemma`` s are
    compared, and score 1.0, before this is asked.
    """
    if rule not in RULES:
        raise ValueError(f"unknown similarity rule {rule!r}; known: {', '.join(RULES)}")
    wn = wordnet()

    def similarity(a: str, b: str, pos: str) -> float:
        return relation_similarity(a, b, rule) if pos == "v" else wn.score(a, b, pos, rule)

    def generic(a: str, b: str, pos: str) -> str | None:
        return relation_generic_space(a, b, rule) if pos == "v" else lin_and_generic(a, b, pos, rule)[1]

    similarity.__name__ = f"wordnet-lin-{rule}"
    return similarity, generic


#: Pairs of words under one shared ancestor from which :func:`_max_over_shared_ancestors`
#: scores them as one dense block.
_DENSE_BLOCK = 2_000


def _max_over_shared_ancestors(
    out: np.ndarray,
    ic: dict[int, float],
    rows: tuple[np.ndarray, np.ndarray, np.ndarray],
    columns: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Raise each entry of ``out`` to the best 2 IC(c) / (least IC of the row word
    under c + that of the column word) over the ancestors c the two words share,
    for :meth:`WordNet.score_matrix`; ``rows`` and ``columns`` are the (ancestor,
    word index, least IC) entries of :meth:`WordNet._ancestor_entries`."""
    anc_r, idx_r, least_r = rows
    anc_c, idx_c, least_c = columns
    # Every (row entry, column entry) pair under the same ancestor, built by index arithmetic.
    shared, start_r, count_r = np.unique(anc_r, return_index=True, return_counts=True)
    first_c = np.searchsorted(anc_c, shared, side="left")
    count_c = np.searchsorted(anc_c, shared, side="right") - first_c
    both = count_c > 0
    shared, start_r, count_r, first_c, count_c = (
        x[both] for x in (shared, start_r, count_r, first_c, count_c)
    )
    if not len(shared):
        return
    # The few general ancestors (abstraction, physical entity, ...) shared by many words
    # on both sides hold most of the pairs: each is one dense block of its row words x
    # its column words (a word appears once per ancestor), cheaper than scattering
    # its pairs one by one; the rest are scattered. The maximum does not depend on order.
    dense = count_r * count_c >= _DENSE_BLOCK
    for j in np.flatnonzero(dense).tolist():
        rs, cs = slice(start_r[j], start_r[j] + count_r[j]), slice(first_c[j], first_c[j] + count_c[j])
        denominator = least_r[rs, None] + least_c[None, cs]
        valid = (denominator > 0) & (denominator < math.inf)
        value = np.zeros(denominator.shape)
        np.divide(2.0 * ic[int(shared[j])], denominator, out=value, where=valid)
        block = np.ix_(idx_r[rs], idx_c[cs])
        out[block] = np.maximum(out[block], value)
    shared, start_r, count_r, first_c, count_c = (
        x[~dense] for x in (shared, start_r, count_r, first_c, count_c)
    )
    if not len(shared):
        return
    # Each row entry of ancestor c meets the count_c[c] column entries of c.
    row_entry = np.repeat(start_r - (np.cumsum(count_r) - count_r), count_r) + np.arange(count_r.sum())
    per_entry = np.repeat(count_c, count_r)
    col_start = np.repeat(first_c, count_r)
    total = int(per_entry.sum())
    block_start = np.repeat(np.cumsum(per_entry) - per_entry, per_entry)
    col_entry = np.repeat(col_start, per_entry) + (np.arange(total) - block_start)
    row_entry = np.repeat(row_entry, per_entry)
    informative = np.array([ic[c] for c in shared.tolist()])
    twice = np.repeat(np.repeat(2.0 * informative, count_r), per_entry)
    denominator = least_r[row_entry] + least_c[col_entry]
    valid = (denominator > 0) & (denominator < math.inf)
    value = np.zeros(total)
    np.divide(twice, denominator, out=value, where=valid)
    flat = out.reshape(-1)
    np.maximum.at(flat, idx_r[row_entry] * out.shape[1] + idx_c[col_entry], value)
