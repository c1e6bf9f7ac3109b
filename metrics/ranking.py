"""How well a score ranks candidates for a query: NDCG%20, NDCG@10 and MAP with bootstrap intervals.

A ranking evaluation has queries, each with a pool of candidates judged for
graded relevance (CSFCube, Mysore et al. 2021: 0 irrelevant ... 3 identical).
A score ranks each pool by its value; the metrics follow CSFCube's own
evaluation script (``eval_scripts/ranking_eval.py`` with the common
``rank_metrics`` functions), so a figure here is a figure there:

* **DCG at k** (Järvelin and Kekäläinen 2002) with **linear gains**, the
  relevance itself, and the first two ranks weighted 1: discounts 1, 1,
  1/log2(3), 1/log2(4), ... (:func:`dcg`);
* **NDCG at k**: DCG of the ranking over DCG of the ideal ranking of the whole
  pool (all its relevances sorted), 0 when the pool has no relevant
  candidate (:func:`ndcg`);
* **NDCG%20**: NDCG at k = int(0.2 x pool size), a fifth of the pool whatever
  its size (:func:`ndcg_share`); a pool under 5 candidates uses k = 1, where
  the script's k = 0 would score nothing;
* **NDCG@10**: NDCG at k = 10;
* **average precision** with relevance >= 2 counting as relevant: the mean
  of the precision at the rank of each relevant candidate, 0 when there is
  none (:func:`average_precision`); its mean over the queries is **MAP**.

**Ties are ranked worst-first** (:func:`ranked_relevance`): candidates with
equal scores are ordered by ascending relevance, and a missing score (NaN)
ranks below every score. A constant score gets the credit of the worst
order, not of the file's order, and a score that cannot tell candidates
apart is not rewarded for the order the file happens to list them in.

The mean over queries gets a 95% percentile bootstrap interval by
resampling the queries (:func:`dri.metrics.validity.bootstrap`, fixed
seed): the queries, not the pairs, are the independent units.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dri.metrics.progress import tell_progress
from dri.metrics.report import SCORE_LABELS, save_panel_grid
from dri.metrics.results import ReportSection, ReportTable
from dri.metrics.validity import N_BOOT, SEED, Estimate, bootstrap_many

__all__ = [
    "QueryMetrics",
    "RankingResult",
    "ScoreRanking",
    "average_precision",
    "dcg",
    "ndcg",
    "ndcg_share",
    "plot_ranking",
    "query_metrics",
    "rank_pools",
    "ranked_relevance",
    "ranking_section",
]

#: NDCG%20's share of the pool, NDCG@k's k and the grade from which a candidate counts as relevant for MAP.
POOL_SHARE = 0.2
TOP_K = 10
RELEVANT_FROM = 2.0

#: Relevances in rank order, best-ranked first.
Gains = Sequence[float] | np.ndarray

#: The headline metric first.
METRICS = ("ndcg_pct20", "ndcg_10", "map")
METRIC_LABELS = {"ndcg_pct20": "NDCG%20", "ndcg_10": "NDCG@10", "map": "MAP"}


def ranked_relevance(scores: Sequence[float], relevance: Sequence[float]) -> np.ndarray:
    """The relevances in the order the scores rank them: highest score first,
    ties (and NaN, below all) worst-first."""
    s = np.asarray(scores, dtype=float)
    r = np.asarray(relevance, dtype=float)
    if s.shape != r.shape:
        raise ValueError(f"{s.size} scores for {r.size} relevances")
    key = np.where(np.isnan(s), -np.inf, s)
    # lexsort's last key is the primary one: descending score, then ascending relevance.
    return r[np.lexsort((r, -key))]


def dcg(ranked: Gains, k: int) -> float:
    """DCG of the first ``k`` gains: ``g1 + sum_{i>=2} g_i / log2(i)``."""
    g = np.asarray(ranked, dtype=float)[: max(k, 0)]
    if not g.size:
        return 0.0
    return float(g[0] + np.sum(g[1:] / np.log2(np.arange(2, g.size + 1))))


def ndcg(ranked: Gains, k: int) -> float:
    """NDCG at ``k``: the ranking's DCG over the ideal DCG of the whole pool (0 if that is 0)."""
    ideal = dcg(sorted(ranked, reverse=True), k)
    return dcg(ranked, k) / ideal if ideal > 0 else 0.0


