"""Evaluation reports: a folder with every score, box plots, statistics and a summary.

What the Dr Inventor paper (Hurley et al., EGPAI 2016) showed as Figure 7
(scores per translation language) and Figure 8 (semantic similarity per
plagiarism level), with the numbers that back them and the text baselines of
:mod:`metrics.baselines` beside them. A report folder holds:

``scores.csv``
    one row per compared pair: the structure scores (Analogy Similarity,
    semantic, Jaccard, conceptual, relational), the counts of mapped
    concepts and relations, every baseline, the time taken and any error.
``boxplots.png``
    one panel per structure score, one box per group (level or language).
``boxplots_baselines.png``
    the same for the baselines.
``stats.json``
    per score: the group summaries (n, median, mean, quartiles), Spearman's
    rho with the level, Kruskal-Wallis H and p, ROC AUC, the ranking of
    groups; plus the expert ratings (mean per property, Krippendorff's alpha)
    when there are any.
``index.html`` and ``summary.md``
    the same numbers as tables with the plots embedded, plus the kind's own
    sections (:class:`metrics.results.ReportSection`); for an analogy search,
    per target the ranked hits, each opening to its mapping picture, mapping
    table and candidate inferences, and no statistics across targets. Both
    are rendered from the data by the templates of :mod:`metrics.pages`.

Example
-------
>>> result = EvaluationResult("plagiarism", rows, groups=["cut", "light", "heavy", "non"],
...                           levels=LEVEL_CODES, negative="non")          # doctest: +SKIP
>>> write_report(result, "reports/plagiarism")                              # doctest: +SKIP
"""

from __future__ import annotations

import csv
import io
import json
import math
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dri import atomic
from dri.errors import pair_failure_lines
from dri.literal import csv_cell, cut_line, plot_text, quiet_glyphs
from dri.metrics.pages import SCORE_LABELS, MappingView, number, render
from dri.metrics.picture_pool import PictureJob, PicturePool, draw_pictures
from dri.metrics.progress import REPORT_FILES, tell_progress
from dri.metrics.results import (
    EvaluationResult,
    Hit,
    ReportFiles,
    ReportSection,
    ReportTable,
    SearchResult,
)
from dri.metrics.scores import COUNT_NAMES, MAPPING_SECONDS
from dri.metrics.stats import RatingStats, ScoreStats
from dri.staging import REPORT_RECORD, files_together

__all__ = [
    "DEFAULT_PICTURES",
    "SCORE_LABELS",
    "find_report",
    "json_text",
    "picture_jobs",
    "plot_boxes",
    "write_ratings_report",
    "write_report",
    "write_scores_csv",
]

# A file name that is not UTF-8 reaches a page as lone surrogates: written as "\udcff".
_UNENCODABLE = "backslashreplace"


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float as ``None``, in lists and dicts too."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def json_text(value: Any, **options: Any) -> str:
    """``json.dumps(value, indent=1, **options)`` that is JSON: an undefined
    statistic (NaN, as Pearson's r of constant scores) is ``null``, like the
    ratings' alpha; JSON has no NaN, and a browser's ``JSON.parse`` refuses a file holding one."""
    return json.dumps(_finite(value), indent=1, allow_nan=False, **options)


#: Hits per analogy-search target drawn as a mapping picture in the report.
DEFAULT_PICTURES = 3


def _write(path: Path, text: str, newline: str | None = None) -> None:
    """Write a report file whole (:func:`dri.atomic.write_text`): a reader, or a
    command writing the same report at the same time, sees the old file or the
    new one, never one cut short; a name that is not UTF-8 is written escaped."""
    atomic.write_text(path, text, newline=newline, errors=_UNENCODABLE)


