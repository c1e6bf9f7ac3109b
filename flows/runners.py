"""Choosing where the tasks of a corpus run execute.

Mapping is CPU-bound pure Python, so threads would serialise on the GIL; the
default is a pool of processes on this machine. A Dask cluster takes over when
an address is given, on the command line or in ``DRI_DASK_ADDRESS``, with no
code change -- which is how a run goes past one machine.

Environment (read when a run of the corpus flow starts, also a deployment's
run, so a work pool's ``env`` job variable sets them; importing
:mod:`flows.corpus` builds no runner, :func:`deferred_task_runner`):

``DRI_DASK_ADDRESS``  scheduler address, e.g. ``tcp://10.0.0.5:8786``
``DRI_TASK_RUNNER``   ``processes`` (default), ``threads`` or ``dask``
                      (``dask`` without an address starts a local cluster)
``DRI_WORKERS``       number of worker processes or threads (default: CPUs)

**Worker processes** talk to the Prefect API of the process that runs the
flow and never start a Prefect server of their own: :func:`shared_prefect_api`
starts the one temporary server up front and hands its URL to the workers
(without it each worker would start its own, ~220 MB apiece). The workers
are forks of a forkserver that imported what they need once
(:func:`worker_context`). Each worker
ends itself (``os._exit``) as soon as the process whose pool it serves is gone,
however it went, ``kill -9`` included (:func:`worker_init`). When the flow is
torn down by a signal -- SIGTERM, which Prefect turns into its own
``TerminationSignal`` while a flow runs, or Ctrl-C -- the pool's workers are
terminated at once instead of being waited for
(:class:`StoppingProcessPoolTaskRunner`). The temporary server gets a reaper
process that ends it when the parent is gone, however it went.
:func:`end_workers_on_signals` makes SIGTERM behave like Ctrl-C for
``dri run`` outside the flow too and bounds the time left to unwind.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import multiprocessing
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, SimpleNamespace, TracebackType
from typing import TYPE_CHECKING, Any, NoReturn, Self
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    # Prefect is imported when a runner is made, never with this module (make_task_runner).
    from distributed import LocalCluster
    from prefect.task_runners import ProcessPoolTaskRunner, TaskRunner
    from prefect_dask.task_runners import DaskTaskRunner

    #: A task runner of any kind of future (processes, threads, Dask).
    AnyTaskRunner = TaskRunner[Any]

from dri import atomic
from dri.errors import Interrupted, ProjectError, SettingsError, one_line, os_reason
from dri.flows.execution import MAX_WORKERS, local_workers
from dri.literal import printable
from dri.process_pools import tolerate_cancelled_futures
from dri.quiet_logs import forward_to_parent
from dri.settings import prefect_api_url_problem, setting
from dri.signals import signals_held, taken_again_later
from dri.store.records import redact, register_secret, safe_uri

__all__ = [
    "RUNNER_KINDS",
    "PrefectServerError",
    "RunnerConfig",
    "check_dask_address",
    "check_prefect_api",
    "check_prefect_api_answers",
    "check_prefect_api_url",
    "deferred_task_runner",
    "end_workers_on_signals",
    "hide_prefect_api_secrets",
    "interrupted_by",
    "local_cluster",
    "make_task_runner",
    "quiet_broken_pipes",
    "runner_config",
    "shared_prefect_api",
    "terminate_workers",
    "wait_for_dask_worker",
    "worker_init",
]

log = logging.getLogger(__name__)

#: After SIGINT/SIGTERM, how long ``dri run`` may take to wind down before it exits anyway.
EXIT_GRACE_SECONDS = 10.0

RUNNER_KINDS = ("processes", "threads", "dask")

_QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


@dataclass(frozen=True)
class RunnerConfig:
    kind: str = "processes"
    workers: int | None = None
    dask_address: str | None = None
    #: Where ``dask_address`` came from, for messages: "DRI_DASK_ADDRESS", or "" (an argument).
    dask_address_from: str = ""

    def describe(self) -> str:
        if self.kind == "dask":
            where = self.dask_address or f"a local Dask cluster of {self.workers or 'default'} workers"
            return f"Dask at {where}" if self.dask_address else where
        return f"{self.workers or os.cpu_count()} local {self.kind}"


def runner_config(
    workers: int | None = None, dask_address: str | None = None, kind: str | None = None
) -> RunnerConfig:
    """Arguments first, then the environment, then the defaults: an explicit
    runner other than Dask takes no ``DRI_DASK_ADDRESS`` (``--runner threads``
    ran on the cluster that variable named)."""
    address_from = ""
    if kind in (None, "dask") and not dask_address and setting("DRI_DASK_ADDRESS"):
        dask_address, address_from = setting("DRI_DASK_ADDRESS"), "DRI_DASK_ADDRESS"
    dask_address = dask_address.strip() if dask_address is not None else None
    from_variable = False
    if not kind and not dask_address and setting("DRI_TASK_RUNNER"):
        kind, from_variable = setting("DRI_TASK_RUNNER"), True
    kind = kind or ("dask" if dask_address else "processes")
    named = f"DRI_TASK_RUNNER={printable(kind)}: " if from_variable else ""
    if kind == "inline":  # dri run and the evaluations take it (flows.pipeline.run_corpus); a flow cannot
        raise SettingsError(
            f"{named}task runner 'inline' runs a corpus without Prefect: it is for dri run and dri "
            f"evaluate, not for a flow on a Prefect server; expected one of {', '.join(RUNNER_KINDS)}"
        )
    if kind not in RUNNER_KINDS:
        # The variable's message names it, and inline, which dri run and dri evaluate take.
        what = "unknown task runner" if from_variable else f"unknown task runner {kind!r}"
        also = " (or inline, for dri run and dri evaluate)" if from_variable else ""
        raise SettingsError(f"{named}{what}; expected one of {', '.join(RUNNER_KINDS)}{also}")
    if workers is None and setting("DRI_WORKERS"):  # blanks are unset: they started a pool
        workers = local_workers()
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise SettingsError(f"workers must be a whole number from 1 to {MAX_WORKERS}, not {workers}")
    return RunnerConfig(kind=kind, workers=workers, dask_address=dask_address, dask_address_from=address_from)


def _why_unreachable(
    where: Callable[[], tuple[str, int] | None],
    timeout: float,
    then: Callable[[socket.socket], None] | None = None,
) -> str | None:
    """Why nothing answers at the ``(host, port)`` that ``where()`` gives (a ValueError
    of it: why it cannot give one); None if something listens, or if ``where()`` gives
    None (an address that is not for TCP). ``then`` is given the connection, to look
    at what answers, and its own errors pass through."""
    try:
        address = where()
        if address is not None:
            with socket.create_connection(address, timeout=timeout) as conn:
                if then is not None:
                    then(conn)
    except (OSError, ValueError) as err:  # ValueError: a bad port; UnicodeError: a host that is not a name
        return getattr(err, "strerror", None) or str(err) or type(err).__name__
    except OverflowError:  # a port past a C long, from getaddrinfo: was a traceback, exit 70
        return "the port is out of range (1-65535)"
    return None


#: The schemes of a Dask scheduler's address that a run can reach (a bare HOST:PORT is tcp).
DASK_SCHEMES = ("tcp", "tls")


def check_dask_address(address: str, timeout: float = 10.0, *, named: str = "") -> None:
    """A :class:`SettingsError` naming ``address`` (and the variable ``named``
    that gave it, if any) if it is not the TCP or TLS address of a Dask
    scheduler, or nothing listens there. Found inside the flow, Dask's client
    printed its traceback after 30 s (or at once, for a scheme another process
    cannot reach, ``inproc://``, or one this install cannot speak,
    ``ucx://``), and a Prefect server had been started for nothing. A login in
    the address is never shown: Dask takes none, and its own words quote it."""
    from distributed.comm.addressing import parse_address, parse_host_port

    # A variable set to blanks was "Dask at : cannot connect: Name or service not known";
    # a blank before the address made its scheme " tcp".
    address = address.strip()
    shown = printable(safe_uri(address)) or "an empty address"
    where_from = f"{named}: " if named else ""
    scheme = address.split("://", 1)[0].lower() if "://" in address else "tcp"
    if scheme not in DASK_SCHEMES:
        raise SettingsError(
            f"{where_from}Dask at {shown}: a run cannot use {printable(scheme)}://; "
            "give the scheduler's tcp://HOST:PORT (or tls://HOST:PORT)"
        )
    if any(ch.isspace() or not ch.isprintable() for ch in address):
        # The address shown without its login had lost the line break ("tcp://badhost:1"),
        # naming a host other than the one tried.
        login_hidden = f"***@{address.rsplit('@', 1)[1]}" if "@" in address else address
        raise SettingsError(
            f"{where_from}Dask at {printable(login_hidden)}: a blank or control character inside "
            "the address; give tcp://HOST:PORT (or tls://HOST:PORT)"
        )
    if "?" in address or "#" in address:
        # A token after "?" was quoted back in the parser's words ("invalid literal … '1?token=…'").
        raise SettingsError(
            f"{where_from}Dask at {shown}: a scheduler's address takes no query or fragment; "
            "give tcp://HOST:PORT (or tls://HOST:PORT)"
        )
    if "@" in address:
        raise SettingsError(
            f"{where_from}Dask at {shown}: a scheduler's address takes no user or password; "
            "give tcp://HOST:PORT (or tls://HOST:PORT, with Dask's own TLS settings)"
        )

    def where() -> tuple[str, int] | None:
        _, location = parse_address(address)
        given = location.rpartition("]")[2] if location.startswith("[") else location
        digits = given.rpartition(":")[2] if ":" in given else "8786"
        if not digits:  # int('') said "invalid literal for int() with base 10: ''"
            raise ValueError("no port after the ':'")
        if not (
            digits.isascii() and digits.isdigit()
        ):  # int() took "+80" and "８０" as 80; "abc" was int()'s words
            raise ValueError(f"port {digits} is not a number")
        host, port = parse_host_port(location, 8786)
        if not host:
            raise ValueError("no host")
        if not 0 < port < 65536:  # 70000 was taken as port 4464, the remainder
            raise ValueError(f"port {port} is out of range (1-65535)")
        return host, port

    try:
        # A TLS listener speaks TLS first; Dask's own client checks it.
        reason = _why_unreachable(where, timeout, then=_greeted_as_dask if scheme == "tcp" else None)
    except _NotADaskScheduler as err:
        raise SettingsError(
            f"{where_from}Dask at {shown}: {err}; give the address of a Dask scheduler"
        ) from None
    if reason is not None:
        raise SettingsError(f"{where_from}Dask at {shown}: cannot connect: {redact(reason)}")


#: How long a run waits for a Dask worker before it says so, then how often it says so again.
DASK_WORKER_FIRST_NOTICE_SECONDS = 3.0
DASK_WORKER_NOTICE_EVERY_SECONDS = 60.0


def wait_for_dask_worker(
    address: str,
    say: Callable[[str], None],
    *,
    first_notice: float = DASK_WORKER_FIRST_NOTICE_SECONDS,
    every: float = DASK_WORKER_NOTICE_EVERY_SECONDS,
) -> None:
    """Returns once the Dask scheduler at ``address`` has a worker; meanwhile
    ``say`` is told, after ``first_notice`` seconds and every ``every``
    seconds after that, that the run waits for one. Without it a scheduler
    with no workers kept the run's tasks queued and ``dri run`` waited for
    ever without a word. It waits for as long as it takes (a cluster's
    workers may still be starting); Ctrl-C stops it as it stops a run."""
    from distributed import Client

    shown = printable(safe_uri(address.strip()))
    try:
        client = Client(address.strip(), timeout=10, set_as_default=False)  # type: ignore[no-untyped-call]
    except OSError as err:  # gone since check_dask_address
        raise SettingsError(f"Dask at {shown}: cannot connect: {redact(one_line(err))}") from None
    try:
        waited, wait = 0.0, first_notice
        while True:
            try:
                client.wait_for_workers(1, timeout=wait)
                return
            except TimeoutError:  # distributed's WorkerStartTimeoutError
                waited += wait
                say(
                    f"waiting for a Dask worker at {shown}: the scheduler has none "
                    f"({waited:.0f} s so far; Ctrl-C stops the run)"
                )
                wait = every
    finally:
        client.close()  # type: ignore[no-untyped-call]


#: The largest first message taken for a Dask scheduler's handshake (it is under 100 bytes).
DASK_HANDSHAKE_MAX_BYTES = 1 << 16


class _NotADaskScheduler(Exception):
    """What answered at a Dask address is not a scheduler; ``str()`` says how it answered."""


def _greeted_as_dask(conn: socket.socket) -> None:
    """Raises :class:`_NotADaskScheduler` unless ``conn`` is greeted as a Dask scheduler greets.

    A scheduler sends its handshake as soon as it accepts a connection: one
    message framed as Dask frames it (an 8-byte length, then a count of frames
    and the frames). Dask's client reads that length and allocates it, so an
    SSH banner was a MemoryError of exabytes, a short reply a ``struct.error``,
    and a listener that waits for the client to speak first (a web server) a
    run that hung: each inside the flow, after a Prefect server was started.
    The handshake is sent back, as the client's own, so that the scheduler
    does not log a connection closed half-way.
    """
    try:
        head = _read_exactly(conn, 8)
    except TimeoutError:
        timeout = conn.gettimeout()
        raise _NotADaskScheduler(
            f"no Dask handshake within {timeout:g} s (a scheduler greets at once)"
        ) from None
    (size,) = struct.unpack("Q", head) if len(head) == 8 else (0,)
    if not head:
        raise _NotADaskScheduler("it closed at once")
    body = _read_exactly(conn, size) if 16 <= size <= DASK_HANDSHAKE_MAX_BYTES else b""
    (frames,) = struct.unpack_from("Q", body) if body and len(body) == size else (0,)
    if not 1 <= frames <= 64:
        raise _NotADaskScheduler("it answered, but not as a Dask scheduler does")
    conn.sendall(head + body)


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    """``size`` bytes from ``conn``, or fewer if it closed first."""
    got = bytearray()
    while len(got) < size:
        piece = conn.recv(size - len(got))
        if not piece:
            break
        got += piece
    return bytes(got)


class PrefectServerError(ProjectError):
    """The Prefect server a run records itself on failed it; ``str()`` names the
    server (without a login) and what it answered."""

    advice = (
        "the server's own log says why; a full disk or a damaged database under "
        "PREFECT_HOME (the temporary server's, ~/.prefect by default) are common causes"
    )


def check_prefect_api(url: str, timeout: float = 10.0) -> None:
    """A :class:`SettingsError` naming ``PREFECT_API_URL`` (without its login)
    if nothing listens at its host and port. Found by Prefect's client, it was a
    RuntimeError ("Failed to reach API") after its retries: a traceback, exit 70."""
    check_prefect_api_url(url)
    parts = urlsplit(url)
    reason = _why_unreachable(
        lambda: (str(parts.hostname), parts.port or (443 if parts.scheme == "https" else 80)), timeout
    )
    if reason is not None:
        raise SettingsError(f"PREFECT_API_URL {printable(safe_uri(url))}: cannot connect: {reason}")


class _Redacted(logging.Filter):
    """Log records with every registered secret hidden (:func:`dri.store.records.redact`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = redact(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        return True


def hide_prefect_api_secrets(url: str) -> None:
    """Hide the login and query of ``PREFECT_API_URL`` from this process's
    messages and from the log records of Prefect's event client, which quoted
    the URL whole ("Unable to connect to 'ws://user:pw@…'") when its server
    went away; a user without a password is a token too."""
    safe_uri(url)  # registers user:password and the password
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    for secret in (userinfo, parts.query, parts.fragment):
        register_secret(secret)
    events = logging.getLogger("prefect.events.clients")
    if not any(isinstance(f, _Redacted) for f in events.filters):
        events.addFilter(_Redacted())


def check_prefect_api_answers(url: str, timeout: float = 10.0) -> None:
    """A :class:`SettingsError` naming ``PREFECT_API_URL`` (without its login) if
    its server accepts a connection but gives no HTTP answer to ``/health``
    within ``timeout`` seconds: Prefect's event client waited about 2 minutes a
    folder there. Any HTTP answer will do but 404 (a web server that is not
    Prefect's: the client then failed on its first call with a traceback, exit
    70); what else it says (a login refused) is the client's to judge."""
    import urllib.error
    import urllib.request

    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]  # asked without the login, which urllib would not take
    health = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/") + "/health", "", ""))
    try:
        with urllib.request.urlopen(health, timeout=timeout):
            pass
    except urllib.error.HTTPError as err:
        if err.code == 404:
            raise SettingsError(
                f"PREFECT_API_URL {printable(safe_uri(url))}: not a Prefect server "
                f"(its /health is {err.code} {printable(err.reason)})"
            ) from None
        return
    except (OSError, ValueError) as err:  # URLError, a timeout, a reset; ValueError: a bad status line
        reason = getattr(err, "reason", None) or err
        raise SettingsError(
            f"PREFECT_API_URL {printable(safe_uri(url))}: no HTTP answer ({redact(one_line(reason))}); "
            "is a Prefect server there?"
        ) from None


def check_prefect_api_url(url: str | None) -> None:
    """A :class:`SettingsError` naming ``PREFECT_API_URL`` (without its login)
    unless ``url`` (None: not set) is an http:// or https:// URL with a host
    name and a port. Prefect's settings refuse some such URLs when Prefect is
    first imported (an IPv6 host without its "]": a traceback, exit 70), and
    the URL parser's words may quote a piece of the password."""
    problem = prefect_api_url_problem(url) if url else None
    if problem is not None:
        raise SettingsError(f"PREFECT_API_URL {printable(safe_uri(str(url)))}: {problem}")


def make_task_runner(config: RunnerConfig | None = None) -> AnyTaskRunner:
    """The Prefect task runner for ``config`` (default: :func:`runner_config`)."""
    config = config or runner_config()
    # A worker killed mid-task (or a Dask cluster's process stopped by a
    # signal) leaves a semaphore that multiprocessing's resource tracker cleans
    # up, with a warning that tells the user nothing; the tracker takes its
    # warning filters from sys.warnoptions (as -W options). Added when a run
    # makes its runner, never on import.
    if config.kind != "threads" and _QUIET_TRACKER not in sys.warnoptions:
        sys.warnoptions.append(_QUIET_TRACKER)
    if config.kind == "dask":
        _quiet_abandoned_gathers()
        # Imported when the runner is made: the CLI imports this module before
        # Prefect, which reads its settings when first imported.
        from prefect_dask.task_runners import DaskTaskRunner

        if config.dask_address:
            return DaskTaskRunner(address=config.dask_address)
        kwargs = {"n_workers": config.workers, "threads_per_worker": 1} if config.workers else {}
        # The dashboard on a free port: two runs at once must not warn about port 8787.
        runner: AnyTaskRunner = _stopping_dask_class()(
            cluster_class=local_cluster,
            cluster_kwargs={"processes": True, "dashboard_address": ":0", **kwargs},
        )
        return runner
    if config.kind == "threads":
        # Prefect when the runner is made, after its settings (see above).
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=config.workers)
    return _stopping_process_pool_class()(max_workers=config.workers, initializer=worker_init)


def deferred_task_runner() -> AnyTaskRunner:
    """The corpus flow's task runner as declared in its decorator: a stand-in
    that makes the real one (:func:`make_task_runner`, from the environment)
    when a run starts -- Prefect enters ``flow.task_runner.duplicate()`` for
    each run -- so importing the flow starts nothing and changes nothing
    (``sys.warnoptions`` included)."""
    return _deferred_class()()


def _deferred_class() -> type[AnyTaskRunner]:
    built: type[AnyTaskRunner] | None = globals().get("DeferredTaskRunner")
    if built is not None:
        return built
    from prefect.futures import PrefectFuture
    from prefect.task_runners import TaskRunner

    class DeferredTaskRunner(TaskRunner[PrefectFuture[Any]]):
        """Stands for the task runner :func:`make_task_runner` makes at run time."""

        # Not a copy of itself, as TaskRunner.duplicate() promises: the point
        # of this stand-in is that a run enters the real runner instead.
        def duplicate(self) -> AnyTaskRunner:  # type: ignore[override]
            return make_task_runner()

        def submit(self, *args: Any, **kwargs: Any) -> NoReturn:
            raise RuntimeError("the deferred task runner runs nothing: a flow run enters its duplicate()")

    DeferredTaskRunner.__module__ = __name__
    DeferredTaskRunner.__qualname__ = "DeferredTaskRunner"
    globals()["DeferredTaskRunner"] = DeferredTaskRunner
    return DeferredTaskRunner


# -- worker processes ----------------------------------------------------------

#: What a worker of each kind of pool imports before its first task: imported
#: once, in the forkserver that forks the workers (:func:`worker_context`).
CORPUS_WORKER_PRELOAD = ("__main__", "dri.flows.worker_preload")
SEARCH_WORKER_PRELOAD = ("__main__", "dri.flows.stage2")


def worker_context(preload: tuple[str, ...]) -> multiprocessing.context.BaseContext:
    """The start method of every pool's workers: forked by a ``forkserver`` that
    imported ``preload`` first, so a run's workers share one import of dri,
    spaCy and Prefect instead of each spawned worker doing it again (about
    1.5-2 s of CPU a worker). The forkserver is this process's one, made by
    its first pool, with that pool's ``preload`` (a later pool's workers
    import what else they need); it is an ``exec``'d process, not a fork of
    this one, so it holds none of this process's threads, locks or sockets,
    and it ends when this process does. A forked worker inherits the
    forkserver's working folder and environment, which may be older than
    this process's: :class:`WorkerStart` passes the current ones on. A pool
    made on it breaks cleanly if a worker dies while a future is cancelled
    (:func:`dri.process_pools.tolerate_cancelled_futures`)."""
    tolerate_cancelled_futures()
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    return context


@dataclass(frozen=True)
class WorkerStart:
    """A pool worker's initializer: the parent's working folder and environment
    as they were when the pool was made (see :func:`worker_context`), then
    ``then`` (:func:`worker_init` or a pool's own start)."""

    then: Callable[..., None]
    cwd: str = field(default_factory=os.getcwd)
    # Not in its repr: the environment may hold NEO4J_PASSWORD.
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ), repr=False)

    def __call__(self, *args: Any) -> None:
        with contextlib.suppress(OSError):  # a folder removed meanwhile: the worker's own stays
            os.chdir(self.cwd)
        if os.environ != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        self.then(*args)


