"""A Prefect database migrated once per session, for the temporary servers
of the ``dri run`` subprocesses the suite starts.

Each such run starts Prefect's temporary server in a Prefect home of its
own; in an empty home the server first migrates a new database (about 2 of
its 6 CPU seconds). A copy of this one, put in the home before the run
(``copy_into``), is already at the head revision, so the server only checks
it. Made on first use, by whichever thread asks first (the fault matrix's
template, a background test's run), with ``prefect server database
upgrade`` as a user would; removed when the session's process exits.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from session_env import ENV_AT_START

__all__ = ["copy_into", "migrated_db"]

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
