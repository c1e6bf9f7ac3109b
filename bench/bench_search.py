"""Two-stage analogy search (MAC/FAC): stage-1 recall on real corpora, and cost at scale.

``recall``: for each corpus (the demo analogy corpus, the AnaloBench story
bank, Clough & Stevenson) the graphs are extracted into a store of their own,
a set of targets is searched exhaustively (every document structure-mapped;
the comparisons are stored, so a second run maps nothing), and then stage 1
is replayed for every feature set of :data:`mapping.features.FEATURE_SETS`
(ranked by the default, :func:`store.vectors.combine`), for all features
ranked by the cosine alone, by the cosine times the size ratio (the ranking
before the structural estimate), by the structural estimate alone and by
the default with relations paired by WordNet only (the estimate before
relation labels were paired by meaning too), and for several candidate
counts, with the CPU time of a stage-1 query. Recall is the share of the exhaustive top 10
that the two-stage search returns in its own top 10.

``scale``: one target against N stored graphs (N = 100, 1,000, 10,000,
100,000), warm (graphs and vectors already stored, the process started):
the two stages' times, recall against exhaustive where exhaustive was run,
and the process's peak memory. The stored graphs are real (the AnaloBench
stories and the Clough & Stevenson texts, as extracted) plus random ROS
graphs (:mod:`mapping.random_graphs`) of the same sizes to make up N.

    .venv/bin/python bench/bench_search.py recall [--corpus demo|analobench|clough ...] [--neo4j bolt://...]
    .venv/bin/python bench/bench_search.py scale --sizes 100 1000 10000 100000

Results are recorded in ``docs/search.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path

from dri.extract import build_graphs, read_document
from dri.extract.reader import document_from_text
from dri.flows.search import search
from dri.mapping.abstract_sentences import abstract_sentence_vectors
from dri.mapping.content import FAR_CONTENT, content_vector, vector_similarity
from dri.mapping.features import FEATURE_SETS, content_features, label_vectors
from dri.mapping.random_graphs import random_ros_graph
from dri.settings import DEFAULT_CANDIDATES, PROJECT_ROOT, clough_stevenson_dir, data_dir
from dri.store import open_store
from dri.store.vectors import VectorIndex, pack_label_vectors, unpack_label_vectors

SHARED = PROJECT_ROOT.parent / "shared"
STORY_BANK = SHARED / "validity" / "analobench" / "story_bank.jsonl"
CANDIDATES = (20, 50, 100, 150, 200, 250)
TOP = 10


def _documents(corpus: str, offset: int = 0):
    """(name, Document) of a corpus, and the names of its targets (AnaloBench: the
    first story of every third cluster, from cluster ``offset``)."""
    if corpus == "demo":
        root = PROJECT_ROOT / "corpora" / "demo" / "analogy"
        docs = [(p.name, read_document(p)) for p in sorted(root.glob("*.txt")) if p.name != "targets.txt"]
        return docs, [d for d, _ in docs]
    if corpus == "analobench":
        rows = [json.loads(line) for line in STORY_BANK.read_text(encoding="utf-8").splitlines() if line]
        docs = [
            (f"story-{r['bank_id']:03d}", document_from_text(r["story_s10"], f"story-{r['bank_id']:03d}"))
            for r in rows
        ]
        # One story from every third analogy cluster: 16 targets spread over the bank.
        first = {}
        for r in rows:
            first.setdefault(r["cluster"], f"story-{r['bank_id']:03d}")
        return docs, [first[c] for c in sorted(first)][offset::3]
    root = clough_stevenson_dir()
    docs = [(p.name, read_document(p)) for p in sorted(root.glob("*.txt"))]
    names = [d for d, _ in docs]
    targets = [n for n in names if n.startswith("orig_")] + [n for n in names if not n.startswith("orig_")][
        ::19
    ]
    return docs, targets


def _store_corpus(store, corpus: str, offset: int = 0):
    docs, targets = _documents(corpus, offset)
    known = {d.name: d.doc_id for d in store.documents(corpus)}
    todo = [(n, d) for n, d in docs if n not in known]
    if todo:
        for (name, _), graph in zip(todo, build_graphs([d for _, d in todo])):
            graph.graph["name"] = name
            known[name] = store.put_document(corpus, graph, meta={"name": name}).doc_id
    return known, targets


def _recall_of(chosen: list[str], mine: dict[str, float]) -> float:
    """Share of the exhaustive top 10 (by ``mine``, the exhaustive scores) among the ``chosen``'s top 10."""
    truth = sorted(mine, key=lambda d: (-mine[d], d))[:TOP]
    top = sorted(chosen, key=lambda d: (-mine.get(d, 0.0), d))[:TOP]
    return len(set(top) & set(truth)) / max(1, len(truth))


