"""``dri ratings import FILE.csv`` / ``dri ratings show``: expert ratings of analogies.

The CSV has the columns rater, pair, novelty, usefulness, challenge, each
property a whole number from 1 to 5 (empty: not rated). Bad rows get a
one-line error naming the file and line and are skipped; the valid ones are
stored in ``data/ratings/ratings.csv`` (``DRI_DATA_DIR``). Both commands print
the mean per property and Krippendorff's alpha (interval) over everything
stored, and write it to the report ``data/reports/ratings``; analogy-search
reports include it too.
"""

from __future__ import annotations

import argparse
import math
import sys

from dri.commands.folders import given_file
from dri.corpora.ratings import import_ratings, ratings_file, read_ratings
from dri.corpora.text import CorpusError
from dri.literal import echo
from dri.metrics.report import write_ratings_report
from dri.metrics.stats import rating_stats
from dri.settings import data_dir

__all__ = ["register", "run_ratings"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "ratings",
        help="import expert ratings; agreement and means",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    imp = actions.add_parser("import", help="validate and store a ratings CSV")
    imp.add_argument("file", type=given_file, metavar="FILE.csv")
    actions.add_parser("show", help="means and Krippendorff's alpha of the stored ratings")
    p.set_defaults(handler=run_ratings)


def _stored() -> tuple[list[dict[str, object]], list[str]]:
    """The valid rows of the ratings store and a line for each row that is not one.

    A store edited by hand can hold a row that is not a rating; shown without
    it, a store of only such rows read as "no ratings stored yet".
    """
    path = ratings_file()
    if not path.exists() and not path.is_symlink():
        return [], []
    try:
        # A folder or a link to nothing there was "no ratings stored yet" (read_ratings says what it is).
        return read_ratings(path)
    except CorpusError as err:
        return [], [str(err)]


def run_ratings(args: argparse.Namespace) -> int:

    status = 0
    if args.action == "import":
        try:
            result = import_ratings(args.file)
        except CorpusError as err:
            echo(f"error: {err}", file=sys.stderr)
            return 1
        for problem in result.problems:
            echo(f"error: {problem}", file=sys.stderr)
        echo(
            f"{args.file}: {result.accepted} ratings imported, {len(result.problems)} rejected; "
            f"{result.total_stored} stored in {result.stored}"
        )
        status = 1 if result.problems else 0
    rows, problems = _stored()
    for problem in problems:
        echo(f"error: {problem}", file=sys.stderr)
    if not rows:
        if not problems:
            echo(
                f"no ratings stored yet ({ratings_file()}); use `dri ratings import FILE.csv`",
                file=sys.stderr,
            )
        return 1
    status = 1 if problems else status
    stats = rating_stats(rows)
    for st in stats:
        alpha = "–" if st.alpha is None else f"{st.alpha:.3f}"
        # Nothing rated for the property: "–", as the report says it ("nan" here).
        mean = "–" if st.mean is None or math.isnan(st.mean) else f"{st.mean:.2f}"
        echo(
            f"{st.prop}: mean {mean}, Krippendorff's alpha (interval) {alpha}, "
            f"{st.raters} raters, {st.pairs} pairs"
        )
    folder = write_ratings_report(stats, data_dir() / "reports" / "ratings", source=str(ratings_file()))
    echo(f"report: {folder / 'summary.md'}")
    return status
