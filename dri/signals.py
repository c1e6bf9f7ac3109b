"""SIGINT and SIGTERM held while a block runs, and delivered when it ends.

Some code turns an exception raised inside it into something else: a bare
``except:`` (srsly's import of ruamel's C parser, inside spaCy's import)
swallows Ctrl-C's ``KeyboardInterrupt``, and pydantic's serializer (Prefect
handing a task to Dask) wraps it in an error of its own. A signal that
arrives while such code runs is held by :func:`signals_held` and raised
again, through the handler that was there before, as soon as the block ends.

>>> with signals_held():          # doctest: +SKIP
...     import spacy              # Ctrl-C meanwhile: KeyboardInterrupt here, after the import

:func:`sigterm_interrupts` makes SIGTERM (``kill``, a service manager, a
CI's timeout) stop a command as Ctrl-C does: its ``finally`` blocks run, so
temporary files and folders go and the command says it was interrupted,
where the signal's default ended the process on the spot.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import weakref
from collections.abc import Iterator
from types import FrameType

from dri.errors import Interrupted

__all__ = [
    "STOPPING",
    "signals_held",
    "signals_ignored",
    "sigterm_interrupts",
    "stopped_by",
    "taken_again_later",
]

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
        # Also when the block failed: the interrupt comes first, not the block's error.
        if arrived:
            held[signal.Signals(arrived[0])](arrived[0], None)


@contextlib.contextmanager
def signals_ignored(signals: tuple[signal.Signals, ...] = STOPPING) -> Iterator[None]:
    """Ignore ``signals`` during the block, then put their handlers back: for
    a command's last clean-up, when its work is done and an interrupt would
    only stop the clean-up half-way. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {s: signal.signal(s, signal.SIG_IGN) for s in signals}
    try:
        yield
    finally:
        for s, handler in handlers.items():
            if handler is not None:  # None: set outside Python, which cannot be put back
                signal.signal(s, handler)


#: The stopping signal :func:`sigterm_interrupts`' handler took, if any (:func:`stopped_by`).
_received: int | None = None


def stopped_by() -> int | None:
    """The SIGTERM this process took while :func:`sigterm_interrupts` was
    active, if any: the command asks when an error escapes it, because code in
    C or C++ (matplotlib drawing a figure) may turn the interrupt raised inside
    it into an error of its own ("Invalid bounding box"), keeping no trace of it."""
    return _received


def _in_unraisable_context(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs where Python prints an exception as "Exception
    ignored" and drops it: a garbage collector callback (``gc.callbacks``), a
    weak reference's callback (``weakref``'s dictionaries and finalizers), a
    ``__del__``, or a callback run at a fork (``logging``'s lock release)."""
    callbacks = {
        getattr(c, "__code__", getattr(getattr(c, "__func__", None), "__code__", None)) for c in gc.callbacks
    }
    while frame is not None:
        code = frame.f_code
        if (
            code in callbacks
            or code.co_name
            in ("__del__", "_acquireLock", "_releaseLock", "_after_at_fork_child_reinit_locks")
            or code.co_filename == weakref.__file__
        ):
            return True
        frame = frame.f_back
    return False


def taken_again_later(signum: int, frame: FrameType | None) -> bool:
    """For a handler that raises: whether ``frame`` runs where Python would
    print the exception as "Exception ignored" and lose it (a garbage
    collector's or a weak reference's callback, a ``__del__``, a fork's
    callback); if so, the signal is sent again 0.05 s later, and the handler
    returns without raising."""
    if not _in_unraisable_context(frame):
        return False
    threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
    return True


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    global _received
    if taken_again_later(signum, frame):
        return
    _received = signum
    raise Interrupted(signum)


def _default_sigterm_in_child() -> None:
    # A forked child (a picture worker, the demo's second process) is ended by
    # its parent with SIGTERM at once, as before the parent handled it; the
    # parent's handler would raise in the child's bootstrap, with a traceback.
    if signal.getsignal(signal.SIGTERM) is _raise_interrupted:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


os.register_at_fork(after_in_child=_default_sigterm_in_child)


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While active: SIGTERM raises :class:`~dri.errors.Interrupted` (a
    KeyboardInterrupt that knows its signal, for the exit status 143), if it
    was left at its default. Main thread only. A process forked meanwhile
    starts with the default again, so that its parent still ends it at once."""
    global _received
    _received = None  # a command's own, not one an earlier command in this process took
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
