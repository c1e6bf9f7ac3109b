"""The corpus run's steps and stages, without Prefect: what :mod:`flows.corpus` wraps.

Steps (plain functions; :mod:`flows.corpus` makes each a Prefect task):

1. discover the documents of the corpus folder;
2. extract their ROS graphs, skipping documents whose graph (same bytes, same
   extractor version) is already stored, and
3. store them;
4. plan the comparisons: ``manifest`` (the corpus's own pairs, e.g. each
   original against its variants), ``target`` (one target against all other
   documents, the paper's analogy search), ``all-pairs``, or ``auto``
   (the manifest if the corpus has one, else all pairs);
5. map and score the pairs in parallel and
6. store the results, skipping pairs already stored for this run;
7. write a run summary (JSON under ``data_dir()/runs``; a Prefect run adds an artifact).

:func:`run_steps` runs them through an :class:`Executor`: :class:`InlineExecutor`
calls each step here, in this process, and :mod:`flows.corpus` submits them
as Prefect tasks. A small job (:func:`small_job`) is run inline by
:func:`run_corpus` and never imports Prefect (about a second of import).

Work is submitted in batches of documents and of pairs. A Prefect task costs
about 0.1 s of orchestration on a process pool (measured in
``bench/bench_flows.py``), ten times the mapping of a pair of short texts,
so one task per pair would spend most of the run orchestrating.

**Failures.** A bad document or pair is isolated: the run carries on, stores
the rest and lists the failures in the summary, whose :class:`PartialFailure`
names them (a Prefect run ends in a ``Failed`` state named ``Partially
failed``).

**Idempotence.** ``run_id`` defaults to a hash of the corpus name, mode,
target, parameters and extractor version: a repeated run stores nothing
twice, and new parameters or a new extractor give a new result set.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import hashlib
import heapq
import json
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from dri.corpora.discover import corpus_manifest, discover, has_manifest
from dri.errors import one_line
from dri.extract import EXTRACTOR_VERSION
from dri.extract.document import content_ids
from dri.extract.reader import DEFAULT_MAX_BYTES
from dri.files import FileRefused, read_limited
from dri.flows import replaced
from dri.flows import tasks as steps
from dri.flows.failures import ReportedFailure
from dri.flows.progress import Reporter
from dri.mapping.profiles import get_profile
from dri.settings import DEFAULT_CANDIDATES, INLINE_MAX_PAIRS, INLINE_MAX_PARSE
from dri.store import StoreError

__all__ = [
    "Executor",
    "InlineExecutor",
    "PartialFailure",
    "RunState",
    "default_run_id",
    "run_corpus",
    "run_steps",
    "small_job",
]

Mode = Literal["auto", "manifest", "target", "all-pairs"]

# At least this many batches per worker, so a slow batch does not leave the
# other workers idle at the end; at most this many items per batch, so the
# progress bar and the logs still move. A batch of 20 documents or 200 pairs
# is a second or two of work against ~0.1 s of orchestration per task.
_BATCHES_PER_WORKER = 4
_MAX_DOCUMENTS_PER_BATCH = 20
_MAX_PAIRS_PER_BATCH = 200
# Best pairs kept for the run summary.
_TOP = 10


class PartialFailure(ReportedFailure):
    """Some documents or pairs failed; ``summary`` says which and what was stored.

    The run has logged one line per failure, so Prefect's engine does not log
    this exception's traceback again (:mod:`flows.failures`)."""

    def __init__(self, message: str, summary: steps.RunSummary | None = None) -> None:
        super().__init__(message)
        self.summary = summary

    def __reduce__(self):
        return (PartialFailure, (self.args[0], self.summary))


