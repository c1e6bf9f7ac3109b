"""Stage 2 with an early stop: is the bound on AS admissible, is the top k unchanged, what does it save?

:func:`metrics.bound.analogy_bound` bounds a candidate's Analogy Similarity
without mapping it; stage 2 of the search (:mod:`flows.stage2`) skips a
candidate whose bound is below the ``k``-th best AS mapped so far. This
checks, per mapping profile:

* ``analobench``: the AnaloBench story bank (``story_s10``, 340 stories, the
  store of ``bench_search.py``), a set of targets. Every other story is
  mapped onto each target (the exhaustive answer) and bounded:
  *violations* counts bounds below the real AS (must be 0), *slack* is the
  mean bound / AS. Then the search as shipped (stage 1, then stage 2 with the
  early stop, in this process) is run and its top ``k`` compared with the top
  ``k`` of the same stage-1 candidates all mapped (today's answer): *same top
  k* must hold for every target, ids and scores. *recall* is the share of
  the exhaustive top 10 in the search's top 10; *mapped* how many of the
  candidates stage 2 mapped; CPU seconds of both.
* ``stored``: the same on a data folder's store, for the stage-1 candidates
  only (``--store data/bench/commands/seed-A-1000``: the 1,000 stories,
  gists and 30-sentence stories of ``bench_commands.py``).
* ``csfcube``: the CSFCube fold-1 pools (query facet against its 70-250
  candidate abstracts): violations and slack over every pool member, and how
  many a stage 2 with the early stop would map in pool order.

    .venv/bin/python bench/bench_bound.py [--profile sme paper] [--targets 8] [--queries 4]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from bench_search import _store_corpus

from dri.extract import build_graphs
from dri.extract.reader import document_from_text
from dri.flows.search import search
from dri.mapping.profiles import get_profile
from dri.metrics import compare
from dri.metrics.bound import BoundSide, analogy_bound
from dri.settings import PROJECT_ROOT, data_dir
from dri.store import open_store

STRUCTURE = (
    "analogy_similarity",
    "jaccard",
    "semantic",
    "weighted_jaccard",
    "mapped_concepts",
    "mapped_relations",
)
CSFCUBE = PROJECT_ROOT.parent / "shared" / "validity" / "csfcube" / "csfcube_fold1.csv"


def _admissibility(pairs: list[tuple[float, float]]) -> dict:
    """Violations (bound below AS) and the mean slack (bound / AS over pairs with AS > 0)."""
    slack = [b / a for a, b in pairs if a > 0]
    return {
        "pairs": len(pairs),
        "violations": sum(1 for a, b in pairs if b < a),
        "least_margin": round(min((b - a for a, b in pairs), default=0.0), 6),
        "mean_slack": round(sum(slack) / max(1, len(slack)), 2),
    }


def _early_stop(order: list[tuple[str, float, float]], k: int) -> int:
    """How many of ``order`` (id, AS, bound; in the order mapped) a stage 2 with the early stop maps."""
    best: list[float] = []
    mapped = 0
    for _, real, bound in order:
        if len(best) >= k and bound < best[-1]:
            continue
        mapped += 1
        best = sorted([*best, real], reverse=True)[:k]
    return mapped


def analobench(profile: str, targets: int, k: int, candidates: int, out: Path) -> dict:
    with open_store(f"sqlite:///{out / 'recall.sqlite'}") as store:
        ids, names = _store_corpus(store, "analobench")
        return _searches(store, "analobench", [ids[n] for n in names[:targets]], profile, k, candidates, True)


def stored(path: Path, corpus: str, names: list[str], profile: str, k: int, candidates: int) -> dict:
    """The same on a data folder's store (``bench_commands.py``'s seeded 1,000 stories):
    AS and bound of the stage-1 candidates only (no exhaustive recall)."""
    with open_store(f"sqlite:///{path / 'dri.sqlite'}") as store:
        by_name = {Path(str(d.name)).name: d.doc_id for d in store.documents(corpus)}
        return _searches(store, corpus, [by_name[n] for n in names], profile, k, candidates, False)


def _searches(
    store, corpus: str, targets: list[str], profile: str, k: int, candidates: int, every: bool
) -> dict:
    prof = get_profile(profile)
    rows, pairs = [], []
    graphs: dict = {}
    sides: dict = {}

    def side(doc_id: str):
        if doc_id not in sides:
            graphs[doc_id] = store.get_graph(doc_id)
            sides[doc_id] = BoundSide(graphs[doc_id], prof)
        return sides[doc_id]

    for target in targets:
        chosen = [d for d, _ in store.similar_documents(target, k=candidates, corpus=corpus)]
        others = [d.doc_id for d in store.documents(corpus) if d.doc_id != target] if every else chosen
        real, map_cpu, bound_cpu = {}, 0.0, 0.0
        for doc_id in others:
            bound_cpu -= time.process_time()
            bound = analogy_bound(side(doc_id), side(target), prof)
            bound_cpu += time.process_time()
            map_cpu -= time.process_time()
            real[doc_id] = compare(graphs[doc_id], graphs[target], profile=profile).scores
            map_cpu += time.process_time()
            pairs.append((real[doc_id].analogy_similarity, bound))
        today = sorted(chosen, key=lambda d: (-real[d].analogy_similarity, d))[:k]
        truth = sorted(real, key=lambda d: (-real[d].analogy_similarity, d))[:10]
        cpu = time.process_time()
        found = search(
            store, target, k=k, candidates=candidates, corpus=corpus, mapping={"profile": profile}, workers=1
        )
        search_cpu = time.process_time() - cpu
        # The structure scores; the encoder's content (and so combined) of a pair moves in
        # the 7th digit between the first and a later compare in one process, as before.
        same = [h.doc_id for h in found.hits] == today and all(
            h.scores[name] == getattr(real[h.doc_id], name) for h in found.hits for name in STRUCTURE
        )
        row = {
            "target": target,
            "same_top_k": same,
            "recall": len({h.doc_id for h in found.hits[:10]} & set(truth)) / len(truth) if every else None,
            "mapped": found.mapped - found.skipped,
            "of": found.mapped,
            "search_cpu_s": round(search_cpu, 2),
            "all_candidates_cpu_s": round(map_cpu * len(chosen) / len(real), 2),
            "bound_cpu_ms": round(1000 * bound_cpu / len(real), 1),
            "map_cpu_ms": round(1000 * map_cpu / len(real), 1),
        }
        rows.append(row)
        print(json.dumps({corpus: profile, **row}), flush=True)
    return {"admissibility": _admissibility(pairs), "targets": rows, "summary": _summary(rows)}


def _summary(rows: list[dict]) -> dict:
    n = max(1, len(rows))
    return {
        "same_top_k": sum(r["same_top_k"] for r in rows),
        "targets": len(rows),
        "recall": round(sum(r["recall"] for r in rows) / n, 3)
        if rows and rows[0]["recall"] is not None
        else None,
        "mapped": round(sum(r["mapped"] for r in rows) / n, 1),
        "of": round(sum(r["of"] for r in rows) / n, 1),
        "search_cpu_s": round(sum(r["search_cpu_s"] for r in rows) / n, 2),
        "all_candidates_cpu_s": round(sum(r["all_candidates_cpu_s"] for r in rows) / n, 2),
    }


def csfcube(profile: str, queries: int, k: int) -> dict:
    prof = get_profile(profile)
    with CSFCUBE.open(encoding="utf-8", newline="") as fh:
        pools: dict[str, list[dict]] = {}
        for row in csv.DictReader(fh):
            pools.setdefault(f"{row['query']}-{row['facet']}", []).append(row)
    chosen = dict(list(pools.items())[:queries])
    texts = sorted({r[c] for rows in chosen.values() for r in rows for c in ("a", "b")})
    graphs = dict(zip(texts, build_graphs([document_from_text(t, f"text-{i}") for i, t in enumerate(texts)])))
    sides = {t: BoundSide(g, prof) for t, g in graphs.items()}
    pairs, rows = [], []
    for name, members in chosen.items():
        query = members[0]["a"]
        order = []
        for r in members:
            real = compare(graphs[r["b"]], graphs[query], profile=profile).scores.analogy_similarity
            bound = analogy_bound(sides[r["b"]], sides[query], prof)
            pairs.append((real, bound))
            order.append((r["candidate"], real, bound))
        rows.append({"query": name, "pool": len(order), "mapped": _early_stop(order, k)})
        print(json.dumps({"csfcube": profile, **rows[-1]}), flush=True)
    return {"admissibility": _admissibility(pairs), "pools": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", nargs="+", default=["sme", "paper"])
    ap.add_argument("--targets", type=int, default=8, help="AnaloBench targets (of 16)")
    ap.add_argument("--queries", type=int, default=4, help="CSFCube query facets (of 24)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--candidates", type=int, default=250)
    ap.add_argument(
        "--sets", nargs="+", default=["analobench", "csfcube"], help="analobench, csfcube, stored"
    )
    ap.add_argument(
        "--store", type=Path, default=None, help="stored: a data folder (bench_commands.py's seed)"
    )
    ap.add_argument("--corpus", default="stories-1000", help="stored: the corpus name in it")
    ap.add_argument(
        "--names", nargs="+", default=["0001-story_s30.txt"], help="stored: the targets' file names"
    )
    ap.add_argument("--out", type=Path, default=None, help="folder of the stores (default data/bench-search)")
    args = ap.parse_args(argv)
    out = args.out or data_dir() / "bench-search"
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    for profile in args.profile:
        if "analobench" in args.sets:
            results[f"analobench-{profile}"] = analobench(profile, args.targets, args.k, args.candidates, out)
        if "stored" in args.sets and args.store:
            results[f"stored-{profile}"] = stored(
                args.store, args.corpus, args.names, profile, args.k, args.candidates
            )
        if "csfcube" in args.sets:
            results[f"csfcube-{profile}"] = csfcube(profile, args.queries, args.k)
        print(
            json.dumps(
                {
                    k: {x: y for x, y in v.items() if x not in ("targets", "pools")}
                    for k, v in results.items()
                },
                indent=1,
            ),
            flush=True,
        )
    (out / "bound.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
