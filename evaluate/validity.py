"""What the human-judgement kinds share: their documents folder and their report section.

The texts of a judgement file are written as documents of a corpus folder
(:func:`dri.corpora.judgements.write_documents`) named by the file and its
content, and go the same way as any corpus; the report adds the kind's
statistics (:mod:`dri.metrics.validity`, :mod:`dri.metrics.ranking`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Literal

from dri import atomic
from dri.evaluate.core import default_report_dir
from dri.files import name_that_fits
from dri.metrics.baselines import BASELINE_NAMES
from dri.metrics.report import json_text, write_report
from dri.metrics.results import EvaluationResult, ReportFiles, ReportSection, ValidityStats
from dri.metrics.scores import COUNT_NAMES, MAPPING_SECONDS, SCORE_NAMES
from dri.settings import data_dir

__all__ = ["OWN_COLUMNS", "Plots", "Sections", "documents_dir", "file_columns", "validity_report"]

log = logging.getLogger(__name__)

#: The columns a report row has of its own (:func:`dri.evaluate.core` rows, the
#: baselines, and the judgement kinds' ``human``, ``query``, ``relevance`` and ``line``).
OWN_COLUMNS = frozenset(
    {
        "pair",
        "group",
        "source",
        "target",
        "error",
        "rank",
        "human",
        "query",
        "relevance",
        "line",
        *SCORE_NAMES,
        *COUNT_NAMES,
        MAPPING_SECONDS,
        *BASELINE_NAMES,
    }
)
#: What a file's own column of one of those names is called in the report.
FILE_PREFIX = "file_"


def _renamed(name: str, taken: set[str]) -> str:
    # In any case: a file's "Source" became the manifest's second "source" column.
    while name.lower() in OWN_COLUMNS or name.startswith("_") or name in taken:
        name = FILE_PREFIX + name.lstrip("_")
    return name


def file_columns(path: Path, rows: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """How each extra column of a judgement file is named in the report: as it is,
    unless the report has a column of that name (a file's ``target`` or
    ``source``, which replaced the report's own, or ``error``, which the report
    replaced), then ``file_`` and the name, with one warning each."""
    names = list(dict.fromkeys(name for row in rows for name in row))
    taken = {n for n in names if n not in OWN_COLUMNS and not n.startswith("_")}
    columns = {}
    for name in names:
        columns[name] = _renamed(name, taken - {name})
        if columns[name] != name:
            taken.add(columns[name])
            log.warning(
                "%s: the column %r is one of the report's own; its values are the report's column %r",
                path,
                name,
                columns[name],
            )
    return columns


def documents_dir(kind: str, path: Path) -> Path:
    """Where a judgement file's texts become documents: named by the file and its content."""
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:10]
    return data_dir() / "validity-corpora" / name_that_fits(f"{kind}-{path.stem}-{digest}")


#: A kind's own report sections from its rows, with its statistics (``result.validity``, ``validity.json``).
Sections = Callable[[EvaluationResult], tuple[list[ReportSection], ValidityStats]]
#: A kind's plots, written to the report folder and added to its first section:
#: ``plots(result, source, folder, sections)``.
Plots = Callable[[EvaluationResult, Path, Path, list[ReportSection]], None]


def validity_report(
    result: EvaluationResult,
    source: Path,
    report_dir: str | Path | Literal[False] | None,
    sections: Sections,
    plots: Plots | None = None,
) -> tuple[EvaluationResult, ReportFiles | None]:
    """The shared report folder plus the kind's ``sections``, its ``plots`` and
    ``validity.json``; ``result.meta["statistics_seconds"]`` says how long the
    kind's statistics took (a bootstrap of 100,000 pairs takes a while)."""
    started = time.perf_counter()
    found, stats = sections(result)
    result.meta["statistics_seconds"] = round(time.perf_counter() - started, 1)
    result.validity = stats
    if report_dir is False:
        return result, None
    out = Path(report_dir or default_report_dir(result.kind, source.with_suffix("")))

    # Built once for validity.json and stats.json: a ranking's are every query's metrics for every score.
    data = stats.to_dict()

    def own_files(folder: Path) -> None:
        if plots is not None:
            plots(result, source, folder, found)
        atomic.write_text(folder / "validity.json", json_text(data, default=str))

    return result, write_report(result, out, sections=found, extra_files=own_files, validity=data)
