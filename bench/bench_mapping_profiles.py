"""Quick comparison of mapping profiles on the validity sets.

A development harness for choosing a profile's parameters; the full
benchmark, with every score, every baseline and intervals, is
``bench/bench_validity.py``. This one gives, per profile, only the headline
figure of its AS on each set (accuracy with ties wrong for the choice sets,
Pearson's r on STS-B, Kendall's tau-b on WMT23, Spearman's rho / ROC AUC on
Clough & Stevenson; the same statistics as ``bench_validity.py`` without the
bootstrap) and the median time of a Clough & Stevenson comparison (process
CPU seconds in a pool worker).

Sets, graphs and samples are ``bench_validity.py``'s: its loaders, its graph
cache (``data/cache/validity/``, parsed once per extractor) and, with
``--limit N``, its seeded sample of N items or pairs per set (Clough &
Stevenson always whole). Each distinct pair is mapped under every profile in
one pass of a ``--workers`` pool. Variants are given as
``NAME:field=value,field=value`` (e.g. ``sme:relation_floor=0.3`` or
``sme:connectivity=0``). ``--normalisations`` adds, per profile, the
same figures for other ways of dividing the mapping's structural evaluation
by the two graphs' (:data:`NORMALISATIONS`); ``--query`` adds a row with the
normalisation each task asks for (``bench_validity.query_share``: the
query's share for the choice and ranking sets, whose first text is the
query, the weighted Jaccard for the others). Parameters are
chosen once for all sets.

    .venv/bin/python bench/bench_mapping_profiles.py paper sme "sme:loose_concepts=0" [--limit 300]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import pickle
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_validity import QUERY_KINDS, graphs_for, key, parse_profile, sample, set_pairs
from scipy import stats
from validity_sets import SETS, ValiditySet, load_set

from dri.corpora.plagiarism import LEVELS
from dri.mapping.profiles import Profile
from dri.mapping.wordnet import wordnet
from dri.metrics import compare

CLOUGH = "clough-stevenson"


# -- worker side: set before the pool forks ---------------------------------------
_GRAPHS: dict[str, object] = {}
_PROFILES: list[Profile] = []


def _map(job: tuple[str, str, str]) -> tuple[tuple[str, str, str], list[float], list[float], list[tuple]]:
    scores, seconds, evaluations = [], [], []
    for profile in _PROFILES:
        started = time.process_time()
        comparison = compare(_GRAPHS[job[1]], _GRAPHS[job[2]], profile=profile)
        seconds.append(time.process_time() - started)
        scores.append(comparison.scores.analogy_similarity)
        m = comparison.mapping
        evaluations.append((m.evaluation, m.source_evaluation, m.target_evaluation, len(m.pairs)))
    return job, scores, seconds, evaluations


#: Other ways to divide a mapping's evaluation E by the graphs' own E1, E2
#: (``--normalisations``); the profile's weighted Jaccard is the first.
NORMALISATIONS = {
    "weighted Jaccard E/(E1+E2-E)": lambda e, a, b: e / (a + b - e),
    "Ochiai E/sqrt(E1 E2)": lambda e, a, b: e / (a * b) ** 0.5,
    "E/max(E1, E2)": lambda e, a, b: e / max(a, b),
    "mean containment (E/E1+E/E2)/2": lambda e, a, b: 0.5 * (e / a + e / b),
    "query containment E/E1": lambda e, a, b: e / a,
}


def normalised(name: str, evaluation: tuple) -> float:
    e, a, b, pairs = evaluation
    if not pairs or a <= 0 or b <= 0:
        return 0.0
    return min(1.0, max(0.0, NORMALISATIONS[name](e, a, b)))


def headline(data: ValiditySet, values: list[float]) -> str:
    """The set's statistic for one score, as text."""
    if data.kind == "choice":
        right, at = 0, 0
        for item in data.items:
            option_values = values[at : at + len(item.options)]
            at += len(item.options)
            best = max(option_values)
            right += option_values[item.answer] == best and option_values.count(best) == 1
        return f"{right / len(data.items):.3f}"
    if data.kind == "ranking":
        from dri.metrics.ranking import query_metrics

        pools: dict[str, tuple[list[float], list[float]]] = {}
        for query, relevance, value in zip(data.queries, data.human, values):
            pool = pools.setdefault(query, ([], []))
            pool[0].append(value)
            pool[1].append(relevance)
        ndcg = [query_metrics(q, v, r).ndcg_pct20 for q, (v, r) in pools.items()]
        return f"{100 * sum(ndcg) / len(ndcg):.1f}"
    if data.kind == "judgements":
        if data.name == "stsb":
            return f"{stats.pearsonr(values, data.human).statistic:.3f}"
        return f"{stats.kendalltau(values, data.human).statistic:.3f}"
    levels = [LEVELS[level] for level in data.levels]
    rho = stats.spearmanr(values, levels).statistic
    pos = [v for v, level in zip(values, data.levels) if level != "non"]
    neg = [v for v, level in zip(values, data.levels) if level == "non"]
    auc = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg) / (len(pos) * len(neg))
    return f"{rho:.3f}/{auc:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiles", nargs="+", help="NAME or NAME:field=value,...")
    parser.add_argument("--limit", type=int, default=None, help="seeded sample of N items/pairs per set")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--normalisations",
        action="store_true",
        help="also score each profile's mappings by the other normalisations of NORMALISATIONS",
    )
    parser.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="also save every pair's results here (pickle), for --intervals",
    )
    parser.add_argument(
        "--query",
        action="store_true",
        help="also score each profile by the task's normalisation (the query's share for choice and ranking)",
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    profiles = [parse_profile(spec) for spec in args.profiles]
    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    sets = {n: sample(load_set(n), None if n == CLOUGH else args.limit) for n in names}
    texts = {key(t): t for data in sets.values() for pair in set_pairs(data) for t in pair}
    graphs, _ = graphs_for(texts, lambda msg: print(msg, file=sys.stderr, flush=True))
    _GRAPHS.update(graphs)
    _PROFILES.extend(profiles)
    jobs = list(
        dict.fromkeys((name, key(a), key(b)) for name, data in sets.items() for a, b in set_pairs(data))
    )
    jobs.sort(key=lambda j: -(len(graphs[j[1]]) * len(graphs[j[2]])))
    wordnet()  # loaded once, shared by the forked workers
    results: dict[tuple[str, str, str], tuple[list[float], list[float], list[tuple]]] = {}
    with mp.get_context("fork").Pool(args.workers) as pool:
        for job, scores, seconds, evaluations in pool.imap_unordered(_map, jobs, chunksize=8):
            results[job] = (scores, seconds, evaluations)
    if args.dump:
        with args.dump.open("wb") as fh:
            pickle.dump({"profiles": args.profiles, "sets": sets, "results": results}, fh)
    print(
        f"{len(jobs)} distinct pairs under {len(profiles)} profiles in {time.perf_counter() - started:.0f} s"
        + (f"; samples of {args.limit}" if args.limit else "; every item"),
        file=sys.stderr,
    )
    print("| profile (AS) | " + " | ".join(names) + " | C&S median ms |")
    print("|---" * (len(names) + 2) + "|")
    clough_jobs = [(CLOUGH, key(a), key(b)) for a, b in set_pairs(sets[CLOUGH])] if CLOUGH in sets else []
    for n, spec in enumerate(args.profiles):
        cells = []
        for name, data in sets.items():
            values = [results[(name, key(a), key(b))][0][n] for a, b in set_pairs(data)]
            cells.append(headline(data, values))
        ms = statistics.median(results[j][1][n] for j in clough_jobs) * 1000 if clough_jobs else float("nan")
        print(f"| {spec} | " + " | ".join(cells) + f" | {ms:.1f} |", flush=True)
        if args.normalisations:
            for way in list(NORMALISATIONS)[1:]:
                cells = [
                    headline(
                        data,
                        [normalised(way, results[(name, key(a), key(b))][2][n]) for a, b in set_pairs(data)],
                    )
                    for name, data in sets.items()
                ]
                print(f"| {spec}, {way} | " + " | ".join(cells) + " | |", flush=True)
        if args.query:
            cells = []
            for name, data in sets.items():
                if data.kind not in QUERY_KINDS:
                    cells.append("")
                    continue
                way = "query containment E/E1"
                values = [normalised(way, results[(name, key(a), key(b))][2][n]) for a, b in set_pairs(data)]
                cells.append(headline(data, values))
            print(f"| {spec}, query-by-example | " + " | ".join(cells) + " | |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
