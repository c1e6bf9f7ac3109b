"""The corpus flow: graphs, comparisons and a summary for a whole corpus, on Prefect.

The steps and stages are :mod:`flows.pipeline`'s, without Prefect; here each
step becomes a Prefect task and :func:`corpus_flow` runs them on the flow's
task runner (processes, threads or a Dask cluster, :mod:`flows.runners`).
A run with failures ends in a ``Failed`` state named ``Partially failed`` --
so automations and ``prefect flow-run ls`` see it -- whose result is a
:class:`~flows.pipeline.PartialFailure` carrying the
:class:`~flows.tasks.RunSummary`. Called directly, :func:`corpus_flow`
returns the summary, or raises that exception.

:func:`run_corpus` (from :mod:`flows.pipeline`) chooses between a Prefect run
and a run in this process; a command that may run a small job in this process
imports it from there, so that Prefect is imported only when it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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

from dri.flows import pipeline
from dri.flows import tasks as steps
from dri.flows.pipeline import Mode, PartialFailure, default_run_id, run_corpus, small_job
from dri.flows.runners import RunnerConfig, make_task_runner, runner_config, shared_prefect_api
from dri.settings import DEFAULT_CANDIDATES

__all__ = ["PartialFailure", "corpus_flow", "default_run_id", "run_corpus", "small_job"]

# The store is the cache (keyed by graph_id and by run_id), so Prefect's own
# result caching and persistence are switched off: they would only duplicate it.
_TASK = dict(cache_policy=NO_CACHE, persist_result=False)

discover_task = task(name="discover-documents", **_TASK)(pipeline.discover_step)
extract_task = task(name="extract-and-store", **_TASK)(pipeline.extract_step)
plan_task = task(name="plan-pairs", **_TASK)(pipeline.plan_step)
map_task = task(name="map-and-store", **_TASK)(pipeline.map_step)


@task(name="write-summary", **_TASK)
def summary_task(summary: steps.RunSummary) -> tuple[str, str]:
    """:func:`~flows.pipeline.summary_step`, and the summary as a Prefect artifact."""
    path, problem = pipeline.summary_step(summary)
    if TaskRunContext.get() is None:
        return path, problem
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


_TASKS: dict[Callable[..., Any], Any] = {
    pipeline.discover_step: discover_task,
    pipeline.extract_step: extract_task,
    pipeline.plan_step: plan_task,
    pipeline.map_step: map_task,
    pipeline.summary_step: summary_task,
}


class PrefectExecutor:
    """The steps as tasks of the running flow, submitted to its task runner."""

    def __init__(self) -> None:
        self.workers = self._workers()
        try:
            self.logger = get_run_logger()
        except MissingContextError:
            self.logger = pipeline.InlineExecutor().logger

    @staticmethod
    def _workers() -> int:
        """Workers of this run's task runner, for sizing batches; a runner that
        does not say (a remote Dask cluster) counts as ``DRI_WORKERS`` or the CPUs here."""
        ctx = FlowRunContext.get()
        n = getattr(ctx.task_runner, "_max_workers", None) if ctx else None
        return int(n or pipeline.InlineExecutor().workers)

    def call(self, step: Callable[..., Any], *args: Any) -> Any:
        return _TASKS[step](*args)

    def submit(self, step: Callable[..., Any], *args: Any) -> Any:
        return _TASKS[step].submit(*args)

    def as_completed(self, futures: list[Any]) -> Iterable[Any]:
        return as_completed(futures)


def _run_name() -> str:
    p = flow_run.parameters
    return f"{p.get('corpus') or Path(p['corpus_dir']).name}-{p.get('mode', 'auto')}"


@flow(
    name="corpus",
    flow_run_name=_run_name,
    task_runner=make_task_runner(),
    description="ROS graphs, comparisons and a summary for a corpus folder.",
)
def corpus_flow(
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
) -> steps.RunSummary | State:
    """Run the corpus at ``corpus_dir``; see :mod:`flows.pipeline`.

    ``corpus`` names the corpus in the store (default: the folder name).
    ``sections`` restricts both graphs of a pair to those sections (the paper
    mapped abstract plus background). ``batch_size`` fixes the documents or
    pairs per task (default: enough batches to keep every worker busy).

    Two-stage search (:mod:`flows.search`): in ``target`` and ``manifest``
    mode a target with more than ``candidates`` sources is structure-mapped
    with the ``candidates`` closest by content only, unless ``exhaustive``;
    in ``all-pairs`` mode ``top_per_document`` keeps the pairs where one
    document is among the other's K closest. Stage 1 does not change the
    run id: a pair scores the same whichever stage chose it.
    ``profile`` names the mapping profile (:mod:`mapping.profiles`; default:
    the default profile); it is part of the run id.
    ``allow_outside_links`` lets symbolic links to files outside the corpus
    folder in (refused by default).

    A store that does not answer stops the run early: at the start (after
    the store's retry window, once), or after a stage whose failures came
    from it; the summary is written all the same, with ``advice`` saying
    what to do.
    """
    summary = pipeline.run_steps(
        PrefectExecutor(),
        corpus_dir,
        mode=mode,
        target=target,
        run_id=run_id,
        corpus=corpus,
        sections=sections,
        batch_size=batch_size,
        candidates=candidates,
        exhaustive=exhaustive,
        top_per_document=top_per_document,
        profile=profile,
        allow_outside_links=allow_outside_links,
    )
    if summary.failures:
        message = f"partial failure: {len(summary.failures)} problem(s); {summary.headline()}"
        return Failed(name="Partially failed", message=message, data=PartialFailure(message, summary))
    return Completed(message=summary.headline(), data=summary)


def run_on_prefect(
    corpus_dir: str,
    workers: int | None,
    dask_address: str | None,
    runner: str | None,
    parameters: dict[str, Any],
) -> tuple[Any, steps.RunSummary | None]:
    """:func:`corpus_flow` on the configured task runner (see :func:`~flows.pipeline.run_corpus`)."""
    config: RunnerConfig = runner_config(workers=workers, dask_address=dask_address, kind=runner)
    # A store that cannot be used here is reported at once, in this process,
    # without starting Prefect's server and a pool for nothing. (Dask
    # workers may be configured elsewhere: their flow checks for itself.)
    if config.kind != "dask" and steps.store_problem() is not None:
        return pipeline.run_inline(corpus_dir, parameters)
    with shared_prefect_api():
        state = corpus_flow.with_options(task_runner=make_task_runner(config))(
            corpus_dir, return_state=True, **parameters
        )
    result = state.result(raise_on_failure=False)
    if isinstance(result, PartialFailure):
        return state, result.summary
    return state, result if isinstance(result, steps.RunSummary) else None