def write_scores_csv(rows: Sequence[Mapping[str, Any]], path: Path, scores: Sequence[str]) -> Path:
    """Every row, the fixed columns first, then the scores, then the rest; a text
    cell that starts like a formula gets a leading ``'`` (:func:`dri.literal.csv_cell`)."""
    first = ["pair", "group", "source", "target"]
    tail = [MAPPING_SECONDS, "error"]
    known = set(first) | set(scores) | set(COUNT_NAMES) | set(tail)
    extra = sorted({k for r in rows for k in r if k not in known and not k.startswith("_")})
    columns = first + extra + list(scores) + list(COUNT_NAMES) + tail
    fh = io.StringIO(newline="")
    csv.writer(fh).writerow([csv_cell(c) for c in columns])  # extra columns are the user's
    writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
    for i, r in enumerate(rows, start=1):
        # A name like "=1+1.txt" is a cell a spreadsheet would run (dri.literal.csv_cell).
        out = {k: csv_cell(r.get(k, "")) for k in columns}
        out["pair"] = r.get("pair", i)
        for k in (*scores, MAPPING_SECONDS):
            v = out.get(k)
            if isinstance(v, float):
                out[k] = "" if math.isnan(v) else f"{v:.6f}"
        writer.writerow(out)
    _write(path, fh.getvalue(), newline="")
    return path


