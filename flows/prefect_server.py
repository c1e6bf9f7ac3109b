"""Prefect's temporary server for one command, started without Prefect's server modules.

A flow run without ``PREFECT_API_URL`` records itself on a temporary server
that lives as long as the command (``flows.runners.shared_prefect_api``).
Prefect's own launcher, ``prefect.server.api.server.SubprocessASGIServer``,
lives in the module that defines the server's whole application, so using
it cost the command about 1.7 s of CPU importing modules that only the
server runs; it also waited its whole start-up timeout (120 s by default)
for a server that had already exited, then raised a ``RuntimeError`` (exit
70). :class:`TemporaryServer` starts the same command line (Prefect 3.8's
``_run_uvicorn_command``: uvicorn serving ``create_app``, the API only) and
waits for its health check, with these differences:

* the server runs in a session of its own and is handed to a reaper
  (``reap`` at construction) as soon as it exists: a terminal's Ctrl-C does
  not end it before the flow has recorded its end, and it ends when the
  command does, however that ends. As with Prefect's launcher, the command
  stops it at exit (``atexit``), after Prefect's client has sent what it
  still holds (its exit handlers were registered later, so run first);
* its output goes to ``PREFECT_HOME/dri-server.log``, not the terminal;
* a server that exits while starting, or does not answer within
  ``PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS``, is a
  :class:`PrefectServerStartError` of one line naming the Prefect home, the
  reason from the server's log and the log's path.

One server serves every run of the process (``dri watch --run`` runs
many): :func:`temporary_api` starts it on first use, and again only if it
has gone.

>>> api_url = temporary_api(reap=lambda pid: None)   # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from dri.errors import ProjectError
from dri.literal import printable

__all__ = ["PrefectHomeError", "PrefectServerStartError", "TemporaryServer", "temporary_api"]

log = logging.getLogger("prefect")

#: uvicorn's exit status when it cannot start (its port taken, the application's start-up failed).
_STARTUP_FAILURE = 3
#: An exception's own line in a traceback: ``module.Name: message``.
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b.*")


class PrefectServerStartError(ProjectError):
    """Prefect's temporary server did not start; ``str()`` names its Prefect
    home, why (the server's last error) and its log."""

    advice = (
        "a damaged or unwritable database under PREFECT_HOME is the common cause: move it "
        "aside, or set PREFECT_API_URL to a running server (prefect server start)"
    )


class PrefectHomeError(PrefectServerStartError):
    """``PREFECT_HOME`` cannot be made (a file in its way): the server has nowhere to keep its database."""

    advice = "set PREFECT_HOME to a folder that can be made, or PREFECT_API_URL to a running server"


def _free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _written_since(log_file: Path, offset: int) -> list[str]:
    """The non-empty lines of the log after its first ``offset`` bytes."""
    with log_file.open("rb") as log:
        log.seek(offset)
        text = log.read().decode("utf-8", errors="replace")
    return [line.strip() for line in text.splitlines() if line.strip()]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _reason(log_file: Path, offset: int) -> str:
    """The last exception line the server logged, else its last line."""
    try:
        lines = _written_since(log_file, offset)
    except OSError as err:
        return f"its log cannot be read ({err.strerror or err})"
    found = [line for line in lines if _EXCEPTION_LINE.match(line)]
    last = (found or lines or ["it printed nothing"])[-1]
    return printable(last)[:300]


class TemporaryServer:
    """Prefect's temporary server: :meth:`start` gives its API URL once it
    answers, and has it stopped when this process exits."""

    def __init__(self, reap: Callable[[int], None], attempts: int = 3) -> None:
        self._reap = reap
        self._attempts = attempts
        self._process: subprocess.Popen[bytes] | None = None
        self.api_url = ""

    def _environment(self) -> dict[str, str]:
        from prefect.settings import get_current_settings

        settings = get_current_settings().to_environment_variables(exclude_unset=True)
        server = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
        return {**os.environ, **server, **settings}

    def _launch(self, port: int, log_file: Path) -> subprocess.Popen[bytes]:
        import prefect

        app = ("--factory", "prefect.server.api.server:create_app", "--lifespan", "on")
        where = ("--host", "127.0.0.1", "--port", str(port), "--log-level", "error")
        with log_file.open("ab") as output:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "--app-dir",
                    str(prefect.__module_path__.parent),
                    *app,
                    *where,
                ],
                env=self._environment(),
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                start_new_session=True,
            )
        self._reap(process.pid)
        return process

    def start(self) -> str:
        """Start the server and wait for its health check; its API URL."""
        import httpx
        from prefect.settings import get_current_settings

        settings = get_current_settings()
        home = Path(settings.home)
        log_file = home / "dri-server.log"
        timeout = float(settings.server.ephemeral.startup_timeout_seconds)
        atexit.register(self.stop)
        for _ in range(self._attempts):
            port = _free_port()
            url = f"http://127.0.0.1:{port}/api"
            log.info(
                "Starting temporary server on http://127.0.0.1:%s (PREFECT_API_URL names a running server instead)",
                port,
            )
            offset = _size(log_file)
            try:
                self._process = process = self._launch(port, log_file)
            except OSError as err:  # an unwritable home, a full disk
                raise PrefectServerStartError(
                    f"Prefect's temporary server (PREFECT_HOME {printable(str(home))}) was not started: "
                    f"{printable(str(log_file))}: {err.strerror or err}"
                ) from None
            deadline = time.monotonic() + timeout
            with httpx.Client() as client:
                while process.poll() is None and time.monotonic() < deadline:
                    with contextlib.suppress(httpx.HTTPError):
                        if client.get(f"{url}/health", timeout=5).status_code == 200:
                            self.api_url = url
                            return url
                    time.sleep(0.1)
            if process.poll() != _STARTUP_FAILURE or not self._port_was_taken(log_file, offset):
                break
        self.stop()
        status = process.poll()
        how = f"exited with status {status}" if status is not None else f"did not answer within {timeout:g} s"
        raise PrefectServerStartError(
            f"Prefect's temporary server (PREFECT_HOME {printable(str(home))}) {how}: "
            f"{_reason(log_file, offset)}; its log: {printable(str(log_file))}"
        )

    @staticmethod
    def _port_was_taken(log_file: Path, offset: int) -> bool:
        """Whether the server could not bind its port (another process took it
        between :func:`_free_port` and the server's bind): then it is started
        again on another."""
        try:
            return any("address already in use" in line for line in _written_since(log_file, offset))
        except OSError:
            return False

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """End the server (SIGTERM, then SIGKILL after 5 s); safe to call twice."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


_SERVER: list[TemporaryServer] = []


def temporary_api(reap: Callable[[int], None]) -> str:
    """The API URL of this process's temporary server, started if it has none running."""
    if not (_SERVER and _SERVER[0].running):
        _SERVER[:] = [TemporaryServer(reap)]
        _SERVER[0].start()
    return _SERVER[0].api_url
