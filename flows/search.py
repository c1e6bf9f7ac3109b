"""Two-stage analogy search (MAC/FAC) over the stored graphs.

Forbus, Gentner and Law (1995) retrieve analogues in two stages: MAC, a
cheap content-vector dot product over the whole memory, keeps a few
candidates; FAC structure-maps only those. Here stage 1 is
:meth:`store.Store.similar_documents` over the vectors of
:mod:`mapping.features`: an estimate of the share of the two graphs that
can map (from their typed relation labels) times their content cosine
(:func:`store.vectors.combine`) times how far their abstracted sentences
match (:func:`store.vectors.covered`; sparse matrices in memory on SQLite,
the vector index and then the same re-ranking on Neo4j), and stage 2 is
:func:`metrics.compare` on the top :data:`DEFAULT_CANDIDATES`. ``exhaustive=True`` maps every stored
document, as a search did before stage 1 existed.

* :func:`search` -- one target, no Prefect: the API and the fast path for a
  user waiting on a first result. Stage 2 maps the candidates in stage-1
  order and skips those whose bound on AS cannot reach the top k, on a
  process pool when many are left (:mod:`flows.stage2`).
* :func:`prune_pairs` -- the same stage 1 applied to the pairs planned by the
  corpus flow (target, manifest and all-pairs modes).

Recall of stage 1 (the share of the exhaustive top 10 that the two-stage
search also returns) and its cost are measured in ``bench/bench_search.py``;
``docs/search.md`` has the figures.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from dri.flows.stage2 import Stage2, bounded
from dri.settings import DEFAULT_CANDIDATES
from dri.store import Store

__all__ = ["DEFAULT_CANDIDATES", "Hit", "PlannedPair", "SearchOutcome", "prune_pairs", "search"]


@dataclass(frozen=True)
class Hit:
    doc_id: str
    stage1: float  # the stage-1 score (store.vectors.combine)
    scores: dict[str, Any]


@dataclass
class SearchOutcome:
    """One target's two-stage search: the hits by Analogy Similarity, best first."""

    target_id: str
    hits: list[Hit]
    considered: int  # documents stage 1 handed on (all of them when exhaustive)
    mapped: int  # documents chosen for stage 2
    reused: int = 0  # of those, comparisons read back from the store instead of mapped
    seconds: dict[str, float] = field(default_factory=dict)
    skipped: int = 0  # of those, candidates whose bound on AS could not reach the top k: not mapped


def search(
    store: Store,
    target_id: str,
    *,
    k: int = 10,
    candidates: int = DEFAULT_CANDIDATES,
    exhaustive: bool = False,
    corpus: str | None = None,
    among: Sequence[str] | None = None,
    run_id: str | None = None,
    mapping: dict[str, Any] | None = None,
    workers: int | None = None,
) -> SearchOutcome:
    """The ``k`` stored documents most analogous to ``target_id``.

    Stage 1 ranks every stored document (of ``corpus``, or only ``among``)
    by content; stage 2 maps the best ``candidates`` (all, with
    ``exhaustive``) onto the target in that order and ranks them by Analogy
    Similarity, skipping a candidate whose AS cannot reach the ``k``-th best
    found so far (:func:`metrics.bound.analogy_bound`): the top ``k`` is the
    same as if every candidate were mapped. With ``run_id`` the comparisons are
    stored, and pairs already stored under it are read back instead of mapped
    again. More than :data:`POOL_MIN` candidates go to a pool of ``workers``
    processes (default: the CPUs, :func:`flows.execution.local_workers`).
    """
    started = time.perf_counter()
    allowed = set(among) if among is not None else None
    # Only a restricted or exhaustive search needs the whole ranking.
    wanted = None if exhaustive or allowed is not None else candidates
    ranked = store.similar_documents(target_id, k=wanted, corpus=corpus)
    ranked = [(d, s) for d, s in ranked if allowed is None or d in allowed]
    if exhaustive and allowed is not None:
        ranked += [(d, 0.0) for d in sorted(allowed - {d for d, _ in ranked} - {target_id})]
    chosen = ranked if exhaustive else ranked[:candidates]
    t1 = time.perf_counter()
    target = store.get_graph(target_id)
    if target is None:
        raise LookupError(f"no stored graph for document {target_id}")
    stage2 = Stage2(k, not exhaustive and bounded(mapping))
    reused, todo = 0, []
    for doc_id, cosine in chosen:
        stored = store.get_comparison(doc_id, target_id, run_id) if run_id else None
        if stored is not None:
            stage2.add(Hit(doc_id, cosine, dict(stored.scores)))
            reused += 1
        else:
            todo.append((doc_id, cosine))
    new_records = stage2.run(store, target, todo, mapping or {}, run_id, workers)
    if new_records:  # one transaction for the search's new results, not a commit per candidate
        store.put_comparisons(new_records)
    hits = sorted(stage2.hits, key=lambda h: (-h.scores["analogy_similarity"], h.doc_id))
    t2 = time.perf_counter()
    return SearchOutcome(
        target_id,
        hits[:k],
        considered=len(ranked),
        mapped=len(chosen),
        reused=reused,
        seconds={"stage1": t1 - started, "stage2": t2 - t1},
        skipped=stage2.skipped,
    )


