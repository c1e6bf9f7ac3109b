"""The evaluation kinds, each declared once: what ``dri evaluate``, the
reports and the docs know of it.

An :class:`EvaluationKind` names the kind's module in this package and its
runner there (``evaluate_<kind>``, which loads the input with the kind's
loader and runs the shared path of :mod:`.core`), its report title, its
headline score, whether its report has statistics across groups, how
``dri evaluate`` prints its numbers, and its own command-line options. A new
kind is one new module here and one entry in :data:`KINDS`.

This module imports nothing heavy: the command line reads it to build its
parser, before Prefect may be imported; a runner is imported when called.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dri.literal import printable, whole_number

__all__ = ["KINDS", "Argument", "EvaluationKind", "kind", "positive"]


@dataclass(frozen=True)
class Argument:
    """A command-line option of one kind: ``parser.add_argument(*flags, **options)``."""

    flags: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvaluationKind:
    """One kind of evaluation.

    ``loader`` is the function of ``dri.evaluate.<module>`` that turns the
    input into an :class:`~dri.evaluate.core.Evaluation` (for a bench or a
    test that runs only part of the path); ``runner`` the one that runs it, with
    the input as its first argument and ``report_dir`` and the keyword
    ``options`` the command line passes on (argument names). ``similarity``
    kinds judge similarity, so their reports show a similarity headline
    first (:data:`~dri.evaluate.core.SIMILARITY_HEADLINES`: the combined
    similarity, the content or the query's coverage); the others keep the
    structure-led Analogy Similarity first.
    ``across_groups`` is False when the groups are search targets, whose
    statistics would compare the targets. ``console`` is how ``dri
    evaluate`` prints the numbers: medians per group, correlations with the
    human score, ranking quality, choice accuracy, or the ranked hits. ``search_options`` adds the two-stage
    search options (``--candidates``, ``--exhaustive``).
    """

    name: str
    title: str
    summary: str
    module: str
    loader: str
    runner: str
    input: Literal["CORPUS_DIR", "FILE"] = "CORPUS_DIR"
    similarity: bool = True
    across_groups: bool = True
    console: Literal["groups", "correlations", "ranking", "accuracy", "search"] = "groups"
    options: tuple[str, ...] = ()
    arguments: tuple[Argument, ...] = ()
    group: str = ""
    search_options: bool = False

    def run_function(self) -> Callable[..., Any]:
        """The runner, imported now (it loads Prefect)."""
        runner: Callable[..., Any] = getattr(
            importlib.import_module(f"dri.evaluate.{self.module}"), self.runner
        )
        return runner


def _csv_list(text: str) -> list[str]:
    # An empty list ("", ",,": a shell variable that was not set) was the
    # default, silently: --languages "" built all five languages, --sections ""
    # compared whole documents (dri run --sections '' is a usage error too).
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r:.40} names nothing; give names separated by commas")
    return names


def _language_list(text: str) -> list[str]:
    # A language names the built corpus's folders: "../x" wrote outside it, a
    # line break made a folder (and a report group) of two lines.
    from dri.corpora.translate import language_problem

    # Codes in lower case: "SPA" beside "spa" built and scored one language twice.
    names = [name.lower() for name in _csv_list(text)]
    for name in names:
        problem = language_problem(name)
        if problem:
            raise argparse.ArgumentTypeError(f"{name!r:.60}: {problem}")
    # A code given twice is built once ("spa,cat" 25 times ran 50 round trips into 2 folders).
    return list(dict.fromkeys(names))


def _http_url(text: str) -> str:
    # A URL urllib cannot send to ("not a url", "localhost:5000") raised
    # ValueError at the first text to translate: exit 70 after the corpus was read.
    from dri.corpora.translate import shown_url, url_problem

    problem = url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{shown_url(text)!r}: {problem} (e.g. http://localhost:5000)")
    return text


def positive(text: str) -> int:
    """An option's whole number of at least 1 (argparse's ``type``), in ASCII digits
    (:func:`~dri.literal.whole_number`): ``-k 0`` reported nothing and ``-k -1`` all
    but the last (a slice), both with exit 0."""
    value = whole_number(text)
    if value is None:
        shown = printable(text if len(text) <= 40 else f"{text[:40]}…")
        raise argparse.ArgumentTypeError(f"must be a whole number, not {shown!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


KINDS: dict[str, EvaluationKind] = {
    k.name: k
    for k in (
        EvaluationKind(
            "plagiarism",
            "Plagiarism evaluation",
            "each answer of a Clough & Stevenson corpus against its task's original, "
            "grouped by level (cut, light, heavy, non)",
            "plagiarism",
            "plagiarism_evaluation",
            "evaluate_plagiarism",
        ),
        EvaluationKind(
            "translation",
            "Round-trip translation evaluation",
            "each original of a translation corpus against its round trips, grouped by language",
            "translation",
            "translation_evaluation",
            "evaluate_translation",
            group="translation",
            arguments=(
                Argument(
                    ("--build-from",),
                    {
                        "type": Path,
                        "metavar": "TEXTS",
                        "help": "first build CORPUS_DIR from this folder of English .txt files",
                    },
                ),
                Argument(
                    ("--languages",),
                    {
                        "type": _language_list,
                        "metavar": "L1,L2",
                        "help": "pivot languages for --build-from (default: spa,cat,glg,epo,hbs)",
                    },
                ),
                Argument(
                    ("--libretranslate",),
                    {
                        "type": _http_url,
                        "metavar": "URL",
                        "help": "use a LibreTranslate server instead of Apertium",
                    },
                ),
                Argument(("--api-key",), {"help": "LibreTranslate API key"}),
            ),
        ),
        EvaluationKind(
            "analogy",
            "Analogy search",
            "each target against the other documents, top k by Analogy Similarity with their mappings",
            "analogy",
            "analogy_evaluation",
            "analogy_search",
            similarity=False,
            across_groups=False,
            console="search",
            options=("target", "k", "sections", "candidates", "exhaustive", "far"),
            group="analogy",
            search_options=True,
            arguments=(
                Argument(
                    ("--target",),
                    {
                        "action": "append",
                        "metavar": "NAME",
                        "help": "target document, by file name or doc id (default: targets.txt)",
                    },
                ),
                Argument(
                    ("-k",),
                    {
                        "type": positive,
                        "default": 5,
                        "help": "how many sources to report per target (default 5)",
                    },
                ),
                Argument(
                    ("--sections",),
                    {
                        "type": _csv_list,
                        "metavar": "S1,S2",
                        "help": "compare only these sections, e.g. abstract,background (default: sections.txt)",
                    },
                ),
                Argument(
                    ("--far",),
                    {
                        "action": "store_true",
                        "help": "far analogies: rank by AS only the sources about other things than the "
                        "target (content similarity under the threshold of docs/mapping.md)",
                    },
                ),
            ),
        ),
        EvaluationKind(
            "judgements",
            "Scores against human judgements",
            "text pairs with a human score: Pearson, Spearman and Kendall with 95% intervals",
            "judgements",
            "judgements_evaluation",
            "evaluate_judgements",
            input="FILE",
            console="correlations",
        ),
        EvaluationKind(
            "ranking",
            "Ranking against graded relevance",
            "search pools with graded relevance: NDCG%20, NDCG@10 and MAP per query",
            "ranking",
            "ranking_evaluation",
            "evaluate_ranking",
            input="FILE",
            console="ranking",
        ),
        EvaluationKind(
            "choice",
            "Multiple-choice analogies",
            "multiple-choice analogy items: accuracy with a 95% interval, ties counted wrong",
            "choice",
            "choice_evaluation",
            "evaluate_choice",
            input="FILE",
            similarity=False,
            console="accuracy",
        ),
    )
}


def kind(name: str) -> EvaluationKind:
    """The kind called ``name``; :class:`KeyError` naming the known kinds if there is none."""
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"no evaluation kind {name!r}; known: {', '.join(KINDS)}") from None
