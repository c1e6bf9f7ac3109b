"""``dri watch ROOT``: the corpus sensor.

Every ``--interval`` seconds, looks for new corpus folders directly under
ROOT (folders holding .txt or .pdf documents, unchanged for ``--min-age``
seconds) and announces each once with the Prefect event ``corpus.arrived``,
which the ``on-new-corpus`` deployment turns into a corpus run (see
docs/prefect.md). The folders already announced are remembered in
``data_dir()/sensor/``, so a restart does not announce them again; a folder
whose files change after its run (size, modification time, or permissions:
a document that could not be read is tried again once readable) is announced
again once it has settled, and its run redoes the documents that changed
and forgets the files deleted or renamed (a renamed one keeps its results
under its new name).

Events need a Prefect server: set ``PREFECT_API_URL``. With ``--run`` no
server is needed: each new corpus is run here instead (like ``dri run``).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from dri.commands.folders import given_path, why_not_a_folder
from dri.commands.search_options import worker_count
from dri.errors import ProjectError, SettingsError, one_line, os_reason
from dri.literal import decimal_number, echo, printable, storable
from dri.quiet_logs import fold_failures, log_failures
from dri.settings import max_text_chars, prefect_defaults

if TYPE_CHECKING:  # the sensor imports Prefect, which the command loads only when it runs
    from dri.flows.sensor import Emitter, SeenRecord

__all__ = ["register", "run_watch"]

#: The most seconds an option takes: time.sleep() overflows past about 9e9 (time_t).
MAX_SECONDS = 1e9


def _seconds(text: str) -> float:
    """A number of seconds from 0 to :data:`MAX_SECONDS`: nan, -1 or inf
    stopped the sleep between scans with exit 70, and a ``--min-age`` of nan
    let no folder ever count."""
    value = decimal_number(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {printable(text[:40])!r}")
    if not 0 <= value <= MAX_SECONDS:  # false for nan too
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_SECONDS:g} seconds, not {text}")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "watch",
        help="announce (or run) new corpus folders under a root",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("root", type=given_path, metavar="ROOT")
    p.add_argument("--interval", type=_seconds, default=60.0, help="seconds between scans (default 60)")
    p.add_argument("--once", action="store_true", help="scan once and exit")
    p.add_argument(
        "--min-age",
        type=_seconds,
        default=30.0,
        help="seconds a folder must be unchanged before it counts (default 30)",
    )
    p.add_argument("--run", action="store_true", help="run each new corpus here instead of emitting an event")
    # Checked now: a run would meet a count below 1 only on a corpus big enough for workers.
    p.add_argument("--workers", type=worker_count, help="with --run: worker processes")
    p.set_defaults(handler=run_watch)


def _what(n: int, changed: bool) -> str:
    documents = "1 document" if n == 1 else f"{n:,} documents"
    return f"changed since its last run, {documents}" if changed else f"new corpus of {documents}"


def run_watch(args: argparse.Namespace) -> int:
    if not args.root.is_dir():
        echo(f"error: {args.root}: {why_not_a_folder(args.root)}", file=sys.stderr, one_line=True)
        return 1
    if args.run:
        # A bad limit failed every document of a folder's run, and the folder was then
        # marked as run: fixed, the variable never ran it. One line now, as dri run says it.
        max_text_chars()
    prefect_defaults(quiet_console=False)
    from dri.flows.runners import check_prefect_api_url

    try:  # Prefect's import would stop with a traceback on some URLs
        check_prefect_api_url(os.environ.get("PREFECT_API_URL"))
    except SettingsError as err:
        echo(f"error: {err}", file=sys.stderr, one_line=True)
        return 2
    from dri.flows.sensor import SensorResult, watch

    run_here = _RunEach(args.workers) if args.run else None
    emit: Emitter | int = run_here if run_here is not None else _announcer()
    if isinstance(emit, int):
        return emit

    said: set[str] = set()  # the last scan's errors

    def on_scan(result: SensorResult) -> None:
        # An error that lasts (a link that holds the root) is said once, not every scan;
        # again if it goes and comes back.
        for error in result.errors:
            if error not in said:
                echo(f"error: {error}", file=sys.stderr, one_line=True)
        said.clear()
        said.update(result.errors)
        for folder in result.waiting:
            echo(f"{folder}: still changing, will look again", flush=True, one_line=True)

    try:
        result = watch(
            args.root,
            interval=args.interval,
            once=args.once,
            min_age=args.min_age,
            emit=emit,
            on_scan=on_scan,
            gone=run_here.gone if run_here is not None else None,
        )
    except (OSError, RuntimeError) as err:
        echo(f"error: {_why(err)}", file=sys.stderr, one_line=True)
        return 1
    if not (result.announced or result.waiting or result.errors):
        # A single scan says what it found even when it was nothing; a watch
        # that keeps scanning stays quiet between corpora.
        seen = f" ({result.already_seen} seen before, unchanged)" if result.already_seen else ""
        echo(f"{args.root}: no new or changed corpus{seen}", flush=True, one_line=True)
    return 1 if result.errors or (run_here is not None and run_here.failed) else 0


def _announcer() -> Emitter | int:
    """The emitter that announces each new corpus to ``PREFECT_API_URL``'s server,
    or the exit status of a server that is not set, not there or silent."""
    # Imported only now: Prefect reads its settings when first imported.
    from prefect.settings import PREFECT_API_URL

    from dri.flows.runners import check_prefect_api, check_prefect_api_answers, hide_prefect_api_secrets
    from dri.flows.sensor import prefect_emitter

    url = str(PREFECT_API_URL.value() or "")
    if not url:
        echo(
            "error: PREFECT_API_URL is not set, so corpus.arrived would reach no deployment; "
            "start a Prefect server (docs/prefect.md) or use --run",
            file=sys.stderr,
            one_line=True,
        )
        return 2
    hide_prefect_api_secrets(url)
    try:  # a server that is not there is one line naming it, not a warning per folder
        check_prefect_api(url)
        check_prefect_api_answers(url)
    except SettingsError as err:
        echo(f"error: {err}", file=sys.stderr, one_line=True)
        return 1

    def announce(folder: str, n: int, *, changed: bool = False) -> SeenRecord | None:
        prefect_emitter(folder, n, changed=changed)
        echo(f"{folder}: {_what(n, changed)}, emitted corpus.arrived", flush=True, one_line=True)
        return None  # nothing to keep beside the announcement

    return announce


class _RunEach:
    """``dri watch --run``'s emitter: runs each folder here, says what the run
    did, and counts the runs that failed."""

    def __init__(self, workers: int | None) -> None:
        self.workers = workers
        self.failed = 0

    def __call__(self, folder: str, n: int, *, changed: bool = False) -> SeenRecord:
        from dri.flows.pipeline import run_corpus

        echo(f"{folder}: {_what(n, changed)}, running it", flush=True, one_line=True)
        state, summary = run_corpus(folder, workers=self.workers, mode="auto")
        if summary is None:  # crashed: raise, so the folder is tried again next scan
            raise RuntimeError(f"{folder}: run {state.name.lower()}: {state.message}")
        echo(summary.headline(), flush=True, one_line=True)
        # As dri run says them: each failure to the log, one line per reason here.
        log_failures(logging.getLogger(__name__), summary.failures)
        for line in fold_failures(summary.failures, advice=summary.advice):
            echo(line, file=sys.stderr, one_line=True)
        self.failed += not summary.ok
        if summary.advice:
            # The store stopped the run (summary.advice says so): the folder is
            # not marked as run, so the next scan, or the same command, runs it
            # again. Marked, it was never stored ("no new or changed corpus").
            raise ProjectError("the store stopped its run; not marked as run, so it runs again")
        return {"stored": summary.parsed + summary.reused > 0}

    @staticmethod
    def gone(seen: dict[str, SeenRecord]) -> set[str]:
        """Those of the folders ``seen`` whose runs here stored their corpus, and
        whose corpus the store no longer holds: after ``dri store clear``, or
        with another store, they were "seen before, unchanged" for ever, and the
        store stayed empty. A store that cannot be asked takes them as there
        (the run says what is wrong); a folder whose run stored nothing is not
        run again at every scan."""
        stored = [folder for folder, record in seen.items() if record.get("stored")]
        if not stored:
            return set()
        from dri.store import StoreError, open_store

        try:
            with open_store() as store:
                held = set(store.corpora())
        except StoreError:
            return set()
        return {folder for folder in stored if storable(Path(folder).name) not in held}


def _why(err: OSError | RuntimeError) -> str:
    """``err`` as the command line's other errors say it: the path, then the reason
    (``str()`` of an ``OSError`` is ``[Errno 20] reason: 'path'``)."""
    if isinstance(err, OSError) and err.strerror:
        return f"{err.filename}: {os_reason(err)}" if err.filename else err.strerror
    return one_line(err)
