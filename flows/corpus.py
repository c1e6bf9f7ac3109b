"""The corpus flow: graphs, comparisons and a summary for a whole corpus.

The flow is :func:`~flows.pipeline.run_pipeline` with each step run as a
Prefect task (a plain function of :mod:`flows.tasks` wrapped here):

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

Its one parameter is a :class:`~flows.corpus_settings.CorpusSettings`.
:func:`run_corpus` runs it on a chosen task runner, or runs the same
pipeline in this process without Prefect (:class:`~flows.execution.InProcess`)
when the job is small.

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

import logging
import os
from typing import Any, ClassVar

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import FlowRunContext
from prefect.futures import as_completed
from prefect.logging import get_run_logger
from prefect.runtime import deployment, flow_run
from prefect.states import Completed, Failed, State

from dri.corpora.discover import discover, has_manifest
from dri.errors import Failure
from dri.extract.document import content_ids
from dri.extract.reader import DEFAULT_MAX_BYTES
from dri.files import FileRefused, read_limited
from dri.flows import tasks as steps
from dri.flows.corpus_settings import CorpusSettings, Mode
from dri.flows.execution import InProcess, local_workers
from dri.flows.failures import ReportedFailure
from dri.flows.pipeline import default_run_id, run_pipeline
from dri.flows.runners import (
    RunnerConfig,
    deferred_task_runner,
    make_task_runner,
    runner_config,
    shared_prefect_api,
)
from dri.metrics.pages import render
from dri.settings import INLINE_MAX_PAIRS, INLINE_MAX_PARSE
from dri.store import StoreError

__all__ = ["CorpusSettings", "Mode", "PartialFailure", "corpus_flow", "default_run_id", "run_corpus"]


class PartialFailure(ReportedFailure):
    """Some documents or pairs failed; ``summary`` says which and what was stored.

    The run has logged one line per failure, so Prefect's engine does not log
    this exception's traceback again (:mod:`flows.failures`)."""

    def __init__(self, message: str, summary: steps.RunSummary | None = None) -> None:
        super().__init__(message)
        self.summary = summary

    def __reduce__(self):
        return (PartialFailure, (self.args[0], self.summary))


# -- tasks ---------------------------------------------------------------------

# The store is the cache (keyed by graph_id and by run_id), so Prefect's own
# result caching and persistence are switched off: they would only duplicate it.
_TASK = dict(cache_policy=NO_CACHE, persist_result=False)


@task(name="discover-documents", **_TASK)
def discover_task(corpus_dir: str, allow_outside_links: bool = False) -> tuple[list[str], list[str]]:
    return steps.discover_documents(corpus_dir, allow_outside_links)


@task(name="extract-and-store", **_TASK)
def extract_task(
    paths: list[str], corpus: str, corpus_dir: str
) -> tuple[list[steps.Extracted], list[Failure]]:
    # Failures are logged by the flow as they arrive, once each (flows.pipeline).
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
    return steps.plan_run(mode, documents, corpus_dir, target, corpus, search)


@task(name="map-and-store", **_TASK)
def map_task(pairs: list[tuple[str, str]], run_id: str, params: dict[str, Any]) -> list[steps.PairResult]:
    return steps.map_batch(pairs, run_id, params)


@task(name="write-summary", **_TASK)
def summary_task(summary: steps.RunSummary) -> tuple[str, Failure | None]:
    """:func:`flows.tasks.save_summary`, and the summary as the run's artifact."""
    path, problem = steps.save_summary(summary)
    rows = [
        ("documents", summary.documents),
        ("parsed", summary.parsed),
        ("unchanged", summary.reused),
        ("pairs", summary.pairs),
        ("mapped", summary.mapped),
        ("already stored", summary.already_stored),
        ("failed", len(summary.failures)),
    ]
    create_markdown_artifact(
        key="corpus-run-summary",
        markdown=render("run_summary.md", summary=summary, rows=rows, failures=summary.failures[:50]),
        description=summary.headline(),
    )
    return path, problem