def _neo4j_recall(uri: str, corpus: str, graphs: dict, targets: list[str], full: dict) -> dict:
    """Stage 1 on Neo4j (vector index, then the re-ranking) against the same exhaustive results."""
    table = {}
    with open_store(uri) as neo:
        stored = {d.doc_id for d in neo.documents(corpus)}
        for doc_id, graph in graphs.items():
            if doc_id not in stored:
                neo.put_document(corpus, graph, meta={"name": graph.graph.get("name", doc_id)})
        for n in CANDIDATES:
            hits = []
            for target in targets:
                chosen = [d for d, _ in neo.similar_documents(target, k=n, corpus=corpus)]
                hits.append(_recall_of(chosen, full[target]))
            table[f"neo4j@{n}"] = round(sum(hits) / len(hits), 3)
    return table


def _label_vectors(graphs: dict) -> dict:
    """The clause vectors of every relation label of ``graphs``, as the stores keep them."""
    vectors: dict = {}
    for graph in graphs.values():
        vectors.update(unpack_label_vectors(pack_label_vectors(label_vectors(content_features(graph)))))
    return vectors


def _encoder_stage1(
    graphs: dict, among: list[str], targets: list[str], full: dict, labels: dict, sentences: list
) -> dict:
    """How far the exhaustive top 10 lie from their targets by the sentence encoder,
    and what a stage 1 by the encoder's cosine alone would keep of them.

    ``far share``: the share of the exhaustive top 10 whose content similarity
    to the target is under :data:`mapping.content.FAR_CONTENT`; ``far recall
    @n``: the share of those the shipped stage 1 (``all``, the default ranking)
    keeps among its ``n`` candidates; ``encoder@n`` / ``encoder far @n``: the
    same recalls for a stage 1 that ranks by the encoder cosine alone.
    """
    vectors = {d: content_vector(graphs[d]) for d in among}
    sizes = [graphs[d].number_of_nodes() for d in among]
    index = VectorIndex.build(
        among, [content_features(graphs[d]) for d in among], sizes, vectors=labels, sentences=sentences
    )
    uncovered = VectorIndex.build(among, [content_features(graphs[d]) for d in among], sizes, vectors=labels)
    wordnet_only = VectorIndex.build(among, [content_features(graphs[d]) for d in among], sizes)
    table: dict[str, float] = {}
    far_total, far_kept, far_wordnet = 0, dict.fromkeys(CANDIDATES, 0), dict.fromkeys(CANDIDATES, 0)
    far_uncovered = dict.fromkeys(CANDIDATES, 0)
    enc_hits = {n: [] for n in CANDIDATES}
    enc_far = dict.fromkeys(CANDIDATES, 0)
    truth_total = 0
    for target in targets:
        mine = full[target]
        truth = sorted(mine, key=lambda d: (-mine[d], d))[:TOP]
        cos = {d: vector_similarity(vectors[target], vectors[d]) for d in among if d != target}
        far = [d for d in truth if cos.get(d, 0.0) < FAR_CONTENT]
        far_total += len(far)
        truth_total += len(truth)
        by_encoder = sorted(cos, key=lambda d: (-cos[d], d))
        for n in CANDIDATES:
            shipped = {d for d, _ in index.query_row(index.positions[target], n, frozenset({target}))}
            far_kept[n] += len(set(far) & shipped)
            before_coverage = uncovered.query_row(uncovered.positions[target], n, frozenset({target}))
            far_uncovered[n] += len(set(far) & {d for d, _ in before_coverage})
            before = wordnet_only.query_row(wordnet_only.positions[target], n, frozenset({target}))
            far_wordnet[n] += len(set(far) & {d for d, _ in before})
            chosen = by_encoder[:n]
            enc_hits[n].append(_recall_of(chosen, mine))
            enc_far[n] += len(set(far) & set(chosen))
    table["far share of the exhaustive top 10"] = round(far_total / max(1, truth_total), 3)
    for n in CANDIDATES:
        table[f"far recall, shipped stage 1 @{n}"] = round(far_kept[n] / max(1, far_total), 3)
        table[f"far recall, without the clause coverage @{n}"] = round(
            far_uncovered[n] / max(1, far_total), 3
        )
        table[f"far recall, relations paired by WordNet only @{n}"] = round(
            far_wordnet[n] / max(1, far_total), 3
        )
        table[f"encoder cosine only@{n}"] = round(sum(enc_hits[n]) / len(enc_hits[n]), 3)
        table[f"far recall, encoder stage 1 @{n}"] = round(enc_far[n] / max(1, far_total), 3)
    return table