@contextlib.contextmanager
def _prefect_pool_start_method(context: multiprocessing.context.BaseContext) -> Iterator[None]:
    """Prefect's process pool takes its workers' start method from
    ``multiprocessing.get_context("spawn")`` in its ``__enter__``, the one use of
    ``multiprocessing`` in its module after import: for the length of that call,
    the module sees ``context`` there instead."""
    import prefect.task_runners as prefect_runners

    names = vars(prefect_runners)
    real = names["multiprocessing"]
    names["multiprocessing"] = SimpleNamespace(get_context=lambda method=None: context)
    try:
        yield
    finally:
        names["multiprocessing"] = real


def _no_initializer() -> None:
    pass


def worker_init() -> None:
    """Runs first in every worker process of the process pool: the worker
    exits as soon as its parent (the process that runs the flow) is gone --
    nobody will read its results, so it must stop mapping and writing.

    Each worker, forked by the forkserver at the parent's request
    (:func:`worker_context`), holds the read end of a pipe whose write end
    only the parent holds (``multiprocessing.parent_process().sentinel``);
    it becomes readable when the parent exits or is killed, also if that
    happened before this runs. Not ``os.getppid()``: a worker's start-up
    (imports) takes tens of seconds on a busy machine, and a parent killed
    during it has already been replaced by init when the worker first asks,
    so the worker would watch the wrong parent for ever. Not
    ``prctl(PR_SET_PDEATHSIG)``: it fires when the *thread* that spawned the
    worker ends (one of Prefect's resolver threads), and it is Linux only.
    """
    parent = multiprocessing.parent_process()
    if parent is None:  # called in a main process, not in a worker
        return
    forward_to_parent()  # warnings are counted and shown by the command (dri.quiet_logs)
    quiet_broken_pipes()  # Prefect's log lines on a stderr whose reader went away
    # A terminal's Ctrl-C reaches the whole process group: the parent decides
    # (it terminates its workers), so a worker does not die mid-write with a
    # traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not parent.is_alive():
        os._exit(1)
    # A daemon thread blocked in select() without the GIL; os._exit because
    # the main thread may be busy mapping and must not get to store anything.
    threading.Thread(target=_exit_with, args=(parent,), name="dri-parent-watchdog", daemon=True).start()
    # The driver logs every retry and every lost connection; the store's own
    # error says it once (the parent, ``dri``, does the same unless -v).
    if not os.environ.get("DRI_VERBOSE"):
        logging.getLogger("neo4j").setLevel(logging.CRITICAL)


