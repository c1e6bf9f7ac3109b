"""The ``dri`` console command.

Each sub-command lives in its own module under :mod:`dri.commands` and
exposes ``register(subparsers)``; that module calls plain library functions
and prints. Exit status: 0 on success, 1 when any input failed, 2 on usage
errors, 141 (as a shell reports SIGPIPE) when the reader of the output went
away, e.g. ``dri compare A B --json | head``: then it exits quietly.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import sys

from dri.quiet_logs import quiet_logs

__all__ = ["build_parser", "main"]

COMMAND_MODULES = ["graph", "compare", "run", "watch", "report", "evaluate", "ratings", "demo", "store"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dri", description="Dr Inventor-style analogy and document similarity."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"dri.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"dri.commands.{name}":
                continue  # that command is not part of this build
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    # Libraries with their own logger levels (Prefect's are INFO) propagate to
    # this handler too; Prefect has its own console handler for what it shows.
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
    if not args.verbose:
        # The driver warns at every retry, on two lines each; the store's own error says it once.
        logging.getLogger("neo4j").setLevel(logging.ERROR)
    if not sys.stderr.isatty():
        # No progress bar off a terminal: long documents report their parsing in the log.
        progress = logging.getLogger("dri.progress")
        progress.setLevel(logging.INFO)
        if not args.verbose and not any(getattr(h, "dri_progress", False) for h in progress.handlers):
            handler = logging.StreamHandler()
            handler.dri_progress = True  # type: ignore[attr-defined]
            handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
            progress.addHandler(handler)
            progress.propagate = False
    quiet = quiet_logs(verbose=args.verbose)
    try:
        status = int(args.handler(args) or 0)
        # The interpreter's last garbage collection walks every object spaCy,
        # WordNet and Prefect loaded, which took seconds after the work was
        # done; freezing them leaves that pass nothing to examine. atexit
        # handlers and refcount finalizers still run.
        gc.freeze()
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader closed the pipe: nothing more can be shown. Point stdout at
        # /dev/null so that the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    finally:
        quiet.close()


if __name__ == "__main__":
    sys.exit(main())