def recall(corpora: list[str], out: Path, neo4j: str | None = None, offset: int = 0) -> dict:
    results = {}
    for corpus in corpora:
        with open_store(f"sqlite:///{out / 'recall.sqlite'}") as store:
            t = time.perf_counter()
            ids, targets = _store_corpus(store, corpus, offset)
            extract_s = time.perf_counter() - t
            among = sorted(set(ids.values()))
            graphs = {d: store.get_graph(d) for d in among}
            exhaustive, map_s = {}, 0.0
            for name in targets:
                t = time.perf_counter()
                found = search(
                    store, ids[name], k=TOP, exhaustive=True, among=among, run_id=f"exhaustive-{corpus}"
                )
                map_s += time.perf_counter() - t
                exhaustive[name] = found
            full = {}
            for r in store.comparisons(run_id=f"exhaustive-{corpus}"):
                full.setdefault(r.target_id, {})[r.source_id] = r.scores["analogy_similarity"]
            table = {}
            sizes = [graphs[d].number_of_nodes() for d in among]
            labels = _label_vectors(graphs)
            sentences = [abstract_sentence_vectors(graphs[d]) for d in among]
            variants = [(name, kinds, "estimate", labels, sentences) for name, kinds in FEATURE_SETS.items()]
            variants += [
                ("all, cosine only", FEATURE_SETS["all"], "cosine", labels, None),
                ("all, cosine x size ratio", FEATURE_SETS["all"], "size", labels, None),
                ("all, structural estimate only", FEATURE_SETS["all"], "share", labels, None),
                ("all, without the clause coverage", FEATURE_SETS["all"], "estimate", labels, None),
                ("all, relations paired by WordNet only", FEATURE_SETS["all"], "estimate", None, None),
            ]
            for kinds_name, kinds, rank, vectors, rows in variants:
                index = VectorIndex.build(
                    among, [content_features(graphs[d], kinds) for d in among], sizes, rank, vectors, rows
                )
                cpu = time.process_time()
                for name in targets:  # a stage-1 query of every target: its CPU time
                    index.query_row(index.positions[ids[name]], DEFAULT_CANDIDATES, frozenset({ids[name]}))
                table[f"{kinds_name}: stage-1 CPU ms per query"] = round(
                    1000 * (time.process_time() - cpu) / len(targets), 1
                )
                for n in CANDIDATES:
                    hits = []
                    for name in targets:
                        every = exhaustive[name]
                        scores = {h.doc_id: h.scores["analogy_similarity"] for h in every.hits}
                        chosen = [
                            d
                            for d, _ in index.query_row(index.positions[ids[name]], n, frozenset({ids[name]}))
                        ]
                        mine = full[ids[name]]  # the exhaustive scores rank the candidates
                        top = sorted(chosen, key=lambda d: (-mine.get(d, 0.0), d))[:TOP]
                        truth = list(scores)[:TOP]
                        hits.append(len(set(top) & set(truth)) / max(1, len(truth)))
                    table[f"{kinds_name}@{n}"] = round(sum(hits) / len(hits), 3)
            table.update(_encoder_stage1(graphs, among, [ids[n] for n in targets], full, labels, sentences))
            if neo4j:
                table.update(_neo4j_recall(neo4j, corpus, graphs, [ids[n] for n in targets], full))
            results[corpus] = {
                "documents": len(among),
                "targets": len(targets),
                "extract_seconds": round(extract_s, 1),
                "exhaustive_seconds": round(map_s, 1),
                "recall": table,
            }
            print(json.dumps({corpus: results[corpus]}, indent=1), flush=True)
    return results


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _fill(store, n: int, real: list, rng: random.Random) -> None:
    """Store ``n`` graphs: the real ones first, then random graphs of the same sizes."""
    have = store.counts()["documents"]
    sizes = [max(3, g.number_of_nodes()) for g in real] or [30]
    while have < n:
        if have < len(real):
            g = real[have]
        else:
            g = random_ros_graph(min(rng.choice(sizes), 120), rng, name=f"random-{have}")
            g.graph["doc_id"] = g.graph["graph_id"] = f"random-{have:06d}"
        store.put_document("scale", g, meta={"name": g.graph.get("name", "")})
        have += 1