def ndcg_share(ranked: Gains, share: float = POOL_SHARE) -> float:
    """NDCG at ``int(share x pool size)``, at least 1: NDCG%20 for the default share."""
    return ndcg(ranked, max(1, int(share * len(ranked))))


def average_precision(ranked: Gains, relevant_from: float = RELEVANT_FROM) -> float:
    """Mean precision at the ranks of the relevant candidates (relevance >= ``relevant_from``); 0 if none."""
    hits = np.asarray(ranked, dtype=float) >= relevant_from
    if not hits.any():
        return 0.0
    ranks = np.flatnonzero(hits) + 1
    return float(np.mean(np.arange(1, ranks.size + 1) / ranks))


@dataclass(frozen=True)
class QueryMetrics:
    """One query's pool ranked by one score."""

    query: str
    pool: int
    relevant: int  # candidates with relevance >= RELEVANT_FROM
    ndcg_pct20: float
    ndcg_10: float
    average_precision: float
    unscored: int = 0  # candidates without a score (ranked last)


def query_metrics(query: str, scores: Sequence[float], relevance: Sequence[float]) -> QueryMetrics:
    """NDCG%20, NDCG@10 and average precision of one query's pool under one score."""
    ranked = ranked_relevance(scores, relevance)
    return QueryMetrics(
        query=query,
        pool=int(ranked.size),
        relevant=int(np.sum(ranked >= RELEVANT_FROM)),
        ndcg_pct20=ndcg_share(ranked),
        ndcg_10=ndcg(ranked, TOP_K),
        average_precision=average_precision(ranked),
        unscored=int(np.sum(np.isnan(np.asarray(scores, dtype=float)))),
    )


@dataclass
class ScoreRanking:
    """One score's means over the queries, with 95% bootstrap intervals, and its per-query metrics."""

    score: str
    ndcg_pct20: Estimate
    ndcg_10: Estimate
    map: Estimate
    queries: list[QueryMetrics]

    def estimate(self, metric: str) -> Estimate:
        return {"ndcg_pct20": self.ndcg_pct20, "ndcg_10": self.ndcg_10, "map": self.map}[metric]

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            **{m: self.estimate(m).to_dict() for m in METRICS},
            # Its fields as they are (numbers and a name), without asdict's deep copy of
            # each: 375,000 records for 25,000 queries and 15 scores.
            "queries": [dict(vars(q)) for q in self.queries],
        }


@dataclass
class RankingResult:
    """Every score's ranking of every query's pool: what the ranking report shows.

    ``structure_scores`` and ``baseline_scores`` name the scores of
    ``scores`` in the report's order; ``pools`` is each query's pool size;
    ``facets`` the queries of each facet, when the queries have facets
    (CSFCube's background, method and result).
    """

    scores: dict[str, ScoreRanking]
    pools: dict[str, int]
    structure_scores: tuple[str, ...] = ()
    baseline_scores: tuple[str, ...] = ()
    n_boot: int = N_BOOT
    settings: dict[str, float] = field(
        default_factory=lambda: {"pool_share": POOL_SHARE, "top_k": TOP_K, "relevant_from": RELEVANT_FROM}
    )
    facets: dict[str, list[str]] = field(default_factory=dict)

    @property
    def queries(self) -> list[str]:
        return list(self.pools)

    def facet_mean(self, score: str, facet: str, metric: str = "ndcg_pct20") -> float:
        """The mean ``metric`` of ``score`` over the queries of ``facet`` (no interval: a few queries each)."""
        attr = "average_precision" if metric == "map" else metric
        wanted = set(self.facets[facet])
        values = [getattr(q, attr) for q in self.scores[score].queries if q.query in wanted]
        return float(np.mean(values)) if values else math.nan

    def best_baseline(self, metric: str = "ndcg_pct20") -> str | None:
        """The baseline with the highest mean ``metric``, or None."""
        found = [s for s in self.baseline_scores if s in self.scores]
        return max(found, key=lambda s: self.scores[s].estimate(metric).value, default=None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "queries": len(self.pools),
            "pools": dict(self.pools),
            "n_boot": self.n_boot,
            **self.settings,
            "scores": {name: sr.to_dict() for name, sr in self.scores.items()},
            **({"facets": {f: list(q) for f, q in self.facets.items()}} if self.facets else {}),
        }