def quiet_broken_pipes() -> None:
    """A rich console whose reader went away (``dri run ... 2>&1 | head``)
    goes quiet, its stream pointed at /dev/null, instead of ending the process.

    rich's own answer is ``SystemExit(1)``. Raised by Prefect's console log
    handler in a pool worker, it escaped the task into the pool's result
    thread in ``dri run``, which died on it: the run's futures never
    completed and ``dri run`` waited for ever. (rich comes with Prefect.)"""
    # Here, not with the module: it imports nothing of Prefect's until a run needs it.
    from rich.console import Console

    Console.on_broken_pipe = _quiet_on_broken_pipe  # type: ignore[method-assign, assignment]


def _quiet_on_broken_pipe(console: Any) -> None:
    console.quiet = True
    with contextlib.suppress(OSError, ValueError, AttributeError):  # not a real file: quiet is enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), console.file.fileno())


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()  # returns when the parent's end of the pipe is closed
    os._exit(1)


def _end_processes(processes: list[multiprocessing.process.BaseProcess], timeout: float) -> None:
    """SIGTERM, then SIGKILL whatever is alive after ``timeout`` seconds."""
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    deadline = time.monotonic() + timeout
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()


def terminate_workers(timeout: float = 3.0) -> int:
    """Terminate this process's worker processes (SIGTERM, then SIGKILL after
    ``timeout``); returns how many there were."""
    children = multiprocessing.active_children()
    _end_processes(children, timeout)
    return len(children)


