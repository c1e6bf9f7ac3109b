"""``dri demo``: the main job on the demo corpora shipped with ``dri.corpora`` (``corpora/demo/``).

Runs the three evaluations of the paper on the project's own small corpora
with whatever store is configured (the embedded SQLite store by default):

1. plagiarism: 3 originals against near-copy, light, heavy and
   non-plagiarised answers;
2. round-trip translation: the same originals through five Apertium
   languages (the round trips are shipped, so Apertium is not needed here);
3. analogy search: each target against every other document.

It prints a few lines per evaluation (the median per group, or each
target's best analogue) and the path of its report's summary.md; ``dri
report`` prints the newest report. The reports go to
``data/reports/demo-plagiarism``, ``demo-translation`` and ``demo-analogy``
(``--out DIR``: ``DIR/plagiarism`` and so on), names of the demo's own: ``dri
evaluate`` of a corpus folder named ``plagiarism`` writes
``data/reports/plagiarism-plagiarism``, which the demo wrote too.

The evaluations run on two processes, on a machine's two cores: the
translation evaluation in a second process forked from the first, which
runs the plagiarism evaluation and then the analogy search. What both use
(the spaCy pipeline, WordNet, the libraries of reports and baselines) is
loaded before the fork, once (:func:`dri.evaluate.preload`). The second
process ends with the first however that ends (Ctrl-C, a signal, an error);
its lines are shown in their place when it is done, its error as the
demo's own one line.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import hashlib
import multiprocessing
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dri import atomic
from dri.commands.folders import claimed_report_folder, earlier_report, output_folder
from dri.errors import ProjectError
from dri.files import FileRefused, read_limited
from dri.literal import echo
from dri.settings import data_dir, prefect_defaults
from dri.signals import sigterm_interrupts
from dri.staging import recorded_files

if TYPE_CHECKING:
    from dri.evaluate.core import Progress

__all__ = ["DEMO_ROOT", "register", "run_demo"]

#: Where a section writes its lines: ``echo`` in this process, a list in the second.
Emit = Callable[[str], None]

#: The file in a section's folder that marks its report as the demo's own.
DEMO_MARK = ".dri-demo"
#: The largest file of an earlier report read to tell whether it is the demo's.
MAX_REPORT_FILE_BYTES = 50_000_000

#: The demo corpora, package data of dri.corpora (so a wheel carries them too).
DEMO_ROOT = Path(str(resources.files("dri.corpora") / "demo"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="run the evaluations on the demo corpora",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--out",
        type=output_folder,
        metavar="DIR",
        help="folder for the three reports (default: data/reports/demo-KIND for each KIND)",
    )
    p.add_argument(
        "--force", action="store_true", help="replace reports in the demo's folders that are not its own"
    )
    p.set_defaults(handler=run_demo)


def _ticker() -> Progress | None:
    """One self-overwriting progress line on a terminal, nothing in a log."""
    if not sys.stderr.isatty():
        return None

    def report(i: int, n: int, row: dict[str, Any]) -> None:
        echo(
            f"    {i}/{n} pairs compared", lead="\r", end="\n" if i >= n else "", file=sys.stderr, flush=True
        )

    return report


def run_demo(args: argparse.Namespace) -> int:
    prefect_defaults(quiet_console=not getattr(args, "verbose", False))
    started = time.perf_counter()
    with contextlib.ExitStack() as claims:
        # Two demos, or a demo and a dri evaluate, given one folder at once: each
        # wrote its reports there, the second replacing the first's without a word.
        for kind in _SECTIONS:
            folder = _report_dir(args.out, kind)
            if not claims.enter_context(claimed_report_folder(folder)):
                echo(
                    f"error: {folder}: another dri demo or dri evaluate is writing its report "
                    "there; wait for it to end, or choose another --out",
                    file=sys.stderr,
                )
                return 2
        earlier = None if args.force else _earlier_report(args.out)
        if earlier is not None:
            # Refused before any work, as dri evaluate --out does: files of the user's own
            # under those names (a report of theirs) were replaced without a word.
            root = _reports_root(args.out)
            echo(
                f"error: {root}: holds an earlier report ({earlier.relative_to(root)}); "
                "add --force to replace it, or choose another --out",
                file=sys.stderr,
            )
            return 2
        return _run_demo(args, started)


def _reports_root(out: Path | None) -> Path:
    """The folder of the demo's report folders: ``--out``, or the data folder's ``reports``."""
    return out if out is not None else data_dir() / "reports"


def _earlier_report(out: Path | None) -> Path | None:
    """A file of an earlier report in a section folder of the demo's that is not the
    demo's own: the reports of a demo stopped part-way are replaced, so that
    running it again finishes it, as its message says (it was refused)."""
    for kind in _SECTIONS:
        folder = _report_dir(out, kind)
        found = earlier_report(folder)
        if found is not None and not _demo_report(folder, kind):
            return found
    return None


def _demo_report(folder: Path, kind: str) -> bool:
    """Whether the report in ``folder`` is the demo's own, as the demo left it: its
    mark (:data:`DEMO_MARK`) holds the digest of every file the demo's report
    wrote there (:func:`_report_digest`). A report of the demo corpus made by
    ``dri evaluate`` (another profile, say), or one with a file edited since
    (notes over ``summary.md``), is not."""
    try:
        mark = read_limited(folder / DEMO_MARK, 200).decode("ascii", "replace").strip()
    except FileRefused:
        return False
    digest = _report_digest(folder)
    return digest is not None and mark == f"{kind} {digest}"


def _report_digest(folder: Path) -> str | None:
    """A digest of the files the report in ``folder`` recorded (names and bytes),
    or None if it recorded none, ``stats.json`` is not among them, or one cannot
    be read."""
    names = sorted(recorded_files(folder))
    if "stats.json" not in names:
        return None
    digest = hashlib.sha256()
    for name in names:
        if ".." in Path(name).parts or Path(name).is_absolute():
            return None
        try:
            data = read_limited(folder / name, MAX_REPORT_FILE_BYTES)
        except FileRefused:
            return None
        digest.update(f"{name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return digest.hexdigest()


def _mark_as_the_demos(out: Path | None, kind: str) -> None:
    """Mark the report the demo just wrote in its folder for ``kind`` as its own (see
    :func:`_demo_report`), so that a demo stopped part-way is finished by
    running it again; without one, the next demo refuses to replace it."""
    folder = _report_dir(out, kind)
    digest = _report_digest(folder)
    if digest is not None:
        with contextlib.suppress(OSError):
            atomic.write_text(folder / DEMO_MARK, f"{kind} {digest}\n")


def _run_demo(args: argparse.Namespace, started: float) -> int:
    """The three evaluations, their lines and the exit status."""
    # Imported only now: they import Prefect, which reads its settings when
    # first imported. What both processes load is loaded once, before the fork.
    from dri.evaluate import analogy_search, evaluate_plagiarism, evaluate_translation, preload  # noqa: F401
    from dri.store import open_store

    # A store that cannot be used (a Neo4j that is down, a read-only folder) is
    # one line now, not after seconds of loading models.
    with open_store():
        pass
    preload()
    out = args.out
    # Two processes of about the same work (each evaluation's CPU measured
    # in bench/bench_commands.py): translation in the second; plagiarism,
    # then the analogy search here, whose lines wait for translation's.
    with _sections_in_child(("translation",), out) as child:
        failed = _SECTIONS["plagiarism"](out, echo, _ticker())
        analogy: list[str] = []
        failed += _SECTIONS["analogy"](out, analogy.append, None)
        translation, child_failed = child.result()
    for line in (*translation, *analogy):
        echo(line)
    failed += child_failed
    echo(f"done in {time.perf_counter() - started:.0f} s; `dri report` prints the newest report")
    return 1 if failed else 0


def _report_dir(out: Path | None, kind: str) -> Path:
    """The folder of the demo's ``kind`` report: ``out/kind``, or by default
    ``data/reports/demo-kind`` (``dri evaluate``'s default, ``kind-corpus``, was
    the demo's too, so a user's report of a corpus named ``plagiarism`` was replaced)."""
    return out / kind if out is not None else data_dir() / "reports" / f"demo-{kind}"


def _scored_section(kind: str, out: Path | None, emit: Emit, progress: Progress | None) -> int:
    """The plagiarism or translation evaluation: its medians per group, rho and AUC;
    returns how many of its pairs failed."""
    from dri.evaluate import evaluate_plagiarism, evaluate_translation

    run = evaluate_plagiarism if kind == "plagiarism" else evaluate_translation
    emit(f"==> {kind}: {DEMO_ROOT / kind}")
    result, files = run(DEMO_ROOT / kind, _report_dir(out, kind), progress=progress)
    _mark_as_the_demos(out, kind)
    analogy = result.stats().get("analogy_similarity")
    if analogy:
        for group, summary in analogy.groups.items():
            emit(f"    {group:>8}: median Analogy Similarity {summary.median:.3f} over {summary.n} pairs")
        if analogy.rho is not None:
            emit(f"    Spearman rho with level {analogy.rho:.3f}, ROC AUC {analogy.auc:.3f}")
    if files:
        emit(f"    report: {files.summary_md}")
    return sum(1 for row in result.rows if row.get("error"))


def _analogy_section(out: Path | None, emit: Emit, progress: Progress | None) -> int:
    """The analogy search: each target's best analogue; no pair of a search fails the demo."""
    from dri.evaluate import analogy_search

    emit(f"==> analogy search: {DEMO_ROOT / 'analogy'}")
    results, files = analogy_search(
        DEMO_ROOT / "analogy", k=3, report_dir=_report_dir(out, "analogy"), progress=progress
    )
    for res in results:
        best = res.hits[0] if res.hits else None
        found = f"{best.source.name} (AS {best.scores['analogy_similarity']:.3f})" if best else "nothing"
        emit(f"    {res.target.name}: best analogue {found}")
    _mark_as_the_demos(out, "analogy")
    if files:
        emit(f"    report: {files.summary_md}")
    return 0


