"""Agreement of scores with human judgements, with 95% bootstrap intervals.

Two kinds of human data check whether a score measures what it claims:

* **judgements**: pairs of texts with a human score (STS-B similarity,
  WMT MQM quality, plagiarism level). :func:`correlations` gives Pearson's r,
  Spearman's rho and Kendall's tau-b (Kendall 1945, ties corrected) of a score
  against the human score;
* **choice**: multiple-choice analogy items (StoryAnalogy, AnaloBench), one
  query and several options of which one is the analogy. :func:`choice_accuracy`
  picks the option a score rates highest; a tie for the top counts as wrong
  (a score that cannot tell the options apart has not chosen), and the ties
  are counted separately. When the options carry types (``target``, ``noun``,
  ``random``), it reports how often each type is picked.

Intervals are percentile bootstrap intervals (Efron and Tibshirani 1993,
ch. 13): the items (pairs or questions) are resampled with replacement
``n_boot`` times with a fixed seed, so a report is reproducible, and the
statistic is recomputed on each resample. :func:`plagiarism_stats` gives the
paper's plagiarism statistics, Spearman's rho with the level and the ROC AUC
of plagiarised against non-plagiarised answers, with intervals from the same
resampling of pairs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "ChoiceResult",
    "Estimate",
    "bootstrap",
    "choice_accuracy",
    "correlations",
    "plagiarism_stats",
]

#: Bootstrap resamples and seed used unless the caller says otherwise.
N_BOOT = 1000
SEED = 12345


@dataclass(frozen=True)
class Estimate:
    """A statistic with its 95% percentile bootstrap interval (NaN when undefined)."""

    value: float
    low: float
    high: float
    n: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def format(self, digits: int = 3) -> str:
        if math.isnan(self.value):
            return "n/a"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def bootstrap(
    statistic: Callable[[np.ndarray], float],
    n: int,
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> Estimate:
    """``statistic(indices)`` on all ``n`` items and its 95% percentile interval.

    ``statistic`` receives an index array (all items, then each resample) and
    returns a float; NaN results of degenerate resamples are left out.
    """
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    value = float(statistic(np.arange(n)))
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(rng.integers(0, n, n)) for _ in range(n_boot)], dtype=float)
    draws = draws[~np.isnan(draws)]
    if math.isnan(value) or not draws.size:
        return Estimate(value, math.nan, math.nan, n)
    low, high = np.percentile(draws, [2.5, 97.5])
    return Estimate(value, float(low), float(high), n)


def _finite(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return float(np.corrcoef(a, b)[0, 1])


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import rankdata

    return _pearson(rankdata(a), rankdata(b))


def _kendall(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import kendalltau

    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return float(kendalltau(a, b, variant="b").statistic)


CORRELATIONS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "pearson": _pearson,
    "spearman": _spearman,
    "kendall": _kendall,
}


def correlations(
    score: Sequence[float],
    human: Sequence[float],
    *,
    which: Sequence[str] = ("pearson", "spearman", "kendall"),
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> dict[str, Estimate]:
    """Pearson, Spearman and Kendall tau-b of ``score`` against ``human``, with intervals.

    Pairs where either value is NaN are left out (``n`` says how many remain).
    """
    a, b = _finite(score, human)
    return {
        name: bootstrap(lambda idx, f=CORRELATIONS[name]: f(a[idx], b[idx]), a.size, n_boot=n_boot, seed=seed)
        for name in which
    }


@dataclass
class ChoiceResult:
    """Accuracy of one score on multiple-choice items."""

    accuracy: Estimate
    correct: int
    ties: int  # items whose top score is shared by two or more options (counted wrong)
    unscored: int  # items where no option has a score (counted wrong)
    picks: dict[str, int] = field(default_factory=dict)  # option type -> times picked (ties excluded)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "accuracy": self.accuracy.to_dict()}


def _pick(scores: Sequence[float]) -> int | None:
    """The index of the single highest finite score, or None (tie or nothing scored)."""
    arr = np.asarray(scores, dtype=float)
    if not arr.size or not np.isfinite(arr).any():
        return None
    arr = np.where(np.isfinite(arr), arr, -np.inf)
    best = arr.max()
    top = np.flatnonzero(arr == best)
    return int(top[0]) if top.size == 1 else None


def choice_accuracy(
    option_scores: Sequence[Sequence[float]],
    answers: Sequence[int],
    option_types: Sequence[Sequence[str]] | None = None,
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> ChoiceResult:
    """Share of items whose single best-scored option is the answer; ties are wrong."""
    picks = [_pick(s) for s in option_scores]
    correct = np.array([p is not None and p == a for p, a in zip(picks, answers)], dtype=float)
    ties = sum(
        1 for p, s in zip(picks, option_scores) if p is None and np.isfinite(np.asarray(s, dtype=float)).any()
    )
    unscored = sum(1 for s in option_scores if not np.isfinite(np.asarray(s, dtype=float)).any())
    counts: Counter[str] = Counter()
    if option_types is not None:
        for p, types in zip(picks, option_types):
            if p is not None and p < len(types):
                counts[str(types[p])] += 1
    accuracy = bootstrap(lambda idx: float(correct[idx].mean()), correct.size, n_boot=n_boot, seed=seed)
    return ChoiceResult(accuracy, int(correct.sum()), ties, unscored, dict(sorted(counts.items())))


def plagiarism_stats(
    score: Sequence[float],
    levels: Sequence[str],
    codes: Mapping[str, int],
    negative: str,
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> dict[str, Estimate]:
    """Spearman's rho with the coded level and ROC AUC of the other levels against ``negative``."""
    a = np.asarray(score, dtype=float)
    lv = np.asarray([codes.get(g, math.nan) for g in levels], dtype=float)
    neg = np.asarray([g == negative for g in levels])
    keep = np.isfinite(a) & np.isfinite(lv)
    a, lv, neg = a[keep], lv[keep], neg[keep]

    def auc(idx: np.ndarray) -> float:
        pos, ng = a[idx][~neg[idx]], a[idx][neg[idx]]
        if not pos.size or not ng.size:
            return math.nan
        wins = (pos[:, None] > ng[None, :]).sum() + 0.5 * (pos[:, None] == ng[None, :]).sum()
        return float(wins / (pos.size * ng.size))

    return {
        "spearman": bootstrap(lambda idx: _spearman(a[idx], lv[idx]), a.size, n_boot=n_boot, seed=seed),
        "auc": bootstrap(auc, a.size, n_boot=n_boot, seed=seed),
    }
