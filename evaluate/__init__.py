"""The paper's evaluations end to end, and the checks against human judgement.

Hurley, Abgaz, Ali and O'Donoghue (EGPAI 2016) evaluate Dr Inventor's
structure-based similarity three ways, each reproduced here, one module each:

* :func:`evaluate_plagiarism` (:mod:`.plagiarism`) -- each answer of a
  Clough & Stevenson corpus against its task's original; the scores should
  fall from ``cut`` through ``light`` and ``heavy`` to ``non``;
* :func:`evaluate_translation` (:mod:`.translation`) -- each original against
  its round trips; the scores should fall for the weaker languages;
* :func:`analogy_search` (:mod:`.analogy`) -- a target against every other
  document, ranked by Analogy Similarity, top k with their mappings.

Three more kinds check the scores against human judgement
(docs/validity.md): :func:`evaluate_judgements` (rated text pairs),
:func:`evaluate_ranking` (graded pools of candidates per query) and
:func:`evaluate_choice` (multiple-choice analogy items).

Each is a thin call of one shared path (:mod:`.core`): a kind's loader turns
its input into an :class:`Evaluation`, and :func:`run_evaluation` runs the
corpus flow, reads the scores back from the store, adds the baselines and
writes the report folder.

The kinds are registered in one place, :mod:`.kinds` (an
:class:`~.kinds.EvaluationKind` each: title, headline, report, command-line
options and runner), which ``dri evaluate``, the reports and the docs read;
a new kind is one module here and one entry there.

Each name below is imported from its module on first use (PEP 562), so the
registry can be read without loading Prefect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dri.lazy import lazy_exports

if TYPE_CHECKING:
    from dri.evaluate.analogy import analogy_evaluation, analogy_search, format_search
    from dri.evaluate.choice import choice_evaluation, evaluate_choice
    from dri.evaluate.core import (
        Evaluation,
        Progress,
        RunOptions,
        default_report_dir,
        evaluate,
        headline_order,
        run_evaluation,
    )
    from dri.evaluate.judgements import evaluate_judgements, judgements_evaluation
    from dri.evaluate.kinds import KINDS, EvaluationKind
    from dri.evaluate.plagiarism import evaluate_plagiarism, plagiarism_evaluation
    from dri.evaluate.preload import preload
    from dri.evaluate.ranking import evaluate_ranking, ranking_evaluation
    from dri.evaluate.translation import evaluate_translation, translation_evaluation

_EXPORTS = {
    "analogy_evaluation": ".analogy",
    "analogy_search": ".analogy",
    "format_search": ".analogy",
    "choice_evaluation": ".choice",
    "evaluate_choice": ".choice",
    "Evaluation": ".core",
    "Progress": ".core",
    "RunOptions": ".core",
    "default_report_dir": ".core",
    "evaluate": ".core",
    "headline_order": ".core",
    "run_evaluation": ".core",
    "evaluate_judgements": ".judgements",
    "judgements_evaluation": ".judgements",
    "KINDS": ".kinds",
    "EvaluationKind": ".kinds",
    "evaluate_plagiarism": ".plagiarism",
    "plagiarism_evaluation": ".plagiarism",
    "preload": ".preload",
    "evaluate_ranking": ".ranking",
    "ranking_evaluation": ".ranking",
    "evaluate_translation": ".translation",
    "translation_evaluation": ".translation",
}

__all__ = [
    "KINDS",
    "Evaluation",
    "EvaluationKind",
    "Progress",
    "RunOptions",
    "analogy_evaluation",
    "analogy_search",
    "choice_evaluation",
    "default_report_dir",
    "evaluate",
    "evaluate_choice",
    "evaluate_judgements",
    "evaluate_plagiarism",
    "evaluate_ranking",
    "evaluate_translation",
    "format_search",
    "headline_order",
    "judgements_evaluation",
    "plagiarism_evaluation",
    "preload",
    "ranking_evaluation",
    "run_evaluation",
    "translation_evaluation",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