_SECTIONS: dict[str, Callable[[Path | None, Emit, Progress | None], int]] = {
    "plagiarism": functools.partial(_scored_section, "plagiarism"),
    "translation": functools.partial(_scored_section, "translation"),
    "analogy": _analogy_section,
}


#: How long the demo's second process may take to unwind after SIGTERM before it is killed.
CHILD_GRACE_SECONDS = 5.0


class DemoProcessError(ProjectError):
    """The demo's second process failed: its error, passed on as it was."""

    def __init__(self, message: str, advice: str = "") -> None:
        super().__init__(message)
        self.advice = advice


class _ChildSections:
    """Sections run in a forked process; their lines come back when they are done."""

    def __init__(self, names: Sequence[str], out: Path | None) -> None:
        self.names = tuple(names)
        context = multiprocessing.get_context("fork")
        self._reader, writer = context.Pipe(duplex=False)
        self._process = context.Process(target=_run_in_child, args=(self.names, out, writer), name="dri-demo")
        # The garbage collector of either process would otherwise walk, and so
        # copy, every page of what was loaded before the fork.
        gc.freeze()
        self._process.start()
        writer.close()  # only the child writes: its end closing is the reader's EOF

    def result(self) -> tuple[list[str], int]:
        """The sections' lines and failed pairs; raises what failed them."""
        try:
            kind, lines, payload = self._reader.recv()
        except EOFError:
            self._process.join()
            code = self._process.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            raise DemoProcessError(
                f"the {' and '.join(self.names)} evaluations stopped ({how})",
                "what was stored is kept; run `dri demo` again to finish",
            ) from None
        self._process.join()
        if kind == "done":
            return lines, int(payload)
        for line in lines:
            echo(line)
        if kind == "error":
            raise DemoProcessError(*payload)
        raise RuntimeError(f"in the demo's process for {' and '.join(self.names)}:\n{payload}")

    def stop(self) -> None:
        if self._process.is_alive():
            # SIGTERM: the child unwinds (its report's staging folder removed), then
            # SIGKILL if it has not ended within CHILD_GRACE_SECONDS.
            self._process.terminate()
            self._process.join(CHILD_GRACE_SECONDS)
            if self._process.is_alive():
                self._process.kill()
        self._process.join()
        self._reader.close()


@contextlib.contextmanager
def _sections_in_child(names: Sequence[str], out: Path | None) -> Iterator[_ChildSections]:
    """Run the sections ``names`` in a second process while the body runs in this one."""
    child = _ChildSections(names, out)
    try:
        yield child
    finally:
        child.stop()


def _run_in_child(names: Sequence[str], out: Path | None, writer: Connection) -> None:
    """The second process: run ``names``, send back ``(kind, lines, payload)``."""
    # It ends with the demo however the demo ends, leaves Ctrl-C to it, and
    # sends its log records to the demo's warning counts.
    from dri.flows.runners import worker_init

    worker_init()
    lines: list[str] = []
    try:
        with sigterm_interrupts():  # the demo's stop: unwind, leaving no report half-moved
            failed = sum(_SECTIONS[name](out, lines.append, None) for name in names)
        writer.send(("done", lines, failed))
    except KeyboardInterrupt:
        pass  # stopped by the demo, which says so itself
    except ProjectError as err:
        writer.send(("error", lines, (str(err), getattr(err, "advice", ""))))
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        writer.send(("error", lines, (f"{where}{err.strerror or err}", "")))
    except Exception:
        writer.send(("bug", lines, traceback.format_exc()))
    finally:
        writer.close()
