"""The corpus flow: graphs, comparisons and a summary for a whole corpus.

Steps (each a Prefect task wrapping a plain function of :mod:`flows.tasks`):

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
7. write a run summary (JSON under ``data_dir()/runs`` and a Prefect artifact).

Work is submitted in batches of documents and of pairs. A Prefect task costs
about 0.1 s of orchestration on a process pool (measured in
``bench/bench_flows.py``), ten times the mapping of a pair of short texts,
so one task per pair would spend most of the run orchestrating.

**Failures.** A bad document or pair is isolated: the run carries on, stores
the rest and lists the failures in the summary. A run with failures ends in a
``Failed`` state named ``Partially failed`` -- so automations and
``prefect flow-run ls`` see it -- whose result is a :class:`PartialFailure`
carrying the :class:`~flows.tasks.RunSummary`. Called directly,
:func:`corpus_flow` returns the summary, or raises that exception.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import FlowRunContext, TaskRunContext
from prefect.exceptions import MissingContextError
from prefect.futures import as_completed
from prefect.logging import get_run_logger
from prefect.runtime import flow_run
from prefect.states import Completed, Failed, State

from dri.corpora.discover import corpus_manifest, discover, has_manifest
from dri.errors import one_line
from dri.extract import EXTRACTOR_VERSION
from dri.extract.document import content_ids
from dri.flows import tasks as steps
from dri.flows.corpus_settings import CorpusSettings, Mode
from dri.flows.failures import ReportedFailure
from dri.flows.progress import Reporter
from dri.flows.runners import RunnerConfig, make_task_runner, runner_config, shared_prefect_api
from dri.mapping.profiles import get_profile
from dri.settings import INLINE_MAX_PAIRS, INLINE_MAX_PARSE
from dri.store import StoreError

__all__ = ["CorpusSettings", "Mode", "PartialFailure", "corpus_flow", "default_run_id", "run_corpus"]

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


def _workers() -> int:
    """Workers of this run's task runner, for sizing batches; a runner that
    does not say (a remote Dask cluster) counts as ``DRI_WORKERS`` or the CPUs here."""
    ctx = FlowRunContext.get()
    n = getattr(ctx.task_runner, "_max_workers", None) if ctx else None
    return int(n or os.environ.get("DRI_WORKERS") or os.cpu_count() or 1)


# -- tasks ---------------------------------------------------------------------

# The store is the cache (keyed by graph_id and by run_id), so Prefect's own
# result caching and persistence are switched off: they would only duplicate it.
_TASK = dict(cache_policy=NO_CACHE, persist_result=False)

# -- running in this process, without Prefect --------------------------------
#
# A small job (see :func:`small_job`) runs the flow's own body with every task
# called in this process: no Prefect server, no worker pool, no spaCy or
# WordNet loaded again in every worker. The steps, the summary and the stored
# results are the same; only the Prefect run record and artifact are missing.

_INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("dri_inline_run", default=False)
# Set by run_corpus, whose caller prints the summary's failures: the console
# then does not show each one twice (the run's log still gets them, at INFO).
_FAILURES_SHOWN: contextvars.ContextVar[bool] = contextvars.ContextVar("dri_failures_shown", default=False)


def _log_failure(logger, text: str) -> None:
    (logger.info if _FAILURES_SHOWN.get() else logger.error)("%s", text)


def _logger():
    # No ContextVar read here: the tasks call this on Dask workers, and
    # cloudpickle cannot ship a ContextVar with a task's globals.
    try:
        return get_run_logger()
    except MissingContextError:
        return logging.getLogger("dri.flows.corpus")


def _call(task_, *args):
    return task_.fn(*args) if _INLINE.get() else task_(*args)


def _submit(task_, *args) -> Any:
    if not _INLINE.get():
        return task_.submit(*args)
    future: concurrent.futures.Future = concurrent.futures.Future()
    try:
        future.set_result(task_.fn(*args))
    except Exception as err:
        future.set_exception(err)
    return future


def _as_completed(futures: list) -> Any:
    return concurrent.futures.as_completed(futures) if _INLINE.get() else as_completed(futures)


def small_job(settings: CorpusSettings) -> bool:
    """Whether a run is small enough to do here, in this process: at most
    :data:`~dri.settings.INLINE_MAX_PARSE` documents to parse (not stored yet)
    and at most :data:`~dri.settings.INLINE_MAX_PAIRS` pairs to map (before
    skipping stored ones). Starting Prefect's temporary server and a worker
    pool costs more than such a job (``docs/search.md``). A store that
    cannot be used makes it small too: the run then says so at once, here,
    as the flow would."""
    corpus_dir = settings.corpus_dir
    paths = discover(corpus_dir)[0]
    n = len(paths)
    mode = settings.mode
    candidates = settings.search()["candidates"]
    if mode == "target" or (mode == "auto" and settings.target and not has_manifest(corpus_dir)):
        pairs = min(n - 1, candidates or n)
    elif mode in ("manifest", "auto") and has_manifest(corpus_dir):
        pairs = n  # a manifest pairs each document with a few others
    else:
        k = settings.top_per_document
        pairs = n * k if k else n * (n - 1) // 2
    if pairs > INLINE_MAX_PAIRS or n > INLINE_MAX_PARSE + INLINE_MAX_PAIRS:
        return False
    new = 0
    try:
        store = steps.worker_store()
        for path in paths:
            try:
                new += not store.has_graph(content_ids(Path(path).read_bytes())[1])
            except OSError:
                continue  # the run itself names it
            if new > INLINE_MAX_PARSE:
                return False
    except StoreError:
        return True
    return True


@task(name="discover-documents", **_TASK)
def discover_task(corpus_dir: str, allow_outside_links: bool = False) -> tuple[list[str], list[str]]:
    return discover(corpus_dir, allow_outside_links=allow_outside_links)


@task(name="extract-and-store", **_TASK)
def extract_task(paths: list[str], corpus: str, corpus_dir: str) -> tuple[list[steps.Extracted], list[str]]:
    # Failures are logged by the flow as they arrive, once each (see _extract_stage).
    return steps.extract_batch(paths, corpus, corpus_dir)


@task(name="plan-pairs", **_TASK)
def plan_task(
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


@task(name="map-and-store", **_TASK)
def map_task(pairs: list[tuple[str, str]], run_id: str, params: dict[str, Any]) -> list[steps.PairResult]:
    return steps.map_batch(pairs, run_id, params)


@task(name="write-summary", **_TASK)
def summary_task(summary: steps.RunSummary) -> tuple[str, str]:
    """``(path of the summary, "")``, or ``("", why not)`` when the data folder
    cannot take it (full, read-only): the run's summary is shown all the same."""
    try:
        path, problem = str(steps.write_summary(summary)), ""
    except OSError as err:
        path = ""
        problem = f"{err.filename or 'run summary'}: cannot write the run summary: {err.strerror}"
    if TaskRunContext.get() is None:
        return path, problem  # run inline: no Prefect run to attach an artifact to
    rows = "\n".join(
        f"| {k} | {v} |"
        for k, v in [
            ("documents", summary.documents),
            ("parsed", summary.parsed),
            ("unchanged", summary.reused),
            ("pairs", summary.pairs),
            ("mapped", summary.mapped),
            ("already stored", summary.already_stored),
            ("failed", len(summary.failures)),
        ]
    )
    failures = "\n".join(f"- `{f}`" for f in summary.failures[:50])
    if summary.advice:
        failures += f"\n\n**What to do:** {summary.advice}"
    create_markdown_artifact(
        key="corpus-run-summary",
        markdown=f"## {summary.run_id}\n\n| | |\n|---|---|\n{rows}\n\n{failures}\n",
        description=summary.headline(),
    )
    return path, problem


