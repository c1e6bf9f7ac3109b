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
    """Hold ``signals`` during the block and deliver the first that arrived when it
    ends (main thread only: only it receives signals in Python)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {s: signal.signal(s, lambda signum, _: held.append(signum)) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            if handler is not None:  # None: installed by C code, not ours to put back
                signal.signal(s, handler)
        for signum in held[:1]:
            signal.raise_signal(signum)
