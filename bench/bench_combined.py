"""Fit the combined similarity leave-one-set-out: does structure add to the sentence encoder?

The combined similarity of :mod:`dri.metrics.scores` blends AS (structure)
with content (the sentence encoder's cosine, :mod:`dri.mapping.content`).
This bench maps every pair of the four similarity sets (Clough & Stevenson,
STS-B, WMT23, CSFCube fold 1; graphs and encoder vectors from
``bench/bench_validity.py``'s caches), keeps AS, content and R (the relations
of the smaller graph) per pair, and fits two forms, each with one parameter:

* ``share``: ``s x AS + (1 - s) x content`` with ``s = R / (R + k)``, k in
  :data:`GRID` (the structure's weight grows with the relations);
* ``fixed``: ``w x AS + (1 - w) x content``, w in :data:`WEIGHTS`;

and, for each set in turn, chooses the form and its parameter on the other
three (the greatest mean of their headline metrics: C&S rho, STS-B Pearson,
WMT23 Kendall tau-b, CSFCube NDCG%20 as a fraction; the encoder alone, w = 0,
is one of the choices) and reports the held-out set's metric with a 95%
bootstrap interval beside the encoder alone and AS alone. The last lines give
the choice fitted on all four, which the code ships
(:data:`dri.metrics.scores.STRUCTURE_HALF`); the leave-one-set-out rows are
the estimate of how it does on data it was not fitted on.

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
from bench_validity import COLUMNS, encoder_vectors, evaluate, graphs_for, key, sample, set_pairs
from validity_sets import load_set

from dri.mapping.content import CONTENT_VECTOR
from dri.mapping.wordnet import wordnet
from dri.metrics.scores import STRUCTURE_HALF, compare

SIMILARITY_SETS = ("clough-stevenson", "stsb", "wmt23", "csfcube")
#: The headline metric of each similarity set, as bench_validity names it.
HEADLINE = {"clough-stevenson": "spearman", "stsb": "pearson", "wmt23": "kendall", "csfcube": "ndcg_pct20"}
GRID = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0, 128.0)
WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)

_GRAPHS: dict[str, Any] = {}


def _pair(job: tuple[str, str]) -> tuple[tuple[str, str], tuple[float, float, int]]:
    c = compare(_GRAPHS[job[0]], _GRAPHS[job[1]])
    relations = min(c.mapping.source_relations, c.mapping.target_relations)
    return job, (c.scores.analogy_similarity, c.scores.content, relations)


def metric(name: str, data: Any, values: list[float], n_boot: int) -> Any:
    return evaluate(data, {"x": values}, n_boot)["x"][HEADLINE[name]]


def blend(parts: np.ndarray, form: str, parameter: float) -> list[float]:
    """The combined score of each (AS, content, R) row under ``form`` with ``parameter``."""
    analogy, content, relations = parts[:, 0], parts[:, 1], parts[:, 2]
    if form == "share":
        weight = np.where(relations > 0, relations / (relations + parameter), 0.0)
    else:
        weight = np.full(len(parts), parameter)
    return np.clip(weight * analogy + (1 - weight) * content, 0.0, 1.0).tolist()


def collect(sets: dict[str, Any], workers: int) -> dict[str, np.ndarray]:
    """(AS, content, R) of every pair of every set, mapped in a pool."""
    texts = {key(t): t for d in sets.values() for p in set_pairs(d) for t in p}

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    graphs, _ = graphs_for(texts, log)
    vectors, _ = encoder_vectors(texts, log, workers)
    for k, v in vectors.items():
        graphs[k].graph[CONTENT_VECTOR] = v.tolist()
    _GRAPHS.update(graphs)
    jobs = list(dict.fromkeys((key(a), key(b)) for d in sets.values() for a, b in set_pairs(d)))
    jobs.sort(key=lambda j: -(len(graphs[j[0]]) * len(graphs[j[1]])))
    wordnet()
    with mp.get_context("fork").Pool(workers) as pool:
        per_pair = dict(pool.imap_unordered(_pair, jobs, chunksize=8))
    return {n: np.array([per_pair[(key(a), key(b))] for a, b in set_pairs(d)]) for n, d in sets.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="deterministic sample of N pairs per set")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--boot", type=int, default=1000)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    sets = {n: sample(load_set(n), args.limit) for n in SIMILARITY_SETS}
    parts = collect(sets, args.workers)
    print(f"pairs mapped in {time.perf_counter() - started:.0f} s", file=sys.stderr)

    choices = [("share", k) for k in GRID] + [("fixed", w) for w in WEIGHTS]
    table = {
        (n, c): float(metric(n, sets[n], blend(parts[n], *c), 0).value)
        for n in SIMILARITY_SETS
        for c in choices
    }

    def fit(train: list[str]) -> tuple[str, float]:
        return max(choices, key=lambda c: (float(np.mean([table[(n, c)] for n in train])), c[0] == "fixed"))

    def name(choice: tuple[str, float]) -> str:
        form, p = choice
        if form == "fixed" and p == 0.0:
            return "encoder alone"
        return f"k = {p:g}" if form == "share" else f"w = {p:g}"

    labels = {c[0]: c[2] for c in COLUMNS if HEADLINE.get(c[0]) == c[1]}
    print("| held-out set | fitted on the other three | combined | encoder | AS |")
    print("|---|---|---|---|---|")
    for held in SIMILARITY_SETS:
        choice = fit([n for n in SIMILARITY_SETS if n != held])
        cells = [
            metric(held, sets[held], blend(parts[held], *choice), args.boot).format(),
            metric(held, sets[held], parts[held][:, 1].tolist(), args.boot).format(),
            metric(held, sets[held], parts[held][:, 0].tolist(), args.boot).format(),
        ]
        print(f"| {labels[held]} | {name(choice)} | " + " | ".join(cells) + " |")
    choice = fit(list(SIMILARITY_SETS))
    shipped = f" (the code ships k = {STRUCTURE_HALF:g})"
    print(f"\nFitted on all four: {name(choice)}{shipped}.")
    for n in SIMILARITY_SETS:
        print(f"{labels[n]}: " + ", ".join(f"{name(c)}: {table[(n, c)]:.3f}" for c in choices))
    return 0


if __name__ == "__main__":
    sys.exit(main())