# -- the flow ------------------------------------------------------------------


def _extract_stage(
    paths: list[str],
    corpus: str,
    root: str,
    batch_size: int | None,
    workers: int,
    summary: steps.RunSummary,
    seconds: dict[str, float],
    pids: set[int],
    logger,
) -> dict[str, str]:
    """Steps 2-3 in parallel batches; ``{path: doc_id}`` of the stored documents."""
    documents: dict[str, str] = {}
    progress = Reporter("parse", len(paths), logger)
    batches = _batches(paths, batch_size, workers, _MAX_DOCUMENTS_PER_BATCH)
    futures = [_submit(extract_task, batch, corpus, root) for batch in batches]
    for future in _as_completed(futures):
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
    logger,
    top: list | None = None,
) -> None:
    """Steps 5-6 in parallel batches.

    Batches are submitted in waves of a few per worker, so that a run of
    hundreds of thousands of pairs holds the results of one wave at a time,
    not of the whole run; ``top`` (a heap) keeps the :data:`_TOP` best pairs
    mapped, for the summary.
    """
    names = {p.source_id: p.source for p in plan.pairs} | {p.target_id: p.target for p in plan.pairs}
    progress = Reporter("map", len(plan.pairs), logger)
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
            logger,
        )


def _map_wave(batches, run_id, params, summary, seconds, pids, names, progress, top, logger) -> None:
    futures = [_submit(map_task, batch, run_id, params) for batch in batches]
    for future in _as_completed(futures):
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


def _run_name() -> str:
    settings = flow_run.parameters["settings"]
    if isinstance(settings, dict):  # as a deployment's run passes it
        settings = CorpusSettings.model_validate(settings)
    return f"{settings.corpus_name}-{settings.mode}"


