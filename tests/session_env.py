"""The environment as the test session started, and Python run in a fresh process with it.

Background tests (tests/background.py) run in threads beside tests that change
this process's environment (``monkeypatch.setenv``), so a subprocess they start
takes its environment from :data:`ENV_AT_START`, captured when this module is
first imported: at collection, before any test has run.
"""

from __future__ import annotations

import os
import subprocess
import sys

__all__ = ["ENV_AT_START", "fresh_python"]

ENV_AT_START = dict(os.environ)


def fresh_python(code: str, timeout: float = 300) -> str:
    """The standard output of ``python -c code`` in a fresh process (an error if it fails)."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=ENV_AT_START,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout
