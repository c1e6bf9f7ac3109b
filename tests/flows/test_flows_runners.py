"""The runners' local Dask cluster: what it lets distributed say on the console."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from streams import ClosedPipe

from dri.errors import SettingsError
from dri.flows.runners import (
    check_dask_address,
    check_prefect_api,
    check_prefect_api_answers,
    hide_prefect_api_secrets,
    local_cluster,
    quiet_broken_pipes,
)


def _undone_after_the_test(monkeypatch, name: str) -> None:
    """``name`` unset now, and as it was after the test, whoever sets it meanwhile."""
    monkeypatch.setenv(name, "")  # records the value to restore, set or not
    monkeypatch.delenv(name)


def test_a_local_cluster_keeps_lost_worker_warnings_off_the_console(caplog, monkeypatch) -> None:
    # dri reports a lost worker itself (a batch's failure, or "interrupted");
    # the scheduler's own warning could reach the console before Ctrl-C's handler ran.
    monkeypatch.delenv("DRI_VERBOSE", raising=False)
    _undone_after_the_test(monkeypatch, "DASK_LOGGING__DISTRIBUTED")
    cluster = local_cluster(n_workers=0, processes=False, dashboard_address=None)
    try:
        scheduler = logging.getLogger("distributed.scheduler")
        with caplog.at_level(logging.WARNING, logger="distributed.scheduler"):
            scheduler.warning(
                "Removing worker 'tcp://127.0.0.1:1' caused the cluster to lose already computed tasks"
            )
            scheduler.warning("Worker tcp://127.0.0.1:2 is at 85% memory")
        said = [r.getMessage() for r in caplog.records if r.name == "distributed.scheduler"]
        assert "Worker tcp://127.0.0.1:2 is at 85% memory" in said
        assert not [m for m in said if m.startswith("Removing worker")]
    finally:
        cluster.close()


def test_a_local_clusters_worker_processes_print_errors_only_unless_verbose(monkeypatch) -> None:
    import subprocess
    import sys

    monkeypatch.delenv("DRI_VERBOSE", raising=False)
    _undone_after_the_test(monkeypatch, "DASK_LOGGING__DISTRIBUTED")
    local_cluster(n_workers=0, processes=False, dashboard_address=None).close()
    # What a worker process started now reads: distributed's loggers at ERROR.
    code = "import logging, distributed; print(logging.getLogger('distributed').getEffectiveLevel())"
    level = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(level) == logging.ERROR


def test_a_dask_run_keeps_distributeds_unread_gather_waits_off_the_console(caplog, monkeypatch) -> None:
    # A gather that stops early (Ctrl-C cancels a future) leaves distributed's
    # other waits to end with AllExit unread; asyncio logged each with a traceback.
    import sys

    from distributed.client import AllExit

    from dri.flows.runners import RunnerConfig, make_task_runner

    monkeypatch.delenv("DRI_VERBOSE", raising=False)
    monkeypatch.setattr(sys, "warnoptions", list(sys.warnoptions))
    asyncio_log = logging.getLogger("asyncio")
    monkeypatch.setattr(asyncio_log, "filters", list(asyncio_log.filters))
    make_task_runner(RunnerConfig(kind="dask", dask_address="tcp://127.0.0.1:1"))

    def unread(error: BaseException) -> None:
        try:
            raise error
        except BaseException as raised:
            asyncio_log.error("Task exception was never retrieved", exc_info=(type(raised), raised, None))

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        unread(AllExit())
        unread(RuntimeError("a real fault"))
    said = [r.exc_info[0].__name__ for r in caplog.records if r.name == "asyncio" and r.exc_info]
    assert said == ["RuntimeError"]


def test_a_dask_address_where_nothing_listens_is_one_settings_error(tmp_path) -> None:
    # Found inside the flow, it was Dask's traceback after 30 s, then the run's error.
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        port = listening.getsockname()[1]
    with pytest.raises(
        SettingsError, match=f"^Dask at tcp://127.0.0.1:{port}: cannot connect: Connection refused$"
    ):
        check_dask_address(f"tcp://127.0.0.1:{port}")
    for address, reason in (("tcp://h:abc", "port abc is not a number"), ("tcp://", "no host")):
        with pytest.raises(SettingsError, match=reason):
            check_dask_address(address)
    # inproc:// (no other process reaches it) and ucx:// (not in this install) failed inside
    # the flow with Dask's traceback.
    for scheme in ("inproc", "ucx"):
        with pytest.raises(
            SettingsError, match=f"^Dask at {scheme}://x: a run cannot use {scheme}://; give the scheduler's"
        ):
            check_dask_address(f"{scheme}://x")


@pytest.mark.parametrize(
    "address, says",
    [
        # OverflowError from getaddrinfo: a traceback, exit 70.
        ("tcp://127.0.0.1:99999999999999999999", "port 99999999999999999999 is out of range (1-65535)"),
        # Taken as port 4464, the remainder.
        ("tcp://127.0.0.1:70000", "port 70000 is out of range (1-65535)"),
        ("tcp://127.0.0.1:0", "port 0 is out of range (1-65535)"),
        # int() read both as port 80.
        ("tcp://127.0.0.1:+80", "port +80 is not a number"),
        ("tcp://127.0.0.1:abc", "port abc is not a number"),  # int()'s "invalid literal for int()"
        ("tcp://127.0.0.1:\uff18\uff10", "port \uff18\uff10 is not a number"),
    ],
)
def test_a_dask_port_out_of_range_is_one_settings_error(address, says) -> None:
    with pytest.raises(SettingsError) as caught:
        check_dask_address(address)
    assert str(caught.value) == f"Dask at {address}: cannot connect: {says}"


def test_a_dask_address_ending_in_a_colon_says_so() -> None:
    # int('') said "invalid literal for int() with base 10: ''".
    with pytest.raises(SettingsError, match="cannot connect: no port after the ':'$"):
        check_dask_address("tcp://127.0.0.1:")


@pytest.mark.parametrize("address", ["tcp://user:S3cretPW@127.0.0.1:1", "user:S3cretPW@127.0.0.1:1"])
def test_a_dask_address_with_a_login_is_refused_without_showing_it(address) -> None:
    # Dask's own message quoted the address, password and all, twice.
    with pytest.raises(SettingsError) as caught:
        check_dask_address(address, named="DRI_DASK_ADDRESS")
    said = str(caught.value)
    assert said.startswith("DRI_DASK_ADDRESS: Dask at ") and "takes no user or password" in said
    assert "S3cretPW" not in said and "user" not in said.split("takes")[0]


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1?token=SECRET", "tcp://127.0.0.1:1#SECRET"])
def test_a_dask_address_with_a_query_is_refused_without_showing_it(address) -> None:
    # The parser's words quoted the port with its query: "invalid literal … '1?token=SECRET'".
    with pytest.raises(SettingsError) as caught:
        check_dask_address(address)
    assert str(caught.value) == (
        "Dask at tcp://127.0.0.1:1: a scheduler's address takes no query or fragment; "
        "give tcp://HOST:PORT (or tls://HOST:PORT)"
    )


def test_a_blank_before_a_dask_address_is_dropped() -> None:
    # " tcp://…" was "a run cannot use tcp://", its scheme read as " tcp".
    with pytest.raises(SettingsError, match="^Dask at tcp://127.0.0.1:70000: cannot connect: port 70000"):
        check_dask_address(" tcp://127.0.0.1:70000")


@pytest.mark.parametrize(
    "address, shown",
    [("tcp://bad\nhost:1", "tcp://bad\\u000ahost:1"), ("tcp://u:pw@bad\thost:1", "***@bad\\u0009host:1")],
)
def test_a_control_character_inside_a_dask_address_is_shown_escaped(address, shown) -> None:
    # The address shown without its login had lost the line break: "Dask at
    # tcp://badhost:1: cannot connect", a host other than the one tried.
    with pytest.raises(SettingsError) as caught:
        check_dask_address(address, named="DRI_DASK_ADDRESS")
    assert str(caught.value) == (
        f"DRI_DASK_ADDRESS: Dask at {shown}: a blank or control character inside the address; "
        "give tcp://HOST:PORT (or tls://HOST:PORT)"
    )


@pytest.mark.parametrize(
    "url, shown",
    [
        ("http://user:s3cret-pw@127.0.0.1:9/api", "ws://***@127.0.0.1:9/api/events/in"),
        ("http://s3cret-token@127.0.0.1:9/api", "ws://***@127.0.0.1:9/api/events/in"),
        ("http://127.0.0.1:9/api?token=s3cret-tok", "ws://127.0.0.1:9/api?***/events/in"),
    ],
)
def test_prefect_api_secrets_are_hidden_from_the_event_clients_log(caplog, url, shown) -> None:
    # dri watch printed Prefect's "Unable to connect to 'ws://user:s3cret@…'" whole.
    hide_prefect_api_secrets(url)
    quoted = url.replace("http://", "ws://").replace("/api", "/api/events/in")
    if "?" in url:
        quoted = url.replace("http://", "ws://") + "/events/in"
    with caplog.at_level(logging.WARNING, logger="prefect.events.clients"):
        logging.getLogger("prefect.events.clients").warning("Unable to connect to %r.", quoted)
    assert caplog.messages == [f"Unable to connect to '{shown}'."]


def test_a_prefect_api_url_that_accepts_but_never_answers_is_one_settings_error() -> None:
    # dri watch waited about 2 minutes a folder on such a listener, a warning each.
    import http.server
    import threading

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        with pytest.raises(SettingsError) as caught:
            check_prefect_api_answers(f"http://user:s3cret-pw@127.0.0.1:{port}/api", timeout=0.5)
    assert str(caught.value) == (
        f"PREFECT_API_URL http://127.0.0.1:{port}/api: no HTTP answer (TimeoutError: timed out); is a Prefect server there?"
    )
    # Any HTTP answer will do (a 501 is the server's to explain)...
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        check_prefect_api_answers(f"http://127.0.0.1:{server.server_port}/api", timeout=5)
    finally:
        server.shutdown()
        server.server_close()


class _HalfPrefect:
    """An HTTP server whose ``/api/health`` answers as Prefect's does when ``healthy``,
    and every other path 404, as a web server that is not Prefect's."""

    def __init__(self, healthy: bool) -> None:
        import http.server

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                ok = healthy and self.path.rstrip("/").endswith("/health")
                self.send_response(200 if ok else 404)
                self.end_headers()
                if ok:
                    self.wfile.write(b"true")

            do_POST = do_GET

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://user:s3cret-pw@127.0.0.1:{self.server.server_port}/api"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_prefect_api_url_at_a_web_server_that_is_not_prefects_is_one_line(tmp_path) -> None:
    # Prefect's client failed on its first call: a traceback, exit 70, that quoted the
    # URL with its password.
    corpus = tmp_path / "c"
    corpus.mkdir()
    for name, text in (
        ("a.txt", "The sun attracts the planet."),
        ("b.txt", "The nucleus attracts the electron."),
    ):
        (corpus / name).write_text(text, encoding="utf-8")
    for healthy, says in (
        (
            False,
            "PREFECT_API_URL http://127.0.0.1:{port}/api: not a Prefect server (its /health is 404 Not Found)",
        ),
        (True, "Prefect's server at http://127.0.0.1:{port}/api: 404 Not Found for GET /api/admin/version"),
    ):
        server = _HalfPrefect(healthy)
        try:
            env = {**os.environ, "PREFECT_API_URL": server.url, "DRI_DATA_DIR": str(tmp_path / "data")}
            env.pop("NEO4J_URI", None)
            done = subprocess.run(
                [sys.executable, "-m", "dri.cli", "run", str(corpus), "--workers", "2", "--no-progress"],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
        finally:
            server.close()
        assert done.returncode == 1, done.stderr[-3000:]
        (line,) = done.stderr.splitlines()
        assert line.startswith("error: " + says.format(port=server.server.server_port))
        assert "s3cret" not in done.stdout + done.stderr


def test_a_blank_dask_address_is_called_empty() -> None:
    # It was "Dask at : cannot connect: Name or service not known".
    with pytest.raises(SettingsError, match="^DRI_DASK_ADDRESS: Dask at an empty address: cannot connect"):
        check_dask_address("  ", named="DRI_DASK_ADDRESS")


def test_a_prefect_api_url_where_nothing_listens_is_one_settings_error_without_its_login() -> None:
    # Found by Prefect's client, it was "RuntimeError: Failed to reach API" with exit 70.
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        check_prefect_api(f"http://127.0.0.1:{port}/api")
    with pytest.raises(SettingsError) as caught:
        check_prefect_api(f"http://user:s3cret-pw@127.0.0.1:{port}/api")
    assert (
        str(caught.value)
        == f"PREFECT_API_URL http://127.0.0.1:{port}/api: cannot connect: Connection refused"
    )
    for url, reason in (
        ("http://h:abc/api", "the port must be a number from 1 to 65535$"),
        ("127.0.0.1:4200/api", "not an http"),
        # The parser's words quoted a piece of the password ("... integer value as 's3cret'").
        ("http://u:s3cret/pw@127.0.0.1:9/api", "written percent-encoded: / as %2F"),
        # Prefect's settings refused it on import: a traceback, exit 70.
        ("http://[::1/api", "an IPv6 host opens with \\[ and is not closed with \\]"),
        ("http://a..b:4200/api", "not a host name"),
    ):
        with pytest.raises(SettingsError, match=reason) as caught:
            check_prefect_api(url)
        assert "s3cret" not in str(caught.value)


def test_a_local_clusters_workers_keep_a_lost_scheduler_off_the_console(monkeypatch) -> None:
    # The scheduler lives in the dri process: it goes only when the command
    # stops the cluster, and a worker killed a moment later could print the
    # heartbeat's lost connection, traceback and all, beside "interrupted".
    from distributed import Client

    monkeypatch.delenv("DRI_VERBOSE", raising=False)
    _undone_after_the_test(monkeypatch, "DASK_LOGGING__DISTRIBUTED")

    def worker_drops() -> list[bool]:
        logger = logging.getLogger("distributed.worker")
        said = []
        for message in ("Failed to communicate with scheduler during heartbeat.", "Compute Failed"):
            record = logger.makeRecord(logger.name, logging.ERROR, __file__, 0, message, (), None)
            said.append(all(f.filter(record) for f in logger.filters))
        return said

    cluster = local_cluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        with Client(cluster) as client:
            (said,) = client.run(worker_drops).values()
    finally:
        cluster.close()
    assert said == [False, True]


def test_a_console_whose_reader_went_away_goes_quiet_instead_of_ending_the_process(tmp_path, monkeypatch):
    """``dri run ... 2>&1 | head`` on the flow path: rich's SystemExit(1) from
    Prefect's log handler in a pool worker killed the pool's result thread in
    ``dri run``, which then waited for ever. Now the console goes quiet."""
    from rich.console import Console

    monkeypatch.setattr(Console, "on_broken_pipe", Console.on_broken_pipe)  # put back after the test
    quiet_broken_pipes()
    with open(tmp_path / "stream", "w", encoding="utf-8") as sink:
        console = Console(file=ClosedPipe(sink.fileno()))
        console.print("12:00:00.000 | INFO    | Task run 'extract-and-store' - Finished")
        console.print("and the next line")
    assert console.quiet


SIGNAL_IN_A_WEAKREF_CALLBACK = """
import os, signal, time, weakref
from dri.errors import Interrupted
from dri.flows.runners import end_workers_on_signals
class Thing:
    pass
def finalized():
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10000):  # the handler runs here, inside the weak reference's callback
        pass
try:
    with end_workers_on_signals():
        thing = Thing()
        weakref.finalize(thing, finalized)
        del thing
        time.sleep(5)
    print("not interrupted")
except Interrupted as err:
    print("interrupted", err.signum)
"""


@pytest.mark.background  # a fresh process, whose signal handler may end it
def test_a_signal_inside_a_weak_reference_callback_interrupts_just_after_it():
    # Raised in the callback, the interrupt was printed as "Exception ignored in:
    # <function WeakKeyDictionary...remove>" with its traceback, and lost
    # (fault matrix cell run-inline-sigterm, once in a CI run).
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_IN_A_WEAKREF_CALLBACK], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["interrupted", "15"], done.stderr
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr


