"""Stage 2 of analogy search: map the candidates in stage-1 order, skip those that cannot reach the top k.

A candidate whose upper bound on the Analogy Similarity
(:func:`metrics.bound.analogy_bound`) is below the ``k``-th best AS mapped so
far cannot enter the top ``k``, whatever the rest: it is not mapped. The top
``k`` is therefore the one that mapping every candidate gives; the bound is
checked to be admissible in ``bench/bench_bound.py``. Stage 1 puts the
likely analogues first, so the ``k``-th best rises early.

More than :data:`POOL_MIN` candidates are mapped on a pool of worker
processes (the bound too), a few in flight per worker, each sent with the
``k``-th best known when it is sent; the workers ignore SIGINT and end when
their parent does, as the corpus flow's workers (:func:`flows.runners.worker_init`).
"""

from __future__ import annotations

import atexit
import heapq
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict
from typing import Any

import networkx as nx

from dri.flows.execution import local_workers
from dri.flows.runners import SEARCH_WORKER_PRELOAD, WorkerStart, worker_context, worker_init
from dri.mapping.profiles import get_profile
from dri.mapping.wordnet import wordnet
from dri.metrics import compare
from dri.metrics.bound import BoundSide, analogy_bound
from dri.store import ComparisonRecord, Store

__all__ = ["POOL_MIN", "Stage2", "bounded", "cannot_reach", "score_candidate", "warm_worker"]

#: Candidates left to map above which stage 2 uses a pool of processes: a
#: worker's start (WordNet, the encoder) costs about as much as mapping this many stories.
POOL_MIN = 48
#: Candidates in flight per worker.
_IN_FLIGHT = 2
#: Mapping keywords under which the bound holds (a custom similarity may score anything).
_BOUNDED_KEYWORDS = frozenset({"profile", "restarts", "work_limit"})

_TARGET: dict[tuple[Any, ...], BoundSide] = {}  # the last target's side of the bound


def warm_worker() -> None:
    """The start of a worker of a search's pool: :func:`flows.runners.worker_init`,
    then WordNet loaded (importing this module imported the mapper), so that a pool
    started early has its workers ready when the candidates are known; at its
    end the worker exits at once (:func:`_exit_now`)."""
    worker_init()
    wordnet()
    atexit.register(_exit_now)


def _exit_now() -> None:
    """A pool worker's end without the interpreter's teardown, which freed WordNet's
    tables and the mapper's caches object by object: 0.2-0.9 s of CPU, which the
    pool's close waited for. Nothing is left to write then: each task's results
    went back with it, and its store's transactions are committed."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def bounded(mapping: dict[str, Any] | None) -> bool:
    """Whether the bound holds for mappings made with these keywords of :func:`metrics.compare`."""
    return set(mapping or {}) <= _BOUNDED_KEYWORDS


def cannot_reach(
    source: nx.DiGraph, target: nx.DiGraph, mapping: dict[str, Any] | None, threshold: float
) -> bool:
    """Whether ``source`` mapped onto ``target`` (with ``mapping``'s keywords of
    :func:`metrics.compare`) surely scores an AS below ``threshold``. The
    target's side of the bound is kept for the next candidate."""
    if not bounded(mapping):
        return False
    profile = get_profile((mapping or {}).get("profile"))
    doc_id = target.graph.get("doc_id")
    # The same target arrives as a new copy in each task on a pool: known by its id and size.
    key = (doc_id or id(target), target.number_of_nodes(), target.number_of_edges(), profile.name)
    side = _TARGET.get(key)
    if side is None:
        _TARGET.clear()
        side = _TARGET[key] = BoundSide(target, profile)
    return analogy_bound(BoundSide(source, profile), side, profile) < threshold


def score_candidate(
    doc_id: str,
    source: nx.DiGraph,
    target: nx.DiGraph,
    mapping: dict[str, Any],
    threshold: float | None,
) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
    """``(doc_id, scores, record fields)`` of ``source`` mapped onto ``target``;
    ``(doc_id, None, None)`` when its bound on AS is below ``threshold``."""
    if threshold is not None and cannot_reach(source, target, mapping, threshold):
        return doc_id, None, None
    comparison = compare(source, target, **mapping)
    record = {
        "scores": asdict(comparison.scores),
        "pairs": [asdict(p) for p in comparison.mapping.pairs],
        "inferences": [ci.to_dict() for ci in comparison.inferences],
    }
    return doc_id, asdict(comparison.scores), record


class Stage2:
    """The candidates scored so far and the ``k``-th best AS among them;
    ``bounded`` false maps every candidate (an exhaustive search, or mapping
    keywords the bound does not hold for)."""

    def __init__(self, k: int, bounded: bool = True):
        self.k = k
        self.bounded = bounded
        self.hits: list[Any] = []
        self.skipped = 0
        self._best: list[float] = []  # a min-heap of the k best AS

    def add(self, hit: Any) -> None:
        self.hits.append(hit)
        value = float(hit.scores["analogy_similarity"])
        (heapq.heappush if len(self._best) < self.k else heapq.heappushpop)(self._best, value)

    def threshold(self) -> float | None:
        """The ``k``-th best AS so far, once ``k`` are known and the bound holds."""
        return self._best[0] if self.bounded and self.k > 0 and len(self._best) >= self.k else None

    def run(
        self,
        store: Store,
        target: nx.DiGraph,
        todo: Sequence[tuple[str, float]],
        mapping: dict[str, Any],
        run_id: str | None,
        workers: int | None = None,
    ) -> list[ComparisonRecord]:
        """Map ``todo`` (doc id, stage-1 score; in stage-1 order) onto ``target``; the records to store."""
        from dri.flows.search import Hit

        target_id = str(target.graph.get("doc_id", ""))
        stage1 = dict(todo)
        records: list[ComparisonRecord] = []

        def take(doc_id: str, scores: dict[str, Any] | None, record: dict[str, Any] | None) -> None:
            if scores is None or record is None:
                self.skipped += 1
                return
            self.add(Hit(doc_id, stage1[doc_id], scores))
            if run_id:
                params = {"mapping": mapping} if mapping else {}
                records.append(ComparisonRecord(doc_id, target_id, run_id, params=params, **record))

        count = min(workers or local_workers(), len(todo))
        if count > 1 and len(todo) > POOL_MIN:
            self._on_pool(store, target, todo, mapping, count, take)
        else:
            for doc_id, _ in todo:
                source = store.get_graph(doc_id)
                if source is not None:
                    take(*score_candidate(doc_id, source, target, mapping, self.threshold()))
        return records

    def _on_pool(
        self,
        store: Store,
        target: nx.DiGraph,
        todo: Sequence[tuple[str, float]],
        mapping: dict[str, Any],
        count: int,
        take: Callable[[str, dict[str, Any] | None, dict[str, Any] | None], None],
    ) -> None:
        context = worker_context(SEARCH_WORKER_PRELOAD)
        pending: set[Future[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]] = set()
        queue = list(todo)
        pool = ProcessPoolExecutor(count, mp_context=context, initializer=WorkerStart(warm_worker))
        try:
            while queue or pending:
                while queue and len(pending) < count * _IN_FLIGHT:
                    doc_id, _ = queue.pop(0)
                    source = store.get_graph(doc_id)
                    if source is not None:
                        args = (doc_id, source, target, mapping, self.threshold())
                        pending.add(pool.submit(score_candidate, *args))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: f.result()[0]):
                    take(*future.result())
        except BaseException:
            # Ctrl-C or an error: what is in flight is not waited for.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
