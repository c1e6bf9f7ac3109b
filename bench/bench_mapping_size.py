"""How mapping time grows with graph size: real stories and random graphs.

Documents of 10, 30, 100 and 300 sentences are built from the AnaloBench
story bank (``story_s10`` and ``story_s30`` texts concatenated in bank order,
cut at the sentence count); the source takes stories from the start of the
bank, the target from its middle, so the two documents differ. Random pairs
are two different :func:`mapping.random_ros_graph` graphs of 1,000 nodes.
Each pair is mapped ``--cold`` times cold (every WordNet table filled on use cleared
first -- word pairs, word and synset tables, relation labels -- as in a fresh
worker that has loaded WordNet: what it pays the first time it meets two
documents) and then ``--repeat`` times warm, timed in process CPU seconds
(the machine is shared, so wall time would measure the neighbours); the
table gives the median of each, the relation pairs
mapped, the search runs and the feasibility checks. The last column is the
cold time divided by n log n of the smaller graph's relation count, scaled to
the first row: flat or falling means growth no worse than n log n.

Graphs are extracted once and cached as JSON under ``--cache``.

    .venv/bin/python bench/bench_mapping_size.py [--profile paper] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import networkx as nx

from dri.graphs import load_json, save_json
from dri.mapping import map_graphs
from dri.mapping.random_graphs import random_ros_graph
from dri.mapping.senses import clear_caches as clear_sense_caches
from dri.mapping.wordnet import clear_caches, wordnet
from dri.settings import PROJECT_ROOT, cache_dir

SENTENCES = (10, 30, 100, 300)
RANDOM_NODES = 1000
BANK = (
    Path(os.environ.get("DRI_VALIDITY_DIR") or PROJECT_ROOT.parent / "shared" / "validity")
    / "analobench"
    / "story_bank.jsonl"
)


def story_sentences(bank: Path) -> list[str]:
    """Every sentence of the bank's S10 and S30 stories, in bank order."""
    from dri.extract import document_from_text

    out: list[str] = []
    with bank.open(encoding="utf-8") as fh:
        for line in fh:
            entry = json.loads(line)
            for key in ("story_s10", "story_s30"):
                text = entry.get(key) or ""
                out += [s.text for s in document_from_text(text).sentences]
    return out


def document_pair(n: int, cache: Path) -> tuple[nx.DiGraph, nx.DiGraph]:
    from dri.extract import graph_from_text

    sentences: list[str] = []
    graphs = []
    for side in ("a", "b"):
        path = cache / f"stories-{n}-{side}.json"
        if not path.exists():
            sentences = sentences or story_sentences(BANK)
            cache.mkdir(parents=True, exist_ok=True)
            start = 0 if side == "a" else len(sentences) // 2
            g = graph_from_text(" ".join(sentences[start : start + n]), name=f"stories-{n}-{side}")
            save_json(g, path)
        graphs.append(load_json(path))
    return graphs[0], graphs[1]


def clear_similarity_caches() -> None:
    """Forget every WordNet table filled on use, as in a fresh worker."""
    clear_caches()
    clear_sense_caches()


def relations(g: nx.DiGraph) -> int:
    return sum(1 for _, kind in g.nodes(data="type") if kind == "relation")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default=None, help="mapping profile (default: the default profile)")
    parser.add_argument("--repeat", type=int, default=3, help="warm repetitions per pair (median)")
    parser.add_argument("--cold", type=int, default=3, help="cold repetitions per pair (median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, default=cache_dir() / "bench-mapping-size")
    args = parser.parse_args(argv)
    kw = {} if args.profile is None else {"profile": args.profile}
    wordnet()
    cases = [(f"{n} sentences", *document_pair(n, args.cache)) for n in SENTENCES]
    rng = random.Random(args.seed)
    cases.append(
        (
            f"random {RANDOM_NODES}",
            random_ros_graph(RANDOM_NODES, rng, name="ra"),
            random_ros_graph(RANDOM_NODES, rng, name="rb"),
        )
    )
    print(f"profile: {args.profile or 'default'}")
    print(
        f"{'graphs':<14}{'nodes':>11}{'relations':>11}{'cold s':>8}{'warm s':>8}"
        f"{'mapped r':>9}{'runs':>6}{'checks':>9}{'cold/nlogn':>11}"
    )
    base = None
    for label, a, b in cases:
        colds = []
        for _ in range(args.cold):
            clear_similarity_caches()
            t0 = time.process_time()
            m = map_graphs(a, b, **kw)
            colds.append(time.process_time() - t0)
        cold = statistics.median(colds)
        warm = []
        for _ in range(args.repeat):
            t0 = time.process_time()
            map_graphs(a, b, **kw)
            warm.append(time.process_time() - t0)
        n = max(2, min(relations(a), relations(b)))
        per = cold / (n * math.log(n))
        base = base or per
        print(
            f"{label:<14}{a.number_of_nodes():>5}/{b.number_of_nodes():<5}"
            f"{relations(a):>5}/{relations(b):<5}{cold:>8.3f}{statistics.median(warm):>8.3f}"
            f"{len(m.relation_pairs):>9}{m.runs:>6}{getattr(m, 'checks', 0):>9}{per / base:>11.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
