"""Statistics against known answers: hand computations and Krippendorff's own example."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dri.metrics.stats import (
    average_ranks,
    group_summary,
    kendall_tau_b,
    krippendorff_alpha,
    kruskal_wallis,
    language_ranking,
    rating_stats,
    roc_auc,
    score_stats,
    spearman,
)

LEVELS = {"cut": 3, "light": 2, "heavy": 1, "non": 0}


def test_kruskal_wallis_by_hand():
    # Ranks 1-3, 4-6, 7-9: H = 12/(9*10) * (6^2/3 + 15^2/3 + 24^2/3) - 3*10 = 7.2;
    # with 2 degrees of freedom the chi-square p is exp(-H/2).
    h, p = kruskal_wallis([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert h == pytest.approx(7.2)
    assert p == pytest.approx(math.exp(-3.6))
    assert kruskal_wallis([[1, 2, 3]]) == (None, None)
    assert kruskal_wallis([[1, 1], [1, 1]]) == (None, None)


def test_spearman_by_hand():
    # d = (-1, 1, -1, 1, 0), sum d^2 = 4: rho = 1 - 6*4 / (5*24) = 0.8.
    rho, p = spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert rho == pytest.approx(0.8)
    assert 0 < p < 1
    assert spearman([1, 2, 3], [5, 5, 5]) == (None, None)


def test_rank_statistics_match_scipy_on_tied_data():
    # The statistics are computed without importing scipy.stats (0.6 s a
    # process); SciPy's own functions are the reference, ties included.
    from scipy import stats

    rng = np.random.default_rng(7)
    for case in range(200):
        n = int(rng.integers(3, 30))
        x = rng.integers(0, 4, n).astype(float)
        y = rng.integers(0, 5, n) + (rng.random(n) if case % 2 else 0.0)
        assert average_ranks(x) == pytest.approx(stats.rankdata(x))
        if len(set(x)) > 1 and len(set(y)) > 1:
            expected = stats.spearmanr(x, y)
            assert spearman(list(x), list(y)) == pytest.approx(
                (expected.statistic, expected.pvalue), abs=1e-12
            )
        groups = [list(rng.integers(0, 4, int(rng.integers(1, 8))).astype(float)) for _ in range(3)]
        if len({v for g in groups for v in g}) > 1:
            expected = stats.kruskal(*groups)
            assert kruskal_wallis(groups) == pytest.approx((expected.statistic, expected.pvalue), abs=1e-12)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == (-1.0, 0.0)


def test_kendall_tau_b_is_scipys_float_for_float():
    # The bootstrap's tau-b without SciPy's p-value: the same statistic to the
    # last bit, with ties on either side, both, or neither, small and large.
    from scipy import stats

    rng = np.random.default_rng(11)
    for case in range(400):
        n = int(rng.integers(3, 40)) if case < 360 else int(rng.integers(200, 1500))
        x = rng.normal(size=n) if case % 3 else rng.integers(0, 4, n).astype(float)
        y = x + rng.normal(size=n) if case % 2 else rng.integers(0, 5, n).astype(float)
        expected = stats.kendalltau(x, y, variant="b").statistic
        found = kendall_tau_b(x, y)
        assert found == expected or (math.isnan(found) and math.isnan(expected)), (case, found, expected)
    assert kendall_tau_b(np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])) == -1.0
    assert math.isnan(kendall_tau_b(np.array([1.0, 1.0, 1.0]), np.array([3.0, 2.0, 1.0])))


def test_roc_auc_is_the_mann_whitney_probability():
    # Positive-negative pairs won: 0.9 (2), 0.8 (2), 0.4 (1 of 2) -> 5/6.
    assert roc_auc([0.9, 0.8, 0.4], [0.5, 0.3]) == pytest.approx(5 / 6)
    assert roc_auc([0.5], [0.5]) == 0.5  # a tie counts one half
    assert roc_auc([1.0, 0.9], [0.1]) == 1.0
    assert roc_auc([], [0.1]) is None


def test_group_summary_and_ranking():
    s = group_summary([1.0, 2.0, 3.0, 4.0])
    assert (s.n, s.median, s.mean, s.q1, s.q3) == (4, 2.5, 2.5, 1.75, 3.25)
    ranking = language_ranking([0.9, 0.8, 0.2, 0.4, 0.6, 0.6], ["spa", "spa", "hbs", "hbs", "cat", "cat"])
    assert ranking == [("spa", pytest.approx(0.85)), ("cat", pytest.approx(0.6)), ("hbs", pytest.approx(0.3))]


def test_score_stats_on_perfectly_ordered_levels():
    values = [0.9, 0.95, 0.7, 0.75, 0.4, 0.45, 0.1, 0.15, 0.2, float("nan")]
    groups = ["cut", "cut", "light", "light", "heavy", "heavy", "non", "non", "non", "non"]
    st = score_stats("as", values, groups, levels=LEVELS, negative="non")
    assert list(st.groups) == ["cut", "light", "heavy", "non"]
    assert st.groups["non"].n == 3  # the NaN pair is left out
    assert st.groups["cut"].median == pytest.approx(0.925)
    assert st.auc == 1.0
    assert st.rho == pytest.approx(spearman([3, 3, 2, 2, 1, 1, 0, 0, 0], values[:9])[0])
    assert st.rho > 0.9
    # Ranks: non 1,2,3; heavy 4,5; light 6,7; cut 8,9 ->
    # H = 12/(9*10) * (6^2/3 + 9^2/2 + 13^2/2 + 17^2/2) - 3*10 = 113/15.
    assert st.kruskal_h == pytest.approx(113 / 15)


def test_krippendorff_alpha_reference_example():
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the 4-observer,
    # 12-unit example with missing data: alpha = 0.743 nominal, 0.815 ordinal,
    # 0.849 interval, 0.797 ratio.
    nan = np.nan
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
        [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
    ]
    assert krippendorff_alpha(data) == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha(data, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert krippendorff_alpha(data, "ratio") == pytest.approx(0.797, abs=5e-4)


def test_krippendorff_alpha_by_hand_and_degenerate():
    # Units (3,3) and (2,3): D_o = 0.5, D_e = 0.5 over the pooled 3,3,2,3 -> alpha 0.
    assert krippendorff_alpha([[3, 2], [3, 3]]) == pytest.approx(0.0)
    assert krippendorff_alpha([[1, 5], [1, 5]]) == pytest.approx(1.0)
    assert krippendorff_alpha([[4, 4], [4, 4]]) is None  # no variation: undefined


def test_rating_stats_mean_and_alpha_per_property():
    rows = [
        {"rater": "r1", "pair": "p1", "novelty": 5, "usefulness": 4, "challenge": 1},
        {"rater": "r2", "pair": "p1", "novelty": 5, "usefulness": 3, "challenge": None},
        {"rater": "r1", "pair": "p2", "novelty": 1, "usefulness": 4, "challenge": 2},
        {"rater": "r2", "pair": "p2", "novelty": 1, "usefulness": 3, "challenge": 2},
    ]
    by_prop = {s.prop: s for s in rating_stats(rows)}
    assert by_prop["novelty"].mean == 3.0 and by_prop["novelty"].alpha == pytest.approx(1.0)
    assert by_prop["usefulness"].mean == 3.5
    # usefulness: raters disagree within units exactly as much as overall -> alpha < 0.
    assert by_prop["usefulness"].alpha < 0
    assert by_prop["challenge"].ratings == 3 and by_prop["challenge"].mean == pytest.approx(5 / 3)
    assert by_prop["challenge"].alpha is None  # the only unit rated twice has no variation
    assert (by_prop["novelty"].raters, by_prop["novelty"].pairs) == (2, 2)


@pytest.mark.parametrize("level", ["interval", "nominal", "ordinal", "ratio"])
def test_krippendorff_alpha_is_the_packages_on_random_matrices_with_gaps(level):
    # Counted per unit (the package's value_counts form), not from its raters x units matrix.
    import krippendorff

    rng = np.random.default_rng(7)
    compared = 0
    for _ in range(150):
        data = rng.integers(1, 6, size=(rng.integers(1, 8), rng.integers(1, 25))).astype(float)
        data[rng.random(data.shape) < rng.random()] = np.nan
        paired = data[:, np.sum(~np.isnan(data), axis=0) >= 2]
        if len(np.unique(paired[~np.isnan(paired)])) < 2:
            assert krippendorff_alpha(data, level) is None
            continue
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        got = krippendorff_alpha(data, level)
        assert (got is None and not math.isfinite(expected)) or got == pytest.approx(expected, abs=1e-12)
        compared += 1
    assert compared > 100


def test_rating_stats_of_many_raters_each_rating_one_pair_needs_no_table_of_all():
    # 60,000 raters x 60,000 pairs was a 27 GB matrix: MemoryError, exit 70 of every command
    # that read the stored ratings (and a list.index per rating: 200,000 rows took 80 s).
    rows = [{"rater": f"r{i}", "pair": f"p{i}", "novelty": 1 + i % 5} for i in range(60_000)]
    rows += [{"rater": "extra", "pair": "p0", "novelty": 2}, {"rater": "extra", "pair": "p1", "novelty": 2}]
    novelty = rating_stats(rows, ["novelty"])[0]
    assert (novelty.raters, novelty.pairs, novelty.ratings) == (60_001, 60_000, 60_002)
    # Two units rated twice, (1, 2) and (2, 2): the pooled 1, 2, 2, 2.
    assert novelty.alpha == pytest.approx(krippendorff_alpha([[1, 2], [2, 2]]), abs=1e-12)


def test_roc_auc_is_the_table_of_every_pair_number_for_number():
    def every_pair(p: np.ndarray, n: np.ndarray) -> float:
        wins = (p[:, None] > n[None, :]).sum() + 0.5 * (p[:, None] == n[None, :]).sum()
        return float(wins / (p.size * n.size))

    rng = np.random.default_rng(4)
    for trial in range(200):
        sizes = rng.integers(1, 50, 2)
        pos, neg = (rng.integers(0, 5, size).astype(float) for size in sizes)
        if trial % 3 == 0:
            pos = rng.normal(size=sizes[0])
        if trial % 5 == 0:
            pos[0], neg[-1] = math.nan, math.nan  # NaN wins nothing and loses nothing
        if trial % 7 == 0:
            pos[0], neg[0] = -0.0, 0.0  # a tie
        assert repr(roc_auc(pos, neg)) == repr(every_pair(pos, neg)), trial
