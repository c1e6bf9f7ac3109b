"""Ranking metrics (dri.metrics.ranking): known values, CSFCube's rules, ties worst-first, intervals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dri.corpora.judgements import load_ranking
from dri.metrics.progress import statistics_progress
from dri.metrics.ranking import (
    RankingResult,
    average_precision,
    dcg,
    ndcg,
    ndcg_share,
    plot_ranking,
    query_metrics,
    rank_pools,
    ranked_relevance,
    ranking_section,
)
from dri.metrics.validity import bootstrap
from dri.settings import PROJECT_ROOT

CSFCUBE = PROJECT_ROOT.parent / "shared" / "validity" / "csfcube" / "csfcube_fold1.csv"


def test_dcg_and_ndcg_known_values():
    # The doctest values of the rank_metrics functions CSFCube's eval script calls.
    r = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    assert dcg(r, 1) == 3.0 and dcg(r, 2) == 5.0  # the first two ranks both weigh 1
    assert dcg(r, 10) == pytest.approx(9.6051177391888114) and dcg(r, 11) == dcg(r, 10)
    assert ndcg(r, 1) == 1.0
    assert ndcg([2, 1, 2, 0], 4) == pytest.approx(0.9203032077642922)
    assert ndcg([0], 1) == 0.0 and ndcg([0, 0, 0], 2) == 0.0  # no relevant candidate: 0, not NaN
    # By hand: [1, 3, 0, 2] at k=3: DCG 1 + 3 + 0 = 4; ideal [3, 2, 1]: 3 + 2 + 1/log2(3).
    assert ndcg([1, 3, 0, 2], 3) == pytest.approx(4 / (5 + 1 / math.log2(3)))


def test_ndcg_share_takes_a_fifth_of_the_pool_and_at_least_one():
    pool = [0, 3] + [0] * 8  # 10 candidates: k = 2, both ranks weigh 1
    assert ndcg_share(pool) == pytest.approx(3 / 3)
    assert ndcg_share([0, 3] + [0] * 13) == pytest.approx(3 / 3)  # 15: k = 3
    assert ndcg_share([0, 0, 3] + [0] * 12) == pytest.approx((3 / math.log2(3)) / 3)
    assert ndcg_share([0, 3, 3, 1]) == 0.0  # 4 candidates: k = 1 (the script's k = 0 scores nothing)
    assert ndcg_share([3, 0, 0, 0]) == 1.0


def test_average_precision_relevance_two_or_more():
    # rank_metrics' doctest (binary relevance): 0.7833...
    assert average_precision([1, 1, 0, 1, 0, 1, 0, 0, 0, 1], 1) == pytest.approx(0.78333333333333333)
    # Graded, relevant from 2: hits at ranks 2 and 4 -> (1/2 + 2/4) / 2.
    assert average_precision([1, 3, 0, 2, 1]) == pytest.approx(0.5)
    assert average_precision([1, 1, 0]) == 0.0


def test_ties_and_missing_scores_rank_worst_first():
    relevance = [3, 0, 2, 3, 1]
    ranked = ranked_relevance([1.0, 1.0, 0.5, math.nan, 2.0], relevance)
    assert ranked.tolist() == [1, 0, 3, 2, 3]  # the tie at 1.0 puts 0 before 3; NaN last
    constant = query_metrics("q", [0.7] * 5, relevance)
    assert constant.ndcg_pct20 == 0.0 and constant.unscored == 0  # a constant score earns the worst order
    oracle = query_metrics("q", relevance, relevance)
    assert oracle.ndcg_pct20 == oracle.ndcg_10 == oracle.average_precision == 1.0
    with pytest.raises(ValueError, match="2 scores for 3 relevances"):
        ranked_relevance([1, 2], [1, 2, 3])


def _eval_script_rules(ranked: list[float]) -> tuple[float, float]:
    """NDCG%20 and AP as CSFCube's ranking_eval.py computes them, written out independently."""

    def script_dcg(r: list[float], k: int) -> float:
        return sum(g if i < 2 else g / math.log2(i) for i, g in enumerate(r[:k], start=1))

    k = int(0.20 * len(ranked))
    ideal = script_dcg(sorted(ranked, reverse=True), k)
    binary = [1 if g >= 2 else 0 for g in ranked]
    precisions = [sum(binary[: i + 1]) / (i + 1) for i, b in enumerate(binary) if b]
    return script_dcg(ranked, k) / ideal, sum(precisions) / len(precisions)


def test_one_csfcube_query_matches_the_eval_script_rules():
    data = load_ranking(CSFCUBE)
    pool = [p for p in data.pairs if p.query == "3264891/background"]
    # A deterministic ranking with no ties: by candidate paper id.
    scores = [float(p.extra["candidate"]) for p in pool]
    relevance = [p.score for p in pool]
    got = query_metrics("3264891/background", scores, relevance)
    order = np.argsort(-np.asarray(scores))
    want_ndcg, want_ap = _eval_script_rules([relevance[i] for i in order])
    assert got.pool == 88 and got.relevant == 18  # 2 identical and 16 similar candidates
    assert got.ndcg_pct20 == pytest.approx(want_ndcg) == pytest.approx(0.29781452161443744)
    assert got.average_precision == pytest.approx(want_ap) == pytest.approx(0.18214028580262945)
    # The facet column comes along with every row, so the report can give means per facet.
    faceted = rank_pools(
        [
            {**p.extra, "query": p.query, "relevance": p.score, "id": float(p.extra["candidate"])}
            for p in data.pairs
        ],
        ["id"],
        n_boot=10,
    )
    assert sorted(faceted.facets) == ["background", "method", "result"]
    assert [len(q) for q in faceted.facets.values()] == [8, 8, 8]


