"""Benchmark: extraction throughput against bare spaCy.

Prints words per second for

* **bare spaCy**: ``nlp.pipe`` over the decoded texts, same pipeline object
  and components as the extractor (NER included, senter excluded), default
  batch size;
* **extractor**: :func:`extract.read_document` on the files plus
  :func:`extract.build_graphs` (sentence splitting, parsing, rules --
  verb lemmas, pronouns, names, clause links -- and graphs);

and their ratio (target: at least 0.8), on two workloads: the Clough &
Stevenson corpus (all 100 files, read in place) and one long text (the
corpus concatenated ``--repeat`` times, written to a temporary file). Each
figure is the best of ``--runs`` timed runs after one warm-up run, the two
contenders alternating so that other load on the machine hits both; both
wall-clock and process CPU time are shown (CPU time is the steadier figure on
a shared machine). Words are white-space separated tokens of the decoded
text. The load average is printed first.

Usage: ``.venv/bin/python bench/bench_extract.py [--corpus DIR] [--runs 3] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from dri.extract import build_graphs, load_nlp, read_document
from dri.extract.reader import decode_text
from dri.settings import clough_stevenson_dir

DEFAULT_CORPUS = clough_stevenson_dir()


def _timed(job) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    job()
    return time.perf_counter() - wall, time.process_time() - cpu


def _race(runs: int, jobs: dict[str, object]) -> dict[str, tuple[float, float]]:
    """Best (wall, cpu) seconds per job; the jobs alternate so load changes hit both."""
    for job in jobs.values():
        job()  # warm-up: caches, lazy imports, spaCy's first-batch allocation
    best = {name: (float("inf"), float("inf")) for name in jobs}
    for _ in range(runs):
        for name, job in jobs.items():
            wall, cpu = _timed(job)
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def _compare(label: str, paths: list[Path], nlp, runs: int, batch_size: int) -> None:
    texts = [decode_text(p.read_bytes(), str(p))[0] for p in paths]
    words = sum(len(t.split()) for t in texts)

    def bare() -> None:
        for _ in nlp.pipe(texts):
            pass

    def ours() -> None:
        documents = (read_document(p) for p in paths)
        for _ in build_graphs(documents, nlp=nlp, batch_size=batch_size):
            pass

    best = _race(runs, {"bare": bare, "ours": ours})
    print(f"{label}: {len(paths)} file(s), {words} words")
    for clock, k in (("wall", 0), ("cpu", 1)):
        bare_wps, ours_wps = words / best["bare"][k], words / best["ours"][k]
        print(
            f"  [{clock:4}] bare spaCy nlp.pipe {bare_wps:8.0f} words/s | extractor {ours_wps:8.0f} words/s"
            f" | ratio {ours_wps / bare_wps:.2f} (target >= 0.80)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5, help="copies of the corpus in the long text")
    parser.add_argument("--batch-size", type=int, default=64, help="build_graphs batch size (sentences)")
    args = parser.parse_args()

    paths = sorted(args.corpus.glob("*.txt"))
    if not paths:
        parser.error(f"{args.corpus}: no .txt files")
    nlp = load_nlp()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)")
    print(f"spaCy components: {', '.join(nlp.pipe_names)}")
    _compare("Clough & Stevenson corpus", paths, nlp, args.runs, args.batch_size)

    corpus_text = "\n\n".join(decode_text(p.read_bytes(), str(p))[0] for p in paths)
    with tempfile.TemporaryDirectory() as tmp:
        long_path = Path(tmp) / "long.txt"
        long_path.write_text("\n\n".join([corpus_text] * args.repeat), encoding="utf-8")
        _compare(f"long text (corpus x{args.repeat})", [long_path], nlp, args.runs, args.batch_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
