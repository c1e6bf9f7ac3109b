"""What the mapping pictures cost: seconds per picture, SVG size, and `dri demo` end to end.

The analogy-search report draws a picture for each of the top k hits of every
target (:mod:`metrics.picture`), and `dri demo` should finish in under 15 s.
This measures:

* per picture: CPU and wall seconds of :func:`metrics.picture.draw_mapping`
  on every ordered pair of the demo analogy corpus (72 pictures of 10-40 nodes
  a side), and on a pair over 60 nodes (the picture keeps the mapped part);
* `dri demo` in a fresh data folder (cold: every graph parsed and every pair
  mapped) and again (warm: the store holds them), in a subprocess each.

    .venv/bin/python bench/bench_pictures.py [--no-demo]

Prints one line per measurement and a JSON summary. Run it on a quiet
machine: on a shared one the wall times say more about the neighbours.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import permutations
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "corpora" / "demo" / "analogy"


def _pictures() -> dict[str, float]:
    import matplotlib.pyplot  # noqa: F401  (the demo's earlier reports have imported it)

    from dri.extract import graph_from_path
    from dri.graphs import add_triple
    from dri.metrics import compare
    from dri.metrics.picture import draw_mapping

    graphs = {p.name: graph_from_path(p) for p in sorted(DEMO.glob("*.txt")) if p.name != "targets.txt"}
    comparisons = [(graphs[a], graphs[b], compare(graphs[a], graphs[b])) for a, b in permutations(graphs, 2)]
    draw_mapping(*comparisons[0][:2], comparisons[0][2].mapping)  # first-use costs (fonts, caches)
    cpu, wall, sizes = [], [], []
    for source, target, comparison in comparisons:
        c0, w0 = time.process_time(), time.perf_counter()
        picture = draw_mapping(source, target, comparison.mapping, comparison.inferences)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        sizes.append(len(picture.svg))
    big = graphs["solar-system.txt"].copy()
    for i in range(100):
        add_triple(big, f"thing{i}", "touch", f"thing{i + 1}")
    comparison = compare(big, graphs["rutherford-atom.txt"])
    c0 = time.process_time()
    picture = draw_mapping(big, graphs["rutherford-atom.txt"], comparison.mapping, comparison.inferences)
    out = {
        "pictures": len(cpu),
        "cpu_median_s": statistics.median(cpu),
        "cpu_max_s": max(cpu),
        "wall_median_s": statistics.median(wall),
        "svg_median_kb": statistics.median(sizes) / 1024,
        "big_nodes": big.number_of_nodes(),
        "big_shown": picture.source_shown,
        "big_cpu_s": time.process_time() - c0,
    }
    print(
        f"{out['pictures']} demo pictures: median {out['cpu_median_s']:.3f} s CPU "
        f"({out['wall_median_s']:.3f} s wall), max {out['cpu_max_s']:.3f} s, SVG {out['svg_median_kb']:.0f} KB; "
        f"a {out['big_nodes']}-node source ({out['big_shown']} shown): {out['big_cpu_s']:.3f} s CPU"
    )
    return out


def _demo() -> dict[str, float]:
    out = {}
    with tempfile.TemporaryDirectory(prefix="dri-bench-demo-") as data:
        env = {**os.environ, "DRI_DATA_DIR": data}
        env.setdefault("DRI_NLTK_DATA", str(ROOT / "data" / "nltk_data"))
        for run in ("cold", "warm"):
            started = time.perf_counter()
            before = os.times()
            subprocess.run(
                [sys.executable, "-m", "dri.cli", "demo", "--out", str(Path(data) / "out"), "--force"],
                env=env,
                check=True,
                capture_output=True,
            )
            after = os.times()
            out[f"{run}_wall_s"] = time.perf_counter() - started
            out[f"{run}_cpu_s"] = (after.children_user - before.children_user) + (
                after.children_system - before.children_system
            )
            print(f"dri demo {run}: {out[f'{run}_wall_s']:.1f} s wall, {out[f'{run}_cpu_s']:.1f} s CPU")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-demo", action="store_true", help="only the pictures")
    args = parser.parse_args()
    result = {"load_average": os.getloadavg()[0], **_pictures()}
    if not args.no_demo:
        result.update(_demo())
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