def scale(sizes: list[int], out: Path, exhaustive_up_to: int, targets: int) -> dict:
    rng = random.Random(15)
    with open_store(f"sqlite:///{out / 'recall.sqlite'}") as source:
        real = [source.get_graph(d.doc_id) for c in ("analobench", "clough") for d in source.documents(c)]
    results = {}
    for n in sorted(sizes):
        with open_store(f"sqlite:///{out / f'scale-{n}.sqlite'}") as store:
            t = time.perf_counter()
            _fill(store, n, real, rng)
            fill_s = time.perf_counter() - t
            print(json.dumps({"n": n, "filled_seconds": round(fill_s, 1)}), flush=True)
            cpu = time.process_time()
            store.vector_index("scale")  # warm: the index is built once per process
            index_cpu = time.process_time() - cpu
            probe = [d.doc_id for d in store.documents("scale") if not d.doc_id.startswith("random-")][
                :targets
            ]
            rows = []
            for doc_id in probe:
                cpu = time.process_time()
                two = search(store, doc_id, k=TOP, corpus="scale")
                row = {"stage1": two.seconds["stage1"], "stage2": two.seconds["stage2"], "mapped": two.mapped}
                row["cpu"] = time.process_time() - cpu
                cpu = time.process_time()  # stage 1 again, alone, for its CPU time
                store.similar_documents(doc_id, k=DEFAULT_CANDIDATES, corpus="scale")
                row["stage1_cpu"] = time.process_time() - cpu
                print(json.dumps({"n": n, "target": doc_id, "two_stage": row}), flush=True)
                if n <= exhaustive_up_to:
                    cpu = time.process_time()
                    every = search(store, doc_id, k=TOP, exhaustive=True, corpus="scale")
                    row["exhaustive_cpu"] = time.process_time() - cpu
                    truth = {h.doc_id for h in every.hits}
                    row["recall"] = len(truth & {h.doc_id for h in two.hits}) / max(1, len(truth))
                    row["exhaustive"] = every.seconds["stage1"] + every.seconds["stage2"]
                rows.append(row)
                print(json.dumps({"n": n, "target": doc_id, **row}), flush=True)  # partial results
            summary = {
                "n": n,
                "fill_seconds": round(fill_s, 1),
                "index_cpu_s": round(index_cpu, 2),
                "stage1_s": round(sum(r["stage1"] for r in rows) / len(rows), 3),
                "stage2_s": round(sum(r["stage2"] for r in rows) / len(rows), 3),
                "search_s": round(sum(r["stage1"] + r["stage2"] for r in rows) / len(rows), 3),
                "search_cpu_s": round(sum(r["cpu"] for r in rows) / len(rows), 3),
                "stage1_cpu_s": round(sum(r["stage1_cpu"] for r in rows) / len(rows), 3),
                "mapped": rows[0]["mapped"],
                "recall": round(sum(r["recall"] for r in rows) / len(rows), 3)
                if "recall" in rows[0]
                else None,
                "exhaustive_s": round(sum(r["exhaustive"] for r in rows) / len(rows), 2)
                if "exhaustive" in rows[0]
                else None,
                "exhaustive_cpu_s": round(sum(r["exhaustive_cpu"] for r in rows) / len(rows), 2)
                if "exhaustive" in rows[0]
                else None,
                "peak_mib": round(_peak_mib()),
                "targets": len(rows),
            }
            results[n] = summary
            print(json.dumps(summary), flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["recall", "scale"])
    ap.add_argument("--corpus", nargs="+", default=["demo", "analobench", "clough"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[100, 1000, 10_000, 100_000])
    ap.add_argument("--exhaustive-up-to", type=int, default=1000, help="largest N searched exhaustively too")
    ap.add_argument(
        "--neo4j", default=None, help="recall: also replay stage 1 on this Neo4j store (bolt URI)"
    )
    ap.add_argument("--targets", type=int, default=5, help="targets per N")
    ap.add_argument(
        "--target-offset",
        type=int,
        default=0,
        help="AnaloBench targets from this cluster on (0, 1 or 2: three disjoint sets of 16)",
    )
    ap.add_argument(
        "--out", type=Path, default=None, help="folder for the stores (default data/bench-search)"
    )
    args = ap.parse_args(argv)
    out = args.out or data_dir() / "bench-search"
    out.mkdir(parents=True, exist_ok=True)
    if args.what == "recall":
        results = recall(args.corpus, out, args.neo4j, args.target_offset)
    else:
        results = scale(args.sizes, out, args.exhaustive_up_to, args.targets)
    (out / f"{args.what}.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