#: The attribute of :class:`QueryMetrics` each metric is the mean of.
ATTRIBUTES = {"ndcg_pct20": "ndcg_pct20", "ndcg_10": "ndcg_10", "map": "average_precision"}

#: What :func:`rank_pools` tells the listeners of :func:`dri.metrics.progress.statistics_progress` it counts.
QUERIES_RANKED = "queries ranked"


def _score_rankings(
    per_score: dict[str, list[QueryMetrics]], n_boot: int, seed: int
) -> dict[str, ScoreRanking]:
    """Each score's means over the queries with their intervals: one bootstrap
    for all the scores and metrics, whose estimates are those of one bootstrap
    each (the same seed, the same number of queries, the same resamples)."""
    sizes = {len(per_query) for per_query in per_score.values()}
    statistics = {}
    for score, per_query in per_score.items():
        for metric, attr in ATTRIBUTES.items():
            values = np.array([getattr(q, attr) for q in per_query], dtype=float)
            statistics[score, metric] = functools.partial(_mean_of, values)
    found = {}
    for size in sizes:
        found.update(
            bootstrap_many(
                {key: f for key, f in statistics.items() if len(per_score[key[0]]) == size},
                size,
                n_boot=n_boot,
                seed=seed,
            )
        )
    return {
        score: ScoreRanking(
            score, found[score, "ndcg_pct20"], found[score, "ndcg_10"], found[score, "map"], per_query
        )
        for score, per_query in per_score.items()
    }


def _mean_of(values: np.ndarray, idx: np.ndarray) -> float:
    return float(values[idx].mean())


