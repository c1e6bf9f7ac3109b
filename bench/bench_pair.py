"""Benchmark: ``compare()`` of a whole-paper pair, against a baseline checkout in one run.

The pair is ``bench_mapping_size.py``'s 300-sentence documents (AnaloBench
stories, about 1,200 nodes each), extracted once and cached as graph JSON.
Each side (A: this checkout, B: ``--baseline``, default ``../base``, with
its own ``.venv``) runs this file with ``--measure`` in a process of its
own, in turn A B A B ...: it loads WordNet and the word vectors, compares
the pair once to warm up, then times ``metrics.compare`` -- mapping, scores,
valence, content similarity, candidate inferences -- in process CPU seconds:
``--cold`` times after clearing every table filled on use (word pairs,
senses, as a fresh worker meeting two new documents), ``--repeat`` times
warm. It prints the medians, where the cold time goes (mapping search,
generic spaces in context, the rest of the mapping, content similarity,
inferences), and the ratio A/B of the medians of each round.

    .venv/bin/python bench/bench_pair.py [--baseline ../base] [--rounds 3]

The figures are in ``docs/speed.md`` ("The whole-paper pair").
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _clear() -> None:
    import importlib

    from dri.mapping import senses, wordnet

    wordnet.clear_caches()
    senses.clear_caches()
    try:  # label pairs' meaning, per process (not in every checkout)
        meaning = importlib.import_module("dri.mapping.meaning")
    except ImportError:
        return
    kept = getattr(meaning.meaning_similarity, "cache_clear", None)
    if kept is not None:
        kept()


def measure(cache: Path, cold: int, repeat: int) -> dict[str, float]:
    """This process's cold and warm CPU seconds of ``compare`` on the pair, and the cold parts."""
    import dri.mapping.mapper as mapper
    import dri.metrics.scores as scores
    from dri.graphs import load_json
    from dri.mapping.wordnet import wordnet

    source, target = (load_json(cache / f"stories-300-{side}.json") for side in ("a", "b"))
    wordnet()
    parts: dict[str, float] = {}

    def timed(module, name: str, label: str) -> None:
        inner = getattr(module, name, None)
        if inner is None:  # not in this checkout
            return

        def wrapper(*args, **kw):
            started = time.process_time()
            try:
                return inner(*args, **kw)
            finally:
                parts[label] = parts.get(label, 0.0) + time.process_time() - started

        setattr(module, name, wrapper)

    timed(scores, "map_graphs", "mapping")
    timed(scores, "content_similarity", "content")
    timed(scores, "candidate_inferences", "inferences")
    timed(mapper, "_best_order", "search")
    timed(mapper, "generics_in_context", "generics in context")
    scores.compare(source, target)
    out: dict[str, list[float]] = {}
    for mode, times in (("cold", cold), ("warm", repeat)):
        for _ in range(times):
            if mode == "cold":
                _clear()
            parts.clear()
            started = time.process_time()
            scores.compare(source, target)
            total = time.process_time() - started
            out.setdefault(mode, []).append(total)
            if mode == "cold":
                for label, seconds in parts.items():
                    out.setdefault(f"cold {label}", []).append(seconds)
    return {k: statistics.median(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", type=Path, default=REPO.parent / "base")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cache", type=Path, default=None, help="the 300-sentence graphs (bench_mapping_size's cache)"
    )
    parser.add_argument("--measure", action="store_true", help="measure in this process, print JSON")
    args = parser.parse_args(argv)
    if args.cache is None:
        from dri.settings import cache_dir

        args.cache = cache_dir() / "bench-mapping-size"
    if args.measure:
        print(json.dumps(measure(args.cache, args.cold, args.repeat)))
        return 0
    if not (args.cache / "stories-300-b.json").exists():
        sys.path.insert(0, str(REPO / "bench"))
        from bench_mapping_size import document_pair

        document_pair(300, args.cache)
    sides = {
        "A": REPO / ".venv" / "bin" / "python",
        "B": args.baseline.resolve() / ".venv" / "bin" / "python",
    }
    rounds: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    for _ in range(args.rounds):
        for side, python in sides.items():
            cmd = [str(python), __file__, "--measure", "--cache", str(args.cache)]
            cmd += ["--cold", str(args.cold), "--repeat", str(args.repeat)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            rounds[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = [k for k in rounds["A"][0] if all(k in r for side in rounds.values() for r in side)]
    print(f"{'CPU s (median)':<28}{'A':>8}{'B':>8}{'A/B':>8}")
    for key in keys:
        a = statistics.median(r[key] for r in rounds["A"])
        b = statistics.median(r[key] for r in rounds["B"])
        ratio = statistics.median(x[key] / y[key] for x, y in zip(rounds["A"], rounds["B"]) if y[key] > 0)
        print(f"{key:<28}{a:8.3f}{b:8.3f}{ratio:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
