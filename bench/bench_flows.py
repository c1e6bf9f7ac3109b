"""Corpus runs end to end on 1 and 2 workers, and where the time goes.

Workload: the Clough & Stevenson corpus, read in place -- 100 documents, the
95 original-versus-answer pairs of its ``file_information.csv`` (a
``manifest`` run, which also parses and stores every document), then all
4,950 pairs among the 100 documents (an ``all-pairs`` run on the stored
graphs). Each configuration starts from an empty store (a fresh
``DRI_DATA_DIR``, SQLite backend) against one temporary Prefect server.

Configurations:

* **plain**: the same step functions (:func:`flows.tasks.extract_batch`,
  :func:`flows.tasks.map_batch`) in a loop in this process, no Prefect -- the
  baseline that defines the orchestration overhead;
* **prefect, N workers**: :func:`flows.corpus.run_corpus` with N worker
  processes (``ProcessPoolTaskRunner``), N = 1, 2.

For each run it prints the wall time and its parts, summed over workers by
the tasks themselves: parsing (spaCy, rules, graph building; includes loading
the spaCy model once per worker), mapping (structure mapping and scores;
includes loading WordNet once per worker, and reading graphs from the store)
and storing (graphs and results). *Overhead* is the wall time not explained
by that work spread evenly over the workers: ``wall - (parse + map + store)
/ N``. It holds Prefect's orchestration (task runs, state changes, logs),
starting the worker processes and importing the libraries there, and idle
workers at the end of a stage. ``prefect, 1 worker`` minus ``plain`` is
Prefect's cost on the same work. ``busy/wall`` is the work done per second of
wall time: above 1 only if the workers really ran at the same time. ``load``
is the 1-minute load average after the run: on a shared machine, other jobs
take cores away from the workers, and the figures say so.

Usage: ``.venv/bin/python bench/bench_flows.py [--corpus DIR] [--workers 1 2]
[--docs N] [--repeat R] [--skip-plain] [--json FILE]``. With ``--repeat``
the worker counts alternate and the end-to-end figure is the best of the
repeats, which filters out load from other jobs on a shared machine. ``--docs N`` keeps N documents
(the originals first, and the manifest pairs among them) for a quicker, clearly smaller
run. The full run takes several minutes on 2 cores; run it in the
background.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from dri.settings import clough_stevenson_dir, prefect_defaults

DEFAULT_CORPUS = clough_stevenson_dir()
PARTS = ("parse", "map", "store")


def _parts(seconds: dict[str, float]) -> dict[str, float]:
    return {
        "parse": seconds.get("parse", 0.0),
        "map": seconds.get("map", 0.0) + seconds.get("load_graphs", 0.0),
        "store": seconds.get("store_graphs", 0.0) + seconds.get("store_results", 0.0),
    }


def _subset(corpus: Path, n_docs: int | None, scratch: Path) -> Path:
    """``corpus`` itself, or a folder of links to ``n_docs`` of its documents."""
    if not n_docs:
        return corpus
    from dri.corpora.discover import corpus_manifest, discover_documents

    # Originals first, so that the manifest keeps the pairs among the kept documents.
    documents = sorted(discover_documents(corpus), key=lambda p: not Path(p).name.startswith("orig"))
    keep = documents[:n_docs]
    folder = scratch / f"{corpus.name}-first-{n_docs}"
    folder.mkdir(parents=True)
    for path in keep:
        (folder / Path(path).name).symlink_to(path)
    pairs, _ = corpus_manifest(corpus)
    kept = {Path(p).name for p in keep}
    rows = [f"{Path(s).name},{Path(t).name},{g}" for s, t, g in pairs if {Path(s).name, Path(t).name} <= kept]
    (folder / "manifest.csv").write_text("source,target,group\n" + "\n".join(rows) + "\n")
    return folder


def _fresh_data_dir(scratch: Path, name: str) -> None:
    path = scratch / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    os.environ["DRI_DATA_DIR"] = str(path)
    os.environ.pop("NEO4J_URI", None)


def run_plain(corpus: Path) -> list[dict]:
    """Both stages with the plain step functions, in this process."""
    from dri.corpora.discover import corpus_manifest, discover_documents
    from dri.flows.tasks import extract_batch, map_batch, plan_pairs

    rows = []
    t0 = time.perf_counter()
    paths = discover_documents(corpus)
    done, failures = extract_batch(paths, corpus.name, corpus)
    documents = {d.path: d.doc_id for d in done}
    manifest, _ = corpus_manifest(corpus)
    plan = plan_pairs("manifest", documents, manifest=manifest)
    results = map_batch([(p.source_id, p.target_id) for p in plan.pairs], "bench-manifest", {})
    seconds = {
        "parse": sum(d.seconds_parse for d in done),
        "store_graphs": sum(d.seconds_store for d in done),
    }
    seconds |= _sum_pairs(results)
    rows.append(
        dict(
            config="plain",
            workers=1,
            stage="manifest",
            wall=time.perf_counter() - t0,
            load=_load(),
            documents=len(paths),
            pairs=len(plan.pairs),
            failures=len(failures),
            **_parts(seconds),
        )
    )
    t0 = time.perf_counter()
    plan = plan_pairs("all-pairs", documents)
    results = map_batch([(p.source_id, p.target_id) for p in plan.pairs], "bench-all", {})
    rows.append(
        dict(
            config="plain",
            workers=1,
            stage="all-pairs",
            wall=time.perf_counter() - t0,
            load=_load(),
            documents=len(paths),
            pairs=len(plan.pairs),
            failures=sum(1 for r in results if r.error),
            **_parts(_sum_pairs(results)),
        )
    )
    return rows


def _load() -> float:
    return os.getloadavg()[0]


def _sum_pairs(results) -> dict[str, float]:
    return {
        "load_graphs": sum(r.seconds_load for r in results),
        "map": sum(r.seconds_map for r in results),
        "store_results": sum(r.seconds_store for r in results),
    }


def run_prefect(corpus: Path, workers: int) -> list[dict]:
    from dri.flows.corpus import run_corpus

    rows = []
    for mode in ("manifest", "all-pairs"):
        t0 = time.perf_counter()
        state, summary = run_corpus(str(corpus), mode=mode, workers=workers, runner="processes")
        wall = time.perf_counter() - t0
        if summary is None:
            raise SystemExit(f"{corpus}: {mode} run {state.name}: {state.message}")
        rows.append(
            dict(
                config="prefect",
                workers=workers,
                stage=mode,
                wall=wall,
                load=_load(),
                flow_wall=summary.seconds["wall"],
                worker_pids=len(summary.worker_pids),
                documents=summary.documents,
                pairs=summary.pairs,
                failures=len(summary.failures),
                **_parts(summary.seconds),
            )
        )
    return rows


def _print(rows: list[dict]) -> None:
    head = (
        f"{'config':<8} {'N':>2} {'stage':<10} {'docs':>5} {'pairs':>6} {'fail':>4} {'wall s':>8} "
        f"{'parse':>13} {'map':>13} {'store':>13} {'overhead':>14} {'busy/wall':>9} {'load':>5}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        n = r["workers"]
        busy = sum(r[p] for p in PARTS)
        overhead = r["wall"] - busy / n
        cells = [f"{r[p]:6.1f} {100 * r[p] / n / r['wall']:4.0f}%" for p in PARTS]
        print(
            f"{r['config']:<8} {n:>2} {r['stage']:<10} {r['documents']:>5} {r['pairs']:>6} {r['failures']:>4} "
            f"{r['wall']:8.1f} {cells[0]:>13} {cells[1]:>13} {cells[2]:>13} "
            f"{overhead:7.1f} {100 * overhead / r['wall']:4.0f}% {busy / r['wall']:9.2f} {r['load']:5.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--docs", type=int, help="only the first N documents")
    parser.add_argument("--skip-plain", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run each worker count this many times, alternating"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")
    prefect_defaults(quiet_console=True)
    # The figures, not Prefect's per-task log lines, are the output.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    from prefect.testing.utilities import prefect_test_harness

    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    scratch = Path(tempfile.mkdtemp(prefix="dri-bench-flows-"))
    rows: list[dict] = []
    try:
        corpus = _subset(args.corpus.resolve(), args.docs, scratch)
        print(f"corpus {args.corpus}" + (f" ({args.docs} documents)" if args.docs else ""))
        if not args.skip_plain:
            _fresh_data_dir(scratch, "plain")
            rows += run_plain(corpus)
            _print(rows)
        with prefect_test_harness(server_startup_timeout=None):
            # Alternating 1, 2, 1, 2, ... so that load from other jobs hits every configuration.
            for _ in range(args.repeat):
                for n in args.workers:
                    _fresh_data_dir(scratch, f"prefect-{n}")
                    rows += run_prefect(corpus, n)
                    print()
                    _print(rows)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(
        "\nend to end (manifest run + all-pairs run), wall seconds"
        + (", best of repeats:" if args.repeat > 1 else ":")
    )
    totals: dict[tuple[str, int], float] = {}
    for i in range(0, len(rows), 2):  # rows come in (manifest, all-pairs) couples
        key = (rows[i]["config"], rows[i]["workers"])
        totals[key] = min(totals.get(key, float("inf")), rows[i]["wall"] + rows[i + 1]["wall"])
    for (config, n), wall in totals.items():
        print(f"  {config:<8} {n} worker{'s' if n > 1 else ' '}  {wall:8.1f}")
    if ("prefect", 1) in totals and ("prefect", 2) in totals:
        print(f"  speed-up 1 -> 2 workers: {totals[('prefect', 1)] / totals[('prefect', 2)]:.2f}x")
    if ("plain", 1) in totals and ("prefect", 1) in totals:
        extra = totals[("prefect", 1)] - totals[("plain", 1)]
        print(
            f"  Prefect on 1 worker vs plain loop: +{extra:.1f} s ({100 * extra / totals[('prefect', 1)]:.0f}% "
            "of the Prefect run)"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
