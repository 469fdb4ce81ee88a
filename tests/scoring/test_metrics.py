"""The metric definitions (tpugraphs_eval.scoring.metrics): hand-worked values, scipy on the same inputs, invariances.

Expected values say where they come from: "by hand" (worked in the comment) or "scipy" (scipy.stats.kendalltau
on the same inputs, computed in the test).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from tpugraphs_eval.scoring.metrics import (
    UndefinedMetricError,
    best_of_top_k_ratio,
    error_from_ratio,
    kendall_tau_b,
    ranking_tau_b,
    search_curves,
    tile_score_from_ratio,
)

pytestmark = pytest.mark.usefixtures("kernel")  # every test with each kernel (conftest.py)


def scipy_tau(x, y) -> float:
    return float(scipy.stats.kendalltau(x, y).statistic)


# --- hand-worked values ---------------------------------------------------------------------------

@pytest.mark.parametrize("runtimes, expected", [
    ([1, 2, 3], 1.0),                         # all 3 pairs concordant
    ([3, 2, 1], -1.0),                        # all 3 pairs discordant
    ([1, 3, 2], 1 / 3),                       # C=2 (1<3, 1<2), D=1 (3>2): (2-1)/3
    ([1, 1, 2], 2 / math.sqrt(3 * 2)),        # n0=3, one pair tied in y, C=2, D=0: 2/sqrt(3*(3-1))
    ([2, 1, 1, 3], 1 / math.sqrt(6 * 5)),     # (2,1)D (2,1)D (2,3)C (1,1)tie (1,3)C (1,3)C: (3-2)/sqrt(6*5)
])
def test_ranking_tau_b_by_hand(runtimes, expected):
    assert ranking_tau_b(np.array(runtimes)) == pytest.approx(expected, abs=1e-15)


def test_kendall_tau_b_ties_in_both_by_hand():
    # x=[0,0,1], y=[1,2,3]: n0=3, x-tied pairs n1=1 (first two), C=2, D=0 -> 2/sqrt((3-1)*3)
    assert kendall_tau_b([0, 0, 1], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    # a duplicated sampled config (official protocol): x=[0,0,1], y=[5,5,7] tie in both:
    # n1=n2=n3=1, C=2, D=0 -> (3-1-1+1-0)/sqrt(2*2) = 1, up to one ulp: scipy's formula divides by
    # sqrt(n0-n1) and sqrt(n0-n2) separately (scipy gives 0.9999999999999999 here too)
    assert kendall_tau_b([0, 0, 1], [5, 5, 7]) == pytest.approx(1.0, abs=1e-15)
    assert kendall_tau_b([0, 0, 1], [5, 5, 7]) == scipy_tau([0, 0, 1], [5, 5, 7])


@pytest.mark.parametrize("x, y", [([1], [1]), ([], []), ([0, 1, 2], [4, 4, 4]), ([3, 3], [1, 2])])
def test_tau_undefined_raises(x, y):
    # fewer than 2 observations, or every pair tied in x or in y: scipy returns NaN, the metric API raises
    if len(x) >= 2:
        assert math.isnan(scipy_tau(x, y))
    with pytest.raises(UndefinedMetricError, match="undefined"):
        kendall_tau_b(x, y)
    if len(x) == len(set(x)) and sorted(x) == x:
        with pytest.raises(UndefinedMetricError, match="undefined"):
            ranking_tau_b(np.array(y))


def test_tile_score_and_errors_by_hand():
    y = np.array([10.0, 20.0, 5.0, 8.0])       # best = 5 (config 2)
    ranked = y[[0, 1, 3, 2]]                    # predicted order 0, 1, 3, 2
    assert best_of_top_k_ratio(ranked, 5.0, 1) == 2.0          # 10 / 5
    assert best_of_top_k_ratio(ranked, 5.0, 3) == 8.0 / 5.0    # min(10, 20, 8) / 5
    assert best_of_top_k_ratio(ranked, 5.0, 10) == 1.0         # all 4 listed: the best is among them
    assert tile_score_from_ratio(2.0) == 0.0                               # 2 - 10/5
    assert error_from_ratio(1.6) == pytest.approx(0.6, abs=1e-15)    # 8/5 - 1


def test_search_curves_by_hand():
    values = np.array([5, 3, 9, 7, 1, 4])       # rankings [5, 3, 9], [7], [1, 4]; best 1, 7, 1
    curves = search_curves(values, np.array([3, 1, 2]), np.array([1.0, 7.0, 1.0]), 4)
    assert curves.tolist() == [[5.0, 3.0, 3.0, 3.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]


# --- scipy on the same inputs ------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 5, 16, 17, 33, 100, 1000, 1965, 4097])
@pytest.mark.parametrize("tie_level", [None, 3, "half"])
def test_ranking_tau_b_equals_scipy(n, tie_level):
    rng = np.random.default_rng(n)
    high = {None: 10**12, 3: 3, "half": max(n // 2, 1)}[tie_level]
    y = rng.integers(0, high, n)
    expected = scipy_tau(np.arange(n), y)
    if math.isnan(expected):
        with pytest.raises(UndefinedMetricError):
            ranking_tau_b(y)
    else:
        assert abs(ranking_tau_b(y) - expected) <= 1e-12


@pytest.mark.parametrize("seed", range(25))
def test_kendall_tau_b_equals_scipy_with_ties_in_both(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    x = rng.integers(0, rng.integers(1, n + 1), n)
    y = rng.normal(size=n).round(int(rng.integers(0, 3)))  # floats, some tied
    expected = scipy_tau(x, y)
    if math.isnan(expected):
        with pytest.raises(UndefinedMetricError):
            kendall_tau_b(x, y)
    else:
        assert abs(kendall_tau_b(x, y) - expected) <= 1e-12


def test_ranking_tau_b_large_equals_scipy():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 50_000, 100_000)  # many ties
    assert abs(ranking_tau_b(y) - scipy_tau(np.arange(y.size), y)) <= 1e-12


# --- invariances (every tau function) ---------------------------------------------------------------

TAU_FUNCTIONS = {
    "ranking_tau_b": lambda y: ranking_tau_b(y),
    "kendall_tau_b": lambda y: kendall_tau_b(np.arange(y.size), y),
}


@pytest.mark.parametrize("name", TAU_FUNCTIONS)
def test_perfect_ranking_is_one_and_reversal_flips_sign(name):
    tau = TAU_FUNCTIONS[name]
    y = np.random.default_rng(3).permutation(500) + 1000
    # 1 and -1 up to one ulp, as scipy (which returns 0.9999999999999999 for n = 500)
    assert tau(np.sort(y)) == pytest.approx(1.0, abs=1e-15)
    assert tau(np.sort(y)[::-1]) == pytest.approx(-1.0, abs=1e-15)
    shuffled = y.copy()
    assert tau(shuffled[::-1]) == pytest.approx(-tau(shuffled), abs=1e-15)


@pytest.mark.parametrize("name", TAU_FUNCTIONS)
def test_tau_depends_only_on_order(name):
    tau = TAU_FUNCTIONS[name]
    y = np.random.default_rng(4).integers(1, 10**6, 300)
    assert tau(y) == tau(y * 3 + 17)                  # a monotone transform of runtimes
    assert tau(y) == pytest.approx(tau(y.astype(np.float64) / 7.0), abs=1e-15)


def test_kendall_tau_b_is_symmetric_in_row_order():
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 20, 200), rng.integers(0, 30, 200)
    order = rng.permutation(200)
    assert kendall_tau_b(x, y) == pytest.approx(kendall_tau_b(x[order], y[order]), abs=1e-15)


def test_tile_perfect_and_worst():
    y = np.array([4.0, 1.0, 3.0, 2.0, 9.0, 8.0])
    best = y.min()
    oracle = y[np.argsort(y)]
    assert tile_score_from_ratio(best_of_top_k_ratio(oracle, best, 5)) == 1.0
    assert error_from_ratio(best_of_top_k_ratio(oracle, best, 1)) == 0.0
    worst = y[np.argsort(-y)]
    assert tile_score_from_ratio(best_of_top_k_ratio(worst, best, 1)) == 2 - 9.0  # only the slowest listed: 2 - 9/1
