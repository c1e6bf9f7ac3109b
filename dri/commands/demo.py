"""``dri demo``: the main job on the demo corpora shipped with ``dri.corpora`` (``corpora/demo/``).

Runs the three evaluations of the paper on the project's own small corpora
with whatever store is configured (the embedded SQLite store by default):

1. plagiarism: 3 originals against near-copy, light, heavy and
   non-plagiarised answers;
2. round-trip translation: the same originals through five Apertium
   languages (the round trips are shipped, so Apertium is not needed here);
3. analogy search: each target against every other document.

It prints each report's summary file; ``dri report`` shows the newest.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dri.literal import echo
from dri.settings import prefect_defaults

if TYPE_CHECKING:
    from dri.evaluate.core import Progress

__all__ = ["DEMO_ROOT", "register", "run_demo"]

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
        "--out", type=Path, metavar="DIR", help="folder for the three reports (default: data/reports)"
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
    # Imported only now: it imports Prefect, which reads its settings when first imported.
    from dri.evaluate import analogy_search, evaluate_plagiarism, evaluate_translation

    def report_dir(kind: str) -> Path | None:
        return args.out / kind if args.out else None

    started = time.perf_counter()
    failed = 0
    for kind, run in (("plagiarism", evaluate_plagiarism), ("translation", evaluate_translation)):
        echo(f"==> {kind}: {DEMO_ROOT / kind}")
        result, files = run(DEMO_ROOT / kind, report_dir(kind), progress=_ticker())
        failed += sum(1 for row in result.rows if row.get("error"))
        analogy = result.stats().get("analogy_similarity")
        if analogy:
            for group, summary in analogy.groups.items():
                echo(f"    {group:>8}: median Analogy Similarity {summary.median:.3f} over {summary.n} pairs")
            if analogy.rho is not None:
                echo(f"    Spearman rho with level {analogy.rho:.3f}, ROC AUC {analogy.auc:.3f}")
        if files:
            echo(f"    report: {files.summary_md}")

    echo(f"==> analogy search: {DEMO_ROOT / 'analogy'}")
    results, files = analogy_search(
        DEMO_ROOT / "analogy", k=3, report_dir=report_dir("analogy"), progress=_ticker()
    )
    for res in results:
        best = res.hits[0] if res.hits else None
        found = f"{best.source.name} (AS {best.scores['analogy_similarity']:.3f})" if best else "nothing"
        echo(f"    {res.target.name}: best analogue {found}")
    if files:
        echo(f"    report: {files.summary_md}")
    echo(f"done in {time.perf_counter() - started:.0f} s; `dri report` prints the newest report")
    return 1 if failed else 0
