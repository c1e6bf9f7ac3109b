"""Multiple-choice analogy items: accuracy with a 95% interval, ties counted
wrong, and how often each option type is picked."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.judgements import load_choice, write_documents
from dri.evaluate.core import Evaluation, RunOptions, evaluate
from dri.evaluate.validity import documents_dir, validity_report
from dri.metrics.results import EvaluationResult, ReportFiles, ReportSection, ValidityStats
from dri.metrics.validity import choice_section

__all__ = ["choice_evaluation", "evaluate_choice"]


def choice_evaluation(path: str | Path) -> Evaluation:
    """Every (query, option) pair of a multiple-choice JSONL (:func:`dri.corpora.judgements.load_choice`).

    Each row carries ``item``, ``option``, ``answer`` and ``type``; the group
    is the option's type when the items carry types, else ``answer``/``other``.
    """
    data = load_choice(path)
    folder = documents_dir("choice", data.path)
    rows, lines = [], []
    for item in data.items:
        for k, option in enumerate(item.options):
            kind = item.types[k] if item.types else ("answer" if k == item.answer else "other")
            extra = {"item": item.id, "option": str(k), "answer": str(item.answer), "type": kind}
            if item.group:
                extra["item_group"] = item.group
            rows.append((item.query, option, kind, extra))
            lines.append(item.line)
    written = write_documents(rows, folder, data.path, lines)
    groups = sorted({r[2] for r in rows}, key=lambda g: (g not in ("target", "answer"), g))
    return Evaluation(
        "choice",
        folder,
        written.pairs,
        groups=groups,
        problems=[*data.problems, *written.problems],
        names=written.names,
        meta={"file": str(data.path.resolve()), "items": len(data.items), "options": len(written.pairs)},
    )


def evaluate_choice(
    path: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Multiple-choice accuracy of every structure score and baseline.

    Accuracy with a 95% bootstrap interval, ties for the top counted wrong and
    reported, and how often each option type is picked
    (:func:`dri.metrics.validity.choice_section`).
    """
    evaluation = choice_evaluation(path)
    result = evaluate(evaluation, **options)
    return validity_report(result, Path(path), report_dir, _sections)


def _sections(result: EvaluationResult) -> tuple[list[ReportSection], ValidityStats]:
    section, stats = choice_section(result.rows, result.scores)
    return [section], stats