@flow(
    name="corpus",
    flow_run_name=_run_name,
    task_runner=make_task_runner(),
    description="ROS graphs, comparisons and a summary for a corpus folder.",
)
def corpus_flow(settings: CorpusSettings) -> steps.RunSummary | State:
    """Run the corpus of ``settings`` (:class:`~flows.corpus_settings.CorpusSettings`);
    see the module docstring.

    A store that does not answer stops the run early: at the start (after
    the store's retry window, once), or after a stage whose failures came
    from it; the summary is written all the same, with ``advice`` saying
    what to do.
    """
    corpus_dir, mode, target, run_id = settings.corpus_dir, settings.mode, settings.target, settings.run_id
    sections, batch_size, profile = settings.sections, settings.batch_size, settings.profile
    started = time.perf_counter()
    logger = _logger()
    root = str(Path(corpus_dir).resolve())
    corpus = settings.corpus_name
    if mode == "auto":
        mode = "manifest" if has_manifest(root) else ("target" if target else "all-pairs")
    params: dict[str, Any] = {
        "sections": sorted(sections) if sections else None,
        "mapping": {"profile": get_profile(profile).name},
    }
    run_id = run_id or default_run_id(corpus, mode, target, params)
    summary = steps.RunSummary(run_id=run_id, corpus=corpus, corpus_dir=root, mode=mode, params=params)
    seconds = dict.fromkeys(("parse", "store_graphs", "load_graphs", "map", "store_results"), 0.0)
    workers = _workers()
    pids: set[int] = set()
    logger.info("run %s of %s (%s) on %d workers", run_id, root, mode, workers)

    t = time.perf_counter()
    paths, refused = _call(discover_task, root, settings.allow_outside_links)
    summary.failures.extend(refused)
    seconds["discover"] = time.perf_counter() - t
    summary.documents = len(paths)
    plan = steps.Plan(pairs=[])

    down = steps.store_problem()
    if down:
        summary.failures.append(f"{down}; nothing done")
    else:
        t = time.perf_counter()
        documents = _extract_stage(paths, corpus, root, batch_size, workers, summary, seconds, pids, logger)
        seconds["extract_wall"] = time.perf_counter() - t
        down = steps.store_problem() if len(documents) < len(paths) else None
        if down:
            summary.failures.append(
                f"{down}; {len(paths) - len(documents)} document(s) not stored, no pairs mapped"
            )

    if not down:
        t = time.perf_counter()
        plan = _call(plan_task, mode, documents, root, target, corpus, settings.search())
        summary.failures.extend(plan.problems)
        for problem in plan.problems:
            _log_failure(logger, problem)
        summary.pairs = len(plan.pairs)
        summary.stage1 = plan.stage1
        seconds["plan"] = time.perf_counter() - t

        t = time.perf_counter()
        top: list = []
        _map_stage(plan, run_id, params, batch_size, workers, summary, seconds, pids, logger, top)
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
    summary.summary_path, problem = _call(summary_task, summary)
    if problem and summary.failures:  # the failure before it says what went wrong
        logger.info("%s", problem)
    elif problem:
        summary.failures.append(problem)
    logger.info("%s", summary.headline())
    if summary.failures:
        message = f"partial failure: {len(summary.failures)} problem(s); {summary.headline()}"
        return Failed(name="Partially failed", message=message, data=PartialFailure(message, summary))
    return Completed(message=summary.headline(), data=summary)


def run_corpus(
    corpus_dir: str,
    *,
    workers: int | None = None,
    dask_address: str | None = None,
    runner: str | None = None,
    **parameters: Any,
) -> tuple[State, steps.RunSummary | None]:
    """Run :func:`corpus_flow` on a chosen task runner; ``(final state, summary)``.

    ``runner="inline"`` runs it in this process without Prefect (no server, no
    workers); so does a :func:`small_job` when no runner, worker count or Dask
    address is given here or in the environment, and a run on local workers
    whose store cannot be used (it then stops at once, saying why).

    The summary is ``None`` only if the flow crashed before writing one.
    """
    settings = CorpusSettings(corpus_dir=str(corpus_dir), **parameters)
    shown = _FAILURES_SHOWN.set(True)
    try:
        return _run_corpus(settings, workers, dask_address, runner)
    finally:
        _FAILURES_SHOWN.reset(shown)


def _run_corpus(
    settings: CorpusSettings,
    workers: int | None,
    dask_address: str | None,
    runner: str | None,
) -> tuple[State, steps.RunSummary | None]:
    explicit = (
        runner
        or workers
        or dask_address
        or os.environ.get("DRI_TASK_RUNNER")
        or os.environ.get("DRI_DASK_ADDRESS")
    )
    inline = runner == "inline" or (not explicit and small_job(settings))
    if not inline:
        config: RunnerConfig = runner_config(workers=workers, dask_address=dask_address, kind=runner)
        # A store that cannot be used here is reported at once, in this process,
        # without starting Prefect's server and a pool for nothing. (Dask
        # workers may be configured elsewhere: their flow checks for itself.)
        inline = config.kind != "dask" and steps.store_problem() is not None
    if inline:
        token = _INLINE.set(True)
        try:
            result = corpus_flow.fn(settings)
        finally:
            _INLINE.reset(token)
        data = result.data if isinstance(result, State) else result
        summary = data.summary if isinstance(data, PartialFailure) else data
        return result, summary
    with shared_prefect_api():
        state = corpus_flow.with_options(task_runner=make_task_runner(config))(settings, return_state=True)
    result = state.result(raise_on_failure=False)
    if isinstance(result, PartialFailure):
        return state, result.summary
    return state, result if isinstance(result, steps.RunSummary) else None