def _stopping_process_pool_class() -> type[ProcessPoolTaskRunner]:
    built: type[ProcessPoolTaskRunner] | None = globals().get("StoppingProcessPoolTaskRunner")
    if built is not None:
        return built
    # Prefect when the class is first needed, after its settings (see make_task_runner).
    from prefect.task_runners import ProcessPoolTaskRunner

    class StoppingProcessPoolTaskRunner(ProcessPoolTaskRunner):
        """Prefect's process pool, whose workers are terminated at once when the
        flow is torn down by a signal rather than by an error.

        Prefect replaces the SIGTERM handler while a flow runs and raises its
        ``TerminationSignal`` in the flow; leaving Prefect's pool then waits
        for the batches the workers are mapping (``shutdown(wait=True)``), so
        the workers would go on mapping and storing for as long as those
        batches take. Ctrl-C (KeyboardInterrupt) and Prefect's Abort/Pause are
        BaseExceptions too, and mean the same: stop. What the workers stored
        is kept (each result is one transaction); a batch cut short is
        finished by the next run, which skips the stored pairs.

        A worker killed while it wrote to Prefect's message queue (its log
        records and events) leaves the queue's write lock taken for good,
        and perhaps half a message in its pipe: see
        :meth:`_stop_message_forwarding`.
        """

        def __enter__(self) -> Self:
            configured = self._initializer
            self._initializer = WorkerStart(configured or _no_initializer)
            try:
                with _prefect_pool_start_method(worker_context(CORPUS_WORKER_PRELOAD)):
                    return super().__enter__()
            finally:
                # duplicate() copies it: the next run's pool takes its own snapshot.
                self._initializer = configured

        def _stop_message_forwarding(self) -> None:
            # Prefect calls this once the pool's workers are gone. A write lock
            # still taken then is a dead worker's: the forwarding thread waits
            # for the rest of its message, and this process's own last message
            # can never be written, so waiting for either (Prefect's 5 s join,
            # then multiprocessing's join at exit) would hang `dri run` for ever
            # after its summary. Both threads are daemons: they are left behind.
            queue = self._subprocess_message_queue
            if queue is not None and _write_lock_held(queue):
                queue.cancel_join_thread()
                self._message_forwarding_thread = None
            super()._stop_message_forwarding()

        def __exit__(
            self,
            exc_type: type[BaseException] | None,
            exc_value: BaseException | None,
            traceback: TracebackType | None,
        ) -> None:
            if exc_type is not None and not issubclass(exc_type, Exception) and self._executor is not None:
                # ProcessPoolExecutor keeps its workers there (a public
                # terminate_workers() only comes with Python 3.14).
                workers = list((getattr(self._executor, "_processes", None) or {}).values())
                _end_processes(workers, timeout=1.0)
            super().__exit__(exc_type, exc_value, traceback)

    # Found by this name (pickle, cloudpickle), not as a local of this function.
    StoppingProcessPoolTaskRunner.__module__ = __name__
    StoppingProcessPoolTaskRunner.__qualname__ = "StoppingProcessPoolTaskRunner"
    globals()["StoppingProcessPoolTaskRunner"] = StoppingProcessPoolTaskRunner
    return StoppingProcessPoolTaskRunner


