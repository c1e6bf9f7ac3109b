"""Static word vectors for the word-similarity benchmark: WordLlama (an experiment, not in the library).

Not a dependency of ``dri``: install it into the environment to run the
benchmarks that read it (``bench/bench_wordnet.py``'s vector rows)::

    .venv/bin/pip install wordllama==0.4.0.post1

WordNet Lin (:mod:`mapping.wordnet`) rates only words WordNet knows. Technical
terms and noun compounds ("lstm", "bootstrapping", "extraction_pattern") score
0 against everything but themselves, so two papers on the same method share
nothing the mapper can see. Static word vectors rate any string: WordLlama
(Miller 2024, ``wordllama`` on PyPI, MIT) is the token embedding table of a
large language model (LLaMA 2's 32,000 tokens, 256 dimensions, float16, 16 MB)
trained further as an average-pooled sentence encoder. A word's vector is the
mean of its tokens' vectors, so an unknown word is the mean of its pieces
("boot" + "strap" + "ping"), and a compound the mean of its words. Measured
against human judgements (``bench/bench_wordnet.py``, docs/mapping.md) it
rates word similarity about as well as Lin on SimLex-999 and far better on
WordSim-353's relatedness, and better than GloVe 6B 50-d.

:meth:`WordVectors.similarity` / :meth:`WordVectors.matrix` give the cosine
of two words' vectors, clipped at 0 (similarities lie in [0, 1]). Inside the
mapper, as Lin's stand-in for the words WordNet does not know or blended
with Lin, they were measured and not kept (docs/mapping.md, "Word vectors
for words WordNet cannot rate"); as the content similarity they were
replaced by the sentence encoder (docs/mapping.md, "The encoder as content").

The weights ship inside the wheel and are loaded from the installed package
with downloads disabled, so nothing is fetched at run time. Loading takes
about a second and 110 MB (the tokenizer included); it happens once per
process, on first use (:func:`word_vectors`), and forked workers share it.
Word vectors are cached per process (:data:`WORD_CACHE_SIZE` words, 1 KB each).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

__all__ = ["WORD_CACHE_SIZE", "VectorsSetupError", "WordVectors", "word_vectors"]

#: Word vectors kept per process (least recently used dropped first).
WORD_CACHE_SIZE = 65_536
#: The WordLlama configuration shipped in the wheel, and its dimension.
MODEL, DIMENSION = "l2_supercat", 256


class VectorsSetupError(RuntimeError):
    """The word vectors package is missing or incomplete."""


def _text(word: str) -> str:
    # Lemmas join compounds and particles with "_" ("extraction_pattern", "base_on").
    return " ".join(word.replace("_", " ").split())


class WordVectors:
    """Unit word vectors from WordLlama's token table; see the module docstring."""

    def __init__(self) -> None:
        try:
            import wordllama
            from wordllama import WordLlama
        except ImportError as err:
            raise VectorsSetupError(
                f"word vectors need the wordllama package ({err}); run scripts/install"
            ) from None
        # The wheel keeps its weights and tokenizer under weights/ and tokenizers/,
        # which is the layout WordLlama expects of a cache folder.
        package = Path(wordllama.__file__).parent
        try:
            self._model: Any = WordLlama.load(MODEL, cache_dir=package, dim=DIMENSION, disable_download=True)
        except FileNotFoundError as err:
            raise VectorsSetupError(f"wordllama's {MODEL} weights are not in {package}: {err}") from None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``words`` (one row each; a word without tokens is all zeros)."""
        missing = [w for w in dict.fromkeys(words) if w not in self._cache]
        if missing:
            raw = np.asarray(self._model.embed([_text(w) for w in missing]), dtype=np.float32)
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            unit = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
            with self._lock:
                for w, v in zip(missing, unit):
                    self._cache[w] = v
                while len(self._cache) > WORD_CACHE_SIZE:
                    self._cache.popitem(last=False)
        out = np.zeros((len(words), DIMENSION), dtype=np.float32)
        for n, w in enumerate(words):
            v = self._cache.get(w)
            out[n] = v if v is not None else self.vectors([w])[0]
        return out

    def similarity(self, a: str, b: str) -> float:
        """Cosine of the two words' vectors, clipped to [0, 1]; 1.0 for the same word."""
        if a == b:
            return 1.0
        va, vb = self.vectors([a, b])
        return float(min(1.0, max(0.0, float(va @ vb))))

    def matrix(self, rows: Sequence[str], columns: Sequence[str]) -> np.ndarray:
        """:meth:`similarity` of every row word against every column word."""
        if not len(rows) or not len(columns):
            return np.zeros((len(rows), len(columns)))
        product = _one_blas_thread(self.vectors(rows), self.vectors(columns).T)
        out: np.ndarray = np.clip(product, 0.0, 1.0).astype(np.float64)
        same = np.array(rows, dtype=object)[:, None] == np.array(columns, dtype=object)[None, :]
        out[same] = 1.0
        return out


_LOCK = threading.Lock()
_VECTORS: WordVectors | None = None
_THREADPOOLS: ThreadpoolController | None = None


def _one_blas_thread(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` on one BLAS thread.

    The matrices are a few hundred words by 256: OpenBLAS's threads cost more to
    wake than they save, and after each call they spin, which measured as twice
    the CPU time of a whole comparison (docs/mapping.md). The controller is built
    once; limiting through it costs about 60 microseconds a call.
    """
    global _THREADPOOLS
    if _THREADPOOLS is None:
        _THREADPOOLS = ThreadpoolController()
    with _THREADPOOLS.limit(limits=1, user_api="blas"):
        product: np.ndarray = a @ b
    return product


def word_vectors() -> WordVectors:
    """The process's :class:`WordVectors`, loaded on first use."""
    global _VECTORS
    if _VECTORS is None:
        with _LOCK:
            if _VECTORS is None:
                _VECTORS = WordVectors()
    return _VECTORS