def rank_pools(
    rows: Sequence[Mapping[str, Any]],
    structure_scores: Sequence[str],
    baseline_scores: Sequence[str] = (),
    *,
    query: str = "query",
    relevance: str = "relevance",
    facet: str = "facet",
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> RankingResult:
    """Every score's metrics over the pools of ``rows``.

    Each row is one candidate: ``row[query]`` names its query,
    ``row[relevance]`` is its graded relevance, ``row[facet]`` (if any) the
    facet its query searches by, and ``row[score]`` each score's value (NaN
    or missing when the pair could not be scored: it ranks last). Queries
    keep the rows' order.
    """
    pools: dict[str, list[Mapping[str, Any]]] = {}
    facets: dict[str, list[str]] = {}
    for r in rows:
        key = str(r[query])
        if key not in pools and r.get(facet):
            facets.setdefault(str(r[facet]), []).append(key)
        pools.setdefault(key, []).append(r)
    gains = {q: [float(r[relevance]) for r in members] for q, members in pools.items()}
    names = (*structure_scores, *baseline_scores)
    per_score: dict[str, list[QueryMetrics]] = {}
    total, done = len(names) * len(pools), 0
    tell_progress(0, total, QUERIES_RANKED)
    for score in names:
        per_score[score] = []
        for q, members in pools.items():
            per_score[score].append(query_metrics(q, [_value(r.get(score)) for r in members], gains[q]))
            done += 1
            if done % 1000 == 0:
                tell_progress(done, total, QUERIES_RANKED)
    tell_progress(total, total, QUERIES_RANKED)
    return RankingResult(
        _score_rankings(per_score, n_boot, seed),
        {q: len(members) for q, members in pools.items()},
        tuple(structure_scores),
        tuple(baseline_scores),
        n_boot,
        facets=facets,
    )


def _value(v: Any) -> float:
    if v is None or v == "":
        return math.nan
    return float(v)


# -- the report's section and plot ----------------------------------------------------


def percent(est: Estimate) -> str:
    """``45.3 [40.1, 50.2]``: an estimate of a 0-1 metric x 100 with its interval, as CSFCube reports."""
    if math.isnan(est.value):
        return "n/a"
    return f"{100 * est.value:.1f} [{100 * est.low:.1f}, {100 * est.high:.1f}]"


def _label(score: str) -> str:
    return SCORE_LABELS.get(score, score.replace("_", " "))


def ranking_section(result: RankingResult) -> list[ReportSection]:
    """Report sections: the mean metrics of every score, then NDCG%20 per query."""
    sizes = list(result.pools.values())
    settings = result.settings
    means = []
    for name, sr in result.scores.items():
        kind = "structure" if name in result.structure_scores else "baseline"
        unscored = sum(q.unscored for q in sr.queries)
        means.append(
            [_label(name), kind, percent(sr.ndcg_pct20), percent(sr.ndcg_10), percent(sr.map), str(unscored)]
        )
    best = result.best_baseline()
    text = (
        f"{len(sizes)} queries, pools of {min(sizes)}-{max(sizes)} candidates ({sum(sizes)} in all). "
        f"Each score ranks each pool; ties and unscored pairs rank worst-first. NDCG%20: NDCG at "
        f"k = int({settings['pool_share']} x pool size) with linear gains and discounts 1, 1, 1/log2(3), "
        f"...; NDCG@{settings['top_k']:g}; MAP with relevance >= {settings['relevant_from']:g} relevant. "
        f"Means over the queries x 100, with 95% bootstrap intervals ({result.n_boot} resamples of the "
        "queries)." + (f" Best baseline by NDCG%20: {_label(best)}." if best is not None else "")
    )
    names = list(result.scores)
    per_query = []
    for i, query in enumerate(result.queries):
        first = result.scores[names[0]].queries[i]
        cells = [f"{100 * result.scores[n].queries[i].ndcg_pct20:.1f}" for n in names]
        per_query.append([query, str(first.pool), str(first.relevant), *cells])
    sections = [
        ReportSection(
            "Ranking quality",
            text,
            [ReportTable(["score", "kind", "NDCG%20", "NDCG@10", "MAP", "unscored pairs"], means)],
        )
    ]
    if len(result.facets) > 1:
        sections.append(_facet_section(result))
    sections.append(
        ReportSection(
            "NDCG%20 per query (x 100)",
            "",
            [ReportTable(["query", "pool", "relevant", *(_label(n) for n in names)], per_query)],
        )
    )
    return sections


def _facet_section(result: RankingResult) -> ReportSection:
    """NDCG%20 of every score per facet: a faceted search can be good at one facet and poor at another."""
    facets = list(result.facets)
    rows = [
        [_label(name), *(f"{100 * result.facet_mean(name, f):.1f}" for f in facets)] for name in result.scores
    ]
    counts = ", ".join(f"{f} {len(result.facets[f])}" for f in facets)
    text = f"Mean NDCG%20 over the queries of each facet, x 100 (queries: {counts})."
    return ReportSection("NDCG%20 per facet (x 100)", text, [ReportTable(["score", *facets], rows)])


def plot_ranking(result: RankingResult, path: Path, title: str) -> Path | None:
    """NDCG%20 and MAP of every score: the mean with its interval and each query's value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result.scores)
    if not names:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(names) + 1.8), squeeze=False)
    y = np.arange(len(names))[::-1]
    colours = ["tab:blue" if n in result.structure_scores else "tab:orange" for n in names]
    for ax, (metric, attr) in zip(axes.flat, (("ndcg_pct20", "ndcg_pct20"), ("map", "average_precision"))):
        for yi, name, colour in zip(y, names, colours):
            sr = result.scores[name]
            est = sr.estimate(metric)
            per_query = [getattr(q, attr) for q in sr.queries]
            ax.scatter(per_query, np.full(len(per_query), yi), s=8, alpha=0.35, color=colour)
            if not math.isnan(est.value):
                low = est.value - (est.low if not math.isnan(est.low) else est.value)
                high = (est.high if not math.isnan(est.high) else est.value) - est.value
                ax.errorbar(est.value, yi, xerr=[[low], [high]], fmt="D", color="black", capsize=3, ms=5)
        ax.set_yticks(y, [_label(n) for n in names], fontsize=8)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel(f"{METRIC_LABELS[metric]} (per query; mean with 95% interval)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    return save_panel_grid(fig, axes, 2, title, path)
