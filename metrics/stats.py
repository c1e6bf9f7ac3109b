"""Statistics for the evaluations: group medians, rank correlation, tests, AUC, agreement.

The Dr Inventor paper (Hurley et al., EGPAI 2016) shows box plots of its
scores per plagiarism level (Figure 8) and per translation language (Figure
7) and reads them by eye; these functions put numbers on the same claims:

* medians (and means, counts) per group;
* Spearman's rho between a score and the plagiarism level, coded
  ``cut 3, light 2, heavy 1, non 0`` (:data:`corpora.plagiarism.LEVELS`);
* the Kruskal-Wallis H test across the groups (Kruskal and Wallis 1952);
* ROC AUC of plagiarised (cut, light, heavy) against non-plagiarised, as the
  Mann-Whitney probability that a plagiarised pair outscores a
  non-plagiarised one (ties count one half; Hanley and McNeil 1982);
* the ranking of languages by median score;
* Krippendorff's alpha, interval metric, for the expert ratings (Krippendorff,
  "Computing Krippendorff's Alpha-Reliability", 2011), via the
  ``krippendorff`` package, and the mean rating per property.

Results are plain dataclasses that :func:`dataclasses.asdict` turns into JSON.
Undefined statistics (a constant score, a single group) are ``None``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import numpy as np

__all__ = [
    "GroupSummary",
    "RatingStats",
    "ScoreStats",
    "average_ranks",
    "group_summary",
    "group_values",
    "kendall_tau_b",
    "krippendorff_alpha",
    "kruskal_wallis",
    "language_ranking",
    "rating_stats",
    "roc_auc",
    "score_stats",
    "spearman",
    "tau_b_of_counts",
    "tau_b_of_sorted",
    "unit_alpha",
]


@dataclass(frozen=True)
class GroupSummary:
    n: int
    median: float
    mean: float
    q1: float
    q3: float


@dataclass
class ScoreStats:
    """The statistics of one score over the pairs of an evaluation."""

    score: str
    groups: dict[str, GroupSummary]
    rho: float | None = None
    rho_p: float | None = None
    kruskal_h: float | None = None
    kruskal_p: float | None = None
    auc: float | None = None
    ranking: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RatingStats:
    """Mean rating and inter-rater agreement of one rated property."""

    prop: str
    mean: float
    alpha: float | None
    raters: int
    pairs: int
    ratings: int


def _clean(x: float) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


G = TypeVar("G", bound=Hashable)


def group_values(values: Iterable[float], groups: Iterable[G]) -> dict[G, list[float]]:
    """The values of each group, groups in first-seen order."""
    out: dict[G, list[float]] = defaultdict(list)
    for v, g in zip(values, groups, strict=True):
        out[g].append(float(v))
    return dict(out)


def group_summary(values: Sequence[float]) -> GroupSummary:
    arr = np.asarray(values, dtype=float)
    q1, med, q3 = np.percentile(arr, [25, 50, 75])
    return GroupSummary(len(arr), float(med), float(arr.mean()), float(q1), float(q3))


def average_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ranks from 1, tied values sharing their mean rank (SciPy's ``rankdata``, ``average``)."""
    arr = np.asarray(values, dtype=float).ravel()
    order = np.argsort(arr, kind="mergesort")
    where = np.empty(order.size, dtype=np.intp)
    where[order] = np.arange(order.size)
    ordered = arr[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    tie_group = starts.cumsum()[where]
    bounds = np.r_[np.nonzero(starts)[0], arr.size]
    ranks: np.ndarray = 0.5 * (bounds[tie_group] + bounds[tie_group - 1] + 1)
    return ranks


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two float arrays of one length (NaN when either is constant).

    SciPy's ``kendalltau(x, y, variant="b").statistic``, float for float: the
    same dense ranks, the same integer counts of discordant pairs (SciPy's own
    merge count) and of ties, and the same float operations on them. SciPy's
    function also computes a p-value and checks its input, 0.5 ms a call; a
    bootstrap calls this 1,000 times per score.
    """
    try:
        from scipy.stats._stats import _kendall_dis  # SciPy's merge count of discordant pairs
    except ImportError:  # another SciPy: its public function, the same statistic
        from scipy.stats import kendalltau

        return float(kendalltau(x, y, variant="b").statistic)

    perm = np.argsort(y)
    x, y = x[perm], y[perm]
    y = np.r_[True, y[1:] != y[:-1]].cumsum(dtype=np.intp)
    perm = np.argsort(x, kind="mergesort")
    x, y = x[perm], y[perm]
    x = np.r_[True, x[1:] != x[:-1]].cumsum(dtype=np.intp)
    return tau_b_of_sorted(x, y, _kendall_dis)


def tau_b_of_sorted(
    x: np.ndarray, y: np.ndarray, kendall_dis: Callable[[np.ndarray, np.ndarray], int]
) -> float:
    """Kendall's tau-b from whole-number codes (``np.intp``, from 1) of the two
    values, sorted by ``x`` and then by ``y``: what :func:`kendall_tau_b` computes
    once it has sorted and coded its floats. Only the codes' order counts, not
    their gaps: the merge count of discordant pairs (``kendall_dis``, SciPy's)
    and the counts of ties are the same integers however the codes are spaced."""
    size = x.size
    dis = kendall_dis(x, y)
    joint = np.r_[True, (x[1:] != x[:-1]) | (y[1:] != y[:-1]), True]
    cnt = np.diff(np.nonzero(joint)[0]).astype("int64", copy=False)
    ntie = int((cnt * (cnt - 1) // 2).sum())
    return tau_b_of_counts(size, dis, ntie, _tied_pairs(x), _tied_pairs(y))


def tau_b_of_counts(size: int, dis: int, ntie: int, xtie: int, ytie: int) -> float:
    """Kendall's tau-b of ``size`` pairs from the counts of pairs of pairs:
    discordant, tied in both values, tied in x, tied in y (NaN when either
    value is constant), by :func:`kendall_tau_b`'s float operations."""
    tot = (size * (size - 1)) // 2
    if xtie == tot or ytie == tot:
        return math.nan
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(np.minimum(1.0, max(-1.0, tau)))


def _tied_pairs(ranks: np.ndarray) -> int:
    cnt = np.bincount(ranks).astype("int64", copy=False)
    cnt = cnt[cnt > 1]
    return int((cnt * (cnt - 1) // 2).sum())


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, float | None]:
    """Spearman's rho and its two-sided p-value (``None`` if undefined).

    rho is Pearson's r of the average ranks; p is Student's t test of
    ``t = rho sqrt((n - 2) / (1 - rho^2))`` with n - 2 degrees of freedom,
    as ``scipy.stats.spearmanr`` computes them (its import costs 0.6 s of
    CPU in every evaluation; ``scipy.special`` is loaded anyway)."""
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None, None
    from scipy.special import stdtr

    rho = float(np.clip(np.corrcoef(average_ranks(x), average_ranks(y))[0, 1], -1.0, 1.0))
    free = len(x) - 2
    if abs(rho) < 1.0:
        t = rho * math.sqrt(free / ((rho + 1.0) * (1.0 - rho)))
    else:
        t = math.copysign(math.inf, rho)
    return _clean(rho), _clean(2.0 * stdtr(free, -abs(t)))


def kruskal_wallis(samples: Sequence[Sequence[float]]) -> tuple[float | None, float | None]:
    """Kruskal-Wallis H (tie-corrected) and p over two or more groups.

    H over the average ranks of all values, divided by the tie correction
    ``1 - sum(t^3 - t) / (n^3 - n)``; p from the chi-square distribution with
    one degree of freedom less than the groups, as ``scipy.stats.kruskal``."""
    samples = [list(s) for s in samples if len(s)]
    if len(samples) < 2 or len({v for s in samples for v in s}) < 2:
        return None, None
    from scipy.special import chdtrc

    values = np.concatenate([np.asarray(s, dtype=float) for s in samples])
    ranks = average_ranks(values)
    n = values.size
    rank_sums = np.add.reduceat(ranks, np.cumsum([0, *map(len, samples[:-1])]))
    sizes = np.array([len(s) for s in samples], dtype=float)
    h = 12.0 / (n * (n + 1)) * float(np.sum(rank_sums**2 / sizes)) - 3.0 * (n + 1)
    _, ties = np.unique(values, return_counts=True)
    h /= 1.0 - float(np.sum(ties.astype(float) ** 3 - ties)) / (n**3 - n)
    return _clean(h), _clean(chdtrc(len(samples) - 1, h))


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """P(positive score > negative score) + 0.5 P(tie): the area under the ROC curve."""
    if not len(positives) or not len(negatives):
        return None
    pos = np.asarray(positives, dtype=float)
    neg = np.sort(np.asarray(negatives, dtype=float))  # NaN last, where no comparison reaches
    # Per positive, the negatives below it and those equal to it, counted in the
    # sorted negatives: the whole numbers the table of every positive against every
    # negative summed (75,000 x 25,000 pairs took 1.9 GB and 15 s), NaN winning nothing.
    finite = pos[~np.isnan(pos)]
    below = np.searchsorted(neg, finite, side="left")
    equal = np.searchsorted(neg, finite, side="right") - below
    wins = below.sum(dtype=np.int64) + 0.5 * equal.sum(dtype=np.int64)
    return float(wins / (pos.size * neg.size))


def language_ranking(values: Sequence[float], languages: Sequence[str]) -> list[tuple[str, float]]:
    """Languages by median score, best first (ties broken by name)."""
    medians = {g: float(np.median(v)) for g, v in group_values(values, languages).items()}
    return sorted(medians.items(), key=lambda kv: (-kv[1], kv[0]))


def score_stats(
    score: str,
    values: Sequence[float],
    groups: Sequence[str],
    levels: Mapping[str, int] | None = None,
    negative: str | None = None,
    rank: bool = False,
) -> ScoreStats:
    """All statistics of one score.

    ``levels`` codes each group as a number for Spearman's rho (e.g. the
    plagiarism levels); ``negative`` names the group that the others are
    tested against for AUC (e.g. ``"non"``); ``rank`` adds the ranking of
    groups by median (languages). Pairs whose value is NaN are left out.
    """
    keep = [i for i, v in enumerate(values) if not math.isnan(float(v))]
    values = [float(values[i]) for i in keep]
    groups = [groups[i] for i in keep]
    by_group = group_values(values, groups)
    order = list(levels) if levels else sorted(by_group)
    order = [g for g in order if g in by_group] + [g for g in by_group if g not in order]
    stats = ScoreStats(score, {g: group_summary(by_group[g]) for g in order})
    if levels:
        coded = [(v, levels[g]) for v, g in zip(values, groups) if g in levels]
        stats.rho, stats.rho_p = spearman([c[1] for c in coded], [c[0] for c in coded])
    stats.kruskal_h, stats.kruskal_p = kruskal_wallis([by_group[g] for g in order])
    if negative is not None and negative in by_group:
        pos = [v for v, g in zip(values, groups) if g != negative]
        stats.auc = roc_auc(pos, by_group[negative])
    if rank:
        stats.ranking = [g for g, _ in language_ranking(values, groups)]
    return stats


def krippendorff_alpha(
    reliability: Sequence[Sequence[float]] | np.ndarray,
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval",
) -> float | None:
    """Krippendorff's alpha of a raters x units matrix (NaN = not rated)."""
    data = np.asarray(reliability, dtype=float)
    if data.ndim != 2:
        raise ValueError(f"reliability data must be raters x units, not of shape {data.shape}")
    return unit_alpha((column[~np.isnan(column)] for column in data.T), level)


def unit_alpha(
    units: Iterable[Sequence[float] | np.ndarray],
    level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval",
) -> float | None:
    """Krippendorff's alpha of the values each unit was given (one list per unit,
    one value per rater who rated it), the same number as :func:`krippendorff_alpha`
    of their raters x units matrix.

    Computed from each unit's counts of each value (the ``value_counts`` form of
    the ``krippendorff`` package): a matrix of every rater by every unit was
    60,000 x 60,000 for 60,000 ratings each by its own rater, 27 GB.
    """
    # krippendorff only when ratings are summarised.
    import krippendorff

    lists = [np.asarray(u, dtype=float) for u in units]
    domain = np.unique(np.concatenate(lists)) if lists else np.array([])
    # Only units rated at least twice carry information; without variation among
    # their values the expected disagreement is 0 and alpha is undefined.
    paired = [u for u in lists if len(u) >= 2]
    if not paired or len(np.unique(np.concatenate(paired))) < 2:
        return None
    value_counts = np.zeros((len(paired), len(domain)), dtype=int)
    rows = np.repeat(np.arange(len(paired)), [len(u) for u in paired])
    np.add.at(value_counts, (rows, np.searchsorted(domain, np.concatenate(paired))), 1)
    return _clean(
        krippendorff.alpha(value_counts=value_counts, value_domain=domain, level_of_measurement=level)
    )


def rating_stats(
    ratings: Iterable[Mapping[str, object]],
    properties: Sequence[str] = ("novelty", "usefulness", "challenge"),
) -> list[RatingStats]:
    """Mean and interval alpha per property of rows ``{rater, pair, <property>...}``.

    A rater who rated the same pair twice counts once, with the last rating.
    """
    rows = list(ratings)
    out = []
    for prop in properties:
        cell: dict[tuple[str, str], float] = {}
        for r in rows:
            value = r.get(prop)
            if value is not None and value != "":
                cell[(str(r["rater"]), str(r["pair"]))] = float(str(value))
        units: dict[str, list[float]] = {}
        for (_, pair), value in cell.items():
            units.setdefault(pair, []).append(value)
        values = list(cell.values())
        out.append(
            RatingStats(
                prop,
                float(np.mean(values)) if values else math.nan,
                unit_alpha(units.values()) if values else None,
                len({k[0] for k in cell}),
                len(units),
                len(values),
            )
        )
    return out
