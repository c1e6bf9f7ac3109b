"""Round-trip translation (EGPAI 2016, "Machine Translation Evaluation", Figure 7).

Each original against its round trips; the scores should fall for the
weaker languages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.translate import LANGUAGES
from dri.corpora.translation import ORIGINALS, ROUNDTRIP, TranslationCorpus, load_translation
from dri.evaluate.core import Evaluation, RunOptions, require_pairs, run_evaluation
from dri.evaluate.manifest_rows import Layout
from dri.evaluate.manifest_rows import manifest_problems as rows_problems
from dri.metrics.results import EvaluationResult, ReportFiles

__all__ = ["evaluate_translation", "manifest_problems", "translation_evaluation"]

#: What each end of a pair is in a translation corpus.
_PLACES = (
    f"not an original the evaluation compares ({ORIGINALS}/NAME.txt)",
    f"not a round trip the evaluation compares ({ROUNDTRIP}/<lang>/NAME.txt, of an original)",
)


def manifest_problems(corpus: TranslationCorpus) -> list[str]:
    """One line for each text of the layout that is not read (``corpus.unread``)
    and each row of the corpus's own ``manifest.csv`` that is not a pair of its
    layout (:func:`dri.evaluate.manifest_rows.manifest_problems`): a text a row
    names is told once, on its row.

    The evaluation compares the pairs of the layout (``originals/`` against
    ``roundtrip/<lang>/``), and the rows it has no place for were left out
    without a word (a path out of the folder, a link out of it, no such file,
    a folder, a pivot text), where ``dri run --mode manifest`` names each.
    """
    layout = Layout(
        corpus.root,
        corpus.originals.values(),
        corpus.manifest(),
        _PLACES,
        "the language of its round trip",
        "{target} is not a round trip of {source} (roundtrip/<lang>/ holds each under its original's name)",
        corpus.unread_files,
    )
    return rows_problems(layout)


def translation_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every original of a translation corpus against its round trips, by language."""
    corpus = require_pairs(load_translation(corpus_dir), "original/round-trip")
    known = [lang for lang in LANGUAGES if lang in corpus.languages]
    return Evaluation(
        "translation",
        corpus.root,
        corpus.manifest(),
        groups=known + sorted(set(corpus.languages) - set(LANGUAGES)),
        problems=[*corpus.problems, *manifest_problems(corpus)],
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
