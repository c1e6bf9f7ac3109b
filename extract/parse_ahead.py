"""Documents parsed in a forked child while the parent loads what comes next.

``dri compare`` of two new files spends about 0.6 s importing spaCy, loading
its model and parsing, then 0.2 s loading WordNet's tables and the sentence
encoder that only the comparison needs. One process does them one after the
other, and a thread cannot do them side by side (both hold the GIL). A child
forked after the documents are read inherits them, parses them on the second
core and sends their graphs back through a pipe (pickled: milliseconds for a
story), while the parent loads the rest.

The child is a shortcut, never the only way: if it cannot start (no
``fork``, a thread at work, no process or pipe to be had) or ends without
its graphs (a bug, a signal, memory), :meth:`ParseAhead.graphs` returns None
and the caller parses in its own process, where any failure is reported as
before. The parent forks before it starts a thread: a forked child has only
the thread that forked, and a lock another thread held would stay held in it.
Stopping is the parent's: the child ignores SIGINT and SIGTERM, the parent
kills it when interrupted (and a lifeline pipe ends it when the parent ends
any other way); an interrupt that arrives during the fork is held until the
fork is over, not lost in its callbacks.

>>> from dri.extract.reader import document_from_text
>>> with parse_ahead([document_from_text("The sun attracts the planets.", "s")]) as ahead:
...     graphs = ahead.graphs()                              # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections.abc import Sequence
from types import TracebackType

import networkx as nx

from dri.extract.build import build_graphs
from dri.extract.document import Document
from dri.signals import STOPPING, signals_held

__all__ = ["IDLE_THREADS", "ParseAhead", "parse_ahead"]

#: Threads a child may be forked beside: the command's log server
#: (:mod:`dri.quiet_logs`) waits in ``select`` and holds no lock the child
#: takes (logging makes its handlers' locks anew in a forked child).
IDLE_THREADS = frozenset({"dri-worker-logs"})


class ParseAhead:
    """A child parsing ``documents``; :meth:`graphs` waits for their graphs."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self._pid: int | None = None
        self._pipe: int | None = None
        self._lifeline: int | None = None
        if not documents or not hasattr(os, "fork") or not _only_idle_threads():
            return
        try:
            # Held over the fork: Ctrl-C in the parent's fork callbacks was printed
            # as "Exception ignored" and lost, and the command ran on to its end.
            with signals_held():
                self._fork(documents)
        except BaseException:  # the interrupt held, handed on once the child is known
            self.close()
            raise

    def _fork(self, documents: Sequence[Document]) -> None:
        pipes: list[int] = []
        try:
            pipes += os.pipe()  # the graphs, child to parent
            pipes += os.pipe()  # the lifeline: its write end, the parent's alone, closes when the parent ends
            pid = os.fork()
        except OSError:  # out of file descriptors, processes or memory: parsed here
            for fd in pipes:
                os.close(fd)
            return
        read_end, write_end, life_read, life_write = pipes
        if pid == 0:  # the child: parse, send, and leave without the parent's exit handlers
            # Stopping is the parent's to decide: it kills the child, and its end ends the child.
            for stopping in STOPPING:
                signal.signal(stopping, signal.SIG_IGN)
            os.close(read_end)
            os.close(life_write)
            _exit_with_parent(life_read)
            _parse_and_send(documents, write_end)
        os.close(write_end)
        os.close(life_read)
        self._pid, self._pipe, self._lifeline = pid, read_end, life_write

    @property
    def started(self) -> bool:
        """Whether a child is parsing (else :meth:`graphs` is None at once)."""
        return self._pid is not None

    def graphs(self) -> list[nx.DiGraph] | None:
        """The documents' graphs, in order, or None if the child gave none."""
        if self._pipe is None:
            return None
        with os.fdopen(self._pipe, "rb") as pipe:
            self._pipe = None
            payload = pipe.read()
        reaped = self._reaped_cleanly()
        self.close()
        if not reaped or not payload:
            return None
        graphs = pickle.loads(payload)  # written by this process's own child
        return graphs if isinstance(graphs, list) else None

    def close(self) -> None:
        """Stop the child if it still runs (an interrupt, an error) and reap it."""
        for fd in (self._pipe, self._lifeline):
            if fd is not None:
                os.close(fd)
        self._pipe = self._lifeline = None
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):  # it has ended already
                os.kill(self._pid, signal.SIGKILL)
            self._reaped_cleanly()

    def _reaped_cleanly(self) -> bool:
        if self._pid is None:
            return False
        pid, self._pid = self._pid, None
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by someone else (SIGCHLD ignored): its end is unknown
            return False
        return os.waitstatus_to_exitcode(status) == 0

    def __enter__(self) -> ParseAhead:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def parse_ahead(documents: Sequence[Document]) -> ParseAhead:
    """Start parsing ``documents`` in a forked child (:class:`ParseAhead`)."""
    return ParseAhead(documents)


def _only_idle_threads() -> bool:
    main = threading.main_thread()
    return all(thread is main or thread.name in IDLE_THREADS for thread in threading.enumerate())


def _exit_with_parent(lifeline: int) -> None:
    """End this child as soon as its parent ends, however it ends (``kill -9``
    included, and a caller's ``subprocess.run(timeout=...)`` kills only the
    command): the lifeline's read end sees its end of file then, in a daemon
    thread, as a pool worker's watchdog does."""

    def watch() -> None:
        os.read(lifeline, 1)  # returns when the parent's write end is closed
        os._exit(1)

    threading.Thread(target=watch, name="dri-parse-lifeline", daemon=True).start()


def _parse_and_send(documents: Sequence[Document], write_end: int) -> None:
    status = 1
    try:
        payload = pickle.dumps(list(build_graphs(documents)), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        status = 0
    except BaseException:  # the parent parses again and reports it in its own words
        pass
    finally:
        os._exit(status)
