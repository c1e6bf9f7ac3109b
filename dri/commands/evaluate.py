"""``dri evaluate plagiarism|translation|analogy CORPUS_DIR``, ``dri evaluate judgements|ranking|choice FILE``.

* ``plagiarism``: each answer of a Clough & Stevenson corpus against its
  task's original, grouped by level (cut, light, heavy, non).
* ``translation``: each original of a translation corpus against its round
  trips, grouped by language; ``--build-from TEXTS`` first builds the corpus
  from a folder of English texts with Apertium (or ``--libretranslate URL``).
* ``analogy``: each target against the other documents, top k by Analogy
  Similarity with their mappings; ``--sections abstract,background``. Only
  the ``--candidates`` documents closest to a target by content are
  structure-mapped (two-stage search); ``--exhaustive`` maps them all.
* ``judgements FILE.csv``: text pairs with a human score (columns a,b,score;
  texts or .txt/.pdf paths); Pearson, Spearman and Kendall of every score
  with 95% bootstrap intervals, and a scatter plot per score.
* ``ranking FILE.csv``: search pools (columns a,b,score,query and optionally
  facet; a = the query text, b = a candidate, score = its graded relevance);
  NDCG%20, NDCG@10 and MAP per query and their means with 95% intervals, ties
  ranked worst-first, and a plot.
* ``choice FILE.jsonl``: multiple-choice analogy items ({"query", "options",
  "answer"}, optional "types"); accuracy with a 95% interval, ties counted
  wrong, and how often each option type is picked.

Each writes a report folder (scores.csv, stats.json, summary.md, index.html,
box plots except for analogy; judgements, ranking and choice also
validity.json and their plots) and prints where it is; ``dri report``
shows it. An ``--out`` folder that holds an earlier report is refused
(exit 2) unless ``--force`` replaces it, and so is one another ``dri
evaluate`` is writing its report in now; the default folder,
``data/reports/KIND-CORPUS`` (KIND-NAME for a FILE, without its suffix),
is the command's own and is replaced. A bad document gets a one-line error
and the rest carries on; the exit status is 1 if any pair failed, 2 if the
corpus could not be read.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dri.commands.compare import add_profile_option
from dri.commands.folders import (
    REPORT_FILES,
    claimed_report_folder,
    earlier_report,
    given_path,
    output_folder,
)
from dri.commands.search_options import add_search_arguments, candidates_given, search_conflict
from dri.corpora.text import CorpusError
from dri.corpora.translate import LANGUAGES, ApertiumEngine, LibreTranslateEngine, build_translation_corpus
from dri.errors import ProjectError, pair_failure_lines
from dri.evaluate.kinds import KINDS, kind
from dri.literal import echo
from dri.settings import max_text_chars, prefect_defaults
from dri.staging import left_incomplete

if TYPE_CHECKING:
    from dri.evaluate.core import Progress
    from dri.metrics.results import EvaluationResult

__all__ = ["register", "run_evaluate"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "evaluate",
        help=f"run the {', '.join(KINDS)} evaluation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("kind", choices=list(KINDS))
    p.add_argument(
        "corpus", type=given_path, metavar="|".join(dict.fromkeys(k.input for k in KINDS.values()))
    )
    p.add_argument(
        "--out", type=output_folder, metavar="DIR", help="report folder (default: data/reports/KIND-CORPUS)"
    )
    p.add_argument("--force", action="store_true", help="replace the report an --out folder already holds")
    p.add_argument("--no-baselines", action="store_true", help="structure scores only")
    p.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress lines (by default a line that rewrites itself on a terminal, a line per tenth of the pairs in a log, and one per failed pair)",
    )
    add_profile_option(p)
    owned: list[tuple[argparse.Action, str]] = []  # each kind's own options, for _foreign_option
    for each in KINDS.values():
        if not (each.arguments or each.search_options):
            continue
        group = p.add_argument_group(each.group or each.name)
        for argument in each.arguments:
            owned.append((group.add_argument(*argument.flags, **argument.options), each.name))
        if each.search_options:
            owned.extend((action, each.name) for action in add_search_arguments(group))
    p.set_defaults(handler=run_evaluate, kind_options=tuple(owned))


#: Back to the line's start and erase it (ANSI), for a progress line that rewrites itself.
CLEAR_LINE = "\r\x1b[2K"


def _row_name(row: dict[str, Any]) -> str:
    """What a progress line calls a pair: its line of the user's file (a judgement
    or ranking file), its item and option (a choice file), else its document."""
    if row.get("line"):
        return f"line {row['line']}"
    if row.get("item") is not None and row.get("option") is not None:
        return f"item {row['item']}, option {row['option']}"
    target = Path(row["target"]).name
    # An analogy search groups by target: the source is the one to name.
    return Path(row["source"]).name if str(row["group"]) == target else target


def _progress(quiet: bool) -> Progress | None:
    """Progress of the pairs: a failed pair on a line of its own; the others on
    one line that rewrites itself on a terminal, and off one (a log) on a line
    per tenth of the pairs and for the last."""
    if quiet:
        return None
    terminal = sys.stderr.isatty()

    def report(i: int, n: int, row: dict[str, Any]) -> None:
        where = f"[{i}/{n}] {_row_name(row)} ({row['group']})"
        if row.get("error"):
            echo(
                f"{where}: error: {row['error']}",
                lead=CLEAR_LINE if terminal else "",
                file=sys.stderr,
                one_line=True,
            )
            return
        line = f"{where}: AS {row.get('analogy_similarity', float('nan')):.3f}"
        if terminal:
            echo(
                line, lead=CLEAR_LINE, end="\n" if i >= n else "", file=sys.stderr, flush=True, one_line=True
            )
        elif i == n or i % -(-n // 10) == 0:
            echo(line, file=sys.stderr, one_line=True)

    return report


#: Seconds a step of an evaluation (parsing, mapping, a bootstrap) runs unseen
#: before its progress lines start: a short one says nothing.
QUIET_SECONDS = 3.0
#: What a progress line calls the corpus flow's stages.
FLOW_STEPS = {"parse": "documents parsed", "map": "pairs mapped"}


class _StepProgress:
    """``report(done, total, what)`` of the steps of an evaluation other than its
    rows (the flow's documents parsed and pairs mapped, a bootstrap's
    resamples, a ranking's queries, the report's files), once a step has run
    :data:`QUIET_SECONDS`: ``[done/total] what`` on a line that rewrites itself
    on a terminal, and off one on a line per tenth of the step and for its last."""

    def __init__(self) -> None:
        self.terminal = sys.stderr.isatty()
        self.step = ""  # the step shown
        self.started = time.monotonic()  # when it started
        self.tenth = 0  # its last tenth shown (off a terminal)
        self.shown_at = 0.0  # when a line was last shown (on a terminal)

    def __call__(self, done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if done == 0 or what != self.step:
            self.step, self.started, self.tenth = what, now, 0
        if now - self.started < QUIET_SECONDS or total <= 0:
            return
        line = f"[{done}/{total}] {what}"
        if self.terminal:
            if done < total and now - self.shown_at < 0.2:
                return
            self.shown_at = now
            end = "\n" if done >= total else ""
            echo(line, lead=CLEAR_LINE, end=end, file=sys.stderr, flush=True, one_line=True)
        elif done * 10 // total > self.tenth:
            self.tenth = done * 10 // total
            echo(line, file=sys.stderr, one_line=True)


@contextlib.contextmanager
def _steps_shown(quiet: bool) -> Iterator[None]:
    """While the block runs, the progress of the corpus flow (documents parsed,
    pairs mapped, as each finishes) and of the statistics after the rows, as
    :class:`_StepProgress` lines; nothing when ``quiet``."""
    if quiet:
        yield
        return
    from dri.flows.progress import Progress as FlowProgress
    from dri.flows.progress import listening
    from dri.metrics.progress import REPORT_FILES, statistics_progress

    flow, statistics = _StepProgress(), _StepProgress()

    def flow_step(progress: FlowProgress) -> None:
        # The failed pairs are told by the rows' lines, each with its reason.
        flow(progress.done, progress.total, FLOW_STEPS.get(progress.stage, progress.stage))

    with (
        listening(flow_step),
        statistics_progress(
            lambda d, t, what: statistics(d, t, what if what == REPORT_FILES else f"statistics: {what}")
        ),
    ):
        yield


def _summary_line(result: EvaluationResult, failed: int, seconds: float) -> str:
    """What the evaluation did, in how long: the pairs, the statistics after them
    if the kind has any, and the whole command."""
    line = (
        f"{result.kind}: {len(result.rows) - failed} of {len(result.rows)} pairs compared "
        f"in {result.meta.get('wall_seconds', 0):.1f} s"
    )
    if "statistics_seconds" in result.meta:
        line += f", statistics in {result.meta['statistics_seconds']:.1f} s"
    return f"{line} ({seconds:.1f} s in all)"


def _build(args: argparse.Namespace) -> int:
    engine = (
        LibreTranslateEngine(args.libretranslate, api_key=args.api_key)
        if args.libretranslate
        else ApertiumEngine()
    )
    result = build_translation_corpus(args.build_from, args.corpus, args.languages or list(LANGUAGES), engine)
    for problem in result.problems:
        echo(f"error: {problem}", file=sys.stderr, one_line=True)
    if not result.written and not result.sources:
        # "no text came back from any language" blamed the translator, which was never asked.
        raise ProjectError(
            f"{args.corpus}: not built: no text of {args.build_from} could be read (the lines above say why)"
        )
    if not result.written:
        # Evaluated, the folder it did not make was "roundtrip: missing" (exit 2), the server's fault.
        raise ProjectError(
            f"{args.corpus}: not built: no text came back from any language, so nothing was written "
            "(the lines above say why); run it again when the translator answers"
        )
    echo(
        f"built {args.corpus}: {len(result.written)} files, {len(result.languages)} languages "
        f"in {result.seconds:.1f} s",
        one_line=True,
    )
    return 1 if result.problems else 0


def _print_stats(result: EvaluationResult) -> None:
    stats = result.stats()
    for score in result.scores:
        st = stats.get(score)
        if st is None:
            continue
        medians = ", ".join(f"{g} {s.median:.3f}" for g, s in st.groups.items())
        parts = [f"{score}: {medians}"]
        if st.rho is not None:
            parts.append(f"rho {st.rho:.3f}")
        if st.auc is not None:
            parts.append(f"AUC {st.auc:.3f}")
        if st.ranking:
            parts.append("ranking " + " > ".join(st.ranking))
        echo("  " + "; ".join(parts), one_line=True)


def _print_validity(result: EvaluationResult) -> None:
    """Each score's statistics against the human judgements, one line a score."""
    # numpy loads slowly; only a report against human judgements needs these.
    from dri.metrics.ranking import RankingResult, percent
    from dri.metrics.validity import ChoiceStats, JudgementStats

    stats = result.validity
    if isinstance(stats, RankingResult):
        for score, sr in stats.scores.items():
            echo(
                f"  {score}: NDCG%20 {percent(sr.ndcg_pct20)}; NDCG@10 {percent(sr.ndcg_10)}; "
                f"MAP {percent(sr.map)}",
                one_line=True,
            )
    elif isinstance(stats, JudgementStats):
        for score, estimates in stats.scores.items():
            # An undefined correlation (too few pairs, constant scores) reads n/a, not "nan [nan, nan]".
            parts = [
                f"{name} {est.format()}" + (f" (n = {est.n})" if est.format() == "n/a" else "")
                for name, est in estimates.items()
            ]
            echo(f"  {score}: " + "; ".join(parts), one_line=True)
    elif isinstance(stats, ChoiceStats):
        for score, choice in stats.scores.items():
            acc = choice.accuracy
            parts = [f"accuracy {acc.value:.3f} [{acc.low:.3f}, {acc.high:.3f}]", f"ties {choice.ties}"]
            if choice.picks:
                parts.append("picks " + ", ".join(f"{k} {v}" for k, v in choice.picks.items()))
            echo(f"  {score}: " + "; ".join(parts), one_line=True)


