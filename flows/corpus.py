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
target, parameters (the mapping profile by its fields) and extractor version:
a repeated run stores nothing twice, and new parameters, a changed profile or
a new extractor give a new result set.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, ParamSpec, TypeVar

import httpx
from prefect import State, flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import FlowRunContext
from prefect.futures import PrefectFuture, as_completed
from prefect.logging import get_run_logger
from prefect.runtime import deployment, flow_run
from prefect.states import Completed, Failed
from prefect.tasks import Task

from dri.errors import Failure, one_line
from dri.flows import tasks as steps
from dri.flows.corpus_settings import CorpusSettings, Mode
from dri.flows.execution import local_workers
from dri.flows.pipeline import (
    PartialFailure,
    default_run_id,
    run_corpus,
    run_inline,
    run_pipeline,
    small_job,
)
from dri.flows.runners import (
    PrefectServerError,
    RunnerConfig,
    check_dask_address,
    deferred_task_runner,
    make_task_runner,
    quiet_broken_pipes,
    runner_config,
    shared_prefect_api,
    wait_for_dask_worker,
)
from dri.metrics.pages import render
from dri.store.records import redact, safe_uri

__all__ = [
    "CorpusSettings",
    "Mode",
    "PartialFailure",
    "corpus_flow",
    "default_run_id",
    "run_corpus",
    "run_on_prefect",
    "small_job",
]


# -- tasks ---------------------------------------------------------------------

P = ParamSpec("P")
R = TypeVar("R")


def _task(name: str) -> Callable[[Callable[P, R]], Task[P, R]]:
    """Prefect's ``@task`` as every step of the flow takes it. The store is the
    cache (keyed by graph_id and by run_id), so Prefect's own result caching and
    persistence are switched off: they would only duplicate it."""
    return task(name=name, cache_policy=NO_CACHE, persist_result=False)


# The steps as Prefect tasks: the plain functions themselves, so each task
# takes exactly its step's parameters.
discover_task = _task("discover-documents")(steps.discover_documents)
# Failures are logged by the flow as they arrive, once each (flows.pipeline).
extract_task = _task("extract-and-store")(steps.extract_batch)
plan_task = _task("plan-pairs")(steps.plan_run)
sections_task = _task("check-sections")(steps.sections_problem)
map_task = _task("map-and-store")(steps.map_batch)


@_task("write-summary")
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

    _TASKS: ClassVar[dict[Callable[..., Any], Task[..., Any]]] = {
        steps.discover_documents: discover_task,
        steps.extract_batch: extract_task,
        steps.plan_run: plan_task,
        steps.sections_problem: sections_task,
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

    def call(self, step: Callable[..., Any], *args: Any) -> Any:
        return self._TASKS[step](*args)

    def submit(self, step: Callable[..., Any], *args: Any) -> PrefectFuture[Any]:
        return self._TASKS[step].submit(*args)

    def as_completed(self, futures: list[PrefectFuture[Any]]) -> Iterator[PrefectFuture[Any]]:
        return as_completed(futures)


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


def _http_failure(err: httpx.HTTPError) -> str:
    """What the server answered (``500 Internal Server Error for POST /api/flow_runs/``),
    or the client's error, in one line."""
    if isinstance(err, httpx.HTTPStatusError):
        request, response = err.request, err.response
        return f"{response.status_code} {response.reason_phrase} for {request.method} {request.url.path}"
    return one_line(err)


def run_on_prefect(
    settings: CorpusSettings,
    workers: int | None,
    dask_address: str | None,
    runner: str | None,
    say: Callable[[str], None] | None = None,
) -> tuple[Any, steps.RunSummary | None]:
    """:func:`corpus_flow` on the configured task runner (see
    :func:`~flows.pipeline.run_corpus`); a store that cannot be used here is
    reported at once, in this process, without starting Prefect's server and
    a pool for nothing. (Dask workers may be configured elsewhere: their flow
    checks for itself.) A Dask scheduler without workers is waited for before
    the flow starts, ``say`` (default: the ``dri.progress`` log) told so."""
    config: RunnerConfig = runner_config(workers=workers, dask_address=dask_address, kind=runner)
    if config.kind != "dask" and steps.store_problem() is not None:
        return run_inline(settings)
    if config.dask_address:
        check_dask_address(config.dask_address, named=config.dask_address_from)
        wait_for_dask_worker(config.dask_address, say or logging.getLogger("dri.progress").info)
    quiet_broken_pipes()
    with shared_prefect_api() as api_url:
        try:
            state = corpus_flow.with_options(task_runner=make_task_runner(config))(
                settings, return_state=True
            )
        except httpx.HTTPError as err:
            # The server failed the flow's own calls (a 500 when its database is on
            # a full disk, a server gone mid-run): Prefect raises, with a traceback.
            server = safe_uri(api_url or "")  # first: it registers a login's password for redact
            raise PrefectServerError(redact(f"Prefect's server at {server}: {_http_failure(err)}")) from None
        except RuntimeError as err:
            # Prefect's client asks the server's version first, and raises this when
            # the answer is an HTTP error: a traceback, exit 70, whose cause quoted
            # the URL with its password.
            if not str(err).startswith("Failed to reach API"):
                raise
            server = safe_uri(api_url or "")
            cause = err.__cause__
            why = _http_failure(cause) if isinstance(cause, httpx.HTTPError) else one_line(err)
            raise PrefectServerError(redact(f"Prefect's server at {server}: {why}")) from None
    result = state.result(raise_on_failure=False)
    if isinstance(result, PartialFailure):
        return state, result.summary
    return state, result if isinstance(result, steps.RunSummary) else None
