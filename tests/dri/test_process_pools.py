"""dri/process_pools.py: a pool whose worker dies while a future is cancelled breaks cleanly."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from dri.process_pools import tolerate_cancelled_futures


def _broken_with_a_cancelled_future() -> tuple[list[BaseException], list[object]]:
    """Kill the one worker of a pool while a pending future is cancelled; what
    threads raised and how the other futures ended."""
    raised: list[BaseException] = []
    hook = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value)  # type: ignore[assignment]
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    try:
        busy = pool.submit(time.sleep, 60)
        # One call runs and one waits in the call queue; the rest stay pending in the pool.
        queued = [pool.submit(time.sleep, 0) for _ in range(4)]
        deadline = time.monotonic() + 30
        while not busy.running() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # the manager thread has moved what fits into the call queue and waits
        assert queued[-1].cancel()
        for worker in list(pool._processes.values()):  # type: ignore[union-attr]
            os.kill(worker.pid, signal.SIGKILL)
        pool.shutdown(wait=True)
    finally:
        threading.excepthook = hook
    ended = []
    for future in [busy, *queued[:-1]]:
        try:
            ended.append(future.result(timeout=30))
        except BrokenProcessPool as err:
            ended.append(type(err))
    return raised, ended


def test_a_worker_killed_while_a_future_is_cancelled_fails_the_others_without_a_thread_traceback():
    tolerate_cancelled_futures()
    raised, ended = _broken_with_a_cancelled_future()
    assert raised == []
    assert ended == [BrokenProcessPool] * 4


def test_it_is_applied_once():
    tolerate_cancelled_futures()
    from concurrent.futures import process

    first = process._ExecutorManagerThread.terminate_broken
    tolerate_cancelled_futures()
    assert process._ExecutorManagerThread.terminate_broken is first
