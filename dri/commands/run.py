"""``dri run CORPUS_DIR``: run the corpus flow here, with a progress bar.

Builds (or reuses) the ROS graph of every document of the folder, maps the
pairs chosen by ``--mode`` in parallel and stores graphs and results (Neo4j if
``NEO4J_URI`` is set, else the embedded SQLite store). Prints the run summary;
exit status 1 if any document or pair failed (the rest is stored).

Modes: ``auto`` (the corpus's manifest if it has one, else every document
against ``--target`` if given, else all pairs),
``manifest``, ``target`` (every document against ``--target``) and
``all-pairs``. In target mode (and for a manifest's targets) only the
``--candidates`` documents closest to the target by content are
structure-mapped (two-stage search, ``docs/search.md``); ``--exhaustive``
maps them all. A small run (at most 20 documents to parse and 200 pairs, or
a target's search) runs in this process without Prefect; a bigger one runs
its tasks on local processes, or on a Dask cluster with ``--dask ADDRESS``
(or ``DRI_DASK_ADDRESS``), and is recorded by the Prefect server at
``PREFECT_API_URL`` if one is set, else by a temporary one.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from dri.commands.compare import add_profile_option
from dri.commands.folders import given_path, why_not_a_folder
from dri.commands.search_options import (
    add_search_arguments,
    candidates_given,
    positive,
    search_conflict,
    worker_count,
)
from dri.corpora.discover import has_manifest, target_problem
from dri.errors import Interrupted
from dri.flows.progress import Progress, listening
from dri.flows.runners import RunnerConfig, end_workers_on_signals, interrupted_by, runner_config
from dri.literal import echo, storable
from dri.quiet_logs import fold_failures, log_failures
from dri.settings import max_text_chars, prefect_defaults, setting

if TYPE_CHECKING:
    from dri.flows.tasks import RunSummary

#: What run_corpus gives: the flow's final state and the run's summary (None before it made one).
RunOutcome = tuple[Any, "RunSummary | None"]

__all__ = ["register", "run_run"]


def _section_name(text: str) -> str:
    """A section name of ``--sections`` without the spaces around it (argparse's ``type``).

    Graphs are restricted to the sections named exactly, so ``''`` or
    ``' abstract'`` would match nothing and every pair would score 0 with exit 0.
    """
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("an empty section name")
    return name


#: The longest ``--corpus`` or ``--run-id``: Neo4j indexes them (the corpus's name, the
#: comparisons' ids hold the run id), and an index key over about 8 KB is refused.
MAX_NAME_CHARS = 1000


def _name(text: str) -> str:
    """A ``--corpus`` or ``--run-id`` (argparse's ``type``): an empty one (a shell
    variable that was not set) fell back to the default name silently; one of
    over :data:`MAX_NAME_CHARS` characters was stored in SQLite, and in Neo4j
    failed every document or pair with "Property value is too large to index"."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name")
    # As stored: a byte that is not UTF-8 is kept as its escape (\udcff), six characters.
    if (length := len(storable(text))) > MAX_NAME_CHARS:
        stored = "" if length == len(text) else " as stored"
        raise argparse.ArgumentTypeError(
            f"a name of {length:,} characters{stored}; at most {MAX_NAME_CHARS:,} (the stores index it)"
        )
    return text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run",
        help="run the corpus flow on a folder of documents",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("corpus_dir", type=given_path, metavar="CORPUS_DIR")
    p.add_argument(
        "--mode",
        choices=["auto", "manifest", "target", "all-pairs"],
        default="auto",
        help="which pairs to map (default: auto; the modes are above)",
    )
    p.add_argument("--target", help="target document (file name, path or doc id) for --mode target")
    p.add_argument("--workers", type=worker_count, help="worker processes (default: one per CPU)")
    p.add_argument("--dask", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786")
    p.add_argument(
        "--runner",
        choices=["processes", "threads", "dask", "inline"],
        help="task runner (default: inline, i.e. in this process without Prefect's server, for a small "
        "job, else processes, or dask with --dask)",
    )
    p.add_argument("--corpus", type=_name, help="corpus name in the store (default: the folder name)")
    p.add_argument(
        "--run-id",
        type=_name,
        help="result set to store into (default: derived from corpus, mode, parameters)",
    )
    p.add_argument(
        "--sections",
        nargs="+",
        type=_section_name,
        metavar="SECTION",
        help="compare only these sections, e.g. abstract background",
    )
    p.add_argument(
        "--batch-size",
        type=positive,
        help="documents or pairs per task (default: four batches per worker, at most 20 documents or 200 pairs)",
    )
    add_search_arguments(p)
    p.add_argument(
        "--top-per-document",
        type=positive,  # 0 or less mapped no pair, silently
        metavar="K",
        help="all-pairs: map only pairs where one document is among the other's K closest by content",
    )
    add_profile_option(p)
    p.add_argument(
        "--allow-outside-links",
        action="store_true",
        help="read symbolic links to files outside CORPUS_DIR (refused by default)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar; a run on Prefect shows its log lines instead (off a terminal, always)",
    )
    p.set_defaults(handler=run_run)


def _print_summary(summary: RunSummary, out: TextIO | None = None) -> None:
    # Looked up at call time: a stream bound at import time may since have been replaced and closed.
    out = out or sys.stdout
    echo(summary.headline(), file=out, one_line=True)
    seconds = summary.seconds
    echo(
        f"wall {seconds.get('wall', 0):.1f} s: parse {seconds.get('parse', 0):.1f} s, "
        f"map {seconds.get('map', 0):.1f} s, store {seconds.get('store_graphs', 0) + seconds.get('store_results', 0):.1f} s "
        "(summed over workers)",
        file=out,
        one_line=True,
    )
    if summary.top:
        echo(f"best pairs by analogy similarity in {summary.run_id}:", file=out, one_line=True)
        for row in summary.top[:5]:
            echo(
                f"  {row['analogy_similarity']:.3f}  {Path(row['source']).name} -> {Path(row['target']).name}"
                + (f"  [{row['group']}]" if row.get("group") else ""),
                file=out,
                one_line=True,
            )
    if summary.summary_path:
        echo(f"summary: {summary.summary_path}{_kept_note(summary)}", file=out, one_line=True)


def _kept_note(summary: RunSummary) -> str:
    """For a run that did nothing, where the summary of the last run that did something still is."""
    # Imported only now, as the run itself is (_corpus_run).
    from dri.flows.tasks import kept_summary

    kept = kept_summary(summary)
    return f" (nothing done; the last run that did something keeps its summary: {kept})" if kept else ""


def run_run(args: argparse.Namespace) -> int:
    status = _argument_error(args)
    if status is not None:
        return status
    show_progress = not args.no_progress and not args.json and sys.stderr.isatty()
    quiet = (show_progress or args.json) and not getattr(args, "verbose", False)
    prefect_defaults(quiet_console=quiet)
    # A bad setting is one line before any work, not a failure of each document.
    max_text_chars()
    config = _runner_config(args)
    if isinstance(config, int):
        return config
    try:
        try:
            with end_workers_on_signals():
                state, summary = _run_with_progress(_corpus_run(args, config), show_progress)
        except Exception:
            # The interrupt wrapped by a library that catches every exception: a
            # SIGTERM while Prefect is imported comes back as pydantic's
            # PydanticSerializationError ("Interrupted: 15"), which was exit 70.
            if interrupted_by() is None:
                raise
        signum = interrupted_by()
        if signum is not None:  # the interrupt came back as the run's failure
            raise Interrupted(signum)
    except KeyboardInterrupt as err:
        echo(
            f"error: {args.corpus_dir}: interrupted; what was stored is kept, "
            "run the same command again to finish",
            file=sys.stderr,
        )
        return Interrupted.status(err)
    return _report(args, state, summary)


def _argument_error(args: argparse.Namespace) -> int | None:
    """The exit status for arguments that cannot make a run, after saying why; else ``None``."""
    if not args.corpus_dir.is_dir():
        echo(f"error: {args.corpus_dir}: {why_not_a_folder(args.corpus_dir)}", file=sys.stderr, one_line=True)
        return 1
    if args.mode == "target" and not args.target:
        echo("error: --mode target needs --target NAME", file=sys.stderr)
        return 2
    conflict = _conflicting_options(args)
    if conflict:
        echo(f"error: {conflict}", file=sys.stderr)
        return 2
    problem = (
        target_problem(args.corpus_dir, args.target, allow_outside_links=args.allow_outside_links)
        if args.target
        else None
    )
    if problem:
        echo(f"error: {problem[0]}", file=sys.stderr, one_line=True)
        return problem[1]
    return None


def _conflicting_options(args: argparse.Namespace) -> str | None:
    """Why two options given cannot go together, or None: each of these ran
    as if one of them were not there."""
    if args.target and args.mode in ("all-pairs", "manifest"):
        return f"--target is for --mode target (or auto); --mode {args.mode} takes none"
    manifest = args.mode == "manifest" or (args.mode == "auto" and has_manifest(args.corpus_dir))
    if args.target and manifest:
        return (
            f"{args.corpus_dir} has a manifest, which --mode auto follows; "
            "to search it for --target's analogues, add --mode target"
        )
    if args.top_per_document is not None and (args.target or args.mode == "target" or manifest):
        return "--top-per-document is for all-pairs runs; a target's or a manifest's pairs are chosen by --candidates"
    if args.dask and args.runner not in (None, "dask"):
        return f"--dask runs the tasks on a Dask cluster; it cannot go with --runner {args.runner}"
    return search_conflict(args)


def _runner_config(args: argparse.Namespace) -> RunnerConfig | int:
    """Where the run's tasks go, or the exit status after saying why not: 2 when the
    arguments cannot say (a manifest mode without a manifest), 1 for a variable
    dri cannot use (``DRI_WORKERS``, ``DRI_TASK_RUNNER``)."""
    if args.mode == "manifest" and not has_manifest(args.corpus_dir):
        echo(
            f"error: {args.corpus_dir}: --mode manifest needs manifest.csv, file_information.csv, "
            "originals/ or targets.txt (or use --mode all-pairs or --mode target)",
            file=sys.stderr,
        )
        return 2
    try:
        # --dask given is a Dask run, whatever DRI_TASK_RUNNER says (arguments first).
        inline = args.runner == "inline" or (
            args.runner is None and not args.dask and setting("DRI_TASK_RUNNER") == "inline"
        )
        # Inline, the kind is not used: only the worker count and Dask address are checked.
        return runner_config(
            workers=args.workers, dask_address=args.dask, kind="processes" if inline else args.runner
        )
    except ValueError as err:
        # The arguments were checked as they were parsed: this is a variable's value
        # (DRI_WORKERS, DRI_TASK_RUNNER), a bad setting, exit 1 as in dri evaluate.
        echo(f"error: {err}", file=sys.stderr, one_line=True)
        return 1


def _corpus_run(args: argparse.Namespace, config: RunnerConfig) -> Callable[[], RunOutcome]:
    """The run the arguments ask for, to be started by the caller."""
    # Imported only now: a run on Prefect imports it, which reads its settings when first imported.
    from dri.flows.pipeline import run_corpus

    parameters = dict(
        mode=args.mode,
        target=args.target,
        run_id=args.run_id,
        corpus=args.corpus,
        sections=args.sections,
        batch_size=args.batch_size,
        candidates=candidates_given(args),
        exhaustive=args.exhaustive,
        top_per_document=args.top_per_document,
        profile=args.profile,
        allow_outside_links=args.allow_outside_links,
    )

    def run() -> RunOutcome:
        return run_corpus(
            str(args.corpus_dir),
            workers=config.workers,
            # The argument, not the variable's value: run_corpus reads the variable itself and
            # names it in its messages.
            dask_address=args.dask,
            # Unset, run_corpus decides: a small job runs in this process.
            runner=args.runner,
            # On stderr in any case: a Dask scheduler without workers would otherwise be a silent wait.
            say=lambda line: echo(line, file=sys.stderr, one_line=True),
            **parameters,
        )

    return run


def _report(args: argparse.Namespace, state: Any, summary: RunSummary | None) -> int:
    """The summary on stdout (text or JSON), the failures folded on stderr; the exit status."""
    if summary is None:
        reason = state.message or state.name
        echo(f"error: {args.corpus_dir}: run {state.name.lower()}: {reason}", file=sys.stderr, one_line=True)
        return 1
    if args.json:
        echo(json.dumps(summary.to_dict(), indent=1, default=str))
    else:
        _print_summary(summary)
    # Each failure goes to the log; the console gets one line per reason, what to
    # do on the line of the failure that stopped the run (the last).
    log_failures(logging.getLogger(__name__), summary.failures)
    for line in fold_failures(summary.failures, advice=summary.advice):
        echo(line, file=sys.stderr, one_line=True)
    return 0 if summary.ok else 1


def _run_with_progress(run: Callable[[], RunOutcome], show_progress: bool) -> RunOutcome:
    """``run()``, under a progress bar on a terminal."""
    if show_progress:
        # rich is imported only for a terminal progress bar.
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        with Bar(
            TextColumn("{task.description:<16}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[failed]}"),
            TimeElapsedColumn(),
            transient=False,
        ) as bar:
            rows = {
                "parse": bar.add_task("documents parsed", total=None, failed=""),
                "map": bar.add_task("pairs mapped", total=None, failed=""),
            }

            def show(p: Progress) -> None:
                bar.update(
                    rows[p.stage],
                    completed=p.done,
                    total=p.total,
                    failed=f"{p.failed} failed" if p.failed else "",
                )

            with listening(show):
                return run()
    return run()
