"""Round-trip translation (EGPAI 2016, "Machine Translation Evaluation", Figure 7).

Each original against its round trips; the scores should fall for the
weaker languages.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, Unpack

from dri.corpora.discover import listed_path, outside_link
from dri.corpora.manifest import ManifestPair, read_manifest
from dri.corpora.text import CorpusError
from dri.corpora.translate import LANGUAGES
from dri.corpora.translation import ORIGINALS, ROUNDTRIP, TranslationCorpus, load_translation
from dri.evaluate.core import Evaluation, RunOptions, require_pairs, run_evaluation
from dri.literal import printable
from dri.metrics.results import EvaluationResult, ReportFiles

__all__ = ["evaluate_translation", "manifest_problems", "translation_evaluation"]

#: What each end of a pair is in a translation corpus.
_PLACES = (
    f"not an original the evaluation compares ({ORIGINALS}/NAME.txt)",
    f"not a round trip the evaluation compares ({ROUNDTRIP}/<lang>/NAME.txt, of an original)",
)


def manifest_problems(corpus: TranslationCorpus) -> list[str]:
    """One line for each row of the corpus's own ``manifest.csv`` that is not a
    pair of its layout, naming the file, the line and why, or one line for a
    manifest that cannot be read; none without a manifest.

    The evaluation compares the pairs of the layout (``originals/`` against
    ``roundtrip/<lang>/``), and the rows it has no place for were left out
    without a word (a path out of the folder, a link out of it, no such file,
    a folder, a pivot text), where ``dri run --mode manifest`` names each.
    """
    manifest = corpus.root / "manifest.csv"
    if not os.path.lexists(manifest):
        return []
    try:
        rows = read_manifest(manifest)
    except CorpusError as err:
        return [f"{err}; its rows are not checked against the layout"]
    layout = {(listed_path(p.original), listed_path(p.roundtrip)): p.language for p in corpus.pairs}
    texts = (
        {listed_path(p) for p in corpus.originals.values()},
        {listed_path(p.roundtrip) for p in corpus.pairs},
    )
    problems = []
    for row in rows:
        why = _row_problem(row, corpus.root, layout, texts)
        if why:
            problems.append(f"{printable(manifest)}: line {row.line}: {why}; left out of the evaluation")
    return problems


def _row_problem(
    row: ManifestPair, base: Path, layout: dict[tuple[str, str], str], texts: tuple[set[str], set[str]]
) -> str | None:
    """Why a row of the manifest in ``base`` is no pair of the corpus's layout, or None."""
    ends = (listed_path(row.source), listed_path(row.target))
    if layout.get(ends) == row.group:
        return None
    root = Path(os.path.realpath(base))
    for path, listed, known, place in zip((row.source, row.target), ends, texts, _PLACES, strict=True):
        why = _not_a_text(path, listed, root) or (None if listed in known else place)
        if why:
            return f"{printable(_as_written(path, base))}: {why}"
    if ends in layout:
        return f"its group {printable(row.group)!r} is not the language of its round trip, {layout[ends]}"
    source, target = (printable(_as_written(p, base)) for p in (row.source, row.target))
    return (
        f"{target} is not a round trip of {source} (roundtrip/<lang>/ holds each under its original's name)"
    )


def _not_a_text(path: Path, listed: str, root: Path) -> str | None:
    """Why ``path`` (``listed``: as the flow spells it) is no text of the corpus
    folder ``root`` (resolved): outside it, a link out of it, no such file, a folder."""
    if not Path(listed).is_relative_to(root):
        return "outside the corpus folder"
    if not os.path.exists(path):
        link = f" (a symbolic link to {printable(os.readlink(path))})" if os.path.islink(path) else ""
        return f"no such file{link}"
    refused = outside_link(path, root)
    if refused:
        return refused
    return "a folder, not a text" if os.path.isdir(path) else None


def _as_written(path: Path, base: Path) -> str:
    """``path`` as its manifest row gives it: relative to the manifest's folder ``base``, or absolute."""
    prefix = str(base) + os.sep
    return str(path)[len(prefix) :] if str(path).startswith(prefix) else str(path)


def translation_evaluation(corpus_dir: str | Path) -> Evaluation:
    """Every original of a translation corpus against its round trips, by language."""
    corpus = require_pairs(load_translation(corpus_dir), "original/round-trip")
    known = [lang for lang in LANGUAGES if lang in corpus.languages]
    return Evaluation(
        "translation",
        corpus.root,
        corpus.manifest(),
        groups=known + sorted(set(corpus.languages) - set(LANGUAGES)),
        problems=[*corpus.problems, *corpus.unread, *manifest_problems(corpus)],
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