def _write_lock_held(queue: Any) -> bool:
    """Whether the write lock of a ``multiprocessing`` queue is taken (and was not by
    the caller). No public API says so; the lock is the queue's ``_wlock``."""
    lock = getattr(queue, "_wlock", None)
    if lock is None:
        return False
    if lock.acquire(block=False):
        lock.release()
        return False
    return True


# -- a local Dask cluster ------------------------------------------------------


def local_cluster(**kwargs: Any) -> LocalCluster:
    """A ``distributed.LocalCluster`` whose processes and threads never see
    SIGINT: a terminal's Ctrl-C reaches the whole process group, and a nanny
    or worker that stopped on its own would die mid-task, with its traceback
    and the scheduler's complaints on the console. Blocked while the cluster
    starts, SIGINT stays blocked in everything started meanwhile (a signal
    mask is inherited by threads and across fork and exec); this thread gets
    its mask back, so only the command handles Ctrl-C, and it ends the
    cluster (:class:`StoppingDaskTaskRunner`)."""
    import distributed

    if not os.environ.get("DRI_VERBOSE"):
        # The workers' own warnings (tasks cancelled by an interrupt, lost
        # peers) reach the console from their processes, which no handler of
        # this one silences; dri reports a run's failures itself. Read by
        # distributed when a worker process starts; -v keeps them.
        os.environ.setdefault(_WORKER_LOGGING, "error")
        kwargs.setdefault("preload", [__name__])  # dask_setup, in each worker process
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    # SIGTERM open, whatever the caller holds (StoppingDaskTaskRunner.submit): the
    # nannies end their workers with it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    try:
        cluster: LocalCluster = distributed.LocalCluster(**kwargs)  # type: ignore[no-untyped-call]
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    _local_clusters.add(cluster)
    _quiet_lost_workers()
    return cluster