def _input_in_the_way(args: argparse.Namespace) -> tuple[Path, Path] | None:
    """``(place, input)``: a file of the report in ``--out`` (``place``) that is
    an input file of ``args``: the file itself under a report file's name (a
    judgement file called ``scores.csv``), or a link to it, which the report
    writes through. ``--force`` replaces an earlier report, never the input the
    report is made from."""
    out = Path(args.out)
    inputs = []
    for value in vars(args).values():
        if isinstance(value, (str, Path)) and value:
            with contextlib.suppress(OSError, RuntimeError, ValueError):  # not a name the system looks up
                if Path(value).is_file():
                    inputs.append(Path(value))
    for name in REPORT_FILES:
        place = out / name
        for given in inputs:
            with contextlib.suppress(OSError, RuntimeError, ValueError):
                if place.is_file() and place.samefile(given):
                    return place, given
    return None


def _foreign_option(args: argparse.Namespace) -> str | None:
    """Why an option given belongs to other kinds than ``args.kind``, or None:
    ``dri evaluate judgements FILE --far`` ran as if ``--far`` were not there."""
    for action, owner in getattr(args, "kind_options", ()):
        if args.kind != owner and getattr(args, action.dest, action.default) != action.default:
            return (
                f"{max(action.option_strings, key=len)} is an option of dri evaluate {owner}, not {args.kind}"
            )
    return None


