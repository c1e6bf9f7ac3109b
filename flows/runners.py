"""Choosing where the tasks of a corpus run execute.

Mapping is CPU-bound pure Python, so threads would serialise on the GIL; the
default is a pool of processes on this machine. A Dask cluster takes over when
an address is given, on the command line or in ``DRI_DASK_ADDRESS``, with no
code change -- which is how a run goes past one machine.

Environment (read when :mod:`flows.corpus` is imported, i.e. also by a
deployment's flow run, so a work pool's ``env`` job variable sets them):

``DRI_DASK_ADDRESS``  scheduler address, e.g. ``tcp://10.0.0.5:8786``
``DRI_TASK_RUNNER``   ``processes`` (default), ``threads`` or ``dask``
                      (``dask`` without an address starts a local cluster)
``DRI_WORKERS``       number of worker processes or threads (default: CPUs)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["RUNNER_KINDS", "RunnerConfig", "make_task_runner", "runner_config"]

RUNNER_KINDS = ("processes", "threads", "dask")


@dataclass(frozen=True)
class RunnerConfig:
    kind: str = "processes"
    workers: int | None = None
    dask_address: str | None = None

    def describe(self) -> str:
        if self.kind == "dask":
            where = self.dask_address or f"a local Dask cluster of {self.workers or 'default'} workers"
            return f"Dask at {where}" if self.dask_address else where
        return f"{self.workers or os.cpu_count()} local {self.kind}"


def runner_config(
    workers: int | None = None, dask_address: str | None = None, kind: str | None = None
) -> RunnerConfig:
    """Arguments first, then the environment, then the defaults."""
    dask_address = dask_address or os.environ.get("DRI_DASK_ADDRESS") or None
    kind = kind or ("dask" if dask_address else os.environ.get("DRI_TASK_RUNNER") or "processes")
    if kind not in RUNNER_KINDS:
        raise ValueError(f"unknown task runner {kind!r}; expected one of {', '.join(RUNNER_KINDS)}")
    if workers is None and os.environ.get("DRI_WORKERS"):
        workers = int(os.environ["DRI_WORKERS"])
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    return RunnerConfig(kind=kind, workers=workers, dask_address=dask_address)


def make_task_runner(config: RunnerConfig | None = None):
    """The Prefect task runner for ``config`` (default: :func:`runner_config`)."""
    config = config or runner_config()
    if config.kind == "dask":
        # Imported when the runner is made: the CLI imports this module before
        # Prefect, which reads its settings when first imported.
        from prefect_dask import DaskTaskRunner

        if config.dask_address:
            return DaskTaskRunner(address=config.dask_address)
        kwargs = {"n_workers": config.workers, "threads_per_worker": 1} if config.workers else {}
        return DaskTaskRunner(cluster_kwargs={"processes": True, **kwargs})
    if config.kind == "threads":
        # Prefect when the runner is made, after its settings (see above).
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=config.workers)
    # Prefect when the runner is made, after its settings (see above).
    from prefect.task_runners import ProcessPoolTaskRunner

    return ProcessPoolTaskRunner(max_workers=config.workers)
