"""Fit the combined similarity leave-one-set-out: does structure add to the sentence encoder?

The combined similarity of :mod:`dri.metrics.scores` blends AS (structure)
with content (the two texts' sentences matched by the sentence encoder,
:mod:`dri.mapping.content`). This bench maps every pair of the four
similarity sets (Clough & Stevenson, STS-B, WMT23, CSFCube fold 1; graphs and
encoder vectors from ``bench/bench_validity.py``'s caches), keeps AS, the
sentence match, the whole-text cosine and R (the relations of the smaller
graph) per pair. It first fits the content alone, ``m x cosine + (1 - m) x
sentence match`` with m in :data:`WHOLE` (m = 1 is the encoder alone) and the
power p of the generalised mean that averages each side's best sentence
matches, in :data:`POWERS` (p = 1 is BERTScore's arithmetic mean, the
library's; measured, not kept: docs/mapping.md "Sentences matched one by
one"), then content and structure together, two forms each with one
parameter, each with the structure S either AS or the geometric mean of AS
and semantic (the mapped pairs' mean Lin; ``+ semantic`` in the tables), the
library's:

* ``share``: ``s x S + (1 - s) x content`` with ``s = R / (R + k)``, k in
  :data:`GRID` (the structure's weight grows with the relations);
* ``fixed``: ``w x S + (1 - w) x content``, w in :data:`WEIGHTS`;

and, for each set in turn, chooses the form and its parameter on the other
three (the greatest mean of their headline metrics: C&S rho, STS-B Pearson,
WMT23 Kendall tau-b, CSFCube NDCG%20 as a fraction; the encoder alone, w = 0,
is one of the choices) and reports the held-out set's metric with a 95%
bootstrap interval beside the encoder alone and AS alone. The last lines give
the choice fitted on all four beside what the code ships (the sentences, p =
1, the geometric mean, :data:`dri.metrics.scores.STRUCTURE_HALF`); the leave-one-set-out rows are
the estimate of how it does on data it was not fitted on.

    .venv/bin/python bench/bench_combined.py
    .venv/bin/python bench/bench_combined.py --limit 300      # a quick look

A sample is a poor judge of CSFCube: its 800-pair sample (10 of the 24
queries) gave the power mean +4.1 NDCG%20 points that the whole fold does
not (-0.8); fit on the whole sets before shipping a choice.
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
from bench_validity import (
    COLUMNS,
    encoder_vectors,
    evaluate,
    graphs_for,
    key,
    sample,
    sentence_rows,
    set_pairs,
)
from validity_sets import load_set

from dri.mapping.blas import product
from dri.mapping.content import CONTENT_VECTOR, content_vector, sentence_vectors, vector_similarity
from dri.mapping.wordnet import wordnet
from dri.metrics.scores import STRUCTURE_HALF, compare

SIMILARITY_SETS = ("clough-stevenson", "stsb", "wmt23", "csfcube")
#: The headline metric of each similarity set, as bench_validity names it.
HEADLINE = {"clough-stevenson": "spearman", "stsb": "pearson", "wmt23": "kendall", "csfcube": "ndcg_pct20"}
GRID = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0, 128.0)
#: Weights of the whole-text cosine in the content (the rest is the sentence match).
WHOLE = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Powers of the generalised mean that averages each side's best sentence matches
#: (1: the arithmetic mean of :func:`dri.mapping.content.sentence_match`, shipped).
POWERS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
MATCH_POWER = 1.0
#: The suffix of a combined form whose structure is the geometric mean of AS and semantic.
SEMANTIC = " + semantic"
WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0)

_GRAPHS: dict[str, Any] = {}


def power_match(a: np.ndarray, b: np.ndarray, power: float) -> float:
    """:func:`dri.mapping.content.sentence_match` with each side's best matches
    averaged by the generalised mean of ``power`` (1: the library's)."""
    similarity = np.clip(product(a, b.T), 0.0, 1.0).astype(np.float64)
    precision, recall = (
        float(np.mean(best**power) ** (1 / power)) for best in (similarity.max(1), similarity.max(0))
    )
    return 0.0 if precision + recall <= 0 else min(1.0, 2 * precision * recall / (precision + recall))


def _pair(job: tuple[str, str]) -> tuple[tuple[str, str], tuple[float, ...]]:
    source, target = _GRAPHS[job[0]], _GRAPHS[job[1]]
    c = compare(source, target)
    relations = min(c.mapping.source_relations, c.mapping.target_relations)
    cosine = vector_similarity(content_vector(source), content_vector(target))
    a, b = sentence_vectors(source), sentence_vectors(target)
    matches = [power_match(a, b, p) if a is not None and b is not None else 0.0 for p in POWERS]
    return job, (
        c.scores.analogy_similarity,
        c.scores.content,
        relations,
        cosine,
        c.scores.semantic,
        *matches,
    )


def metric(name: str, data: Any, values: list[float], n_boot: int) -> Any:
    return evaluate(data, {"x": values}, n_boot)["x"][HEADLINE[name]]


def blend(
    parts: np.ndarray, form: str, parameter: float, whole: float = 0.0, power: float = MATCH_POWER
) -> list[float]:
    """The combined score of each (AS, sentence match, R, whole-text cosine, semantic,
    sentence match of each of :data:`POWERS`) row under ``form`` with ``parameter``,
    content being ``whole`` x cosine + (1 - whole) x the sentence match of ``power``;
    the structure AS, or with ``form`` ending in ``+ semantic`` the geometric mean of AS and semantic."""
    analogy, relations = parts[:, 0], parts[:, 2]
    if form.endswith(SEMANTIC):
        analogy = np.sqrt(parts[:, 0] * parts[:, 4])
    content = whole * parts[:, 3] + (1 - whole) * parts[:, 5 + POWERS.index(power)]
    if form.startswith("share"):
        weight = np.where(relations > 0, relations / (relations + parameter), 0.0)
    else:
        weight = np.full(len(parts), parameter)
    return np.clip(weight * analogy + (1 - weight) * content, 0.0, 1.0).tolist()


def collect(sets: dict[str, Any], workers: int, graph_cache: Path | None = None) -> dict[str, np.ndarray]:
    """(AS, content, R) of every pair of every set, mapped in a pool."""
    texts = {key(t): t for d in sets.values() for p in set_pairs(d) for t in p}

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    graphs, _ = graphs_for(texts, log, graph_cache)
    vectors, _ = encoder_vectors(texts, log, workers)
    for k, v in vectors.items():
        graphs[k].graph[CONTENT_VECTOR] = v.tolist()
    sentence_rows(graphs, log, workers)
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
    parser.add_argument(
        "--graph-cache",
        type=Path,
        default=None,
        help="bench_validity's graph cache file to use (as its --graph-cache)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    sets = {n: sample(load_set(n), args.limit) for n in SIMILARITY_SETS}
    parts = collect(sets, args.workers, args.graph_cache)
    print(f"pairs mapped in {time.perf_counter() - started:.0f} s", file=sys.stderr)

    labels = {c[0]: c[2] for c in COLUMNS if HEADLINE.get(c[0]) == c[1]}

    Choice = tuple[float, float, str, float]  # whole-text weight, power, form, parameter

    def score(n: str, whole: float, power: float, form: str, parameter: float, boot: int = 0) -> Any:
        return metric(n, sets[n], blend(parts[n], form, parameter, whole, power), boot)

    def loso(choices: list[Choice]) -> dict[str, Choice]:
        table = {(n, c): float(score(n, *c).value) for n in SIMILARITY_SETS for c in choices}

        def fit(train: list[str]) -> Choice:
            # Ties go to the simpler choice: the cosine alone, the arithmetic mean, a fixed weight, AS.
            return max(
                choices,
                key=lambda c: (
                    float(np.mean([table[(n, c)] for n in train])),
                    c[0],
                    -c[1],
                    c[2].startswith("fixed"),
                    not c[2].endswith(SEMANTIC),
                ),
            )

        fits = {held: fit([n for n in SIMILARITY_SETS if n != held]) for held in SIMILARITY_SETS}
        fits["all"] = fit(list(SIMILARITY_SETS))
        return fits

    def name(choice: Choice) -> str:
        whole, power, form, p = choice
        sentences = f"sentences p = {power:g}"
        content = (
            "cosine"
            if whole == 1
            else sentences
            if whole == 0
            else f"{whole:g} x cosine + {1 - whole:g} x {sentences}"
        )
        base, _, structure = form.partition(" + ")
        if base == "fixed" and p == 0.0:
            return content
        weight = f"k = {p:g}" if base == "share" else f"w = {p:g}"
        return f"{content}, {weight}" + (", structure sqrt(AS x semantic)" if structure else "")

    shipped_content: Choice = (0.0, MATCH_POWER, "fixed", 0.0)
    arithmetic: Choice = (0.0, 1.0, "fixed", 0.0)
    cosine: Choice = (1.0, 1.0, "fixed", 0.0)
    print("The sentence match's power alone (the sentences, no cosine; fitted on the other three sets):\n")
    print("| held-out set | fitted on the other three | content | arithmetic mean (p = 1) | encoder cosine |")
    print("|---|---|---|---|---|")
    power_fits = loso([(0.0, p, "fixed", 0.0) for p in POWERS])
    for held in SIMILARITY_SETS:
        cells = [score(held, *c, args.boot).format() for c in (power_fits[held], arithmetic, cosine)]
        print(f"| {labels[held]} | {name(power_fits[held])} | " + " | ".join(cells) + " |")
    print(f"\nFitted on all four: {name(power_fits['all'])} (the code ships {name(shipped_content)}).\n")

    content_fits = loso([(m, p, "fixed", 0.0) for m in WHOLE for p in POWERS if m < 1 or p == 1])
    print("Content alone (the whole-text cosine's weight and the power fitted on the other three sets):\n")
    print(
        "| held-out set | fitted on the other three | content | encoder cosine alone | the shipped content |"
    )
    print("|---|---|---|---|---|")
    for held in SIMILARITY_SETS:
        cells = [score(held, *c, args.boot).format() for c in (content_fits[held], cosine, shipped_content)]
        print(f"| {labels[held]} | {name(content_fits[held])} | " + " | ".join(cells) + " |")
    print(f"\nFitted on all four: {name(content_fits['all'])} (the code ships {name(shipped_content)}).\n")

    forms = [
        (f"{form}{structure}", x)
        for structure in ("", SEMANTIC)
        for form, grid in (("share", GRID), ("fixed", WEIGHTS))
        for x in grid
    ]
    combined_fits = loso([(m, p, *f) for m in WHOLE for p in POWERS if m < 1 or p == 1 for f in forms])
    print("Combined (content and structure fitted together on the other three sets):\n")
    print(
        "| held-out set | fitted on the other three | combined | content (fitted above) | encoder cosine | AS |"
    )
    print("|---|---|---|---|---|---|")
    for held in SIMILARITY_SETS:
        cells = [
            score(held, *combined_fits[held], args.boot).format(),
            score(held, *content_fits[held], args.boot).format(),
            score(held, *cosine, args.boot).format(),
            score(held, 0.0, 1.0, "fixed", 1.0, args.boot).format(),
        ]
        print(f"| {labels[held]} | {name(combined_fits[held])} | " + " | ".join(cells) + " |")
    shipped = name((0.0, MATCH_POWER, "share" + SEMANTIC, STRUCTURE_HALF))
    print(f"\nFitted on all four: {name(combined_fits['all'])} (the code ships {shipped}).\n")
    shipped_structure(score, loso, name, labels, forms, args.boot)
    return 0


def shipped_structure(
    score: Any, loso: Any, name: Any, labels: dict[str, str], forms: list, boot: int
) -> None:
    """The combined score with the shipped content: the structure's form and weight fitted
    on the other three sets, against AS as the structure (fitted the same way)."""
    with_semantic = loso([(0.0, MATCH_POWER, *f) for f in forms])
    with_as = loso([(0.0, MATCH_POWER, *f) for f in forms if not f[0].endswith(SEMANTIC)])
    print("Combined with the shipped content (structure and weight fitted on the other three sets):\n")
    print(
        "| held-out set | fitted on the other three | combined | AS as the structure, fitted | fitted on it |"
    )
    print("|---|---|---|---|---|")
    for held in SIMILARITY_SETS:
        cells = [score(held, *c, boot).format() for c in (with_semantic[held], with_as[held])]
        print(
            f"| {labels[held]} | {name(with_semantic[held])} | {cells[0]} | {cells[1]} | {name(with_as[held])} |"
        )
    print(f"\nFitted on all four: {name(with_semantic['all'])}; AS as the structure: {name(with_as['all'])}.")


if __name__ == "__main__":
    sys.exit(main())