def plot_boxes(result: EvaluationResult, scores: Sequence[str], path: Path, title: str) -> Path | None:
    """One box-plot panel per score, one box per group; ``None`` if nothing to draw."""
    # matplotlib is slow to import: only when a report has plots.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = [s for s in scores if result.values(s)[0]]
    if not scores:
        return None
    groups = result.ordered_groups()
    labels = [plot_text((result.group_labels or {}).get(g, g)) for g in groups]
    cols = min(3, len(scores))
    rows = math.ceil(len(scores) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    rotated = len(groups) > 4
    for ax, score in zip(axes.flat, scores):
        vals, grps = result.values(score)
        data = [[v for v, g in zip(vals, grps) if g == group] for group in groups]
        ax.boxplot([d if d else [math.nan] for d in data], tick_labels=labels)
        # An explicit y turns off matplotlib's title placement, which measures every
        # tick label of the figure at each draw (a fifth of the plot's time); with no
        # ticks on top, the title stands where that placement would put it.
        ax.set_title(plot_text(SCORE_LABELS.get(score, score)), fontsize=10, y=1.0)
        ax.set_ylim(-0.02, 1.02)
        ax.tick_params(axis="x", labelrotation=30 if rotated else 0, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    # Each label's height as drawn: 8-point text about 0.56 em a character, a
    # rotated one standing at 30 degrees.
    longest = max((len(label) for label in labels), default=0) * 8 * 0.56 / 72
    labels_height = 0.12 + (0.5 * longest if rotated else 0.0)
    return save_panel_grid(
        fig, axes, len(scores), title, path, margins=_box_margins(fig, rows, cols, labels_height)
    )


def _box_margins(fig: Any, rows: int, cols: int, labels_height: float) -> dict[str, float]:
    """The box plots' subplot parameters, from the inches their text takes: the
    layout ``tight_layout`` would find, without drawing the figure to find it."""
    width, height = fig.get_size_inches()
    left, right = 0.55 / width, 1 - 0.2 / width
    top, bottom = 1 - 0.75 / height, (labels_height + 0.25) / height
    gap_x, gap_y = 0.55, labels_height + 0.55  # y tick labels; x tick labels and a panel title
    axes_width = (width * (right - left) - (cols - 1) * gap_x) / cols
    axes_height = (height * (top - bottom) - (rows - 1) * gap_y) / rows
    return {
        "left": left,
        "right": right,
        "top": top,
        "bottom": bottom,
        "wspace": gap_x / axes_width,
        "hspace": gap_y / axes_height,
    }


def save_panel_grid(
    fig: Any, axes: Any, used: int, title: str, path: Path, margins: Mapping[str, float] | None = None
) -> Path:
    """Blank the grid's unused panels (after the first ``used``), title the
    figure and write it to ``path`` as PNG; returns ``path``. ``margins`` are
    subplot parameters known beforehand; without them the layout is
    ``tight_layout``'s, which draws the figure once more to measure it."""
    import matplotlib.pyplot as plt  # matplotlib loads slowly; only plotting needs it

    for ax in list(axes.flat)[used:]:
        ax.axis("off")
    fig.suptitle(plot_text(title))
    with quiet_glyphs():
        if margins is None:
            fig.tight_layout()
        else:
            fig.subplots_adjust(**margins)
        picture = io.BytesIO()
        fig.savefig(picture, format="png", dpi=100)
    plt.close(fig)
    atomic.write_bytes(path, picture.getvalue())
    return path


def _stats_table(result: EvaluationResult, stats: Mapping[str, ScoreStats]) -> ReportTable | None:
    """Per score: the group medians, Spearman's rho with the level, Kruskal-Wallis,
    ROC AUC against the negative group and the ranking of groups, as the kind has them."""
    groups = result.ordered_groups()
    header = ["score", *[f"median {(result.group_labels or {}).get(g, g)}" for g in groups]]
    if result.levels:
        header.append("Spearman rho")
    header += ["Kruskal-Wallis H", "p"]
    if result.negative:
        header.append(f"AUC (vs {result.negative})")
    if result.rank:
        header.append("ranking")
    body = []
    for score in result.scores:
        st = stats.get(score)
        if st is None:
            continue
        row = [SCORE_LABELS.get(score, score)]
        row += [number(st.groups[g].median) if g in st.groups else "–" for g in groups]
        if result.levels:
            row.append(number(st.rho))
        row += [number(st.kruskal_h, 2), number(st.kruskal_p)]
        if result.negative:
            row.append(number(st.auc))
        if result.rank:
            row.append(" > ".join(st.ranking))
        body.append(row)
    return ReportTable(header, body) if body else None


def _stats_note(result: EvaluationResult) -> str:
    """What the columns of :func:`_stats_table` are, as the kind has them."""
    parts = ["Medians per group"]
    if result.levels:
        coded = ", ".join(f"{g} {n}" for g, n in sorted(result.levels.items(), key=lambda item: -item[1]))
        parts.append(f"Spearman's rho against the level ({coded})")
    parts.append("Kruskal-Wallis across the groups")
    if result.negative:
        parts.append("ROC AUC of the other groups against the negative one")
    if result.rank:
        parts.append("the groups ranked by their medians")
    return "; ".join(parts) + "."


def _ratings_table(ratings: Sequence[RatingStats]) -> ReportTable:
    header = ["property", "mean (1-5)", "Krippendorff alpha (interval)", "raters", "pairs", "ratings"]
    body = [
        [r.prop, number(r.mean, 2), number(r.alpha), str(r.raters), str(r.pairs), str(r.ratings)]
        for r in ratings
    ]
    return ReportTable(header, body)


def _meta_lines(result: EvaluationResult) -> list[str]:
    n_ok = sum(1 for r in result.rows if not r.get("error"))
    lines = [f"pairs compared: {n_ok} of {len(result.rows)}"]
    for key, value in result.meta.items():
        if key.startswith("_") or isinstance(value, (dict, list)):
            continue
        lines.append(f"{key.replace('_', ' ')}: {number(value, 1) if isinstance(value, float) else value}")
    return lines


@dataclass(frozen=True)
class _TargetView:
    """One analogy-search target as the report shows it: its hits, each with its mapping's view."""

    result: SearchResult
    hits: list[tuple[Hit, MappingView | None]]


def picture_jobs(
    search: Sequence[SearchResult], pictures: int = DEFAULT_PICTURES
) -> dict[tuple[int, int], PictureJob]:
    """The mapping pictures of a search's report, by (target number, hit index):
    the first ``pictures`` hits of each target that carry their comparison and graphs."""
    jobs: dict[tuple[int, int], PictureJob] = {}
    for t, res in enumerate(search, start=1):
        for h, hit in enumerate(res.hits[:pictures]):
            if hit.comparison is None or hit.graphs is None:
                continue
            source, target = hit.graphs
            if source is not None and target is not None:
                jobs[t, h] = PictureJob(
                    source,
                    target,
                    hit.comparison.mapping,
                    tuple(hit.comparison.inferences),
                    prefix=f"t{t}-h{hit.rank}",
                )
    return jobs


def _search_views(
    search: Sequence[SearchResult], pictures: int, pool: PicturePool | None = None
) -> list[_TargetView]:
    """The views of the hits that carry their comparison; the first ``pictures``
    hits of each target with their graphs also get the mapping picture (drawn
    in ``pool``'s workers if given)."""
    jobs = picture_jobs(search, pictures)
    drawn_pictures = dict(zip(jobs, draw_pictures(list(jobs.values()), pool)))
    out = []
    for t, res in enumerate(search, start=1):
        hits: list[tuple[Hit, MappingView | None]] = []
        for h, hit in enumerate(res.hits):
            view = None
            if hit.comparison is not None:
                view = MappingView(
                    hit.comparison, drawn_pictures.get((t, h)), tuple(hit.comparison.inferences)
                )
            hits.append((hit, view))
        out.append(_TargetView(res, hits))
    return out


def _box_plots(result: EvaluationResult, out: Path, title: str) -> list[Path]:
    """The box plots of the structure scores and of the baselines, those with values."""
    return [
        p
        for p in (
            plot_boxes(
                result, result.structure_scores, out / "boxplots.png", f"{title}: structure-based scores"
            ),
            plot_boxes(result, result.baseline_scores, out / "boxplots_baselines.png", f"{title}: baselines"),
        )
        if p is not None
    ]


def _meta_json(result: EvaluationResult, validity: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The result's facts for ``stats.json``, with its statistics against human
    judgements (if any) under ``validity``: ``validity`` when the caller built
    them already (a ranking's are every query's metrics for every score)."""
    if result.validity is None:
        return result.meta
    return {**result.meta, "validity": validity if validity is not None else result.validity.to_dict()}


def _write_stats_json(
    result: EvaluationResult,
    stats: Mapping[str, ScoreStats],
    ratings: Sequence[RatingStats] | None,
    path: Path,
    validity: Mapping[str, Any] | None = None,
) -> Path:
    """``stats.json``: the numbers of the report, for programs (``validity``: see :func:`_meta_json`)."""
    _write(
        path,
        json_text(
            {
                "kind": result.kind,
                "generated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "meta": _meta_json(result, validity),
                "groups": result.ordered_groups(),
                "levels": dict(result.levels) if result.levels else None,
                "pairs": len(result.rows),
                "failed": sum(1 for r in result.rows if r.get("error")),
                "scores": {k: asdict(v) for k, v in stats.items()},
                "ratings": [asdict(r) for r in ratings] if ratings else None,
                # Cut as on the terminal: a 10 MB line of targets.txt was copied whole.
                "problems": [cut_line(p) for p in result.problems],
            },
            ensure_ascii=False,
            default=str,
        ),
    )
    return path


#: The steps of :func:`_write_report_files` that tell their listeners they are done:
#: scores.csv, the box plots, stats.json, summary.md and index.html.
REPORT_STEPS = 5


class _FilesTold:
    """Tells the listeners of :func:`dri.metrics.progress.statistics_progress`
    how many of ``total`` steps of a report are written, at each call: a
    ranking's report of 100,000 rows writes for seconds."""

    def __init__(self, total: int) -> None:
        self.done, self.total = 0, total
        tell_progress(0, total, REPORT_FILES)

    def __call__(self) -> None:
        self.done += 1
        tell_progress(self.done, self.total, REPORT_FILES)


def write_report(
    result: EvaluationResult,
    out_dir: str | Path,
    ratings: Sequence[RatingStats] | None = None,
    sections: Sequence[ReportSection] = (),
    search: Sequence[SearchResult] = (),
    pictures: int = DEFAULT_PICTURES,
    pool: PicturePool | None = None,
    extra_files: Callable[[Path], None] | None = None,
    validity: Mapping[str, Any] | None = None,
) -> ReportFiles:
    """Write the report folder of ``result`` (created if needed); returns its files.

    ``sections`` are the kind's own parts (validity statistics); ``search``
    the ranked hits of an analogy search, whose first ``pictures`` hits per
    target are drawn when they carry their graphs (in ``pool``'s workers if
    given: :mod:`metrics.picture_pool`); ``extra_files(folder)`` writes the
    kind's own files (its plots, ``validity.json``) first; ``validity`` is
    ``result.validity.to_dict()`` when the caller built it already, for
    ``stats.json``. The files appear
    in the folder together when all are written (:func:`dri.staging.files_together`):
    a command stopped part-way leaves the earlier report as it was, and the
    earlier report's files that this one does not write (a plot of scores no
    longer there) are removed.
    """
    out = Path(out_dir)
    told = _FilesTold(REPORT_STEPS + (extra_files is not None))
    with files_together(out, record=REPORT_RECORD) as folder:
        if extra_files is not None:
            extra_files(folder)
            told()
        files = _write_report_files(result, folder, ratings, sections, search, pictures, pool, validity, told)
    return ReportFiles(
        out,
        out / files.scores_csv.name,
        out / files.stats_json.name,
        out / files.summary_md.name,
        out / files.index_html.name,
        tuple(out / plot.name for plot in files.plots),
    )


def _write_report_files(
    result: EvaluationResult,
    out: Path,
    ratings: Sequence[RatingStats] | None,
    sections: Sequence[ReportSection],
    search: Sequence[SearchResult],
    pictures: int,
    pool: PicturePool | None,
    validity: Mapping[str, Any] | None,
    told: Callable[[], None],
) -> ReportFiles:
    stats = result.stats()
    scores_csv = write_scores_csv(result.rows, out / "scores.csv", result.scores)
    told()
    title = result.title or result.kind
    # A search ranks documents per target; box plots and statistics across
    # targets would compare the targets, which means nothing.
    searching = not result.across_groups
    plots = [] if searching else _box_plots(result, out, title)
    told()
    stats_json = _write_stats_json(result, stats, ratings, out / "stats.json", validity)
    told()
    failed = [r for r in result.rows if r.get("error")]
    context = {
        "title": title,
        "meta": _meta_lines(result),
        "stats_table": None if searching else _stats_table(result, stats),
        "stats_note": _stats_note(result),
        "plots": [p.name for p in plots],
        "ratings_table": _ratings_table(ratings) if ratings else None,
        "sections": list(sections),
        "search": list(search),
        "problems": [
            cut_line(line)
            for line in (
                *result.problems,
                # By the names the user gave (a judgement file's line, not the copy's hashed name).
                *pair_failure_lines(
                    (
                        str(r.get("_source_name", r["source"])),
                        str(r.get("_target_name", r["target"])),
                        r["error"],
                    )
                    for r in failed
                ),
            )
        ],
        "scores_csv": True,
    }
    summary_md = out / "summary.md"
    _write(summary_md, render("summary.md", **context))
    told()
    index_html = out / "index.html"
    _write(index_html, render("report.html", **context, targets=_search_views(search, pictures, pool)))
    told()
    return ReportFiles(out, scores_csv, stats_json, summary_md, index_html, tuple(plots))


def find_report(path: str | Path | None, reports_root: Path) -> Path | None:
    """The report folder ``path`` names, or the newest one under ``reports_root``."""
    if path is not None:
        p = Path(path)
        if p.is_file():
            return p.parent if p.name in ("summary.md", "index.html") else None
        return p if (p / "summary.md").is_file() else None
    if not reports_root.is_dir():
        return None
    found: list[tuple[float, Path]] = []
    for folder in reports_root.iterdir():
        try:
            info = (folder / "summary.md").stat()
        except OSError:  # no summary, or a folder this user cannot look into: not a report to show
            continue
        if stat.S_ISREG(info.st_mode):
            found.append((info.st_mtime, folder))
    return max(found, key=lambda pair: pair[0])[1] if found else None


def write_ratings_report(ratings: Sequence[RatingStats], out_dir: str | Path, source: str = "") -> Path:
    """A report folder for the expert ratings alone: ``summary.md``, ``index.html``, ``stats.json``."""
    out = Path(out_dir)
    section = ReportSection(
        "Mean rating per property",
        "Mean rating per property (1 to 5) and Krippendorff's alpha, interval metric, "
        "as in the Dr Inventor paper's expert evaluation." + (f" Ratings: {source}" if source else ""),
        [_ratings_table(ratings)],
    )
    context = {
        "title": "Expert ratings",
        "meta": [],
        "stats_table": None,
        "plots": [],
        "ratings_table": None,
        "sections": [section],
        "search": [],
        "problems": [],
        "scores_csv": False,  # ratings of pairs, not scores: stats.json holds them
    }
    with files_together(out, record=REPORT_RECORD) as folder:
        _write(
            folder / "stats.json",
            json_text({"kind": "ratings", "source": source, "ratings": [asdict(r) for r in ratings]}),
        )
        _write(folder / "summary.md", render("summary.md", **context))
        _write(folder / "index.html", render("report.html", **context, targets=[]))
    return out