def _rows() -> list[dict]:
    rows = []
    for q, rel, good in (
        ("q1", [3, 0, 1, 2, 0], [0.9, 0.1, 0.3, 0.5, 0.2]),
        ("q2", [0, 2, 1], [0.1, 0.8, 0.4]),
    ):
        for r, g in zip(rel, good):
            rows.append({"query": q, "relevance": str(r), "good": g, "flat": 0.5, "broken": math.nan})
    return rows


def test_rank_pools_per_query_and_means_with_intervals(tmp_path: Path):
    result = rank_pools(_rows(), ["good", "broken"], ["flat"], n_boot=200)
    assert isinstance(result, RankingResult) and result.pools == {"q1": 5, "q2": 3}
    good = result.scores["good"]
    assert [q.query for q in good.queries] == ["q1", "q2"]
    assert good.ndcg_pct20.value == 1.0 and good.map.value == 1.0 and good.ndcg_pct20.n == 2
    broken = result.scores["broken"]
    assert broken.ndcg_pct20.value == 0.0 and sum(q.unscored for q in broken.queries) == 8
    flat = result.scores["flat"]
    # q1 worst-first: [0, 0, 1, 2, 3] -> AP (1/4 + 2/5) / 2; q2: [0, 1, 2] -> AP 1/3.
    assert flat.map.value == pytest.approx(((1 / 4 + 2 / 5) / 2 + 1 / 3) / 2)
    assert flat.map.low <= flat.map.value <= flat.map.high
    assert result.best_baseline() == "flat"
    means, per_query = ranking_section(result)
    assert means.title == "Ranking quality" and "Best baseline by NDCG%20: flat." in means.text
    assert means.tables[0].rows[0][:3] == ["good", "structure", "100.0 [100.0, 100.0]"]
    assert ["q2", "3", "1", "100.0", "0.0", "0.0"] in per_query.tables[0].rows
    stats = result.to_dict()
    assert stats["scores"]["flat"]["queries"][1]["pool"] == 3 and stats["pool_share"] == 0.2
    png = plot_ranking(result, tmp_path / "ranking.png", "test")
    assert png is not None and png.stat().st_size > 1000


def test_faceted_queries_get_their_means_per_facet():
    rows = _rows()
    for r in rows:
        r["facet"] = "method" if r["query"] == "q1" else "result"
    # A third query of the method facet that "good" ranks worst-first.
    for rel, good in zip([0, 3], [0.9, 0.1]):
        rows.append(
            {
                "query": "q3",
                "relevance": str(rel),
                "good": good,
                "flat": 0.5,
                "broken": math.nan,
                "facet": "method",
            }
        )
    result = rank_pools(rows, ["good"], ["flat"], n_boot=50)
    assert result.facets == {"method": ["q1", "q3"], "result": ["q2"]}
    q3 = result.scores["good"].queries[2].ndcg_pct20
    assert q3 < 1.0
    assert result.facet_mean("good", "method") == pytest.approx((1.0 + q3) / 2)
    assert result.facet_mean("good", "result") == 1.0
    sections = ranking_section(result)
    assert [s.title for s in sections] == [
        "Ranking quality",
        "NDCG%20 per facet (x 100)",
        "NDCG%20 per query (x 100)",
    ]
    table = sections[1].tables[0]
    assert table.header == ["score", "method", "result"]
    assert table.rows[0] == ["good", f"{100 * (1.0 + q3) / 2:.1f}", "100.0"]
    assert "method 2, result 1" in sections[1].text
    assert result.to_dict()["facets"] == {"method": ["q1", "q3"], "result": ["q2"]}
    # Without facets there is no facet section.
    assert len(ranking_section(rank_pools(_rows(), ["good"], n_boot=50))) == 2


def test_rank_pools_means_are_one_bootstrap_each_number_for_number_and_report_progress():
    rng = np.random.default_rng(11)
    rows = [
        {
            "query": f"q{q}",
            "relevance": float(rng.integers(0, 4)),
            "s": float(rng.integers(0, 3)),
            "t": float(rng.normal()),
        }
        for q in range(120)
        for _ in range(int(rng.integers(2, 6)))
    ]
    heard: list[tuple[int, int, str]] = []
    with statistics_progress(lambda *report: heard.append(report)):
        result = rank_pools(rows, ["s"], ["t"], n_boot=80)
    for score in ("s", "t"):
        ranking = result.scores[score]
        for metric, attr in (
            ("ndcg_pct20", "ndcg_pct20"),
            ("ndcg_10", "ndcg_10"),
            ("map", "average_precision"),
        ):
            values = np.array([getattr(q, attr) for q in ranking.queries])
            alone = bootstrap(lambda idx, v=values: float(v[idx].mean()), values.size, n_boot=80)
            assert repr(ranking.estimate(metric)) == repr(alone), (score, metric)
    assert (240, 240, "queries ranked") in heard and heard[-1] == (80, 80, "bootstrap resamples")
