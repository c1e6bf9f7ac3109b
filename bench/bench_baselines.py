"""Time the text baselines per row on the Clough & Stevenson pairs.

Measures in one run, on the 95 answer/original pairs of the corpus
(``DRI_CLOUGH_CORPUS``, default ``../shared/corpora/clough-stevenson``):

* ``per pair (pure-Python LCS)``: the earlier path, one TF-IDF transform per
  pair and the textbook word-LCS dynamic programme in Python;
* ``per pair``: :meth:`Baselines.score` one pair at a time (C++ LCS);
* ``score_many``: :meth:`Baselines.score_many`, TF-IDF for all pairs in one
  sparse product and each text tokenised once;

and the share of the LCS in each. Prints milliseconds per row (best of
``--repeat`` runs) and checks that the three agree.

    .venv/bin/python bench/bench_baselines.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dri.corpora.plagiarism import load_plagiarism
from dri.corpora.text import read_text
from dri.metrics import baselines as bl
from dri.settings import clough_stevenson_dir


def lcs_python(source: str, answer: str) -> float:
    s, a = bl.words(source), bl.words(answer)
    if not a or not s:
        return 0.0
    prev = [0] * (len(s) + 1)
    for wa in a:
        cur = [0]
        for j, ws in enumerate(s, start=1):
            cur.append(prev[j - 1] + 1 if wa == ws else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1] / len(a)


def old_score(b: bl.Baselines, source: str, answer: str) -> dict[str, float]:
    x, y = b._vectorizer.transform([source, answer])
    return {
        "tfidf_cosine": bl._cosine_sparse(x, y),
        "ngram3_containment": bl.ngram_containment(source, answer, 3),
        "lcs_words": lcs_python(source, answer),
        "chrf": bl.chrf(source, answer),
        "fuzz_token": bl.fuzz_token(source, answer),
    }


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    manifest = load_plagiarism(clough_stevenson_dir()).manifest()
    pairs = [(read_text(p.source), read_text(p.target)) for p in manifest]
    b = bl.Baselines([t for pair in pairs for t in pair])
    b.score(*pairs[0])  # warm sacrebleu and sklearn
    n = len(pairs)
    old = best(lambda: [old_score(b, s, a) for s, a in pairs], args.repeat)
    one = best(lambda: [b.score(s, a) for s, a in pairs], args.repeat)
    many = best(lambda: b.score_many(pairs), args.repeat)
    lcs_old = best(lambda: [lcs_python(s, a) for s, a in pairs], args.repeat)
    lcs_new = best(lambda: [bl.lcs_words(s, a) for s, a in pairs], args.repeat)
    rows_old = [old_score(b, s, a) for s, a in pairs]
    rows_new = b.score_many(pairs)
    worst = max(abs(r[k] - q[k]) for r, q in zip(rows_old, rows_new) for k in r)
    print(f"{n} Clough & Stevenson pairs; best of {args.repeat}")
    print("| path | ms per row | of which LCS |")
    print("|---|---|---|")
    print(f"| per pair, pure-Python LCS (before) | {old / n * 1e3:.2f} | {lcs_old / n * 1e3:.2f} |")
    print(f"| per pair, rapidfuzz LCSseq | {one / n * 1e3:.2f} | {lcs_new / n * 1e3:.3f} |")
    print(f"| score_many (vectorised TF-IDF and chrF) | {many / n * 1e3:.2f} | {lcs_new / n * 1e3:.3f} |")
    print(f"speed-up {old / many:.1f}x; largest difference between the paths: {worst:.2e}")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