def default_run_id(corpus: str, mode: str, target: str | None, params: dict[str, Any]) -> str:
    """``<corpus>-<mode>[-<target>]-<hash>``; the hash covers everything that
    changes the results, so equal inputs give the same id."""
    key = json.dumps(
        {"corpus": corpus, "mode": mode, "target": target, "params": params, "extractor": EXTRACTOR_VERSION},
        sort_keys=True,
        default=str,
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    parts = [corpus, mode] + ([Path(target).stem] if target else []) + [digest]
    return "-".join(parts)


def _batches(items: Sequence, batch_size: int | None, workers: int, largest: int) -> list[list]:
    if not items:
        return []
    size = batch_size or max(1, min(largest, math.ceil(len(items) / (workers * _BATCHES_PER_WORKER))))
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


# Set by run_corpus, whose caller prints the summary's failures: the console
# then does not show each one twice (the run's log still gets them, at INFO).
_FAILURES_SHOWN: contextvars.ContextVar[bool] = contextvars.ContextVar("dri_failures_shown", default=False)


def _log_failure(logger, text: str) -> None:
    (logger.info if _FAILURES_SHOWN.get() else logger.error)("%s", text)


# -- how the steps are run -----------------------------------------------------


class Executor(Protocol):
    """Runs the steps of :func:`run_steps`: here (:class:`InlineExecutor`) or as Prefect tasks."""

    workers: int
    logger: Any

    def call(self, step: Callable[..., Any], *args: Any) -> Any: ...

    def submit(self, step: Callable[..., Any], *args: Any) -> Any: ...

    def as_completed(self, futures: list[Any]) -> Iterable[Any]: ...


class InlineExecutor:
    """Every step called at once, in this process: no server, no worker pool,
    no spaCy or WordNet loaded again in every worker."""

    def __init__(self) -> None:
        self.workers = int(os.environ.get("DRI_WORKERS") or os.cpu_count() or 1)
        self.logger = logging.getLogger("dri.flows.corpus")

    def call(self, step: Callable[..., Any], *args: Any) -> Any:
        return step(*args)

    def submit(self, step: Callable[..., Any], *args: Any) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(step(*args))
        except Exception as err:
            future.set_exception(err)
        return future

    def as_completed(self, futures: list[Any]) -> Iterable[Any]:
        return concurrent.futures.as_completed(futures)


@dataclass
class RunState:
    """The end of a run made in this process, shaped like the Prefect state a flow run ends in."""

    name: str
    message: str
    data: Any

    def is_completed(self) -> bool:
        return self.name == "Completed"

    def is_failed(self) -> bool:
        return not self.is_completed()


def small_job(corpus_dir: str, parameters: dict[str, Any]) -> bool:
    """Whether a run is small enough to do here, in this process: at most
    :data:`~dri.settings.INLINE_MAX_PARSE` documents to parse (not stored yet)
    and at most :data:`~dri.settings.INLINE_MAX_PAIRS` pairs to map (before
    skipping stored ones). Starting Prefect's temporary server and a worker
    pool costs more than such a job (``docs/search.md``). A store that
    cannot be used makes it small too: the run then says so at once, here,
    as the flow would."""
    paths = discover(corpus_dir, warn=False)[0]
    n = len(paths)
    mode = parameters.get("mode") or "auto"
    candidates = None if parameters.get("exhaustive") else parameters.get("candidates", DEFAULT_CANDIDATES)
    if mode == "target" or (mode == "auto" and parameters.get("target") and not has_manifest(corpus_dir)):
        pairs = min(n - 1, candidates or n)
    elif mode in ("manifest", "auto") and has_manifest(corpus_dir):
        pairs = n  # a manifest pairs each document with a few others
    else:
        k = parameters.get("top_per_document")
        pairs = n * k if k else n * (n - 1) // 2
    if pairs > INLINE_MAX_PAIRS or n > INLINE_MAX_PARSE + INLINE_MAX_PAIRS:
        return False
    new = 0
    try:
        store = steps.worker_store()
        for path in paths:
            try:
                new += not store.has_graph(content_ids(read_limited(path, DEFAULT_MAX_BYTES))[1])
            except FileRefused:
                continue  # the run itself names it
            if new > INLINE_MAX_PARSE:
                return False
    except StoreError:
        return True
    return True


# -- the steps ------------------------------------------------------------------


def discover_step(corpus_dir: str, allow_outside_links: bool = False) -> tuple[list[str], list[str]]:
    return discover(corpus_dir, allow_outside_links=allow_outside_links)


def extract_step(paths: list[str], corpus: str, corpus_dir: str) -> tuple[list[steps.Extracted], list[str]]:
    # Failures are logged by the flow as they arrive, once each (see _extract_stage).
    return steps.extract_batch(paths, corpus, corpus_dir)


def plan_step(
    mode: str,
    documents: dict[str, str],
    corpus_dir: str,
    target: str | None,
    corpus: str | None = None,
    search: dict[str, Any] | None = None,
) -> steps.Plan:
    try:
        manifest, problems = corpus_manifest(corpus_dir) if mode == "manifest" else (None, [])
        plan = steps.plan_pairs(mode, documents, manifest=manifest, target=target)
    except Exception as err:
        # A missing or bad manifest, an unknown target: one line in the summary, not a task traceback.
        return steps.Plan(pairs=[], problems=[f"{corpus_dir}: cannot plan pairs: {one_line(err)}"])
    plan.problems[:0] = problems
    return steps.prune_plan(plan, mode, corpus, **(search or {}))


def map_step(pairs: list[tuple[str, str]], run_id: str, params: dict[str, Any]) -> list[steps.PairResult]:
    return steps.map_batch(pairs, run_id, params)


def summary_step(summary: steps.RunSummary) -> tuple[str, str]:
    """``(path of the summary, "")``, or ``("", why not)`` when the data folder
    cannot take it (full, read-only): the run's summary is shown all the same."""
    try:
        return str(steps.write_summary(summary)), ""
    except OSError as err:
        return "", f"{err.filename or 'run summary'}: cannot write the run summary: {err.strerror}"


# -- the stages ------------------------------------------------------------------


def _extract_stage(
    paths: list[str],
    corpus: str,
    root: str,
    batch_size: int | None,
    workers: int,
    summary: steps.RunSummary,
    seconds: dict[str, float],
    pids: set[int],
    executor: Executor,
) -> dict[str, str]:
    """Steps 2-3 in parallel batches; ``{path: doc_id}`` of the stored documents."""
    logger = executor.logger
    documents: dict[str, str] = {}
    progress = Reporter("parse", len(paths), logger)
    batches = _batches(paths, batch_size, workers, _MAX_DOCUMENTS_PER_BATCH)
    futures = [executor.submit(extract_step, batch, corpus, root) for batch in batches]
    for future in executor.as_completed(futures):
        try:
            done, failures = future.result()
        except Exception as err:  # a whole batch lost, e.g. a worker died
            done, failures = [], [f"{root}: extraction batch failed: {one_line(err)}"]
        summary.failures.extend(failures)
        for failure in failures:
            _log_failure(logger, failure)
        for item in done:
            documents[item.path] = item.doc_id
            summary.parsed += item.parsed
            summary.reused += not item.parsed
            seconds["parse"] += item.seconds_parse
            seconds["store_graphs"] += item.seconds_store
            pids.add(item.pid)
        progress.advance(len(done), len(failures))
    return documents


def _map_stage(
    plan: steps.Plan,
    run_id: str,
    params: dict[str, Any],
    batch_size: int | None,
    workers: int,
    summary: steps.RunSummary,
    seconds: dict[str, float],
    pids: set[int],
    executor: Executor,
    top: list | None = None,
) -> None:
    """Steps 5-6 in parallel batches.

    Batches are submitted in waves of a few per worker, so that a run of
    hundreds of thousands of pairs holds the results of one wave at a time,
    not of the whole run; ``top`` (a heap) keeps the :data:`_TOP` best pairs
    mapped, for the summary.
    """
    names = {p.source_id: p.source for p in plan.pairs} | {p.target_id: p.target for p in plan.pairs}
    progress = Reporter("map", len(plan.pairs), executor.logger)
    ids = list(dict.fromkeys((p.source_id, p.target_id) for p in plan.pairs))
    batches = _batches(ids, batch_size, workers, _MAX_PAIRS_PER_BATCH)
    wave = max(2, workers * _BATCHES_PER_WORKER)
    for start in range(0, len(batches), wave):
        _map_wave(
            batches[start : start + wave],
            run_id,
            params,
            summary,
            seconds,
            pids,
            names,
            progress,
            top,
            executor,
        )


def _map_wave(batches, run_id, params, summary, seconds, pids, names, progress, top, executor) -> None:
    logger = executor.logger
    futures = [executor.submit(map_step, batch, run_id, params) for batch in batches]
    for future in executor.as_completed(futures):
        try:
            results = future.result()
        except Exception as err:  # a whole batch lost
            summary.failures.append(f"{summary.corpus_dir}: mapping batch failed: {one_line(err)}")
            _log_failure(logger, summary.failures[-1])
            continue
        failed = 0
        for r in results:
            if r.error:
                failed += 1
                summary.failures.append(
                    f"{names.get(r.source_id, r.source_id)} -> "
                    f"{names.get(r.target_id, r.target_id)}: {r.error}"
                )
                _log_failure(logger, summary.failures[-1])
            elif r.skipped:
                summary.already_stored += 1
            else:
                summary.mapped += 1
                if top is not None:
                    item = (r.scores["analogy_similarity"], r.source_id, r.target_id, r.scores)
                    (heapq.heappush if len(top) < _TOP else heapq.heappushpop)(top, item)
            seconds["load_graphs"] += r.seconds_load
            seconds["map"] += r.seconds_map
            seconds["store_results"] += r.seconds_store
            pids.add(r.pid)
        progress.advance(len(results) - failed, failed)


def _best(
    run_id: str,
    planned: dict[tuple[str, str], steps.PlannedPair],
    k: int = 10,
    streamed: list | None = None,
) -> list[dict[str, Any]]:
    """The ``k`` planned pairs with the highest analogy similarity in the
    result set, whether mapped by this run or an earlier one. ``streamed``,
    the heap of a run that mapped every pair itself, saves reading them all back."""
    if not planned:
        return []
    if streamed is not None:
        ranked = sorted(streamed, key=lambda x: (-x[0], x[1], x[2]))[:k]
        return [
            {
                "source": planned[(a, b)].source,
                "target": planned[(a, b)].target,
                "group": planned[(a, b)].group,
                **scores,
            }
            for _, a, b, scores in ranked
        ]
    rows = [
        r for r in steps.worker_store().comparisons(run_id=run_id) if (r.source_id, r.target_id) in planned
    ]
    rows.sort(key=lambda r: (-r.scores["analogy_similarity"], r.source_id, r.target_id))
    best = []
    for r in rows[:k]:
        p = planned[(r.source_id, r.target_id)]
        best.append({"source": p.source, "target": p.target, "group": p.group, **r.scores})
    return best


def run_steps(
    executor: Executor,
    corpus_dir: str,
    mode: Mode = "auto",
    target: str | None = None,
    run_id: str | None = None,
    corpus: str | None = None,
    sections: list[str] | None = None,
    batch_size: int | None = None,
    candidates: int | None = DEFAULT_CANDIDATES,
    exhaustive: bool = False,
    top_per_document: int | None = None,
    profile: str | None = None,
    allow_outside_links: bool = False,
) -> steps.RunSummary:
    """Run the corpus at ``corpus_dir`` through ``executor``; the parameters are
    :func:`flows.corpus.corpus_flow`'s. A store that does not answer stops the
    run early; the summary is written all the same, with ``advice``."""
    started = time.perf_counter()
    logger = executor.logger
    root = str(Path(corpus_dir).resolve())
    corpus = corpus or Path(root).name
    if mode == "auto":
        mode = "manifest" if has_manifest(root) else ("target" if target else "all-pairs")
    params: dict[str, Any] = {
        "sections": sorted(sections) if sections else None,
        "mapping": {"profile": get_profile(profile).name},
    }
    run_id = run_id or default_run_id(corpus, mode, target, params)
    summary = steps.RunSummary(run_id=run_id, corpus=corpus, corpus_dir=root, mode=mode, params=params)
    seconds = dict.fromkeys(("parse", "store_graphs", "load_graphs", "map", "store_results"), 0.0)
    workers = executor.workers
    pids: set[int] = set()
    logger.info("run %s of %s (%s) on %d workers", run_id, root, mode, workers)

    t = time.perf_counter()
    paths, refused = executor.call(discover_step, root, allow_outside_links)
    summary.failures.extend(refused)
    seconds["discover"] = time.perf_counter() - t
    summary.documents = len(paths)
    plan = steps.Plan(pairs=[])

    down = steps.store_problem()
    if down:
        summary.failures.append(f"{down}; nothing done")
    else:
        t = time.perf_counter()
        before = replaced.members(corpus)
        documents = _extract_stage(paths, corpus, root, batch_size, workers, summary, seconds, pids, executor)
        replaced.drop_replaced(corpus, run_id, before)
        seconds["extract_wall"] = time.perf_counter() - t
        down = steps.store_problem() if len(documents) < len(paths) else None
        if down:
            summary.failures.append(
                f"{down}; {len(paths) - len(documents)} document(s) not stored, no pairs mapped"
            )

    if not down:
        t = time.perf_counter()
        search = {
            "candidates": None if exhaustive else candidates,
            "top_per_document": top_per_document,
        }
        plan = executor.call(plan_step, mode, documents, root, target, corpus, search)
        summary.failures.extend(plan.problems)
        for problem in plan.problems:
            _log_failure(logger, problem)
        summary.pairs = len(plan.pairs)
        summary.stage1 = plan.stage1
        seconds["plan"] = time.perf_counter() - t

        t = time.perf_counter()
        top: list = []
        _map_stage(plan, run_id, params, batch_size, workers, summary, seconds, pids, executor, top)
        seconds["map_wall"] = time.perf_counter() - t
        down = steps.store_problem() if summary.mapped + summary.already_stored < summary.pairs else None
        if down:
            summary.failures.append(f"{down}; some pairs not stored")
        else:
            planned = {(p.source_id, p.target_id): p for p in plan.pairs}
            summary.top = _best(run_id, planned, _TOP, top if summary.mapped == summary.pairs else None)
    if down:
        summary.advice = down.advice or steps.STORE_BROKEN_HINT
        # Said once, by whoever shows the summary (the CLI, the run's artifact).
        logger.info("%s", summary.advice)
    seconds["wall"] = time.perf_counter() - started
    summary.seconds = {k: round(v, 4) for k, v in seconds.items()}
    summary.worker_pids = sorted(pids)
    summary.summary_path, problem = executor.call(summary_step, summary)
    if problem and summary.failures:  # the failure before it says what went wrong
        logger.info("%s", problem)
    elif problem:
        summary.failures.append(problem)
    logger.info("%s", summary.headline())
    return summary


def run_corpus(
    corpus_dir: str,
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    runner: str | None = None,
    **parameters: Any,
) -> tuple[Any, steps.RunSummary | None]:
    """Run the corpus flow on a chosen task runner; ``(final state, summary)``.

    ``runner="inline"`` runs it in this process without Prefect (no server, no
    workers, no import of Prefect; the state is a :class:`RunState`); so does a
    :func:`small_job` when no runner, worker count or Dask address is given here
    or in the environment, and a run on local workers whose store cannot be
    used (it then stops at once, saying why).

    The summary is ``None`` only if the flow crashed before writing one.
    """
    shown = _FAILURES_SHOWN.set(True)
    try:
        # A folder without documents is an error here, at once, on every runner.
        discover(corpus_dir, allow_outside_links=True, warn=False)
        explicit = (
            runner
            or workers
            or dask_address
            or os.environ.get("DRI_TASK_RUNNER")
            or os.environ.get("DRI_DASK_ADDRESS")
        )
        if runner == "inline" or (not explicit and small_job(corpus_dir, parameters)):
            return run_inline(corpus_dir, parameters)
        # Prefect is imported only for a run that needs it.
        from dri.flows.corpus import run_on_prefect

        return run_on_prefect(corpus_dir, workers, dask_address, runner, parameters)
    finally:
        _FAILURES_SHOWN.reset(shown)


def run_inline(corpus_dir: str, parameters: dict[str, Any]) -> tuple[RunState, steps.RunSummary]:
    """The run in this process (:class:`InlineExecutor`), its state shaped as a flow run's."""
    summary = run_steps(InlineExecutor(), corpus_dir, **parameters)
    return end_state(summary), summary


def end_state(summary: steps.RunSummary) -> RunState:
    """``Completed``, or ``Partially failed`` with a :class:`PartialFailure`, as the flow ends."""
    if summary.failures:
        message = f"partial failure: {len(summary.failures)} problem(s); {summary.headline()}"
        return RunState("Partially failed", message, PartialFailure(message, summary))
    return RunState("Completed", summary.headline(), summary)
