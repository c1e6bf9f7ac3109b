"""What the human-judgement kinds share: their documents folder and their report section.

The texts of a judgement file are written as documents of a corpus folder
(:func:`dri.corpora.judgements.write_documents`) named by the file and its
content, and go the same way as any corpus; the report adds the kind's
statistics (:mod:`dri.metrics.validity`, :mod:`dri.metrics.ranking`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from dri import atomic
from dri.evaluate.core import default_report_dir
from dri.metrics.report import json_text, write_report
from dri.metrics.results import EvaluationResult, ReportFiles, ReportSection, ValidityStats
from dri.settings import data_dir

__all__ = ["Plots", "Sections", "documents_dir", "validity_report"]


def documents_dir(kind: str, path: Path) -> Path:
    """Where a judgement file's texts become documents: named by the file and its content."""
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:10]
    return data_dir() / "validity-corpora" / f"{kind}-{path.stem}-{digest}"


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
    """The shared report folder plus the kind's ``sections``, its ``plots`` and ``validity.json``."""
    found, stats = sections(result)
    result.validity = stats
    if report_dir is False:
        return result, None
    out = Path(report_dir or default_report_dir(result.kind, source.with_suffix("")))
    out.mkdir(parents=True, exist_ok=True)
    if plots is not None:
        plots(result, source, out, found)
    atomic.write_text(out / "validity.json", json_text(stats.to_dict(), default=str))
    return result, write_report(result, out, sections=found)
