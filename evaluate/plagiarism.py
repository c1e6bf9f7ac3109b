"""Plagiarism levels (EGPAI 2016, "Plagiarism Corpus", Figure 8).

Each answer of a Clough & Stevenson corpus against its task's original; the
scores should fall from ``cut`` through ``light`` and ``heavy`` to ``non``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.plagiarism import LEVEL_ORDER, LEVELS, load_plagiarism
from dri.evaluate.core import Evaluation, RunOptions, require_pairs, run_evaluation
from dri.metrics.results import EvaluationResult, ReportFiles

__all__ = ["evaluate_plagiarism", "plagiarism_evaluation"]


def plagiarism_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every answer of a Clough & Stevenson corpus against its original, by level."""
    corpus = require_pairs(load_plagiarism(corpus_dir), "answer/original")
    return Evaluation(
        "plagiarism",
        corpus.root,
        corpus.manifest(),
        groups=list(LEVEL_ORDER),
        problems=list(corpus.problems),
        group_key="level",
        source_group="orig",
        report={"levels": LEVELS, "negative": "non"},
    )


def evaluate_plagiarism(
    corpus_dir: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every answer of a Clough & Stevenson corpus against its original
    (:func:`plagiarism_evaluation`, :func:`run_evaluation`). Raises
    :class:`CorpusError` if the corpus cannot be read at all."""
    return run_evaluation(plagiarism_evaluation(corpus_dir), report_dir, **options)
