"""Round-trip translation (EGPAI 2016, "Machine Translation Evaluation", Figure 7).

Each original against its round trips; the scores should fall for the
weaker languages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.translate import LANGUAGES
from dri.corpora.translation import load_translation
from dri.evaluate.core import Evaluation, RunOptions, require_pairs, run_evaluation
from dri.metrics.results import EvaluationResult, ReportFiles

__all__ = ["evaluate_translation", "translation_evaluation"]


def translation_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every original of a translation corpus against its round trips, by language."""
    corpus = require_pairs(load_translation(corpus_dir), "original/round-trip")
    known = [lang for lang in LANGUAGES if lang in corpus.languages]
    return Evaluation(
        "translation",
        corpus.root,
        corpus.manifest(),
        groups=known + sorted(set(corpus.languages) - set(LANGUAGES)),
        problems=list(corpus.problems),
        group_key="language",
        report={"rank": True, "group_labels": dict(LANGUAGES.items())},
        meta={"originals": len(corpus.originals)},
    )


def evaluate_translation(
    corpus_dir: str | Path,
    report_dir: str | Path | Literal[False] | None = None,
    **options: Unpack[RunOptions],
) -> tuple[EvaluationResult, ReportFiles | None]:
    """Every original of a translation corpus against each of its round trips
    (:func:`translation_evaluation`, :func:`run_evaluation`)."""
    return run_evaluation(translation_evaluation(corpus_dir), report_dir, **options)
