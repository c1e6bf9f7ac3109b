"""Time the text baselines per row on the Clough & Stevenson pairs, and check their values.

Measures in one run, on the 95 answer/original pairs of the corpus
(``DRI_CLOUGH_CORPUS``, default ``../shared/corpora/clough-stevenson``),
milliseconds per row, best of ``--repeat`` runs, both wall time and process
CPU time (the machine may be shared: CPU time is what the code costs):

* ``pair by pair``: the pairwise functions of :mod:`dri.metrics.baselines`
  (sacrebleu's chrF, set-based 3-gram containment, TF-IDF transformed per
  pair), the definitions the other paths must equal -- and what
  ``bench/bench_validity.py`` computes;
* ``score_many, chrF by CountVectorizer``: :meth:`Baselines.score_many` as
  it was before chrF and the 3-gram containment were counted with numpy
  (kept below as :func:`score_many_countvectorizer`);
* ``score_many``: :meth:`Baselines.score_many` now;

then each part of ``score_many`` on its own. Every path's values are checked
against the pairwise functions (largest absolute difference per baseline);
``--sets`` does the same check, untimed per row, on every pair of those
validity sets (``bench/validity_sets.py``; no mapping), so the baseline
columns of ``docs/validity.md`` stay what they were. Exit status 1 if a
difference exceeds 1e-12.

    .venv/bin/python bench/bench_baselines.py
    .venv/bin/python bench/bench_baselines.py --sets wmt23,stsb,storyanalogy
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from validity_sets import SETS, load_set

from dri.corpora.plagiarism import load_plagiarism
from dri.corpora.text import read_text
from dri.metrics import baselines as bl
from dri.settings import clough_stevenson_dir

TOLERANCE = 1e-12


def pairwise(b: bl.Baselines, source: str, answer: str) -> dict[str, float]:
    """Every baseline by its pairwise function (TF-IDF with ``b``'s corpus IDF)."""
    x, y = b._vectorizer.transform([source, answer])
    return {
        "tfidf_cosine": min(1.0, max(0.0, float(x.multiply(y).sum()))),
        "ngram3_containment": bl.ngram_containment(source, answer, 3),
        "lcs_words": bl.lcs_words(source, answer),
        "chrf": bl.chrf(source, answer),
        "fuzz_token": bl.fuzz_token(source, answer),
    }


def chrf_countvectorizer(pairs: Sequence[tuple[str, str]]) -> list[float]:
    """chrF with the n-grams counted by scikit-learn's CountVectorizer (the earlier path)."""
    from sklearn.feature_extraction.text import CountVectorizer

    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    index = {t: i for i, t in enumerate(texts)}
    stripped = ["".join(t.split()) for t in texts]
    rows_s = [index[s] for s, _ in pairs]
    rows_a = [index[a] for _, a in pairs]
    stats = np.zeros((len(pairs), bl.CHRF_ORDER, 3), dtype=np.int64)
    for n in range(1, bl.CHRF_ORDER + 1):
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
    return [bl._chrf_f_score(row.tolist()) / 100.0 for row in stats]


def score_many_countvectorizer(b: bl.Baselines, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
    """``Baselines.score_many`` before numpy: CountVectorizer chrF, 3-gram sets per pair."""
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    index = {t: i for i, t in enumerate(texts)}
    matrix = b._vectorizer.transform(texts)
    rows_a = matrix[[index[a] for a, _ in pairs]]
    rows_b = matrix[[index[x] for _, x in pairs]]
    cosines = np.clip(np.asarray(rows_a.multiply(rows_b).sum(axis=1)).ravel(), 0.0, 1.0)
    tokens = {t: bl.words(t) for t in texts}
    chrfs = chrf_countvectorizer(pairs)
    out = []
    for (source, answer), cosine, chrf_value in zip(pairs, cosines, chrfs):
        s, a = tokens[source], tokens[answer]
        grams = {tuple(a[i : i + 3]) for i in range(len(a) - 2)}
        source_grams = {tuple(s[i : i + 3]) for i in range(len(s) - 2)}
        out.append(
            {
                "tfidf_cosine": float(cosine),
                "ngram3_containment": len(grams & source_grams) / len(grams) if grams else 0.0,
                "lcs_words": bl._lcs_tokens(s, a),
                "chrf": chrf_value,
                "fuzz_token": bl._token_sort(s, a),
            }
        )
    return out


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs of ``fn``."""
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
    return min(walls), min(cpus)


def largest_differences(
    rows: Sequence[dict[str, float]], reference: Sequence[dict[str, float]]
) -> dict[str, float]:
    return {k: max(abs(r[k] - q[k]) for r, q in zip(rows, reference)) for k in bl.BASELINE_NAMES}


def check_sets(names: Sequence[str]) -> float:
    """``score_many`` against the pairwise functions on every pair of each set; the largest difference."""
    worst = 0.0
    for name in names:
        data = load_set(name)
        if data.kind == "choice":
            pairs = [(item.query, o) for item in data.items for o in item.options]
        else:
            pairs = list(data.pairs)
        b = bl.Baselines([t for pair in pairs for t in pair])
        w, c = time.perf_counter(), time.process_time()
        rows = b.score_many(pairs)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        reference = [pairwise(b, s, a) for s, a in pairs]
        diffs = largest_differences(rows, reference)
        worst = max(worst, *diffs.values())
        shown = ", ".join(f"{k} {v:.1e}" for k, v in diffs.items())
        print(
            f"{name}: {len(pairs)} pairs, score_many {wall / len(pairs) * 1e3:.3f} ms/row wall, "
            f"{cpu / len(pairs) * 1e3:.3f} CPU; largest difference from the pairwise functions: {shown}"
        )
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--sets", default="", help=f"also check the values on these sets, of {', '.join(SETS)}"
    )
    args = parser.parse_args(argv)
    manifest = load_plagiarism(clough_stevenson_dir()).manifest()
    pairs = [(read_text(p.source), read_text(p.target)) for p in manifest]
    n = len(pairs)
    b = bl.Baselines([t for pair in pairs for t in pair])
    b.score_many(pairs[:2])  # import scipy, sklearn, sacrebleu, rapidfuzz once, untimed
    pairwise(b, *pairs[0])
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    tokens = [bl.words(t) for t in texts]
    index = {t: i for i, t in enumerate(texts)}
    rows_s = np.array([index[s] for s, _ in pairs])
    rows_a = np.array([index[a] for _, a in pairs])
    paths = {
        "pair by pair (sacrebleu chrF)": lambda: [pairwise(b, s, a) for s, a in pairs],
        "score_many, chrF by CountVectorizer (before)": lambda: score_many_countvectorizer(b, pairs),
        "score_many (after)": lambda: b.score_many(pairs),
        "  of which chrf_many (numpy)": lambda: bl.chrf_many(pairs),
        "  of which TF-IDF transform and cosines": lambda: b._vectorizer.transform(texts),
        "  of which word tokens": lambda: [bl.words(t) for t in texts],
        "  of which 3-gram containment (numpy)": lambda: bl._containment_many(tokens, rows_s, rows_a, 3),
        "  of which word LCS (rapidfuzz)": lambda: [
            bl._lcs_tokens(tokens[i], tokens[j]) for i, j in zip(rows_s, rows_a)
        ],
        "  of which token sort ratio (rapidfuzz)": lambda: [
            bl._token_sort(tokens[i], tokens[j]) for i, j in zip(rows_s, rows_a)
        ],
    }
    times = {name: best(fn, args.repeat) for name, fn in paths.items()}
    reference = [pairwise(b, s, a) for s, a in pairs]
    diffs = {
        "score_many, chrF by CountVectorizer (before)": largest_differences(
            score_many_countvectorizer(b, pairs), reference
        ),
        "score_many (after)": largest_differences(b.score_many(pairs), reference),
    }
    print(f"{n} Clough & Stevenson pairs; best of {args.repeat}; milliseconds per row")
    print("| path | wall ms/row | CPU ms/row |")
    print("|---|---|---|")
    for name, (wall, cpu) in times.items():
        print(f"| {name} | {wall / n * 1e3:.3f} | {cpu / n * 1e3:.3f} |")
    before, after = times["score_many, chrF by CountVectorizer (before)"], times["score_many (after)"]
    print(f"speed-up before/after: {before[0] / after[0]:.1f}x wall, {before[1] / after[1]:.1f}x CPU")
    worst = 0.0
    for name, d in diffs.items():
        worst = max(worst, *d.values())
        print(
            f"largest difference from the pairwise functions, {name}: "
            + ", ".join(f"{k} {v:.1e}" for k, v in d.items())
        )
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    if names:
        worst = max(worst, check_sets(names))
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