class PlannedPair(Protocol):
    """A pair as the corpus flow plans it."""

    @property
    def source_id(self) -> str: ...

    @property
    def target_id(self) -> str: ...


PairT = TypeVar("PairT", bound=PlannedPair)


def prune_pairs(
    store: Store,
    pairs: Sequence[PairT],
    *,
    candidates: int | None = DEFAULT_CANDIDATES,
    top_per_document: int | None = None,
    corpus: str | None = None,
    ranks: dict[tuple[str, str], int] | None = None,
) -> tuple[list[PairT], dict[str, Any]]:
    """Stage 1 over planned pairs (objects with ``source_id`` and ``target_id``).

    * ``candidates``: for each target with more sources than this, keep the
      ``candidates`` sources closest to it by content (target and analogy
      manifest modes; ``None`` keeps all);
    * ``top_per_document``: keep a pair only if one end is among the other's
      ``K`` nearest documents of the run (all-pairs).

    Returns ``(kept pairs in their planned order, facts for the run summary)``;
    ``ranks``, if given, receives each kept pair's place in its target's
    stage-1 ranking (``candidates`` only), the order stage 2 maps them in.
    """
    started = time.perf_counter()
    facts: dict[str, Any] = {"planned": len(pairs)}
    keep = set(range(len(pairs)))
    ids = {p.source_id for p in pairs} | {p.target_id for p in pairs}
    if candidates is not None:
        by_target: dict[str, list[int]] = defaultdict(list)
        for i, p in enumerate(pairs):
            by_target[p.target_id].append(i)
        for target_id, members in by_target.items():
            if len(members) <= candidates:
                continue
            sources = {pairs[i].source_id for i in members}
            ranked = [d for d, _ in store.similar_documents(target_id, k=None, corpus=corpus) if d in sources]
            best = set(ranked[:candidates])
            if ranks is not None:
                ranks.update({(d, target_id): n for n, d in enumerate(ranked[:candidates])})
            keep -= {i for i in members if pairs[i].source_id not in best}
        facts["candidates"] = candidates
    if top_per_document is not None:
        near: dict[str, set[str]] = {}
        for doc_id in ids:
            nearest = store.similar_documents(doc_id, k=None, corpus=corpus)
            near[doc_id] = set([d for d, _ in nearest if d in ids][:top_per_document])
        keep = {
            i
            for i in keep
            if pairs[i].target_id in near[pairs[i].source_id]
            or pairs[i].source_id in near[pairs[i].target_id]
        }
        facts["top_per_document"] = top_per_document
    kept = [p for i, p in enumerate(pairs) if i in keep]
    facts.update(kept=len(kept), seconds=round(time.perf_counter() - started, 4))
    return kept, facts
