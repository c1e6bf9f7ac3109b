"""Fit the combined similarity's one parameter leave-one-set-out, and report it.

The combined similarity of :mod:`dri.metrics.scores` is
``s x AS + (1 - s) x content`` with ``s = R / (R + STRUCTURE_HALF)``, R the
relations of the smaller graph. ``STRUCTURE_HALF`` is the only fitted number.
This bench maps every pair of the four similarity sets (Clough & Stevenson,
STS-B, WMT23, CSFCube fold 1; graphs from ``bench/bench_validity.py``'s cache),
keeps AS, content and R per pair, and then, for each set in turn, chooses
``STRUCTURE_HALF`` from :data:`GRID` on the other three (the greatest mean of
their headline metrics: C&S rho, STS-B Pearson, WMT23 Kendall tau-b, CSFCube
NDCG%20 as a fraction) and reports the held-out set's metric with a 95% bootstrap
interval beside AS and content alone. The last row is the value fitted on all
four, which the code ships; the leave-one-set-out rows are the estimate of
how it does on data it was not fitted on.

    .venv/bin/python bench/bench_combined.py
    .venv/bin/python bench/bench_combined.py --limit 300      # a quick look
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from bench_validity import COLUMNS, evaluate, graphs_for, key, sample, set_pairs
from validity_sets import load_set

from dri.mapping.vectors import word_vectors
from dri.mapping.wordnet import wordnet
from dri.metrics.scores import STRUCTURE_HALF, combine, compare

SIMILARITY_SETS = ("clough-stevenson", "stsb", "wmt23", "csfcube")
#: The headline metric of each similarity set, as bench_validity names it.
HEADLINE = {"clough-stevenson": "spearman", "stsb": "pearson", "wmt23": "kendall", "csfcube": "ndcg_pct20"}
GRID = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0)

_GRAPHS: dict[str, Any] = {}


def _pair(job: tuple[str, str]) -> tuple[tuple[str, str], tuple[float, float, int]]:
    c = compare(_GRAPHS[job[0]], _GRAPHS[job[1]])
    relations = min(c.mapping.source_relations, c.mapping.target_relations)
    return job, (c.scores.analogy_similarity, c.scores.content, relations)


def metric(name: str, data: Any, values: list[float], n_boot: int) -> Any:
    return evaluate(data, {"x": values}, n_boot)["x"][HEADLINE[name]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="deterministic sample of N pairs per set")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--boot", type=int, default=1000)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    sets = {n: sample(load_set(n), args.limit) for n in SIMILARITY_SETS}
    texts = {key(t): t for d in sets.values() for p in set_pairs(d) for t in p}
    graphs, _ = graphs_for(texts, lambda m: print(m, file=sys.stderr))
    _GRAPHS.update(graphs)
    jobs = list(dict.fromkeys((key(a), key(b)) for d in sets.values() for a, b in set_pairs(d)))
    jobs.sort(key=lambda j: -(len(graphs[j[0]]) * len(graphs[j[1]])))
    wordnet()
    word_vectors()
    with mp.get_context("fork").Pool(args.workers) as pool:
        per_pair = dict(pool.imap_unordered(_pair, jobs, chunksize=8))
    print(f"{len(jobs)} pairs in {time.perf_counter() - started:.0f} s", file=sys.stderr)

    parts = {n: [per_pair[(key(a), key(b))] for a, b in set_pairs(d)] for n, d in sets.items()}

    def values(name: str, half: float | None, part: int | None = None) -> list[float]:
        if part is not None:
            return [float(p[part]) for p in parts[name]]
        return [combine_at(a, c, r, half) for a, c, r in parts[name]]

    def point(name: str, half: float) -> float:
        return float(metric(name, sets[name], values(name, half), 0).value)

    table = {(n, h): point(n, h) for n in SIMILARITY_SETS for h in GRID}

    def fit(train: list[str]) -> float:
        return max(GRID, key=lambda h: float(np.mean([table[(n, h)] for n in train])))

    labels = {c[0]: c[2] for c in COLUMNS if HEADLINE.get(c[0]) == c[1]}
    print("| held-out set | STRUCTURE_HALF fitted on the other three | combined | AS | content |")
    print("|---|---|---|---|---|")
    for held in SIMILARITY_SETS:
        half = fit([n for n in SIMILARITY_SETS if n != held])
        cells = [
            metric(held, sets[held], values(held, half), args.boot).format(),
            metric(held, sets[held], values(held, None, 0), args.boot).format(),
            metric(held, sets[held], values(held, None, 1), args.boot).format(),
        ]
        print(f"| {labels[held]} | {half:g} | " + " | ".join(cells) + " |")
    half = fit(list(SIMILARITY_SETS))
    shipped = "" if half == STRUCTURE_HALF else f" (the code ships {STRUCTURE_HALF:g})"
    print(f"\nFitted on all four: STRUCTURE_HALF = {half:g}{shipped}.")
    print(
        "Point values per STRUCTURE_HALF: "
        + "; ".join(
            f"{labels[n]} " + ", ".join(f"{h:g}: {table[(n, h)]:.3f}" for h in GRID) for n in SIMILARITY_SETS
        )
    )
    return 0


def combine_at(analogy_similarity: float, content: float, relations: int, half: float | None) -> float:
    """:func:`dri.metrics.scores.combine` with ``STRUCTURE_HALF`` set to ``half``."""
    if half is None or half == STRUCTURE_HALF:
        return combine(analogy_similarity, content, relations)
    share = relations / (relations + half) if relations > 0 else 0.0
    return min(1.0, max(0.0, share * analogy_similarity + (1.0 - share) * content))


if __name__ == "__main__":
    sys.exit(main())
