"""Benchmark: the mapper against networkx's exact ISMAGS.

Pairs of real documents from the Clough & Stevenson corpus (same task:
the Wikipedia original against an answer, or two answers), turned into ROS
graphs with ``extract.graph_from_path``. Two exact references, each run in a
child process that is killed at ``--limit`` seconds:

* ``ismags-smt``: ``ISMAGS.largest_common_subgraph`` on the graphs'
  *relation graphs* -- one node per relation (labelled, as the mapper's type
  match, by which arguments it has and whether its subject is its object),
  an edge r1 -> r2 labelled with the argument roles the two
  relations share. A common induced subgraph of these is exactly a set of
  relation pairs whose arguments map 1-to-1 and in parallel, so its size is
  the exact maximum number of relation pairs (mapped edges / 2) under the
  SMT constraints: the mapper's primary objective.
* ``ismags-ros``: ``largest_common_subgraph`` on the ROS graphs themselves
  (types and edge labels must match), the plain largest common subgraph. Its induced
  common subgraph may hold relations without their arguments and concepts
  outside any relation, which SMT forbids, so its node count is only an
  upper bound on an SMT mapping's.

Prints per pair and in total: sizes, ratios where the reference finished,
speed ratio, and how often it ran out of time. Target: at least 97% of the
exact size.

The limit is CPU time of the child (``RLIMIT_CPU``), so a loaded machine
does not cut the exact search short; a wall-clock limit of ``--wall`` times
as long is a safety net. ``--first-order`` drops higher-order relations
(order 2, whose arguments are relations) from both graphs first: the
relation graph above treats them as ordinary relations whose "concepts" are
relation nodes, without the mapper's rule that pairing two of them pairs
their argument relations, so with them the reference solves a looser
problem. ``--references smt`` skips the ROS reference.

    .venv/bin/python bench/bench_mapping_exact.py [--pairs 30] [--limit 10] [--seed 0] [--first-order]
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import random
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import networkx as nx
from networkx.algorithms.isomorphism import ISMAGS

from dri.mapping import map_graphs
from dri.mapping.wordnet import wordnet
from dri.settings import clough_stevenson_dir

CORPUS = clough_stevenson_dir()


def relation_graph(g: nx.DiGraph) -> nx.DiGraph:
    args = {}
    for r, kind in g.nodes(data="type"):
        if kind == "relation":
            s = next((u for u, _, lab in g.in_edges(r, data="label") if lab == "subj"), None)
            o = next((v for _, v, lab in g.out_edges(r, data="label") if lab == "obj"), None)
            args[r] = (s, o)
    line = nx.DiGraph()
    by_concept: dict[str, list[tuple[str, str]]] = {}
    for r, (s, o) in args.items():
        # The mapper's type match: same arguments present, subject is object or not.
        line.add_node(r, kind=(s is not None, o is not None, s == o), s=s, o=o)
        by_concept.setdefault(s, []).append((r, "subj"))
        by_concept.setdefault(o, []).append((r, "obj"))
    roles: dict[tuple[str, str], set] = {}
    for concept, uses in by_concept.items():
        if concept is None:
            continue
        for r1, x in uses:
            for r2, y in uses:
                if r1 != r2:
                    roles.setdefault((r1, r2), set()).add((x, y))
    for (r1, r2), shared in roles.items():
        line.add_edge(r1, r2, roles=tuple(sorted(shared)))
    return line


def _cpu_limit(seconds: float) -> None:
    # The kernel stops the child after this much CPU time (SIGXCPU, then SIGKILL).
    limit = max(1, round(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))


def first_order(g: nx.DiGraph) -> nx.DiGraph:
    """``g`` without its order-2 relations."""
    return g.subgraph(n for n, data in g.nodes(data=True) if data.get("order", 1) != 2).copy()


def _smt_exact(a: nx.DiGraph, b: nx.DiGraph, queue, limit: float) -> None:
    _cpu_limit(limit)
    la, lb = relation_graph(a), relation_graph(b)
    t = time.perf_counter()
    ism = ISMAGS(
        lb,
        la,
        node_match=lambda x, y: x["kind"] == y["kind"],
        edge_match=lambda x, y: x["roles"] == y["roles"],
    )
    best = next(ism.largest_common_subgraph(), {})
    args = {c for r in best for c in (lb.nodes[r]["s"], lb.nodes[r]["o"]) if c is not None}
    queue.put((len(best), len(best) + len(args), time.perf_counter() - t))


def _ros_exact(a: nx.DiGraph, b: nx.DiGraph, queue, limit: float) -> None:
    _cpu_limit(limit)
    t = time.perf_counter()
    ism = ISMAGS(
        b, a, node_match=lambda x, y: x["type"] == y["type"], edge_match=lambda x, y: x["label"] == y["label"]
    )
    best = next(ism.largest_common_subgraph(), {})
    relations = sum(1 for n in best if b.nodes[n]["type"] == "relation")
    queue.put((relations, len(best), time.perf_counter() - t))


def run_limited(target, a, b, limit: float, wall: float):
    queue = mp.Queue()
    proc = mp.Process(target=target, args=(a, b, queue, limit), daemon=True)
    proc.start()
    proc.join(limit * wall)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None
    return queue.get() if not queue.empty() else None


def choose_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    rows = list(csv.DictReader((CORPUS / "file_information.csv").open(encoding="utf-8")))
    by_task: dict[str, list[str]] = {}
    for row in rows:
        by_task.setdefault(row["Task"], []).append(row["File"])
    candidates = []
    for task, files in sorted(by_task.items()):
        candidates += [(f"orig_task{task}.txt", f) for f in sorted(files)]
        candidates += [(x, y) for i, x in enumerate(sorted(files)) for y in sorted(files)[i + 1 :]]
    rng = random.Random(seed)
    first = ("orig_taska.txt", "g0pA_taska.txt")
    rest = [p for p in candidates if p != first]
    return [first, *rng.sample(rest, max(0, n - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--limit", type=float, default=10.0, help="CPU seconds per ISMAGS run")
    parser.add_argument("--wall", type=float, default=10.0, help="wall-clock limit, as a multiple of --limit")
    parser.add_argument("--first-order", action="store_true", help="drop order-2 relations from both graphs")
    parser.add_argument("--references", default="smt,ros", help="exact references to run: smt, ros or both")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--profile",
        default="paper",
        help="mapping profile (default paper: ISMAGS maximises relation pairs with no similarity floor, "
        "the paper profile's objective)",
    )
    args = parser.parse_args(argv)
    from dri.extract import graph_from_path

    wordnet()
    pairs = choose_pairs(args.pairs, args.seed)
    graphs = {name: graph_from_path(CORPUS / name) for pair in pairs for name in pair}
    if args.first_order:
        graphs = {name: first_order(g) for name, g in graphs.items()}
    refs = set(args.references.split(","))
    print(
        f"{len(pairs)} pairs, ISMAGS limit {args.limit:g} CPU s each, profile {args.profile}"
        f"{', first-order relations only' if args.first_order else ''}"
    )
    print(
        f"{'source':<16}{'target':<16}{'nodes':>9} {'ours r/n':>9} {'ms':>7} "
        f"{'smt r/n':>9} {'s':>7} {'ros r/n':>9} {'s':>7}"
    )
    smt_ratios, smt_node_ratios, ros_ratios, smt_speed, ros_speed = [], [], [], [], []
    smt_timeouts = ros_timeouts = 0
    sums = [0, 0]  # ours, exact relation pairs where the exact run finished
    for a_name, b_name in pairs:
        a, b = graphs[a_name], graphs[b_name]
        m = map_graphs(a, b, profile=args.profile)
        ours_r, ours_n = len(m.relation_pairs), len(m)
        smt = run_limited(_smt_exact, a, b, args.limit, args.wall) if "smt" in refs else None
        ros = run_limited(_ros_exact, a, b, args.limit, args.wall) if "ros" in refs else None
        cells = []
        for result, _ratios in ((smt, smt_ratios), (ros, ros_ratios)):
            cells.append("timeout" if result is None else f"{result[0]}/{result[1]}")
            cells.append("-" if result is None else f"{result[2]:.2f}")
        if smt is None:
            smt_timeouts += 1
        else:
            smt_ratios.append(ours_r / smt[0] if smt[0] else 1.0)
            sums[0] += ours_r
            sums[1] += smt[0]
            smt_node_ratios.append(ours_n / smt[1] if smt[1] else 1.0)
            smt_speed.append(smt[2] / m.seconds)
        if ros is None:
            ros_timeouts += 1
        else:
            ros_ratios.append(ours_n / ros[1] if ros[1] else 1.0)
            ros_speed.append(ros[2] / m.seconds)
        print(
            f"{a_name[:-4]:<16}{b_name[:-4]:<16}{a.number_of_nodes():>4}/{b.number_of_nodes():<4} "
            f"{ours_r:>4}/{ours_n:<4} {m.seconds * 1000:>7.1f} {cells[0]:>9} {cells[1]:>7} {cells[2]:>9} {cells[3]:>7}",
            flush=True,
        )

    def summary(label: str, ratios: list[float], speed: list[float], timeouts: int, what: str) -> None:
        if ratios:
            print(
                f"{label}: finished {len(ratios)}/{len(pairs)}, timed out {timeouts} ({timeouts / len(pairs):.0%}); "
                f"{what} mean {statistics.mean(ratios):.3f}, min {min(ratios):.3f}, "
                f">=0.95 in {sum(r >= 0.95 for r in ratios)}/{len(ratios)}; "
                f"ISMAGS/ours time median {statistics.median(speed):.0f}x"
            )
        else:
            print(f"{label}: finished 0/{len(pairs)}, timed out {timeouts}")

    summary("ismags-smt (exact SMT)", smt_ratios, smt_speed, smt_timeouts, "ours/exact relation pairs")
    if smt_node_ratios:
        print(f"ismags-smt nodes: ours/exact-solution nodes mean {statistics.mean(smt_node_ratios):.3f}")
    summary("ismags-ros (induced, upper bound)", ros_ratios, ros_speed, ros_timeouts, "ours/ISMAGS nodes")
    if sums[1]:
        print(
            f"relation pairs where exact finished: ours {sums[0]} / exact {sums[1]} = {sums[0] / sums[1]:.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
