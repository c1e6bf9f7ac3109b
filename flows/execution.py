"""Where the steps of a corpus run execute: the runner the pipeline is given.

The pipeline (:mod:`flows.pipeline`) names its steps as the plain functions
of :mod:`flows.tasks` and hands each to a :class:`Runner`:

* :class:`InProcess` calls them here, one after the other: no Prefect
  server, no worker pool, no spaCy or WordNet loaded again in every worker
  (a small job, ``runner="inline"``);
* ``PrefectTasks`` (:mod:`flows.corpus`) runs each as the Prefect task that
  wraps it, on the flow's task runner (processes, threads, Dask).

A runner also says how many workers it has (for sizing batches), which
logger the run writes to and at which level it logs each failure: ``INFO``
when whoever started the run shows the summary's failures itself (``dri
run``, :func:`~flows.corpus.run_corpus`), so the console does not show each
twice; ``ERROR`` when nobody else will (a deployment's run).
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from dri.errors import SettingsError
from dri.literal import printable
from dri.settings import setting

__all__ = ["MAX_WORKERS", "InProcess", "ProcessPool", "RunLogger", "Runner", "local_workers"]

#: The logger a run writes to: Python's, or Prefect's adapter of it inside a flow.
RunLogger = logging.Logger | logging.LoggerAdapter[logging.Logger]


class Runner(Protocol):
    """What the pipeline needs of whoever executes its steps."""

    #: The run's logger.
    logger: RunLogger
    #: The level of one failure's log line (see the module docstring).
    failure_level: int

    def workers(self) -> int:
        """Workers that take submitted steps, for sizing batches."""
        ...

    def call(self, step: Callable[..., Any], *args: Any) -> Any:
        """``step(*args)``, waited for."""
        ...

    def submit(self, step: Callable[..., Any], *args: Any) -> Any:
        """``step(*args)`` started; a future with ``result()``."""
        ...

    def as_completed(self, futures: list[Any]) -> Iterable[Any]:
        """``futures`` as they finish."""
        ...


#: The most worker processes a run starts: more would not fit one machine (a
#: count past a C int was an OverflowError in multiprocessing, exit 70).
MAX_WORKERS = 256


def local_workers() -> int:
    """``DRI_WORKERS``, else the CPUs of this machine; a :class:`SettingsError`
    naming the variable if it is not a whole number from 1 to
    :data:`MAX_WORKERS` (zero workers would size batches by a division by zero)."""
    raw = setting("DRI_WORKERS")
    if not raw:
        return os.cpu_count() or 1
    # int() also took "1_0" as 10 and another script's digits ("٣") as 3, and refuses
    # 4,300 digits and more.
    workers = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else 0
    if not 1 <= workers <= MAX_WORKERS:
        shown = printable(raw if len(raw) <= 40 else f"{raw[:40]}…")
        raise SettingsError(f"DRI_WORKERS must be a whole number from 1 to {MAX_WORKERS}, not {shown!r}")
    return workers


class InProcess:
    """Every step called in this process as it is submitted."""

    def __init__(self, failure_level: int = logging.INFO) -> None:
        self.logger: RunLogger = logging.getLogger("dri.flows.corpus")
        self.failure_level = failure_level

    def workers(self) -> int:
        # Batches are sized as on a pool of this machine, so a run cut into
        # the same batches stores the same results in the same order.
        return local_workers()

    def call(self, step: Callable[..., Any], *args: Any) -> Any:
        return step(*args)

    def submit(self, step: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        try:
            future.set_result(step(*args))
        except Exception as err:
            future.set_exception(err)
        return future

    def as_completed(self, futures: list[Any]) -> Iterator[Any]:
        return concurrent.futures.as_completed(futures)


class ProcessPool(InProcess):
    """Submitted steps run on a pool of ``workers`` processes (calls
    still run here): the mapping of a search's many candidates in a run that
    is otherwise in this process. The workers ignore SIGINT and end with
    their parent, as the corpus flow's (:func:`flows.runners.worker_init`);
    on Ctrl-C :meth:`close` does not wait for what they are mapping."""

    def __init__(
        self,
        workers: int,
        failure_level: int = logging.INFO,
        initializer: Callable[[], None] | None = None,
    ) -> None:
        from dri.flows.runners import SEARCH_WORKER_PRELOAD, WorkerStart, worker_context, worker_init

        super().__init__(failure_level)
        self._workers = workers
        self._pool = concurrent.futures.ProcessPoolExecutor(
            workers,
            mp_context=worker_context(SEARCH_WORKER_PRELOAD),
            initializer=WorkerStart(initializer or worker_init),
        )

    def workers(self) -> int:
        return self._workers

    def start(self) -> ProcessPool:
        """Spawn every worker now (the pool spawns one per task submitted while
        none is idle), so that their start-up runs while this process works on."""
        for _ in range(self._workers):
            self._pool.submit(os.getpid)
        return self

    def submit(self, step: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        try:
            return self._pool.submit(step, *args)
        except concurrent.futures.process.BrokenProcessPool as broken:
            # A worker died (kill -9, the out-of-memory killer): what is still to
            # submit fails as the steps on the pool did, and is reported with them.
            failed: concurrent.futures.Future[Any] = concurrent.futures.Future()
            failed.set_exception(broken)
            return failed

    def close(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=not wait)
