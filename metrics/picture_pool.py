"""Mapping pictures drawn in worker processes forked before the search that needs them.

A report's mapping pictures (:func:`metrics.picture.draw_mapping`) cost
matplotlib's import, about 0.4 s of CPU, and 0.1-0.2 s each, all after the
search has chosen its hits: a third of the first result of ``dri evaluate
analogy`` on ten stored stories. A :class:`PicturePool` forks its workers
when it is made, at the start of the search, so they import matplotlib on
the other core while the search maps, and later draws a report's pictures
side by side. A picture is the same, byte for byte, drawn by a worker or by
the caller (the layout is seeded and the SVG ids come from the picture's
prefix), so the pool changes when a picture is ready, never what it shows.

Where the caller has loaded matplotlib already (``dri demo`` loads it before
its fork), it draws too when it asks for the pictures: from the last back,
each picture no worker has started yet (:func:`draw_pictures`), so the
caller and the worker share the pictures that are left. The demo's
analogy search runs when its other process is finishing: the worker draws
on that core as soon as it is free.

The workers are forked (the start method that shares the parent's loaded
modules; the pool is made before the search starts any thread) and ignore
SIGINT: an interrupt is the parent's to report, in one line, and closing the
pool ends them; a worker whose parent is gone (even killed outright) exits.
A worker that dies or a picture that fails in one is drawn again in the
caller, so a broken pool costs time, never a picture. :func:`picture_pool`
gives None on one CPU (no second core to use).

>>> with picture_pool() as pool:                                   # doctest: +SKIP
...     results = search()                 # the workers import matplotlib meanwhile
...     pictures = draw_pictures(jobs, pool)
"""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

import networkx as nx

from dri.mapping import Mapping
from dri.mapping.inference import CandidateInference
from dri.metrics.picture import MappingPicture, draw_mapping
from dri.process_pools import tolerate_cancelled_futures

__all__ = ["PictureJob", "PicturePool", "draw_pictures", "picture_pool"]

log = logging.getLogger(__name__)

#: Workers at most: a report draws a few pictures per target.
MAX_WORKERS = 1


@dataclass(frozen=True)
class PictureJob:
    """What :func:`metrics.picture.draw_mapping` needs for one picture."""

    source: nx.DiGraph
    target: nx.DiGraph
    mapping: Mapping
    inferences: Sequence[CandidateInference] = field(default_factory=tuple)
    prefix: str = "mapping"

    def draw(self) -> MappingPicture:
        return draw_mapping(self.source, self.target, self.mapping, self.inferences, prefix=self.prefix)


def _worker_ready() -> None:
    """A worker's start: interrupts are the parent's, the worker ends with its parent,
    and matplotlib is loaded now, not at the first picture."""
    # What the worker inherited (WordNet's tables, the models) is never garbage: kept
    # out of the collector's passes, which would scan it all in the first picture.
    gc.freeze()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        # A forked worker also holds the parent's end of the task queue, so it would
        # wait for tasks for ever after a parent killed outright (kill -9).
        threading.Thread(target=_exit_with, args=(parent,), name="dri-picture-watchdog", daemon=True).start()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's end of its sentinel pipe closes
    os._exit(1)


def _started() -> bool:
    return True


class PicturePool:
    """Worker processes that draw mapping pictures; close it (or use ``with``) when done."""

    def __init__(self, workers: int = MAX_WORKERS) -> None:
        tolerate_cancelled_futures()  # a worker may die while draw_pictures takes futures back
        self._executor: ProcessPoolExecutor | None = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker_ready
        )
        # The first task forks every worker: they load matplotlib while the caller works.
        self._executor.submit(_started)
        self._asked: dict[tuple[str, int], tuple[PictureJob, Future[MappingPicture]]] = {}

    def submit(self, job: PictureJob) -> Future[MappingPicture] | None:
        """The picture's future, or None if the pool cannot take it (it is then drawn in the caller).

        A picture of the same mapping under the same prefix is drawn once: a
        search asks for its report's pictures as soon as its hits are known, and
        the report asks again when it is written (a picture the caller took
        over, :func:`draw_pictures`, is asked of the pool anew)."""
        key = (job.prefix, id(job.mapping))
        asked = self._asked.get(key)
        if asked is not None and asked[0].mapping is job.mapping and not asked[1].cancelled():
            return asked[1]
        if self._executor is None:
            return None
        try:
            future = self._executor.submit(PictureJob.draw, job)
        except RuntimeError as err:  # a broken or closed pool
            log.debug("picture pool not used: %s", err)
            return None
        self._asked[key] = (job, future)  # the job is kept, so its mapping's id is not reused
        return future

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def __enter__(self) -> PicturePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def picture_pool(wanted: bool = True) -> Iterator[PicturePool | None]:
    """A :class:`PicturePool` for the block, or None when ``wanted`` is false, on one
    CPU, or where processes cannot be forked."""
    pool = None
    if wanted and (os.cpu_count() or 1) > 1:
        try:
            pool = PicturePool()
        except (OSError, ValueError) as err:
            log.debug("picture pool not started: %s", err)
    try:
        yield pool
    finally:
        if pool is not None:
            pool.close()


def draw_pictures(jobs: Sequence[PictureJob], pool: PicturePool | None = None) -> list[MappingPicture]:
    """The pictures of ``jobs``, in order: drawn in ``pool``'s workers, or here
    (without a pool, and for any picture a worker could not draw).

    Where this process has loaded matplotlib, it also draws, from the last
    picture back, those that no worker has started, while the workers draw
    from the first on; where it has not, it waits for the workers rather
    than load matplotlib a second time."""
    futures = [pool.submit(job) for job in jobs] if pool is not None and len(jobs) > 0 else [None] * len(jobs)
    pictures: list[MappingPicture | None] = [None] * len(jobs)
    if "matplotlib.pyplot" in sys.modules:
        for n in reversed(range(len(jobs))):
            future = futures[n]
            if future is not None and future.cancel():
                futures[n] = None
                pictures[n] = jobs[n].draw()
    for n, (job, future) in enumerate(zip(jobs, futures)):
        if future is not None:
            try:
                pictures[n] = future.result()
            except Exception as err:  # a worker that died or failed: the caller draws it
                log.debug("picture %s drawn here: the pool failed (%s)", job.prefix, err)
        if pictures[n] is None:
            pictures[n] = job.draw()
    return [p for p in pictures if p is not None]
