"""What the human-judgement kinds share: their documents folder and their report section.

The texts of a judgement file are written as documents of a corpus folder
(:func:`dri.corpora.judgements.write_documents`) named by the file and its
content, and go the same way as any corpus; the report adds the kind's
statistics (:mod:`dri.metrics.validity`, :mod:`dri.metrics.ranking`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from dri.evaluate.core import (
    default_report_dir,
)
from dri.metrics.ranking import RankingResult, plot_ranking, rank_pools, ranking_section
from dri.metrics.report import write_report
from dri.metrics.results import EvaluationResult, ReportFiles
from dri.metrics.validity import choice_section, judgement_section, plot_scatter
from dri.settings import data_dir

__all__ = ["documents_dir", "validity_report"]


def documents_dir(kind: str, path: Path) -> Path:
    """Where a judgement file's texts become documents: named by the file and its content."""
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:10]
    return data_dir() / "validity-corpora" / f"{kind}-{path.stem}-{digest}"


def validity_report(
    result: EvaluationResult, source: Path, report_dir: str | Path | Literal[False] | None
) -> tuple[EvaluationResult, ReportFiles | None]:
    """The shared report folder plus the validity section, its plots and ``validity.json``."""
    if result.kind == "judgements":
        section, stats = judgement_section(result.rows, result.scores, "human")
        sections = [section]
    elif result.kind == "ranking":
        ranking = rank_pools(result.rows, result.structure_scores, result.baseline_scores)
        result.validity = ranking
        sections, stats = ranking_section(ranking), ranking.to_dict()
    else:
        section, stats = choice_section(result.rows, result.scores)
        sections = [section]
    result.meta["validity"] = stats
    if report_dir is False:
        return result, None
    out = Path(report_dir or default_report_dir(result.kind, source.with_suffix("")))
    out.mkdir(parents=True, exist_ok=True)
    if result.kind == "judgements":
        title = f"{source.name}: scores against the human score"
        for name, scores in (
            ("scatter.png", result.structure_scores),
            ("scatter_baselines.png", result.baseline_scores),
        ):
            if plot_scatter(result.rows, scores, "human", out / name, title):
                sections[0].images.append(name)
    if isinstance(result.validity, RankingResult) and plot_ranking(
        result.validity, out / "ranking.png", f"{source.name}: ranking quality per score"
    ):
        sections[0].images.append("ranking.png")
    (out / "validity.json").write_text(json.dumps(stats, indent=1, default=str), encoding="utf-8")
    return result, write_report(result, out, sections=sections)
