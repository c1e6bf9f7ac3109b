"""Analogy or literal similarity: AS with the mapped pairs of identical words discounted.

Gentner's Structure Mapping Theory tells an *analogy* (relations shared,
objects different: the army and the rays) from *literal similarity*
(relations and objects shared: a story and its paraphrase). AS under ``sme``
(the weighted Jaccard of :mod:`dri.metrics.scores`) counts a mapped pair of
identical words at its full evidence, so a candidate that shares the query's
entities (StoryAnalogy's ``noun`` distractor) gains from them. This bench
maps every pair of the chosen sets once and recomputes AS with the evidence
of concept pairs whose lemmas are identical multiplied by ``wc`` (structural
and loose pairs apart) and that of identical relation pairs by ``wr``:

    AS' = (E(M) - (1 - wc) x D_c - (1 - wr) x D_r) / (E(G1) + E(G2) - E(M))

(the denominator unchanged, so a clone scores below 1: it is literal
similarity, not an analogy). For the similarity sets it also recomputes the
combined similarity with AS' (:func:`dri.metrics.scores.combine`). Nothing in
the library changes; the numbers are in docs/validity.md.

    .venv/bin/python bench/bench_identity.py --sets storyanalogy,analobench-s1,analobench-s10
    .venv/bin/python bench/bench_identity.py --sets clough-stevenson,wmt23 --workers 1
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from bench_validity import encoder_vectors, evaluate, graphs_for, key, sentence_rows, set_pairs
from validity_sets import load_set

from dri.mapping.content import CONTENT_VECTOR
from dri.mapping.wordnet import wordnet
from dri.metrics.scores import combine, compare

#: Weights of identical concept pairs' evidence (structural, loose) and of identical relation pairs'.
VARIANTS = (
    ("shipped", 1.0, 1.0, 1.0),
    ("concepts 0.75", 0.75, 0.75, 1.0),
    ("concepts 0.5", 0.5, 0.5, 1.0),
    ("concepts 0.25", 0.25, 0.25, 1.0),
    ("concepts 0", 0.0, 0.0, 1.0),
    ("loose 0.5", 1.0, 0.5, 1.0),
    ("loose 0", 1.0, 0.0, 1.0),
    ("concepts 0.5, relations 0.5", 0.5, 0.5, 0.5),
)
#: The headline statistic of each set that is not a choice set (accuracy).
HEADLINE = {"clough-stevenson": "spearman", "wmt23": "kendall", "stsb": "pearson"}

_GRAPHS: dict[str, Any] = {}


def _pair(job: tuple[str, str]) -> tuple[tuple[str, str], tuple[float, ...]]:
    c = compare(_GRAPHS[job[0]], _GRAPHS[job[1]])
    m = c.mapping

    def identical(kind: str, loose: bool) -> float:
        return sum(
            p.evidence
            for p in m.pairs
            if p.kind == kind and p.loose == loose and p.source_lemma == p.target_lemma
        )

    whole = m.source_evaluation + m.target_evaluation - m.evaluation
    relations = min(m.source_relations, m.target_relations)
    return job, (
        m.evaluation,
        whole,
        identical("concept", False),
        identical("concept", True),
        identical("relation", False),
        c.scores.semantic,
        c.scores.content,
        relations,
    )


def variant_scores(rows: np.ndarray, wc: float, wl: float, wr: float) -> tuple[list[float], list[float]]:
    """AS' and the combined similarity with AS' of each row."""
    e, whole, dc, dl, dr, semantic, content, relations = rows.T
    kept = e - (1 - wc) * dc - (1 - wl) * dl - (1 - wr) * dr
    analogy = np.where(whole > 0, np.clip(kept / np.where(whole > 0, whole, 1.0), 0.0, 1.0), 0.0)
    combined = [combine(a, s, c, int(r)) for a, s, c, r in zip(analogy, semantic, content, relations)]
    return analogy.tolist(), combined


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="storyanalogy,analobench-s1,analobench-s10")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    sets = {n: load_set(n) for n in args.sets.split(",")}
    texts = {key(t): t for d in sets.values() for p in set_pairs(d) for t in p}

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    graphs, _ = graphs_for(texts, log, None)
    vectors, _ = encoder_vectors(texts, log, args.workers)
    for k, v in vectors.items():
        graphs[k].graph[CONTENT_VECTOR] = v.tolist()
    sentence_rows(graphs, log, args.workers)
    _GRAPHS.update(graphs)
    jobs = list(dict.fromkeys((key(a), key(b)) for d in sets.values() for a, b in set_pairs(d)))
    wordnet()
    with mp.get_context("fork").Pool(args.workers) as pool:
        per_pair = dict(pool.imap_unordered(_pair, jobs, chunksize=8))
    print(
        "| variant | "
        + " | ".join(f"{n} AS'" + ("" if d.kind == "choice" else f" | {n} combined") for n, d in sets.items())
        + " |"
    )
    for name, wc, wl, wr in VARIANTS:
        cells = []
        for n, d in sets.items():
            rows = np.array([per_pair[(key(a), key(b))] for a, b in set_pairs(d)])
            analogy, combined = variant_scores(rows, wc, wl, wr)
            result = evaluate(d, {"AS": analogy, "combined": combined}, 0)
            metric = HEADLINE.get(n, "accuracy")
            cells.append(f"{result['AS'][metric].value:.3f}")
            if d.kind != "choice":
                cells.append(f"{result['combined'][metric].value:.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
