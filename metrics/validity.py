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
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from dri.metrics.progress import tell_progress
from dri.metrics.report import save_panel_grid
from dri.metrics.results import ReportSection, ReportTable
from dri.metrics.stats import average_ranks, kendall_tau_b, tau_b_of_counts, tau_b_of_sorted

__all__ = [
    "ChoiceResult",
    "ChoiceStats",
    "Estimate",
    "JudgementStats",
    "bootstrap",
    "bootstrap_many",
    "choice_accuracy",
    "choice_section",
    "correlations",
    "judgement_section",
    "plagiarism_stats",
    "plot_scatter",
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
    return bootstrap_many({0: statistic}, n, n_boot=n_boot, seed=seed)[0]


K = TypeVar("K", bound=Hashable)

#: What :func:`bootstrap_many` tells its listeners it counts.
RESAMPLES = "bootstrap resamples"
#: How many resamples a bootstrap draws between two reports to the listeners.
REPORT_EVERY = 10


def bootstrap_many(
    statistics: Mapping[K, Callable[[np.ndarray], float]],
    n: int,
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> dict[K, Estimate]:
    """:func:`bootstrap` of each of ``statistics`` over the same ``n`` items,
    each resample drawn once and given to every statistic in turn: the
    estimates are those of one :func:`bootstrap` per statistic, number for
    number (the same seed draws the same resamples), without drawing them
    again for each. Listeners of :func:`dri.metrics.progress.statistics_progress` hear how far it is."""
    if n == 0:
        return {key: Estimate(math.nan, math.nan, math.nan, 0) for key in statistics}
    everything = np.arange(n)
    values = {key: float(statistic(everything)) for key, statistic in statistics.items()}
    rng = np.random.default_rng(seed)
    draws = np.empty((len(statistics), n_boot), dtype=float)
    tell_progress(0, n_boot, RESAMPLES)
    for i in range(n_boot):
        idx = rng.integers(0, n, n)
        for j, statistic in enumerate(statistics.values()):
            draws[j, i] = statistic(idx)
        if (i + 1) % REPORT_EVERY == 0 or i + 1 == n_boot:
            tell_progress(i + 1, n_boot, RESAMPLES)
    return {key: _estimate(values[key], row, n) for key, row in zip(statistics, draws)}


def _estimate(value: float, draws: np.ndarray, n: int) -> Estimate:
    draws = draws[~np.isnan(draws)]
    if math.isnan(value) or not draws.size:
        return Estimate(value, math.nan, math.nan, n)
    low, high = np.percentile(draws, [2.5, 97.5])
    return Estimate(value, float(low), float(high), n)


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return float(np.corrcoef(a, b)[0, 1])


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    return _pearson(average_ranks(a), average_ranks(b))


def _kendall(a: np.ndarray, b: np.ndarray) -> float:
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return kendall_tau_b(a, b)


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
    keep = _both_finite(score, human)
    a, b = np.asarray(score, dtype=float)[keep], np.asarray(human, dtype=float)[keep]
    statistics = _correlation_statistics(a, b, _Coded(b), which, _Shared())
    return bootstrap_many(statistics, a.size, n_boot=n_boot, seed=seed)


def _both_finite(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> np.ndarray:
    both: np.ndarray = np.isfinite(np.asarray(x, dtype=float)) & np.isfinite(np.asarray(y, dtype=float))
    return both


class _Coded:
    """Values coded for ranking resamples of them without sorting each: equal
    values share a code, and the codes (from 1) keep the values' order."""

    def __init__(self, values: np.ndarray) -> None:
        distinct, inverse = np.unique(values, return_inverse=True)
        self.codes = inverse.reshape(-1).astype(np.intp) + 1
        self.levels = int(distinct.size)

    def ranks(self, idx: np.ndarray) -> np.ndarray:
        """``average_ranks(values[idx])``, float for float: a tie group's rank is
        half of (its end + its start + 1), the same whole numbers and the same
        product, its start and end counted from the codes instead of sorted."""
        codes = self.codes[idx]
        count = np.bincount(codes, minlength=self.levels + 1)
        ends = np.cumsum(count)
        ranks: np.ndarray = (0.5 * (ends + (ends - count) + 1))[codes]
        return ranks


class _Shared:
    """What the statistics of one resample share (the human score's ranks, the
    count of each item), computed once for it: by the index array itself."""

    def __init__(self) -> None:
        self._idx: np.ndarray | None = None
        self._memo: dict[Hashable, Any] = {}

    def get(self, idx: np.ndarray, key: Hashable, compute: Callable[[], Any]) -> Any:
        if idx is not self._idx:
            self._idx, self._memo = idx, {}
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


def _kendall_dis() -> Callable[[np.ndarray, np.ndarray], int] | None:
    try:
        from scipy.stats._stats import _kendall_dis as dis  # SciPy's merge count of discordant pairs
    except ImportError:  # another SciPy: kendall_tau_b calls its public function
        return None
    found: Callable[[np.ndarray, np.ndarray], int] = dis
    return found


def _pairs_of(counts: np.ndarray) -> int:
    return int((counts * (counts - 1) // 2).sum())


def _tau_b_of_table(table: np.ndarray) -> float:
    """:func:`kendall_tau_b` of the pairs counted in ``table`` (x code by y code):
    the same whole-number counts of discordant and tied pairs of pairs, the same
    float operations on them. A discordant pair of pairs is one with a smaller x
    and a greater y than the other."""
    size = int(table.sum())
    rows, columns = table.sum(axis=1), table.sum(axis=0)
    # _kendall's test: fewer than 3 pairs, or either side constant.
    if size < 3 or np.count_nonzero(rows) < 2 or np.count_nonzero(columns) < 2:
        return math.nan
    before = np.cumsum(table, axis=0) - table  # pairs with a smaller x, by y
    above = np.cumsum(before[:, ::-1], axis=1)[:, ::-1] - before  # ... and a greater y
    dis = int((table * above).sum())
    return tau_b_of_counts(size, dis, _pairs_of(table), _pairs_of(rows), _pairs_of(columns))


def _correlation_statistics(
    a: np.ndarray, b: np.ndarray, human: _Coded, which: Sequence[str], shared: _Shared
) -> dict[str, Callable[[np.ndarray], float]]:
    """The statistics of :data:`CORRELATIONS` named ``which`` on a resample of
    (``a``, ``b``), number for number, faster: Spearman ranks the resample from
    the codes (:meth:`_Coded.ranks`, ties within the resample); Kendall takes
    the pairs sorted once and repeats each as often as the resample draws it,
    the order :func:`kendall_tau_b` sorts the resample into. ``human`` is
    ``b`` coded, shared by the scores that have the same pairs."""
    score, dis, n = _Coded(a), _kendall_dis(), a.size
    order = np.lexsort((human.codes, score.codes))
    xs, ys = score.codes[order], human.codes[order]
    # Few distinct values on both sides: Kendall from the table of the pairs' counts.
    cell = score.codes * (human.levels + 1) + human.codes if score.levels * human.levels <= n else None

    def spearman(idx: np.ndarray) -> float:
        return _pearson(score.ranks(idx), shared.get(idx, human, lambda: human.ranks(idx)))

    def kendall(idx: np.ndarray) -> float:
        if dis is None:
            return _kendall(a[idx], b[idx])
        if cell is not None:
            table = np.bincount(cell[idx], minlength=(score.levels + 1) * (human.levels + 1))
            return _tau_b_of_table(table.reshape(score.levels + 1, human.levels + 1))
        times = shared.get(idx, "counts", lambda: np.bincount(idx, minlength=n))[order]
        x, y = np.repeat(xs, times), np.repeat(ys, times)
        # _kendall's test: fewer than 3 pairs, or either side constant.
        if idx.size < 3 or x[0] == x[-1] or y.min() == y.max():
            return math.nan
        return tau_b_of_sorted(x, y, dis)

    found = {
        "pearson": lambda idx: _pearson(a[idx], b[idx]),
        "spearman": spearman,
        "kendall": kendall,
    }
    return {name: found[name] for name in which}


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


@dataclass(frozen=True)
class JudgementStats:
    """Each score's correlations with the human scores: score -> {"pearson",
    "spearman", "kendall"} -> :class:`Estimate` (:func:`judgement_section`)."""

    scores: dict[str, dict[str, Estimate]]

    def to_dict(self) -> dict[str, Any]:
        return {score: {k: v.to_dict() for k, v in res.items()} for score, res in self.scores.items()}


@dataclass(frozen=True)
class ChoiceStats:
    """Each score's multiple-choice accuracy: score -> :class:`ChoiceResult` (:func:`choice_section`)."""

    scores: dict[str, ChoiceResult]

    def to_dict(self) -> dict[str, Any]:
        return {score: res.to_dict() for score, res in self.scores.items()}


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


# -- report sections for the judgement and choice evaluations -----------------------


def _label(score: str) -> str:
    return score.replace("_", " ")


def judgement_section(
    rows: Sequence[Mapping[str, Any]],
    scores: Sequence[str],
    human: str = "human",
    *,
    n_boot: int = N_BOOT,
) -> tuple[ReportSection, JudgementStats]:
    """Report section and statistics: each score's Pearson, Spearman and Kendall
    against ``row[human]`` with 95% intervals."""
    stats = _all_correlations(rows, scores, human, n_boot)
    body = []
    for score in scores:
        res = stats[score]
        body.append(
            [
                _label(score),
                str(res["pearson"].n),
                res["pearson"].format(),
                res["spearman"].format(),
                res["kendall"].format(),
            ]
        )
    section = ReportSection(
        "Agreement with the human scores",
        f"Pearson's r, Spearman's rho and Kendall's tau-b against {human}, each with its 95% "
        f"bootstrap interval ({n_boot} resamples of the pairs); n = pairs with both values.",
        [ReportTable(["score", "n", "Pearson", "Spearman", "Kendall tau-b"], body)],
    )
    return section, JudgementStats(stats)


def _all_correlations(
    rows: Sequence[Mapping[str, Any]], scores: Sequence[str], human: str, n_boot: int
) -> dict[str, dict[str, Estimate]]:
    """:func:`correlations` of each score against ``row[human]``, number for
    number, with one bootstrap for the scores with the same number of pairs:
    the same seed draws the same resamples of them."""
    ys = np.array([float(r.get(human, math.nan)) for r in rows], dtype=float)
    shared, coded = _Shared(), dict[bytes, _Coded]()
    by_size: dict[int, dict[tuple[str, str], Callable[[np.ndarray], float]]] = {}
    for score in scores:
        xs = np.array([float(r.get(score, math.nan)) for r in rows], dtype=float)
        keep = _both_finite(xs, ys)
        a, b = xs[keep], ys[keep]
        # The human score coded once for all the scores with the same pairs.
        mask = keep.tobytes()
        coded.setdefault(mask, _Coded(b))
        named = _correlation_statistics(a, b, coded[mask], tuple(CORRELATIONS), shared)
        by_size.setdefault(a.size, {}).update({(score, name): f for name, f in named.items()})
    found: dict[tuple[str, str], Estimate] = {}
    for size, statistics in by_size.items():
        found.update(bootstrap_many(statistics, size, n_boot=n_boot))
    return {score: {name: found[score, name] for name in CORRELATIONS} for score in scores}


def choice_section(
    rows: Sequence[Mapping[str, Any]],
    scores: Sequence[str],
    *,
    n_boot: int = N_BOOT,
) -> tuple[ReportSection, ChoiceStats]:
    """Report section and statistics of multiple-choice accuracy per score.

    ``rows`` are one per option with ``item``, ``option`` (index), ``answer``
    and, if the items are typed, ``type``; rows of an item need not be adjacent.
    """
    items: dict[str, dict[int, Mapping[str, Any]]] = {}
    for r in rows:
        items.setdefault(str(r["item"]), {})[int(r["option"])] = r
    ordered = [dict(sorted(opts.items())) for opts in items.values()]
    answers = [int(next(iter(opts.values()))["answer"]) for opts in ordered]
    typed = any(r.get("type") for r in rows)
    types = [[str(o.get("type", "")) for o in opts.values()] for opts in ordered] if typed else None
    kinds = sorted({t for ts in types for t in ts}) if types else []
    stats: dict[str, ChoiceResult] = {}
    header = ["score", "accuracy [95% CI]", "correct", "ties (wrong)", *[f"picks {k}" for k in kinds]]
    body = []
    for score in scores:
        per_item = [[float(o.get(score, math.nan)) for o in opts.values()] for opts in ordered]
        res = choice_accuracy(per_item, answers, types, n_boot=n_boot)
        stats[score] = res
        body.append(
            [
                _label(score),
                res.accuracy.format(),
                str(res.correct),
                str(res.ties),
                *[str(res.picks.get(k, 0)) for k in kinds],
            ]
        )
    section = ReportSection(
        "Multiple-choice accuracy",
        f"{len(ordered)} items. The option a score rates highest is its pick; a tie for the top counts as "
        f"wrong and is listed. 95% bootstrap intervals ({n_boot} resamples of the items)."
        + (" Picks: how often each option type is picked (ties left out)." if kinds else ""),
        [ReportTable(header, body)],
    )
    return section, ChoiceStats(stats)


def plot_scatter(
    rows: Sequence[Mapping[str, Any]], scores: Sequence[str], human: str, path: Path, title: str
) -> Path | None:
    """One scatter panel per score against the human score; ``None`` if nothing to draw."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ys_all = np.array([float(r.get(human, math.nan)) for r in rows])
    panels = [s for s in scores if np.isfinite([float(r.get(s, math.nan)) for r in rows]).any()]
    if not panels:
        return None
    cols = min(3, len(panels))
    nrows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.6 * nrows), squeeze=False)
    for ax, score in zip(axes.flat, panels):
        xs = np.array([float(r.get(score, math.nan)) for r in rows])
        keep = np.isfinite(xs) & np.isfinite(ys_all)
        ax.scatter(xs[keep], ys_all[keep], s=6, alpha=0.4)
        left_out = int((~keep).sum())
        # A point without a finite value cannot be drawn: the panel says how many.
        note = f"\n({left_out} without a finite value not drawn)" if left_out else ""
        # y given: no title placement measuring every tick label (see report.plot_boxes).
        ax.set_title(_label(score) + note, fontsize=10, y=1.0)
        ax.set_xlabel("score", fontsize=8)
        ax.set_ylabel(human, fontsize=8)
        ax.grid(alpha=0.3)
    return save_panel_grid(fig, axes, len(panels), title, path)
