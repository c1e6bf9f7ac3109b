"""A Prefect database migrated once per session, for the temporary servers
of the ``dri run`` subprocesses the suite starts, and such a server shared
by many runs.

Each such run starts Prefect's temporary server in a Prefect home of its
own; in an empty home the server first migrates a new database (about 2 of
its 6 CPU seconds). A copy of this one, put in the home before the run
(``copy_into``), is already at the head revision, so the server only checks
it. Made on first use, by whichever thread asks first (the fault matrix's
template, a background test's run), with ``prefect server database
upgrade`` as a user would; removed when the session's process exits.

A temporary server takes about 5 s of CPU to start (Prefect's server
modules are most of it), a third of a small run on the process pool.
:func:`shared_server` starts one, as Prefect starts it for a run, for the
runs whose subject is not their own server.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from session_env import ENV_AT_START

__all__ = ["copy_into", "migrated_db", "shared_server"]

_LOCK = threading.Lock()
_MADE: list[Path] = []


def migrated_db() -> Path:
    """The session's migrated Prefect database (made on the first call)."""
    with _LOCK:
        if not _MADE:
            home = Path(tempfile.mkdtemp(prefix="dri-prefect-template-"))
            atexit.register(shutil.rmtree, home, True)
            env = {k: v for k, v in ENV_AT_START.items() if not k.startswith("PREFECT_")}
            env.update(PREFECT_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false", DO_NOT_TRACK="1")
            upgrade = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
            done = subprocess.run(upgrade, env=env, capture_output=True, text=True, timeout=600)
            if done.returncode != 0 or not (home / "prefect.db").is_file():
                raise RuntimeError(f"the template Prefect database was not made: {done.stderr[-500:]}")
            _MADE.append(home / "prefect.db")
        return _MADE[0]


def copy_into(prefect_home: Path) -> Path:
    """A copy of :func:`migrated_db` as ``prefect_home``'s database (made if missing)."""
    prefect_home.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(migrated_db(), prefect_home / "prefect.db"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: No proxy from the environment stands between the suite and its own server.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _healthy(url: str) -> bool:
    try:
        with _DIRECT.open(f"{url}/health", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def shared_server(prefect_home: Path, timeout: float = 180.0) -> Iterator[str]:
    """Prefect's temporary server, started the way Prefect starts it for a
    run (``dri.flows.prefect_server``, after Prefect's own launcher: uvicorn, the API
    only), in ``prefect_home`` on the migrated database; yields its API URL
    once it answers, and stops it on exit."""
    copy_into(prefect_home)
    port = _free_port()
    env = {k: v for k, v in ENV_AT_START.items() if not k.startswith("PREFECT_")}
    env.update(
        PREFECT_HOME=str(prefect_home),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        DO_NOT_TRACK="1",
        PREFECT_UI_ENABLED="0",
        PREFECT__SERVER_EPHEMERAL="1",
        PREFECT__SERVER_FINAL="1",
    )
    app = ["uvicorn", "--factory", "prefect.server.api.server:create_app", "--lifespan", "on"]
    where = ["--host", "127.0.0.1", "--port", str(port), "--log-level", "error"]
    log = open(prefect_home / "server.log", "wb")  # noqa: SIM115 - closed below, after the server
    server = subprocess.Popen([sys.executable, "-m", *app, *where], env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + timeout
        while not _healthy(url):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the shared Prefect server did not start: see {prefect_home / 'server.log'}"
                )
            time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
