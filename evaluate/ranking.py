"""Queries with pools of candidates judged for graded relevance: NDCG%20, NDCG@10
and MAP per query and their means with 95% intervals (:mod:`dri.metrics.ranking`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.judgements import load_ranking, write_documents
from dri.evaluate.core import Evaluation, RunOptions, evaluate
from dri.evaluate.validity import documents_dir, file_columns, validity_report
from dri.metrics.ranking import RankingResult, plot_ranking, rank_pools, ranking_section
from dri.metrics.results import EvaluationResult, ReportFiles, ReportSection, ValidityStats

__all__ = ["evaluate_ranking", "ranking_evaluation"]


def _grade(relevance: float) -> str:
    return f"{relevance:g}"


def ranking_evaluation(path: str | Path) -> Evaluation:
    """Every (query, candidate) pair of a ranking CSV (:func:`dri.corpora.judgements.load_ranking`).

    Each row carries ``query`` (the query's key: with ``/facet`` when the file
    has facets) and ``relevance``; the group is the relevance grade, so the
    shared report shows each score per grade, with Spearman's rho against
    whole-number grades and the ROC AUC of the relevant grades against the
    lowest.
    """
    data = load_ranking(path)
    folder = documents_dir("ranking", data.path)
    # The file's query cell is the row's query key (with its facet), not an extra column.
    extras = [{k: v for k, v in p.extra.items() if k != "query"} for p in data.pairs]
    named = file_columns(data.path, extras)
    written = write_documents(
        [
            (
                p.a,
                p.b,
                _grade(p.score),
                {
                    **{named[k]: v for k, v in extra.items()},
                    "query": p.query,
                    "relevance": repr(p.score),
                    "line": str(p.line),
                },
            )
            for p, extra in zip(data.pairs, extras, strict=True)
        ],
        folder,
        data.path,
        [p.line for p in data.pairs],
    )
    grades = sorted({p.score for p in data.pairs}, reverse=True)
    whole = all(g == int(g) for g in grades)
    return Evaluation(
        "ranking",
        folder,
        written.pairs,
        groups=[_grade(g) for g in grades],
        problems=[*data.problems, *written.problems],
        names=written.names,
        report={
            "levels": {_grade(g): int(g) for g in grades} if whole and len(grades) > 1 else None,
            "negative": _grade(grades[-1]) if len(grades) > 1 else None,
        },
        meta={
            "file": str(data.path.resolve()),
            "queries": len(data.queries),
            "candidates": len(written.pairs),
        },
    )


def evaluate_ranking(
    path: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """How well every structure score and baseline ranks each query's pool.

    Per query and as means over the queries with 95% bootstrap intervals:
    NDCG%20, NDCG@10 and MAP, ties ranked worst-first
    (:func:`dri.metrics.ranking.rank_pools`; ``result.validity`` holds the
    :class:`~dri.metrics.ranking.RankingResult`), a plot of both, and the
    usual report files. Raises :class:`CorpusError` if the file has no query
    with two usable candidates.
    """
    evaluation = ranking_evaluation(path)
    result = evaluate(evaluation, **options)
    return validity_report(result, Path(path), report_dir, _sections, _plots)


def _sections(result: EvaluationResult) -> tuple[list[ReportSection], ValidityStats]:
    ranking = rank_pools(result.rows, result.structure_scores, result.baseline_scores)
    return ranking_section(ranking), ranking


def _plots(result: EvaluationResult, source: Path, out: Path, sections: list[ReportSection]) -> None:
    """NDCG and MAP per score, as a plot."""
    if isinstance(result.validity, RankingResult) and plot_ranking(
        result.validity, out / "ranking.png", f"{source.name}: ranking quality per score"
    ):
        sections[0].images.append("ranking.png")
