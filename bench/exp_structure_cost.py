"""Experiment (issue 27): compare() CPU per pair before / after, interleaved in one process.

Before = ``sme`` with ``concept_likeness=1.0``, ``loose_concepts=0.5``, ``trickle=0.5``,
``below_floor=0`` (main at 98ad30d); after = ``sme``. Graphs and vectors from
``bench_validity.py``'s caches; each pair is compared twice per profile and the
second pass is timed (process CPU), alternating the profiles pair by pair.

    .venv/bin/python bench/exp_structure_cost.py --limit 60
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_validity as bv
from validity_sets import load_set

from dri.mapping.content import CONTENT_VECTOR
from dri.mapping.profiles import get_profile
from dri.mapping.wordnet import wordnet
from dri.metrics import compare


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--sets", default="clough-stevenson,storyanalogy,analobench-s1,analobench-s10")
    p.add_argument("--limit", type=int, default=60)
    args = p.parse_args()
    after = get_profile("sme")
    before = after.but(name="before", concept_likeness=1.0, loose_concepts=0.5, trickle=0.5, below_floor=0.0)
    wordnet()
    for name in args.sets.split(","):
        data = bv.sample(load_set(name), args.limit)
        pairs = bv.set_pairs(data)[: args.limit * (1 if data.kind != "choice" else 4)]
        texts = {bv.key(t): t for pr in pairs for t in pr}
        graphs, _ = bv.graphs_for(texts, lambda m: None)
        vectors, _ = bv.encoder_vectors(texts, lambda m: None, 1)
        for k, v in vectors.items():
            graphs[k].graph[CONTENT_VECTOR] = v.tolist()
        bv.sentence_rows(graphs, lambda m: None, 1)
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _pass in range(2):
            for a, b in pairs:
                for label, prof in (("before", before), ("after", after)):
                    t = time.process_time()
                    compare(graphs[bv.key(a)], graphs[bv.key(b)], profile=prof)
                    if _pass:
                        times[label].append(time.process_time() - t)
        mb, ma = statistics.median(times["before"]) * 1e3, statistics.median(times["after"]) * 1e3
        tb, ta = sum(times["before"]), sum(times["after"])
        print(
            f"{name}: {len(pairs)} pairs, median {mb:.2f} -> {ma:.2f} ms ({ma / mb:.2f}), "
            f"total {tb:.2f} -> {ta:.2f} s ({ta / tb:.2f})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
