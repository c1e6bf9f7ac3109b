"""Bootstrap statistics of scores against human judgements (dri.metrics.validity)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dri.metrics.validity import Estimate, bootstrap, choice_accuracy, correlations, plagiarism_stats


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
