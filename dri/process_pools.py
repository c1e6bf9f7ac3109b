"""A process pool whose worker dies while a future is cancelled breaks cleanly.

When a worker of a :class:`concurrent.futures.ProcessPoolExecutor` dies
(killed, out of memory), the pool's manager thread fails every pending
future. On Python before 3.12 it raises ``InvalidStateError`` for a future
the caller cancelled meanwhile (CPython gh-107219, fixed in 3.12 by
PR 108974): the thread dies with a traceback on stderr, and the rest of its
clean-up (ending the other workers, closing the queues) is skipped. The
tool cancels futures exactly when a pool may be breaking: on Ctrl-C, when a
report takes back pictures no worker has started (``metrics.picture_pool``),
and when a pool is shut down with ``cancel_futures``.

:func:`tolerate_cancelled_futures` wraps the manager thread's
``terminate_broken`` so that a future cancelled meanwhile is passed over,
as 3.12 does; every pool of the tool (``flows.runners.worker_context``,
``metrics.picture_pool``) calls it before it starts one. On 3.12 and later
it does nothing.

>>> tolerate_cancelled_futures()  # idempotent
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from concurrent.futures import InvalidStateError, process
from typing import Any

__all__ = ["tolerate_cancelled_futures"]

_LOCK = threading.Lock()
_FIXED_IN = (3, 12)


def _passing_over_cancelled(terminate_broken: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    def wrapped(self: Any, cause: Any) -> None:
        # Each pass fails the pending futures in turn and stops at the first
        # one cancelled meanwhile; those it failed and that one are done, so
        # the next pass leaves them out. Everything before the loop over the
        # futures (marking the pool broken, making the error) may run twice.
        while True:
            pending = self.pending_work_items
            for work_id in [w for w, item in pending.items() if item.future.done()]:
                del pending[work_id]
            try:
                terminate_broken(self, cause)
                return
            except InvalidStateError:
                continue

    wrapped.dri_passes_over_cancelled = True  # type: ignore[attr-defined]
    return wrapped


def tolerate_cancelled_futures() -> None:
    """Make a breaking process pool pass over cancelled futures (before Python 3.12)."""
    if sys.version_info >= _FIXED_IN:
        return
    manager = process._ExecutorManagerThread
    with _LOCK:
        if not getattr(manager.terminate_broken, "dri_passes_over_cancelled", False):
            manager.terminate_broken = _passing_over_cancelled(manager.terminate_broken)  # type: ignore[method-assign,assignment]