class PrefectTasks:
    """The pipeline's runner inside the flow: each step as the Prefect task
    that wraps it, on the flow's task runner (:class:`~flows.execution.Runner`)."""

    _TASKS: ClassVar[dict[Any, Any]] = {
        steps.discover_documents: discover_task,
        steps.extract_batch: extract_task,
        steps.plan_run: plan_task,
        steps.map_batch: map_task,
        steps.save_summary: summary_task,
    }

    def __init__(self) -> None:
        self.logger = get_run_logger()
        # A deployment's run has nobody to show its summary: its log says each failure.
        self.failure_level = logging.ERROR if deployment.id else logging.INFO

    def workers(self) -> int:
        """Workers of this run's task runner; a runner that does not say (a
        remote Dask cluster) counts as ``DRI_WORKERS`` or the CPUs here."""
        ctx = FlowRunContext.get()
        n = getattr(ctx.task_runner, "_max_workers", None) if ctx else None
        return int(n or local_workers())

    def call(self, step, *args):
        return self._TASKS[step](*args)

    def submit(self, step, *args):
        return self._TASKS[step].submit(*args)

    def as_completed(self, futures):
        return as_completed(futures)


def small_job(settings: CorpusSettings) -> bool:
    """Whether a run is small enough to do here, in this process: at most
    :data:`~dri.settings.INLINE_MAX_PARSE` documents to parse (not stored yet)
    and at most :data:`~dri.settings.INLINE_MAX_PAIRS` pairs to map (before
    skipping stored ones). Starting Prefect's temporary server and a worker
    pool costs more than such a job (``docs/search.md``). A store that
    cannot be used makes it small too: the run then says so at once, here,
    as the flow would."""
    corpus_dir = settings.corpus_dir
    paths = discover(corpus_dir, warn=False)[0]
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
                new += not store.has_graph(content_ids(read_limited(path, DEFAULT_MAX_BYTES))[1])
            except FileRefused:
                continue  # the run itself names it
            if new > INLINE_MAX_PARSE:
                return False
    except StoreError:
        return True
    return True


def _run_name() -> str:
    settings = flow_run.parameters["settings"]
    if isinstance(settings, dict):  # as a deployment's run passes it
        settings = CorpusSettings.model_validate(settings)
    return f"{settings.corpus_name}-{settings.mode}"


def final_state(summary: steps.RunSummary) -> State:
    """``Completed`` with the summary, or ``Failed`` named ``Partially failed``
    with a :class:`PartialFailure` carrying it."""
    if summary.failures:
        message = f"partial failure: {len(summary.failures)} problem(s); {summary.headline()}"
        return Failed(name="Partially failed", message=message, data=PartialFailure(message, summary))
    return Completed(message=summary.headline(), data=summary)


@flow(
    name="corpus",
    flow_run_name=_run_name,
    task_runner=deferred_task_runner(),
    description="ROS graphs, comparisons and a summary for a corpus folder.",
)
def corpus_flow(settings: CorpusSettings) -> State:
    """Run the corpus of ``settings`` (:class:`~flows.corpus_settings.CorpusSettings`);
    see the module docstring."""
    return final_state(run_pipeline(settings, PrefectTasks()))


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
    return _run_corpus(settings, workers, dask_address, runner)


def _run_corpus(
    settings: CorpusSettings,
    workers: int | None,
    dask_address: str | None,
    runner: str | None,
) -> tuple[State, steps.RunSummary | None]:
    # A folder without documents is an error here, at once, on every runner.
    discover(settings.corpus_dir, allow_outside_links=True, warn=False)
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
        summary = run_pipeline(settings, InProcess())
        return final_state(summary), summary
    with shared_prefect_api():
        state = corpus_flow.with_options(task_runner=make_task_runner(config))(settings, return_state=True)
    result = state.result(raise_on_failure=False)
    if isinstance(result, PartialFailure):
        return state, result.summary
    return state, result if isinstance(result, steps.RunSummary) else None
