"""The ``dri`` console script's entry point: :func:`dri.cli.main`, imported
inside the boundary of an interrupt.

The script that pip writes imports its entry point before it calls it, so a
Ctrl-C in the first tenth of a second (while ``dri.cli`` and its logging
imported) printed Python's traceback instead of the one line of every other
interrupt. This module imports only the two small modules that handle it.
"""

from __future__ import annotations

import signal
import sys

from dri.errors import Interrupted
from dri.signals import sigterm_interrupts

__all__ = ["main"]


def main() -> int:
    """Import and run :func:`dri.cli.main`; an interrupt during the import is one line."""
    # SIGTERM stops the import as Ctrl-C does, and the command after it (dri.cli).
    with sigterm_interrupts():
        try:
            from dri.cli import main as run
        except KeyboardInterrupt as err:
            sys.stderr.write("error: interrupted; nothing was done, run the same command again\n")
            return Interrupted.status(err)
        status = run()
    # The command is over: a SIGTERM in the interpreter's last moments would end it
    # without its status, and there is nothing left to stop.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return status