class _LostWorkerWarnings(logging.Filter):
    """Drops the scheduler's "Removing worker ... caused the cluster to lose
    already computed tasks": dri says itself what a lost worker cost (the
    batch's failure line, or "interrupted"). On Ctrl-C it could come before
    :func:`_stop_local_clusters` silences distributed, while the signal
    waits for the main thread."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Removing worker")


def _quiet_lost_workers() -> None:
    """Install :class:`_LostWorkerWarnings` on the scheduler's logger, unless ``-v``."""
    logger = logging.getLogger("distributed.scheduler")
    if not os.environ.get("DRI_VERBOSE") and not any(
        isinstance(f, _LostWorkerWarnings) for f in logger.filters
    ):
        logger.addFilter(_LostWorkerWarnings())


class _SchedulerGoneRecords(logging.Filter):
    """Drops a worker's "Failed to communicate with scheduler during heartbeat".
    A local cluster's scheduler runs in the dri process, so its connection
    goes only when the command stops the cluster (Ctrl-C, a signal), which the
    command says in its own line; a worker killed a moment later could print
    the lost connection's traceback first."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to communicate with scheduler")


def dask_setup(worker: Any) -> None:
    """Run by distributed in each worker process of a :func:`local_cluster`
    (its ``preload``): installs :class:`_SchedulerGoneRecords` on the worker's logger."""
    quiet_broken_pipes()
    logger = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _SchedulerGoneRecords) for f in logger.filters):
        logger.addFilter(_SchedulerGoneRecords())