# A pool worker killed while it wrote a log record to Prefect's message queue
# keeps the queue's write lock taken for good; the forked child stands for it.
DEAD_WRITER = """
import multiprocessing, os
from dri.settings import prefect_defaults
prefect_defaults(quiet_console=True)
from dri.flows.runners import make_task_runner, RunnerConfig

def take_the_lock_and_die(queue):
    queue._wlock.acquire()
    os._exit(0)

with make_task_runner(RunnerConfig(kind="processes", workers=1)) as runner:
    queue = runner._subprocess_message_queue
    writer = multiprocessing.get_context("fork").Process(target=take_the_lock_and_die, args=(queue,))
    writer.start()
    writer.join()
print("left the pool", flush=True)
"""


@pytest.mark.background  # a fresh process, which hung at its exit
def test_a_pool_whose_dead_worker_holds_the_message_queue_lets_the_command_exit():
    # dri run printed its summary, then waited for ever: for the forwarding
    # thread (5 s, and a warning), then at exit for its own last message, which
    # the dead worker's lock kept from being written (fault matrix cell
    # run-flow-worker-killed timed out once in a CI run).
    done = subprocess.run([sys.executable, "-c", DEAD_WRITER], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["left", "the", "pool"]
    assert "Timed out waiting" not in done.stderr


def test_a_temporary_api_reaches_prefects_threads_and_the_settings_before_come_back(monkeypatch):
    import threading

    import prefect.context
    from prefect.settings import get_current_settings

    from dri.flows.runners import _api_for_every_thread

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    before = prefect.context.GLOBAL_SETTINGS_CONTEXT
    seen: list[str | None] = []
    with _api_for_every_thread("http://127.0.0.1:9/api"):
        # A thread does not inherit this one's context: it reads the process's settings.
        thread = threading.Thread(target=lambda: seen.append(get_current_settings().api.url))
        thread.start()
        thread.join()
    assert seen == ["http://127.0.0.1:9/api"]
    assert prefect.context.GLOBAL_SETTINGS_CONTEXT is before
    assert "PREFECT_API_URL" not in os.environ


# A SIGINT sent by the process to itself as the preload starts its first import (Prefect's
# task engine), so that it comes inside the preload whatever the machine's speed.
_CTRL_C_IN_THE_PRELOAD = """
import importlib.abc, os, signal, sys

class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "prefect.task_engine":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
import dri.flows.worker_preload
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


@pytest.mark.background  # a fresh process: seconds of imports, waited for
def test_a_ctrl_c_while_the_forkserver_loads_its_preload_prints_no_traceback():
    # Ctrl-C reaches the whole process group; the forkserver ignores SIGINT only after
    # its preload, so one that came while it imported was a KeyboardInterrupt traceback.
    # SIGINT as at a terminal: a shell's background job (the suite under nohup, CI) ignores it.
    done = subprocess.run(
        [sys.executable, "-c", _CTRL_C_IN_THE_PRELOAD],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (done.returncode, done.stdout.strip()) == (0, "True") and "Traceback" not in done.stderr


@contextlib.contextmanager
def _listener(greeting: bytes | None) -> Iterator[int]:
    """A port where a listener accepts connections and sends ``greeting`` (None: says
    nothing; empty: closes each connection at once)."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        accepted: list[socket.socket] = []

        def serve() -> None:
            with contextlib.suppress(OSError):
                while True:
                    conn, _ = listening.accept()
                    accepted.append(conn)
                    if greeting:
                        conn.sendall(greeting)
                    elif greeting == b"":
                        conn.close()

        threading.Thread(target=serve, daemon=True).start()
        try:
            yield listening.getsockname()[1]
        finally:
            for conn in accepted:
                conn.close()


@pytest.mark.parametrize(
    "greeting, says",
    [
        # Dask's client read "SSH-2.0-" as the length of its first message: a MemoryError
        # for 2.82 EiB, printed with its traceback from inside the flow.
        (b"SSH-2.0-OpenSSH_9.2p1 Debian\r\n", "it answered, but not as a Dask scheduler does"),
        # A length, then too little: a struct.error from inside the flow.
        (b"\x05\x00\x00\x00\x00\x00\x00\x00hello", "it answered, but not as a Dask scheduler does"),
        (b"", "it closed at once"),
        # A web server waits for the client to speak first: the run hung.
        (None, "no Dask handshake within 0.5 s (a scheduler greets at once)"),
    ],
)
def test_a_listener_that_is_not_a_dask_scheduler_is_one_settings_error(greeting, says) -> None:
    with _listener(greeting) as port, pytest.raises(SettingsError) as caught:
        check_dask_address(f"tcp://127.0.0.1:{port}", timeout=0.5, named="DRI_DASK_ADDRESS")
    assert str(caught.value) == (
        f"DRI_DASK_ADDRESS: Dask at tcp://127.0.0.1:{port}: {says}; give the address of a Dask scheduler"
    )


def test_a_dask_scheduler_passes_the_check_and_logs_no_broken_handshake(caplog) -> None:
    cluster = local_cluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None)
    try:
        with caplog.at_level(logging.INFO, logger="distributed"):
            check_dask_address(cluster.scheduler_address, timeout=5)
            check_dask_address(cluster.scheduler_address.replace("tcp://", ""), timeout=5)
            time.sleep(0.2)  # the scheduler's side of the closed connections
    finally:
        cluster.close()
    assert not [r for r in caplog.records if "handshake" in r.getMessage()]


