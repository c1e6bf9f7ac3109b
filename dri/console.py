"""The ``dri`` console script's entry point: :func:`dri.cli.main`, imported
inside the boundary of an interrupt.

The script that pip writes imports its entry point before it calls it, so a
Ctrl-C in the first tenth of a second (while ``dri.cli`` and its logging
imported) printed Python's traceback instead of the one line of every other
interrupt. This module imports nothing of its own.
"""

from __future__ import annotations

import sys

__all__ = ["main"]

#: Ctrl-C's exit status (128 + SIGINT), as :func:`dri.cli.main` returns it.
INTERRUPTED = 130


def main() -> int:
    """Import and run :func:`dri.cli.main`; an interrupt during the import is one line."""
    try:
        from dri.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted; nothing was done, run the same command again\n")
        return INTERRUPTED
    return run()
