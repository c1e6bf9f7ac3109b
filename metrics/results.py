"""What an evaluation produces: its rows and statistics, its report files, its search hits.

The data model of :mod:`dri.metrics.report` (which writes it as a report
folder) and of :mod:`dri.evaluate` (which fills it): an
:class:`EvaluationResult` per evaluation, the :class:`ReportFiles` written for
it, the :class:`ReportSection` objects a kind adds to its report (tables of
strings, rendered as HTML and Markdown by the report's templates) and, for an
analogy search, a :class:`SearchResult` of ranked :class:`Hit` objects per
target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import networkx as nx

from dri.mapping.inference import CandidateInference
from dri.metrics.scores import SCORE_NAMES, Comparison
from dri.metrics.stats import ScoreStats, score_stats

__all__ = [
    "STRUCTURE_SCORES",
    "EvaluationResult",
    "Hit",
    "ReportFiles",
    "ReportSection",
    "ReportTable",
    "SearchResult",
    "ValidityStats",
]

#: The structure scores of a report, in the order its columns and plots show them.
STRUCTURE_SCORES = SCORE_NAMES


class ValidityStats(Protocol):
    """A kind's statistics against human judgements (correlations, choice
    accuracy, ranking quality), as its result carries them."""

    def to_dict(self) -> dict[str, Any]:
        """The statistics as JSON data (``validity.json``, ``stats.json``'s meta)."""
        ...


@dataclass
class EvaluationResult:
    """The pairs of one evaluation and how to read them.

    ``rows`` are dicts with at least ``source``, ``target`` and ``group`` and a
    float per score (NaN or missing when the pair failed, with ``error``).
    ``groups`` fixes the order of the boxes; ``levels`` codes groups for
    Spearman's rho; ``negative`` is the group tested against for AUC;
    ``rank`` ranks the groups by median (languages). ``title`` heads the
    report (the kind's name if empty); ``across_groups`` is False when the
    groups are search targets, whose statistics would compare the targets
    (no box plots, no statistics table). ``validity`` holds the
    statistics of a kind judged against human judgements
    (:class:`ValidityStats`: ``JudgementStats``, ``ChoiceStats``,
    ``RankingResult``), or None.
    """

    kind: str
    rows: list[dict[str, Any]]
    groups: list[str] | None = None
    levels: Mapping[str, int] | None = None
    negative: str | None = None
    rank: bool = False
    structure_scores: tuple[str, ...] = STRUCTURE_SCORES
    baseline_scores: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    group_labels: Mapping[str, str] | None = None
    validity: ValidityStats | None = None
    title: str = ""
    across_groups: bool = True

    @property
    def scores(self) -> tuple[str, ...]:
        return tuple(self.structure_scores) + tuple(self.baseline_scores)

    def ordered_groups(self) -> list[str]:
        seen = list(dict.fromkeys(str(r["group"]) for r in self.rows))
        order = [g for g in (self.groups or []) if g in seen]
        return order + [g for g in seen if g not in order]

    def values(self, score: str) -> tuple[list[float], list[str]]:
        """``(values, groups)`` of one score over the pairs that have it."""
        vals, grps = [], []
        for r in self.rows:
            v = r.get(score)
            if v is None or v == "" or (isinstance(v, float) and math.isnan(v)):
                continue
            vals.append(float(v))
            grps.append(str(r["group"]))
        return vals, grps

    def stats(self) -> dict[str, ScoreStats]:
        out = {}
        for score in self.scores:
            vals, grps = self.values(score)
            if vals:
                out[score] = score_stats(
                    score, vals, grps, levels=self.levels, negative=self.negative, rank=self.rank
                )
        return out


@dataclass(frozen=True)
class ReportFiles:
    folder: Path
    scores_csv: Path
    stats_json: Path
    summary_md: Path
    index_html: Path
    plots: tuple[Path, ...]


@dataclass(frozen=True)
class ReportTable:
    """A table of a report section: column names and rows of display strings."""

    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class ReportSection:
    """A titled part of a report: a paragraph, tables, and plots (file names in the report folder)."""

    title: str
    text: str = ""
    tables: list[ReportTable] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


@dataclass
class Hit:
    """One source document found for a target, with the mapping that scored it.

    ``comparison`` and ``graphs`` (source, target), when set, are the full
    mapping and the two graphs it maps: the report draws them.
    """

    rank: int
    source: Path
    scores: dict[str, float]
    mapping: list[tuple[str, str, str, str | None]]  # (kind, source lemma, target lemma, generic)
    error: str = ""
    comparison: Comparison | None = None
    graphs: tuple[nx.DiGraph, nx.DiGraph] | None = None
    #: What the source suggests about the target, best support first (``mapping.inference``).
    inferences: list[CandidateInference] = field(default_factory=list)


@dataclass
class SearchResult:
    """The ranked sources of one analogy-search target."""

    target: Path
    hits: list[Hit]
    compared: int
    sections: tuple[str, ...] | None
    #: ``(source, error)`` of each pair that could not be compared (a bad file, a failed mapping).
    failures: tuple[tuple[str, str], ...] = ()
    #: The search's lines about its corpus, the same for every target (a line of
    #: ``targets.txt`` that names no document, left out).
    problems: tuple[str, ...] = ()