def _unused_build_option(args: argparse.Namespace) -> str | None:
    """Why a translation build's option would not be used, or None: without
    ``--build-from`` (or ``--api-key`` without ``--libretranslate``) the
    evaluation ran as if it were not there, every language of the corpus
    scored, with exit 0."""
    if args.kind != "translation":
        return None
    if not getattr(args, "build_from", None):
        for dest, flag in (
            ("languages", "--languages"),
            ("libretranslate", "--libretranslate"),
            ("api_key", "--api-key"),
        ):
            if getattr(args, dest, None) is not None:
                return f"{flag} is for building a corpus: it goes with --build-from FOLDER"
    if getattr(args, "api_key", None) is not None and not getattr(args, "libretranslate", None):
        return "--api-key is LibreTranslate's: it goes with --libretranslate URL (Apertium takes none)"
    return None


def run_evaluate(args: argparse.Namespace) -> int:
    foreign = (
        _foreign_option(args)
        or _unused_build_option(args)
        or (search_conflict(args) if hasattr(args, "exhaustive") else None)
    )
    if foreign is not None:
        echo(f"error: {foreign}", file=sys.stderr)
        return 2
    # A bad setting is one line before any work, not a failure of each document.
    max_text_chars()
    if args.out is None:
        return _evaluate(args)
    with claimed_report_folder(args.out) as claimed:
        if not claimed:
            echo(
                f"error: {args.out}: another dri evaluate is writing its report there; "
                "wait for it to end, or choose another --out",
                file=sys.stderr,
            )
            return 2
        held = _input_in_the_way(args)
        if held is not None:
            place, given = held
            what = (
                f"its {place.name} links to the input file {given.name}"
                if place.is_symlink()
                else f"holds the input file {place.name}"
            )
            echo(
                f"error: {args.out}: {what}, which the report would write over; choose another --out",
                file=sys.stderr,
            )
            return 2
        if left_incomplete(args.out):
            echo(
                f"note: {args.out}: holds a report left part-written (a dri command was stopped "
                "while moving its files in); this report replaces it",
                file=sys.stderr,
            )
        earlier = None if args.force else earlier_report(args.out)
        if earlier is not None:
            # Refused before any work: a report is not replaced by surprise.
            echo(
                f"error: {args.out}: holds an earlier report ({earlier.name}); "
                "add --force to replace it, or choose another --out",
                file=sys.stderr,
            )
            return 2
        return _evaluate(args)


