"""The ``dri`` console command.

Each sub-command lives in its own module under :mod:`dri.commands` and
exposes ``register(subparsers)``; that module calls plain library functions
and prints.

:func:`main` is the one error boundary of every command, whichever path ran
(in this process, on a Prefect flow, in worker processes): an error of the
project's own (:class:`dri.errors.ProjectError`: a bad file, setting or
store) that reaches it is printed as one line, ``error: <what>: <reason>``,
followed on that line by what to do when the error says; so is an
``OSError`` (a full disk, a read-only folder) and a limit of the machine
(out of memory, no thread to be had: :func:`dri.errors.machine_limit`), and
an interrupt is one line too. Anything else is a bug: its traceback is
printed and written to a log file, with a line that says so and where the
file is.

Exit status (``docs/store.md`` lists the faults behind them):

== ==============================================================
0  success
1  an input, a setting, the store or the machine failed (the rest of a batch is kept)
2  usage error (bad option or argument)
70 a bug in dri (``EX_SOFTWARE``); the traceback is in the log file named
130 interrupted (Ctrl-C); 143 for SIGTERM (128 + the signal), which stops a
   command as Ctrl-C does (:func:`dri.signals.sigterm_interrupts`)
141 the reader of the output went away (as a shell reports SIGPIPE),
   e.g. ``dri compare A B --json | head``: then it exits quietly
== ==============================================================
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import logging
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dri.errors import Interrupted, ProjectError, error_line, machine_limit, one_line, os_reason
from dri.literal import PrintableFormatter, echo
from dri.quiet_logs import QuietLogs, quiet_logs
from dri.signals import signals_ignored, sigterm_interrupts, stopped_by

__all__ = ["BUG_STATUS", "build_parser", "main"]

#: The exit status of a bug (``EX_SOFTWARE`` of BSD's sysexits.h).
BUG_STATUS = 70
#: What an interrupted command says (Ctrl-C, SIGTERM).
INTERRUPTED_LINE = "error: interrupted; what was stored is kept, run the same command again to finish"

COMMAND_MODULES = ["graph", "compare", "run", "watch", "report", "evaluate", "ratings", "demo", "store"]


def build_parser(commands: Sequence[str] = tuple(COMMAND_MODULES)) -> argparse.ArgumentParser:
    """The parser of ``commands`` (default: all), each registered by its module."""
    parser = argparse.ArgumentParser(
        prog="dri", description="Dr Inventor-style analogy and document similarity."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in commands:
        try:
            module = importlib.import_module(f"dri.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"dri.commands.{name}":
                continue  # that command is not part of this build
            raise
        module.register(sub)
    return parser


def _parser_for(argv: Sequence[str] | None) -> argparse.ArgumentParser:
    """The parser of the command ``argv`` names, or of all when it names none
    (``dri --help``, a mistyped command). Importing every command's module
    (the store, the flows' runners, the report writer, the translation
    builder) cost most of a second of ``dri compare``, which needs none of them."""
    words = [w for w in (sys.argv[1:] if argv is None else argv) if w not in ("-v", "--verbose")]
    if words and words[0] in COMMAND_MODULES:
        return build_parser([words[0]])
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status (see the module docstring)."""
    with sigterm_interrupts():
        return _run(argv)


def _run(argv: list[str] | None) -> int:
    quiet: QuietLogs | None = None
    _open_standard_streams()
    for stream in (sys.stdout, sys.stderr):
        # A file name that is not UTF-8 (lone surrogates) is shown as "\udcff", not a crash.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        args = _parser_for(argv).parse_args(argv)
        _configure_logging(args)
        quiet = quiet_logs(verbose=args.verbose)
        status = int(args.handler(args) or 0)
        # The interpreter's last garbage collection walks every object spaCy,
        # WordNet and Prefect loaded, which took seconds after the work was
        # done; freezing them leaves that pass nothing to examine. atexit
        # handlers and refcount finalizers still run.
        gc.freeze()
        return status
    except KeyboardInterrupt as err:
        echo(INTERRUPTED_LINE, file=sys.stderr)
        return Interrupted.status(err)
    except BrokenPipeError:
        # The reader closed the pipe: nothing more can be shown. Point stdout at
        # /dev/null so that the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except ProjectError as err:
        echo(error_line(err), file=sys.stderr)
        return 1
    except OSError as err:
        # The machine's fault, not dri's: a full disk, a read-only or missing folder.
        where = f"{err.filename}: " if err.filename else ""
        echo(f"error: {where}{os_reason(err)}", file=sys.stderr)
        return 1
    except (SystemExit, GeneratorExit):
        raise  # argparse's usage errors and --help end the command as they say
    except BaseException as err:  # a Rust library's panic is no Exception
        if (wrapped := _wrapped_interrupt(err)) is not None:
            echo(INTERRUPTED_LINE, file=sys.stderr)
            return Interrupted.status(wrapped)
        if (signum := stopped_by()) is not None:  # raised inside C++ code, which made it an error of its own
            echo(INTERRUPTED_LINE, file=sys.stderr)
            return 128 + signum
        if (limit := machine_limit(err)) is not None:
            echo(f"error: {limit}", file=sys.stderr, one_line=True)
            return 1
        text = _redacted(traceback.format_exc())
        log = _write_bug_log(text)
        echo(text, end="", file=sys.stderr)
        echo(f"dri: this is a bug in dri, please report it; the traceback is in {log}", file=sys.stderr)
        return BUG_STATUS
    finally:
        if quiet is not None:
            # The command is over: a signal now would stop only the clean-up,
            # leaving its temporary folder and a traceback of the close.
            with signals_ignored():
                quiet.close()