class _AbandonedGatherWaits(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" for distributed's
    ``AllExit``: when a gather stops early (a future cancelled by Ctrl-C, or
    one that failed), distributed leaves its other waits to end with that
    exception unread, and asyncio logs each, with a traceback, when it is
    collected. It says nothing the command does not say itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        kind = record.exc_info[0] if record.exc_info else None
        return not (
            kind is not None and kind.__name__ == "AllExit" and kind.__module__.startswith("distributed")
        )


def _quiet_abandoned_gathers() -> None:
    """Install :class:`_AbandonedGatherWaits` on asyncio's logger, unless ``-v``."""
    logger = logging.getLogger("asyncio")
    if not os.environ.get("DRI_VERBOSE") and not any(
        isinstance(f, _AbandonedGatherWaits) for f in logger.filters
    ):
        logger.addFilter(_AbandonedGatherWaits())


_local_clusters: weakref.WeakSet[LocalCluster] = weakref.WeakSet()
#: Dask's setting of distributed's log level, as an environment variable (dask.config).
_WORKER_LOGGING = "DASK_LOGGING__DISTRIBUTED"


def _stop_local_clusters() -> None:
    """Stop the local clusters' workers at once: distributed's loggers
    silenced, each nanny told not to restart its worker, and the worker
    processes killed (they map batches nobody will wait for)."""
    _silence_distributed()
    for cluster in list(_local_clusters):
        _end_dask_workers(cluster)


def _silence_distributed() -> None:
    """distributed's loggers quiet for good: a cluster taken down by a signal
    makes its scheduler and nannies report every lost worker and connection,
    which tells the user nothing (the command says "interrupted")."""
    for name in [
        n for n in logging.root.manager.loggerDict if n == "distributed" or n.startswith("distributed.")
    ]:
        logging.getLogger(name).disabled = True
    # A child made later still hands its records to its parents' handlers: none left there.
    top = logging.getLogger("distributed")
    top.disabled, top.propagate = True, False
    for handler in list(top.handlers):
        top.removeHandler(handler)


def _end_dask_workers(cluster: LocalCluster) -> None:
    """Kill the worker processes of a local ``cluster`` (its nannies and their
    workers) at once: they are mapping batches nobody will wait for."""
    pids = []
    for worker in list(getattr(cluster, "workers", {}).values()):
        with contextlib.suppress(Exception):
            worker.close_gracefully(reason="interrupted")  # a nanny: no restart when its worker goes
        process = getattr(getattr(worker, "process", None), "process", None)  # Nanny -> AsyncProcess
        pid = getattr(process, "pid", None)
        if pid:
            pids.append(pid)
    for pid in pids:
        for child in _child_pids(pid):
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _child_pids(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _stopping_dask_class() -> type[DaskTaskRunner]:
    built: type[DaskTaskRunner] | None = globals().get("StoppingDaskTaskRunner")
    if built is not None:
        return built
    # prefect_dask when the class is first needed, after Prefect's settings (see make_task_runner).
    from prefect_dask.task_runners import DaskTaskRunner

    class StoppingDaskTaskRunner(DaskTaskRunner):
        """Prefect's Dask runner on a :func:`local_cluster`, whose worker
        processes are killed at once, and distributed's loggers silenced,
        when the flow is torn down by a signal (see
        :class:`StoppingProcessPoolTaskRunner`); closing the cluster then
        takes a moment instead of waiting for busy workers."""

        def submit(self, *args: Any, **kwargs: Any) -> Any:
            # Handing a task over serialises its context with pydantic, which
            # turns any exception raised inside it -- Ctrl-C's, or Prefect's
            # TerminationSignal -- into a PydanticSerializationError: the run
            # would fail instead of stopping. A signal that arrives meanwhile
            # is held and raised again as soon as the task is handed over.
            with signals_held():
                return super().submit(*args, **kwargs)

        def __exit__(
            self,
            exc_type: type[BaseException] | None,
            exc_value: BaseException | None,
            traceback: TracebackType | None,
        ) -> None:
            stopping = exc_type is not None and not issubclass(exc_type, Exception)
            if (stopping or interrupted_by() is not None) and self._cluster is not None:
                _stop_local_clusters()
            super().__exit__(exc_type, exc_value, traceback)

    StoppingDaskTaskRunner.__module__ = __name__
    StoppingDaskTaskRunner.__qualname__ = "StoppingDaskTaskRunner"
    globals()["StoppingDaskTaskRunner"] = StoppingDaskTaskRunner
    return StoppingDaskTaskRunner


def __getattr__(name: str) -> type[AnyTaskRunner]:
    # StoppingProcessPoolTaskRunner subclasses Prefect's runner, which cannot be
    # imported with this module; it is built on first use -- also when a worker
    # unpickles the flow's task runner by this name.
    if name == "StoppingProcessPoolTaskRunner":
        return _stopping_process_pool_class()
    if name == "DeferredTaskRunner":
        return _deferred_class()
    if name == "StoppingDaskTaskRunner":
        return _stopping_dask_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_signalled: int | None = None


def interrupted_by() -> int | None:
    """The signal that :func:`end_workers_on_signals` caught, if any. The
    command asks after its run, because the interrupt raised in the flow may
    come back as the flow's failure: a library that catches every exception
    (pydantic's serializer, say) wraps a KeyboardInterrupt raised inside it."""
    return _signalled


@contextlib.contextmanager
def end_workers_on_signals() -> Iterator[None]:
    """While active (main thread only): SIGTERM raises KeyboardInterrupt like
    SIGINT (:class:`~dri.errors.Interrupted`, which knows the signal, for the
    exit status), and either signal first terminates the worker processes, then
    leaves the process at most EXIT_GRACE_SECONDS to unwind before it exits.

    While a flow runs, Prefect's own SIGTERM handler comes first: the pool's
    workers are ended as the flow unwinds (:class:`StoppingProcessPoolTaskRunner`),
    then Prefect restores this handler and sends SIGTERM again."""
    global _signalled
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _signalled = None

    def handler(signum: int, frame: FrameType | None) -> None:
        global _signalled
        if taken_again_later(signum, frame):  # in distributed's garbage collector callback, say
            return
        _signalled = signum
        if _local_clusters:  # before their workers go: a nanny would start a new one
            _stop_local_clusters()
        terminate_workers(timeout=1.0)

        def force_exit() -> None:
            time.sleep(EXIT_GRACE_SECONDS)
            os._exit(128 + signum)

        threading.Thread(target=force_exit, daemon=True).start()
        raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


# -- the Prefect API -----------------------------------------------------------

# Reads pids from stdin, one a line; at EOF -- the parent exited or was killed,
# kill -9 included -- ends them (SIGTERM, then SIGKILL). Plain Python, nothing of ours.
_REAPER = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
pids = [int(line) for line in sys.stdin if line.strip()]
def alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True
for pid in pids:
    if alive(pid):
        os.kill(pid, signal.SIGTERM)
deadline = time.monotonic() + 3
while any(alive(p) for p in pids) and time.monotonic() < deadline:
    time.sleep(0.1)
for pid in pids:
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
"""
_reaper: subprocess.Popen[str] | None = None


def reap_with_parent(pid: int) -> None:
    """Have ``pid`` ended when this process ends, however it ends."""
    global _reaper
    if _reaper is None or _reaper.poll() is not None:
        # A session of its own: a terminal's Ctrl-C (SIGINT to the whole
        # process group) must not end it before it has done its job.
        _reaper = subprocess.Popen(
            [sys.executable, "-I", "-c", _REAPER],
            stdin=subprocess.PIPE,
            text=True,
            close_fds=True,
            start_new_session=True,
        )
    assert _reaper.stdin is not None  # opened with stdin=PIPE
    _reaper.stdin.write(f"{pid}\n")
    _reaper.stdin.flush()


@contextlib.contextmanager
def shared_prefect_api() -> Iterator[str | None]:
    """One Prefect API for the flow and all its worker processes.

    With ``PREFECT_API_URL`` set, that server; otherwise a temporary server
    started here (once per process, ``flows.prefect_server``), whose URL the
    flow's settings -- and so the worker processes and Prefect's threads --
    get for the duration. Yields the URL.
    """
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    url = get_current_settings().api.url
    if url:
        check_prefect_api(url)
        check_prefect_api_answers(url)
        yield url
        return
    from dri.flows.prefect_server import PrefectHomeError, PrefectServerStartError, temporary_api

    home = Path(get_current_settings().home)
    lock_file = home / "dri-server-start.lock"
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # a file in its way, a read-only parent
        raise PrefectHomeError(
            f"Prefect's temporary server was not started: PREFECT_HOME {printable(str(home))}: {os_reason(err)}"
        ) from None
    try:
        lock = atomic.open_lock(lock_file)
    except OSError as err:  # an unwritable home, a full disk, a FIFO in its place
        shown = printable(str(lock_file))
        raise PrefectServerStartError(
            f"Prefect's temporary server was not started: {shown}: {err.strerror or err}"
        ) from None
    with lock:
        # Two runs starting at once must not both migrate the Prefect database.
        fcntl.flock(lock, fcntl.LOCK_EX)
        api_url = temporary_api(reap=reap_with_parent)
    with temporary_settings(updates={PREFECT_API_URL: api_url}), _api_for_every_thread(api_url):
        yield api_url


@contextlib.contextmanager
def _api_for_every_thread(api_url: str) -> Iterator[None]:
    """``PREFECT_API_URL`` in the process's own settings as well, for the block.

    ``temporary_settings`` reaches this thread's context only; the threads
    Prefect's task runners start (the process pool's forwarding of its
    workers' logs and events) read the process's settings, and without an API
    there would start a temporary server of their own."""
    import prefect.context

    before, settings_before = os.environ.get("PREFECT_API_URL"), prefect.context.GLOBAL_SETTINGS_CONTEXT
    os.environ["PREFECT_API_URL"] = api_url
    prefect.context.refresh_global_settings_context()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PREFECT_API_URL", None)
        else:
            os.environ["PREFECT_API_URL"] = before
        # The very settings of before, not new ones from the environment: a
        # test harness may have put its own there.
        prefect.context.GLOBAL_SETTINGS_CONTEXT = settings_before
