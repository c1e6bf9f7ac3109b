"""SIGINT and SIGTERM held while a block runs, and delivered when it ends.

Some code turns an exception raised inside it into something else: a bare
``except:`` (srsly's import of ruamel's C parser, inside spaCy's import)
swallows Ctrl-C's ``KeyboardInterrupt``, and pydantic's serializer (Prefect
handing a task to Dask) wraps it in an error of its own. A signal that
arrives while such code runs is held by :func:`signals_held` and raised
again, through the handler that was there before, as soon as the block ends.

>>> with signals_held():          # doctest: +SKIP
...     import spacy              # Ctrl-C meanwhile: KeyboardInterrupt here, after the import
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["STOPPING", "signals_held"]

#: The signals a command turns into an interrupt.
STOPPING = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_held(signals: tuple[signal.Signals, ...] = STOPPING) -> Iterator[None]:
    """Hold ``signals`` during the block and hand the first that arrived to its
    handler when it ends. Only signals handled in Python are held: one left to
    its default (a pool worker's SIGTERM) or ignored (its SIGINT) acts as it
    would have. Main thread only: only it receives signals in Python."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {s: signal.getsignal(s) for s in signals}
    held = {s: handler for s, handler in handlers.items() if callable(handler)}
    arrived: list[int] = []
    for s in held:
        signal.signal(s, lambda signum, _: arrived.append(signum))
    try:
        yield
    finally:
        for s, handler in held.items():
            signal.signal(s, handler)
    if arrived:
        held[signal.Signals(arrived[0])](arrived[0], None)
