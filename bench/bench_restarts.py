"""Benchmark: what the mapper's restart budget costs and buys on stories.

One AnaloBench story (``story_s30`` of the bank's first entry) is the target;
the next ``--sources`` stories are mapped onto it under the default profile
with each restart budget of ``--budgets``, in one process, warm (every pair is
mapped once first). For each budget: process CPU milliseconds a pair, the
greedy runs made, and the structural evaluation (the ``sme`` objective)
against the largest budget's: how many mappings keep it exactly, the mean
and the lowest ratio.

    .venv/bin/python bench/bench_restarts.py [--sources 60] [--budgets 64 32 16 8 4 0]

Graphs are extracted once and cached as JSON under ``--cache``. The figures
are in ``docs/speed.md`` ("What the remaining budgets are made of").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import networkx as nx

from dri.graphs import load_json, save_json
from dri.mapping import map_graphs
from dri.settings import PROJECT_ROOT, cache_dir

BANK = (
    Path(os.environ.get("DRI_VALIDITY_DIR") or PROJECT_ROOT.parent / "shared" / "validity")
    / "analobench"
    / "story_bank.jsonl"
)


def stories(count: int, cache: Path) -> list[nx.DiGraph]:
    """The bank's first ``count`` 30-sentence stories as graphs, cached."""
    from dri.extract import graph_from_text

    with BANK.open(encoding="utf-8") as fh:
        texts = [json.loads(line)["story_s30"] for line, _ in zip(fh, range(count), strict=False)]
    cache.mkdir(parents=True, exist_ok=True)
    graphs = []
    for i, text in enumerate(texts):
        path = cache / f"story-s30-{i}.json"
        if not path.exists():
            save_json(graph_from_text(text, name=f"story-s30-{i}"), path)
        graphs.append(load_json(path))
    return graphs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sources", type=int, default=60)
    parser.add_argument("--budgets", type=int, nargs="+", default=[64, 32, 16, 8, 4, 0])
    parser.add_argument("--cache", type=Path, default=cache_dir() / "bench-restarts")
    args = parser.parse_args(argv)
    target, *sources = stories(args.sources + 1, args.cache)
    for source in sources:
        map_graphs(source, target)  # warm: WordNet's tables and the label meanings
    reference: list[float] | None = None
    print(f"{len(sources)} pairs of 30-sentence stories onto one, default profile")
    print("restarts  ms/pair  runs/pair  same evaluation  mean ratio  lowest ratio")
    for budget in sorted(args.budgets, reverse=True):
        started = time.process_time()
        mappings = [map_graphs(source, target, restarts=budget) for source in sources]
        ms = (time.process_time() - started) / len(sources) * 1000
        values = [m.evaluation for m in mappings]
        reference = reference or values
        ratios = [v / r for v, r in zip(values, reference, strict=True) if r]
        same = sum(abs(v - r) < 1e-9 for v, r in zip(values, reference, strict=True))
        runs = statistics.mean(m.runs for m in mappings)
        print(
            f"{budget:8d}  {ms:7.1f}  {runs:9.1f}  {same:6d} of {len(values):<5d}  "
            f"{statistics.mean(ratios):10.3f}  {min(ratios):12.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
