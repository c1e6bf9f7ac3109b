"""Quick comparison of mapping profiles on samples of the validity sets.

A development harness for choosing a profile's parameters (the full
benchmark is ``bench/bench_validity.py``). Samples, fixed and the same for
every profile:

* Clough & Stevenson: all 95 answer/original pairs; Spearman rho against the
  copy level (cut 3 ... non 0) and AUC of plagiarised against not;
* StoryAnalogy multiple choice and AnaloBench T1 S1: the first ``--items``
  items; accuracy, a tie for the best counted as wrong;
* STS-B dev: the first ``--pairs`` pairs; Pearson r against the human score.

Graphs are extracted once (current extractor) and cached as JSON under
``--cache``. Each profile is run over the same graphs; the table gives each
set's figure for the AS and the weighted Jaccard, the median C&S comparison
time (process CPU seconds, warm similarity caches after the first profile)
and the profile's parameters. Variants of a profile are given as
``NAME:field=value,field=value`` (e.g. ``sme:relation_floor=0.3``).

    .venv/bin/python bench/bench_mapping_profiles.py paper sme [--items 100] [--pairs 200]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import networkx as nx
from scipy import stats

from dri.corpora.plagiarism import LEVELS, load_plagiarism
from dri.corpora.text import read_text
from dri.extract import build_graphs, document_from_text
from dri.graphs import from_json, to_json
from dri.mapping.profiles import get_profile
from dri.mapping.wordnet import wordnet
from dri.metrics import compare
from dri.settings import PROJECT_ROOT, cache_dir, clough_stevenson_dir

VALIDITY = Path(os.environ.get("DRI_VALIDITY_DIR") or PROJECT_ROOT.parent / "shared" / "validity")


def graphs_of(texts: list[str], cache: Path) -> dict[str, nx.DiGraph]:
    """text -> ROS graph, extracted once and cached by content hash."""
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, nx.DiGraph] = {}
    todo = []
    for text in dict.fromkeys(texts):
        path = cache / (hashlib.sha1(text.encode()).hexdigest() + ".json")
        if path.exists():
            out[text] = from_json(json.loads(path.read_text()))
        else:
            todo.append(text)
    if todo:
        docs = [document_from_text(text, name=f"t{n}") for n, text in enumerate(todo)]
        for text, g in zip(todo, build_graphs(docs)):
            path = cache / (hashlib.sha1(text.encode()).hexdigest() + ".json")
            path.write_text(json.dumps(to_json(g)))
            out[text] = g
    return out


def read_jsonl(path: Path, n: int) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for _, line in zip(range(n), fh)]


def auc(pos: list[float], neg: list[float]) -> float:
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def choice_accuracy(items: list[tuple[str, list[str], int]], score) -> float:
    right = 0
    for query, options, answer in items:
        values = [score(query, o) for o in options]
        best = max(values)
        right += values[answer] == best and values.count(best) == 1
    return right / len(items)


def scorer(profile, graphs: dict[str, nx.DiGraph]):
    """A memoised (text a, text b) -> Scores under ``profile``, and its list of times."""
    memo: dict[tuple[str, str], object] = {}
    times: list[float] = []

    def scores(a: str, b: str, timed: bool = False):
        key = (a, b)
        if key not in memo:
            c0 = time.process_time()
            memo[key] = compare(graphs[a], graphs[b], profile=profile).scores
            if timed:
                times.append(time.process_time() - c0)
        return memo[key]

    return scores, times


def parse_profile(spec: str):
    name, _, changes = spec.partition(":")
    profile = get_profile(name)
    if changes:
        kw = {}
        for part in changes.split(","):
            key, _, value = part.partition("=")
            current = getattr(profile, key)
            if isinstance(current, bool):
                kw[key] = value.lower() in ("1", "true", "yes")
            else:
                kw[key] = type(current)(value) if not isinstance(current, str) else value
        profile = profile.but(name=spec, **kw)
    return profile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profiles", nargs="+")
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=cache_dir() / "bench-mapping-profiles")
    args = parser.parse_args(argv)
    wordnet()
    corpus = load_plagiarism(clough_stevenson_dir())
    cs = [(read_text(p.original), read_text(p.answer), LEVELS[p.level]) for p in corpus.pairs]
    sa = [
        (it["query"], it["candidates"], it["answer"])
        for it in read_jsonl(VALIDITY / "storyanalogy" / "multiple_choice.jsonl", args.items)
    ]
    ab = [
        (it["query"], it["options"], it["answer"])
        for it in read_jsonl(VALIDITY / "analobench" / "t1_items.jsonl", args.items)
    ]
    with (VALIDITY / "stsb" / "sts_dev.csv").open(encoding="utf-8") as fh:
        sts = [(r["sentence_a"], r["sentence_b"], float(r["score"])) for r in csv.DictReader(fh)][
            : args.pairs
        ]
    texts = [t for a, b, _ in cs + sts for t in (a, b)] + [t for q, o, _ in sa + ab for t in (q, *o)]
    t0 = time.perf_counter()
    graphs = graphs_of(texts, args.cache)
    print(f"{len(graphs)} graphs ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    header = f"{'profile':<44}{'score':<6}{'C&S rho':>8}{'AUC':>7}{'SA acc':>7}{'AB1 acc':>8}{'STS r':>7}{'C&S ms':>8}"
    print(header)
    for spec in args.profiles:
        profile = parse_profile(spec)
        scores, times = scorer(profile, graphs)
        for a, b, _ in cs:
            scores(a, b, timed=True)
        for field in ("analogy_similarity", "weighted_jaccard"):
            cs_values = [getattr(scores(a, b), field) for a, b, _ in cs]
            levels = [lv for _, _, lv in cs]
            rho = stats.spearmanr(cs_values, levels).statistic
            area = auc(
                [v for v, lv in zip(cs_values, levels) if lv > 0],
                [v for v, lv in zip(cs_values, levels) if lv == 0],
            )
            sa_acc = choice_accuracy(sa, lambda q, o, f=field, sc=scores: getattr(sc(q, o), f))
            ab_acc = choice_accuracy(ab, lambda q, o, f=field, sc=scores: getattr(sc(q, o), f))
            r = stats.pearsonr(
                [getattr(scores(a, b), field) for a, b, _ in sts], [g for _, _, g in sts]
            ).statistic
            print(
                f"{spec[:43]:<44}{'AS' if field == 'analogy_similarity' else 'wJ':<6}{rho:>8.3f}{area:>7.3f}"
                f"{sa_acc:>7.3f}{ab_acc:>8.3f}{r:>7.3f}{statistics.median(times) * 1000:>8.1f}",
                flush=True,
            )
        print(f"  {json.dumps({k: v for k, v in asdict(profile).items() if k != 'name'})}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
