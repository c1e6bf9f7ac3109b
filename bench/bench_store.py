"""Benchmark: store write throughput and top-10 query time.

Prints, for the Neo4j store:

* **write throughput** in nodes plus relationships created per second, with
  ``UNWIND $rows`` batches (the store's way: one transaction per document,
  each statement carrying all rows of its kind) against one write per row
  (the same statements with a single row each, same transactions). The
  one-write-per-row figure is measured on a sample of ``--row-sample``
  documents and given per second, i.e. extrapolated to the workload;
* **comparison writes** per second (scores, SIMILAR, Mapping, pairs and their
  links, one transaction each);
* the time to answer **the top-10-analogues query**
  (:meth:`Store.top_analogues`) for ``--queries`` random documents: median,
  95th percentile and max, in milliseconds;

on two workloads: the Clough & Stevenson corpus (all files, graphs built
with ``extract.build_graphs``; parse time is shown but not counted) and a
synthetic corpus of ``--synthetic`` graphs of ``--nodes`` nodes
(``mapping.random_graphs.random_ros_graph``: WordNet lemmas, realistic
degree skew). Comparisons written for the top-10 query: Clough, every
document against every original; synthetic, every document against
``--fan`` random others, with 10 mapped pairs each. The same workloads go
through the embedded SQLite store for reference (documents per second).

The benchmark deletes everything in the Neo4j database it is pointed at,
so it insists on ``--clear``. Usage::

    NEO4J_PORT=7711 bash scripts/neo4j start
    .venv/bin/python bench/bench_store.py --uri bolt://127.0.0.1:7711 --clear
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dri.settings import clough_stevenson_dir
from dri.store import ComparisonRecord, open_store
from dri.store.neo4j_store import Neo4jSettings, Neo4jStore

DEFAULT_CORPUS = clough_stevenson_dir()


def clough_graphs(corpus: Path) -> tuple[list, float]:
    from dri.extract import build_graphs, read_document

    started = time.perf_counter()
    documents = [read_document(p) for p in sorted(corpus.glob("*.txt"))]
    graphs = list(build_graphs(documents))
    return graphs, time.perf_counter() - started


def synthetic_graphs(count: int, nodes: int, seed: int = 7) -> list:
    from dri.mapping.random_graphs import random_ros_graph

    rng = random.Random(seed)
    graphs = []
    for i in range(count):
        g = random_ros_graph(nodes, rng, name=f"synthetic-{i:04d}")
        g.graph.update(doc_id=f"syn{i:05d}", graph_id=f"syn{i:05d}-g", extractor_version="1.0", kind="text")
        graphs.append(g)
    return graphs


def comparisons_for(
    graphs: list, *, targets: list[int] | None, fan: int, seed: int = 11
) -> list[ComparisonRecord]:
    rng = random.Random(seed)
    out = []
    for i, a in enumerate(graphs):
        others = [
            j for j in (targets if targets is not None else rng.sample(range(len(graphs)), fan + 1)) if j != i
        ]
        for j in others[: (len(others) if targets is not None else fan)]:
            b = graphs[j]
            pairs = [
                {
                    "source": u,
                    "target": v,
                    "kind": a.nodes[u]["type"],
                    "source_lemma": a.nodes[u]["lemma"],
                    "target_lemma": b.nodes[v]["lemma"],
                    "lin": rng.random(),
                    "generic": f"generic.n.{rng.randrange(50):02d}",
                }
                for u, v in zip(list(a)[:10], list(b)[:10])
            ]
            score = rng.random()
            out.append(
                ComparisonRecord(
                    a.graph["doc_id"],
                    b.graph["doc_id"],
                    "bench",
                    {"bench": True},
                    {"analogy_similarity": score, "jaccard": score, "semantic": score},
                    pairs,
                )
            )
    return out


def entities(store) -> int:
    c = store.counts()
    return c["nodes"] + c["relationships"]


def write_documents(store, corpus: str, graphs: list) -> tuple[float, int]:
    before = entities(store)
    started = time.perf_counter()
    for g in graphs:
        store.put_document(corpus, g)
    return time.perf_counter() - started, entities(store) - before


def write_comparisons(store, records: list[ComparisonRecord]) -> float:
    started = time.perf_counter()
    for r in records:
        store.put_comparison(r)
    return time.perf_counter() - started


def top10_times(store, doc_ids: list[str], queries: int, seed: int = 3) -> list[float]:
    rng = random.Random(seed)
    store.top_analogues(doc_ids[0])  # warm the query plan
    times = []
    for doc in (rng.choice(doc_ids) for _ in range(queries)):
        started = time.perf_counter()
        store.top_analogues(doc, k=10)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _ms(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):.1f} ms, p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms"


def bench_neo4j(uri: str, name: str, graphs: list, records: list[ComparisonRecord], args) -> None:
    nodes = sum(g.number_of_nodes() for g in graphs)
    edges = sum(g.number_of_edges() for g in graphs)
    print(
        f"\n== {name}: {len(graphs)} graphs, {nodes} nodes, {edges} edges "
        f"({nodes / len(graphs):.0f} nodes per graph); {len(records)} comparisons"
    )
    with Neo4jStore(Neo4jSettings(uri, batch_size=10_000)) as store:
        store.clear()
        seconds, created = write_documents(store, name, graphs)
        print(
            f"Neo4j UNWIND batches:     {created / seconds:10,.0f} nodes+relationships/s "
            f"({created:,} in {seconds:.1f} s, {len(graphs) / seconds:.1f} documents/s)"
        )
        batched_rate = created / seconds
        seconds = write_comparisons(store, records)
        print(
            f"Neo4j comparisons:        {len(records) / seconds:10,.1f} comparisons/s "
            f"({len(records)} with {sum(len(r.pairs) for r in records)} pairs in {seconds:.1f} s)"
        )
        times = top10_times(store, [g.graph["doc_id"] for g in graphs], args.queries)
        print(f"Neo4j top-10 analogues:   {_ms(times)} ({args.queries} queries)")
    sample = graphs[: args.row_sample]
    with Neo4jStore(Neo4jSettings(uri, batch_size=1)) as store:
        store.clear()
        seconds, created = write_documents(store, name, sample)
        per_row_rate = created / seconds
        print(
            f"Neo4j one write per row:  {per_row_rate:10,.0f} nodes+relationships/s "
            f"(measured on a sample of {len(sample)} graphs: {created:,} in {seconds:.1f} s; "
            f"the whole workload would take ~{seconds * len(graphs) / len(sample):.0f} s)"
        )
    print(f"UNWIND speed-up:          {batched_rate / per_row_rate:10.1f}x")
    with tempfile.TemporaryDirectory() as folder, open_store(f"sqlite:///{folder}/bench.sqlite") as lite:
        started = time.perf_counter()
        for g in graphs:
            lite.put_document(name, g)
        seconds = time.perf_counter() - started
        print(
            f"SQLite (reference):       {len(graphs) / seconds:10.1f} documents/s "
            f"({(nodes + edges) / seconds:,.0f} graph nodes+edges/s)"
        )
        seconds = write_comparisons(lite, records)
        print(f"SQLite comparisons:       {len(records) / seconds:10,.1f} comparisons/s")
        print(
            f"SQLite top-10 analogues:  {_ms(top10_times(lite, [g.graph['doc_id'] for g in graphs], args.queries))}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uri", default=os.environ.get("NEO4J_URI"), help="Neo4j to use (default NEO4J_URI)")
    parser.add_argument("--clear", action="store_true", help="agree that the database is wiped")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--synthetic", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=300)
    parser.add_argument("--fan", type=int, default=5, help="comparisons per synthetic document")
    parser.add_argument("--row-sample", type=int, default=10, help="graphs written one row at a time")
    parser.add_argument("--queries", type=int, default=100, help="top-10 queries timed")
    args = parser.parse_args(argv)
    if not args.uri:
        parser.error("no Neo4j: start one (bash scripts/neo4j start) and pass --uri or set NEO4J_URI")
    if not args.clear:
        parser.error("this benchmark deletes everything in the database; add --clear to agree")

    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}, {os.cpu_count()} cores; "
        f"Neo4j at {args.uri}",
        flush=True,
    )
    graphs, parse_seconds = clough_graphs(args.corpus)
    print(f"Clough & Stevenson graphs built with extract.build_graphs in {parse_seconds:.1f} s (not counted)")
    originals = [i for i, g in enumerate(graphs) if "orig" in str(g.graph.get("name", ""))]
    bench_neo4j(args.uri, "clough-stevenson", graphs, comparisons_for(graphs, targets=originals, fan=0), args)
    started = time.perf_counter()
    synthetic = synthetic_graphs(args.synthetic, args.nodes)
    print(f"\nsynthetic graphs generated in {time.perf_counter() - started:.1f} s (not counted)", flush=True)
    bench_neo4j(
        args.uri, "synthetic", synthetic, comparisons_for(synthetic, targets=None, fan=args.fan), args
    )
    with open_store(args.uri) as store:
        store.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