def _evaluate(args: argparse.Namespace) -> int:
    """The evaluation ``args`` ask for, its console lines and its exit status."""
    # The progress lines below say what Prefect's INFO lines would.
    prefect_defaults(quiet_console=not getattr(args, "verbose", False))
    chosen = kind(args.kind)
    built = 0
    try:
        if getattr(args, "build_from", None) and any("--build-from" in a.flags for a in chosen.arguments):
            built = _build(args)
        common = dict(baselines=not args.no_baselines, progress=_progress(args.quiet), profile=args.profile)
        options = {name: getattr(args, name) for name in chosen.options}
        if "candidates" in options:
            options["candidates"] = candidates_given(args)
        # Imported only now: it imports Prefect, which reads its settings when first imported.
        run = chosen.run_function()
        listening = _steps_shown(args.quiet)
        started = time.perf_counter()
        if chosen.console == "search":
            from dri.evaluate.analogy import format_search

            with listening:
                searches, files = run(args.corpus, report_dir=args.out, **options, **common)
            echo(format_search(searches))
            if files:
                echo(f"report: {files.summary_md}", one_line=True)
            # A bad file fails every pair it is in: each distinct reason once.
            errors = list(dict.fromkeys(p for res in searches for p in res.problems))
            errors += pair_failure_lines(
                (source, str(res.target), error) for res in searches for source, error in res.failures
            )
            for line in errors:
                echo(f"error: {line}", file=sys.stderr, one_line=True)
            return 1 if errors else 0
        with listening:
            result, files = run(args.corpus, args.out, **options, **common)
    except CorpusError as err:
        echo(f"error: {err}", file=sys.stderr, one_line=True)
        return 2
    for problem in result.problems:
        echo(f"error: {problem}", file=sys.stderr, one_line=True)
    failed = [r for r in result.rows if r.get("error")]
    # A judgement file's document is named as the user gave it, not by its hashed copy.
    named = [
        (str(r.get("_source_name") or r["source"]), str(r.get("_target_name") or r["target"]), r["error"])
        for r in failed
    ]
    for line in pair_failure_lines(named):
        echo(f"error: {line}", file=sys.stderr, one_line=True)
    echo(_summary_line(result, len(failed), time.perf_counter() - started), one_line=True)
    if chosen.console == "groups":
        _print_stats(result)
    else:
        _print_validity(result)
    if files:
        echo(f"report: {files.summary_md}", one_line=True)
    return 1 if (failed or result.problems or built) else 0
