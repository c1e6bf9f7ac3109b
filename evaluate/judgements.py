"""Text pairs with a human score: Pearson, Spearman and Kendall with 95% bootstrap
intervals and a scatter plot per score (docs/validity.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.judgements import load_judgements, write_documents
from dri.evaluate.core import Evaluation, RunOptions, evaluate
from dri.evaluate.validity import documents_dir, file_columns, validity_report
from dri.metrics.results import EvaluationResult, ReportFiles, ReportSection, ValidityStats
from dri.metrics.validity import judgement_section, plot_scatter

__all__ = ["evaluate_judgements", "judgements_evaluation"]


def judgements_evaluation(path: str | Path) -> Evaluation:
    """The rated pairs of a CSV (``a,b,score``; :func:`dri.corpora.judgements.load_judgements`).

    The texts are written once each as documents (with the pairs as a
    ``manifest.csv``) so the corpus flow compares them like any corpus; each
    row carries the human score as ``human``.
    """
    data = load_judgements(path)
    folder = documents_dir("judgements", data.path)
    named = file_columns(data.path, (j.extra for j in data.pairs))
    written = write_documents(
        [
            (
                j.a,
                j.b,
                "pairs",
                {**{named[k]: v for k, v in j.extra.items()}, "human": repr(j.score), "line": str(j.line)},
            )
            for j in data.pairs
        ],
        folder,
        data.path,
        [j.line for j in data.pairs],
    )
    return Evaluation(
        "judgements",
        folder,
        written.pairs,
        groups=["pairs"],
        problems=[*data.problems, *written.problems],
        names=written.names,
        meta={"file": str(data.path.resolve()), "rated pairs": len(written.pairs)},
    )


def evaluate_judgements(
    path: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every structure score and baseline against human scores of text pairs.

    Pearson, Spearman and Kendall tau-b with 95% bootstrap intervals
    (:func:`dri.metrics.validity.judgement_section`), a scatter plot per score,
    and the usual report files. Raises :class:`CorpusError` if the file has no
    usable row.
    """
    evaluation = judgements_evaluation(path)
    result = evaluate(evaluation, **options)
    return validity_report(result, Path(path), report_dir, _sections, _plots)


def _sections(result: EvaluationResult) -> tuple[list[ReportSection], ValidityStats]:
    section, stats = judgement_section(result.rows, result.scores, "human")
    return [section], stats


def _plots(result: EvaluationResult, source: Path, out: Path, sections: list[ReportSection]) -> None:
    """A scatter plot of the structure scores and one of the baselines against the human score."""
    title = f"{source.name}: scores against the human score"
    for name, scores in (
        ("scatter.png", result.structure_scores),
        ("scatter_baselines.png", result.baseline_scores),
    ):
        if plot_scatter(result.rows, scores, "human", out / name, title):
            sections[0].images.append(name)
