"""Progress of a corpus run, for the Prefect logs and for progress bars.

The corpus flow reports how many documents it has parsed and how many pairs it
has mapped. Every report goes to the run logger (so the Prefect UI shows the
same figures as the terminal) and to any listeners registered in this
process, which is how ``dri run`` drives its rich progress bar without the
flow knowing about terminals. Listeners are plain callables; they are not flow
parameters, because Prefect has to serialise parameters to its API.

Example
-------
>>> seen = []
>>> with listening(seen.append):
...     report(Progress("parse", done=1, total=2))
>>> seen[0].done
1
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from dri.flows.execution import RunLogger

__all__ = ["Listener", "Progress", "Reporter", "listening", "report"]

Listener = Callable[["Progress"], None]

_listeners: list[Listener] = []
_lock = threading.Lock()


@dataclass(frozen=True)
class Progress:
    """``done`` of ``total`` items of a ``stage`` (``parse`` or ``map``) finished."""

    stage: str
    done: int
    total: int
    failed: int = 0

    def __str__(self) -> str:
        noun = {"parse": "documents parsed", "map": "pairs mapped"}.get(self.stage, self.stage)
        text = f"{self.done}/{self.total} {noun}"
        return f"{text} ({self.failed} failed)" if self.failed else text


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Call ``listener`` with every :class:`Progress` reported inside the block."""
    with _lock:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(listener)


def report(progress: Progress) -> None:
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(progress)


class Reporter:
    """Counts finished items of one stage; reports each to listeners and,
    at most every ``log_every`` seconds (and at the end), to ``logger``.

    Throttling the log keeps a 5,000-pair run from writing 5,000 log lines to
    the Prefect API while the progress bar still moves on every item.
    """

    def __init__(self, stage: str, total: int, logger: RunLogger, log_every: float = 5.0) -> None:
        self.stage, self.total, self.logger, self.log_every = stage, total, logger, log_every
        self.done = self.failed = 0
        self._last_log = float("-inf")
        report(Progress(stage, 0, total))

    def step(self, ok: bool = True) -> None:
        self.advance(1 if ok else 0, 0 if ok else 1)

    def advance(self, ok: int, failed: int = 0) -> None:
        """``ok + failed`` more items finished, ``failed`` of them failed."""
        self.done += ok + failed
        self.failed += failed
        progress = Progress(self.stage, self.done, self.total, self.failed)
        report(progress)
        now = time.monotonic()
        if self.done == self.total or now - self._last_log >= self.log_every:
            self._last_log = now
            self.logger.info("%s", progress)