def test_a_blank_worker_count_is_no_choice_of_workers(monkeypatch) -> None:
    # It was a choice of runner: dri run started Prefect's server and a pool for 3 documents.
    from dri.flows.runners import runner_config

    monkeypatch.setenv("DRI_WORKERS", "   ")
    assert runner_config().workers is None
    monkeypatch.setenv("DRI_WORKERS", " 2 ")
    assert runner_config().workers == 2


def test_a_dask_scheduler_without_workers_is_a_wait_dri_run_says_and_ctrl_c_ends(tmp_path) -> None:
    # The run's tasks stayed queued at the scheduler and dri run waited for ever without a word.
    demo = Path(__file__).resolve().parents[2] / "corpora" / "demo" / "plagiarism"
    cluster = local_cluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "PREFECT_API", "DRI_DASK"))}
    env["DRI_DATA_DIR"] = str(tmp_path / "data")
    address = cluster.scheduler_address
    started = time.monotonic()
    try:
        run = subprocess.Popen(
            [sys.executable, "-m", "dri.cli", "run", str(demo), "--dask", address, "--no-progress"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert run.stderr is not None
            # Up to 30 s for the notice (a run that says nothing is stopped then, and fails below).
            said = select.select([run.stderr], [], [], 30)[0]
            first = run.stderr.readline() if said else ""
            waited = time.monotonic() - started
            run.send_signal(signal.SIGINT)
            out, rest = run.communicate(timeout=30)
        finally:
            if run.poll() is None:
                run.kill()
    finally:
        cluster.close()
    assert first == (
        f"waiting for a Dask worker at {address}: the scheduler has none (3 s so far; Ctrl-C stops the run)\n"
    ), first + rest
    assert waited < 30
    assert run.returncode == 130, rest
    assert out == ""
    assert rest.splitlines() == [
        f"error: {demo}: interrupted; what was stored is kept, run the same command again to finish"
    ]
