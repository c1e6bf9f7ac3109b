"""Plagiarism levels (EGPAI 2016, "Plagiarism Corpus", Figure 8).

Each answer of a Clough & Stevenson corpus against its task's original; the
scores should fall from ``cut`` through ``light`` and ``heavy`` to ``non``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.plagiarism import LEVEL_ORDER, LEVELS, PlagiarismCorpus, load_plagiarism
from dri.evaluate.core import Evaluation, RunOptions, require_pairs, run_evaluation
from dri.evaluate.manifest_rows import Layout
from dri.evaluate.manifest_rows import manifest_problems as rows_problems
from dri.metrics.results import EvaluationResult, ReportFiles

__all__ = ["evaluate_plagiarism", "manifest_problems", "plagiarism_evaluation"]


#: What each end of a pair is in a plagiarism corpus.
_PLACES = (
    "not an original the evaluation compares (Category orig in file_information.csv)",
    "not an answer the evaluation compares (listed in file_information.csv, with its task's original)",
)


def manifest_problems(corpus: PlagiarismCorpus) -> list[str]:
    """One line for each row of the corpus's own ``manifest.csv`` that is not a
    pair of its index (:func:`dri.evaluate.manifest_rows.manifest_problems`):
    the flow compares that file's rows, and the evaluation its index's pairs, so
    such rows were left out without a word."""
    layout = Layout(
        corpus.root,
        corpus.originals.values(),
        corpus.manifest(),
        _PLACES,
        "the level of its answer",
        "{target} is not an answer to {source} (file_information.csv gives each answer's task)",
    )
    return rows_problems(layout)


def plagiarism_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every answer of a Clough & Stevenson corpus against its original, by level."""
    corpus = require_pairs(load_plagiarism(corpus_dir), "answer/original")
    return Evaluation(
        "plagiarism",
        corpus.root,
        corpus.manifest(),
        groups=list(LEVEL_ORDER),
        problems=[*corpus.problems, *manifest_problems(corpus)],
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