def _open_standard_streams() -> None:
    """A standard stream its caller closed (``2>&-``, ``<&-``) opened on /dev/null.

    Python leaves ``sys.stderr`` None then, and the first look at it (is it a
    terminal?) was an AttributeError, exit 70; and a file the command opened
    next would take the closed descriptor, and with it what a library writes
    to its standard error."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
        if getattr(sys, name) is None:
            # The process's own stream, open until it ends.
            stream = open(fd, mode, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
            setattr(sys, name, stream)


def _wrapped_interrupt(err: BaseException) -> KeyboardInterrupt | None:
    """The interrupt behind ``err``, if a library turned one into an error of
    its own: Python itself wraps one raised in a class body's ``__set_name__``
    (numpy's import of ``platform``) in a RuntimeError."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _configure_logging(args: argparse.Namespace) -> None:
    level = logging.DEBUG if args.verbose else logging.WARNING
    if args.verbose:  # for worker processes too
        os.environ["DRI_VERBOSE"] = "1"
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    # Libraries with their own logger levels (Prefect's are INFO) propagate to
    # this handler too; Prefect has its own console handler for what it shows.
    for handler in logging.getLogger().handlers:
        handler.setLevel(level)
        # A file name in a message must not drive the terminal.
        if type(handler.formatter) is logging.Formatter:
            handler.setFormatter(PrintableFormatter(handler.formatter._fmt, handler.formatter.datefmt))
    if not args.verbose:
        # The driver logs every retry (on two lines) and every lost connection;
        # the store's own error says it once.
        logging.getLogger("neo4j").setLevel(logging.CRITICAL)
    if not sys.stderr.isatty() or args.command != "run":
        # No progress bar off a terminal, nor in the commands without one (dri evaluate
        # was silent on a terminal while it parsed and encoded long documents): long
        # documents report their parsing and encoding in the log.
        progress = logging.getLogger("dri.progress")
        progress.setLevel(logging.INFO)
        if not args.verbose and not any(getattr(h, "dri_progress", False) for h in progress.handlers):
            handler = _StderrNow()
            handler.dri_progress = True  # type: ignore[attr-defined]
            handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
            progress.addHandler(handler)
            progress.propagate = False


class _StderrNow(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to ``sys.stderr`` as it is when a record comes: the handler
    outlives the command that added it (one per process), and a caller that ran
    ``main`` before with another ``sys.stderr`` (a test's capture) had its lines
    sent to that stream, closed by then ("--- Logging error ---")."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass  # StreamHandler's own assignment: the stream is always sys.stderr's


def _redacted(text: str) -> str:
    """``text`` without the secrets the store has seen (when it was used)."""
    redact = getattr(sys.modules.get("dri.store.records"), "redact", None)
    return str(redact(text)) if redact is not None else text


def _write_bug_log(text: str) -> Path | str:
    """Write ``text`` to a new log file under ``data_dir()/logs``, else the
    temporary folder; the path, or why there is none."""
    name = f"dri-bug-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    reasons = []
    for folder in (_data_logs, lambda: Path(tempfile.gettempdir())):
        try:
            path = folder() / name
            path.write_text(text, encoding="utf-8")
            return path
        except (OSError, ProjectError) as err:
            reasons.append(one_line(err))
    return f"no file ({'; '.join(reasons)})"


def _data_logs() -> Path:
    from dri.settings import data_dir

    path = data_dir() / "logs"
    path.mkdir(exist_ok=True)
    return path


if __name__ == "__main__":
    sys.exit(main())
