"""Bootstrap statistics of scores against human judgements (dri.metrics.validity)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dri.metrics.progress import statistics_progress
from dri.metrics.validity import (
    CORRELATIONS,
    Estimate,
    bootstrap,
    bootstrap_many,
    choice_accuracy,
    correlations,
    judgement_section,
    plagiarism_stats,
)


def test_correlations_with_intervals():
    rng = np.random.default_rng(1)
    human = rng.normal(size=200)
    score = human + rng.normal(scale=0.5, size=200)
    res = correlations(score, human, n_boot=300)
    assert set(res) == {"pearson", "spearman", "kendall"}
    for est in res.values():
        assert est.n == 200
        assert 0.3 < est.low < est.value < est.high < 1.0
    assert res["kendall"].value < res["spearman"].value  # tau is smaller than rho on the same data
    perfect = correlations([1, 2, 3, 4, 5], [10, 20, 30, 40, 50], n_boot=50)
    assert perfect["pearson"].value == pytest.approx(1.0) and perfect["kendall"].value == pytest.approx(1.0)


def test_correlations_leave_out_nan_and_constant_scores_are_undefined():
    res = correlations([1.0, math.nan, 3.0, 4.0, 5.0], [1, 2, 3, 4, 6], n_boot=50)
    assert res["pearson"].n == 4
    flat = correlations([0.5] * 10, list(range(10)), n_boot=20)
    assert math.isnan(flat["pearson"].value) and flat["pearson"].format() == "n/a"


def test_bootstrap_is_reproducible_and_empty_is_nan():
    values = np.arange(50, dtype=float)
    a = bootstrap(lambda idx: float(values[idx].mean()), 50, n_boot=200)
    b = bootstrap(lambda idx: float(values[idx].mean()), 50, n_boot=200)
    assert a == b and a.value == pytest.approx(24.5) and a.low < 24.5 < a.high
    assert math.isnan(bootstrap(lambda idx: 0.0, 0).value)
    assert Estimate(0.5, 0.4, 0.6, 10).format() == "0.500 [0.400, 0.600]"


def test_choice_accuracy_counts_ties_as_wrong_and_reports_picks():
    scores = [
        [0.9, 0.1, 0.2, 0.3],  # right
        [0.5, 0.5, 0.1, 0.0],  # tie for the top: wrong even though the answer is among them
        [0.1, 0.8, 0.2, 0.3],  # wrong: picks the noun distractor
        [math.nan] * 4,  # nothing scored: wrong
    ]
    types = [["target", "noun", "random", "random"]] * 4
    res = choice_accuracy(scores, [0, 0, 0, 0], types, n_boot=100)
    assert res.correct == 1 and res.ties == 1 and res.unscored == 1
    assert res.accuracy.value == pytest.approx(0.25)
    assert res.picks == {"noun": 1, "target": 1}
    assert 0.0 <= res.accuracy.low <= 0.25 <= res.accuracy.high <= 1.0


def test_plagiarism_stats_rho_and_auc():
    levels = ["cut", "light", "heavy", "non", "non"] * 4
    codes = {"cut": 3, "light": 2, "heavy": 1, "non": 0}
    perfect = [codes[g] / 3 for g in levels]
    res = plagiarism_stats(perfect, levels, codes, "non", n_boot=100)
    assert res["auc"].value == 1.0 and res["spearman"].value == pytest.approx(1.0)
    reverse = [1 - v for v in perfect]
    assert plagiarism_stats(reverse, levels, codes, "non", n_boot=50)["auc"].value == 0.0


def _reference(a: np.ndarray, b: np.ndarray, name: str, n_boot: int, seed: int = 12345) -> Estimate:
    """The bootstrap as it was: the plain statistic on each resample, drawn one by one."""
    statistic = CORRELATIONS[name]
    n = a.size
    value = float(statistic(a, b))
    rng = np.random.default_rng(seed)
    draws = np.array([statistic(a[idx], b[idx]) for idx in (rng.integers(0, n, n) for _ in range(n_boot))])
    draws = draws[~np.isnan(draws)]
    if math.isnan(value) or not draws.size:
        return Estimate(value, math.nan, math.nan, n)
    low, high = np.percentile(draws, [2.5, 97.5])
    return Estimate(value, float(low), float(high), n)


@pytest.mark.parametrize(
    "n, score_levels, human_levels",
    [
        (400, 3, 6),  # few values on both sides: Kendall from the table of counts
        (400, None, 6),  # a continuous score: Kendall from the pairs repeated
        (300, None, None),  # no ties at all
        (3, 2, 2),
        (4, 3, 3),
        (9, 2, None),
    ],
)
def test_correlations_are_the_plain_bootstrap_number_for_number(n, score_levels, human_levels):
    rng = np.random.default_rng(n)

    def column(levels: int | None) -> np.ndarray:
        return rng.integers(0, levels, n).astype(float) / 7 if levels else rng.normal(size=n)

    a, b = column(score_levels), column(human_levels)
    a[0] = -0.0 if score_levels else a[0]  # -0.0 and 0.0 are one value, tied
    res = correlations(a, b, n_boot=150)
    for name in ("pearson", "spearman", "kendall"):
        expected = _reference(a, b, name, 150)
        # Exactly equal, NaN for NaN: not approximately.
        assert res[name].to_dict().__repr__() == expected.to_dict().__repr__(), name


def test_judgement_section_is_one_bootstrap_per_score_number_for_number():
    rng = np.random.default_rng(3)
    rows = [
        {
            "human": float(rng.integers(0, 6)),
            "few": [0.1, 0.4, 0.2][i % 3],
            "many": float(rng.normal()),
            "gaps": math.nan if i % 7 == 0 else float(rng.integers(0, 3)),
            "flat": 0.5,
        }
        for i in range(250)
    ]
    _, stats = judgement_section(rows, ["few", "many", "gaps", "flat"], n_boot=120)
    for score in ("few", "many", "gaps", "flat"):
        keep = [r for r in rows if not math.isnan(r[score])]
        a = np.array([r[score] for r in keep])
        b = np.array([r["human"] for r in keep])
        for name in ("pearson", "spearman", "kendall"):
            assert repr(stats.scores[score][name]) == repr(_reference(a, b, name, 120)), (score, name)
    assert stats.scores["gaps"]["pearson"].n < 250 and math.isnan(stats.scores["flat"]["kendall"].value)


def test_bootstrap_many_is_each_bootstrap_and_reports_its_progress():
    values = np.random.default_rng(5).normal(size=60)
    statistics = {
        "mean": lambda idx: float(values[idx].mean()),
        "max": lambda idx: float(values[idx].max()),
    }
    heard: list[tuple[int, int, str]] = []
    with statistics_progress(lambda *report: heard.append(report)):
        both = bootstrap_many(statistics, 60, n_boot=35, seed=9)
    assert both == {key: bootstrap(f, 60, n_boot=35, seed=9) for key, f in statistics.items()}
    assert heard[0] == (0, 35, "bootstrap resamples") and heard[-1] == (35, 35, "bootstrap resamples")
    assert [done for done, _, _ in heard] == [0, 10, 20, 30, 35]
    bootstrap_many(statistics, 60, n_boot=5)
    assert len(heard) == 5  # nobody listens outside the block
