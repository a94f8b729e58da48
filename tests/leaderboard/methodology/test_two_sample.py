"""Two signal-board models compared: Newcombe's interval, the score test, NIR differences."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from leaderboard.methodology import paired, two_sample


def test_it_reproduces_newcombes_worked_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, table II, method 10:
    # 56/70 vs 48/80, a difference of 0.2000, has the interval 0.0524 to 0.3339.
    low, high = two_sample.newcombe_interval(56, 70, 48, 80)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2"), [(56, 70, 48, 80), (9, 10, 3, 10), (0, 15, 4, 12), (30, 30, 29, 31)]
)
def test_it_matches_statsmodels_newcombe_interval(x1: int, n1: int, x2: int, n2: int) -> None:
    # statsmodels uses z = 1.959964…, the boards 1.96 exactly: agree to 1e-4.
    expected = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff")
    assert two_sample.newcombe_interval(x1, n1, x2, n2) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2"), [(56, 70, 48, 80), (9, 10, 3, 10), (5, 40, 8, 35)]
)
def test_it_matches_statsmodels_pooled_z_test(x1: int, n1: int, x2: int, n2: int) -> None:
    _, expected = proportions_ztest([x1, x2], [n1, n2])
    assert two_sample.pooled_score_p(x1, n1, x2, n2) == pytest.approx(expected)


def test_it_finds_no_evidence_when_both_are_all_successes() -> None:
    assert two_sample.pooled_score_p(10, 10, 5, 5) == 1.0
    assert two_sample.proportion_difference(10, 10, 5, 5).verdict() == paired.NO_DIFFERENCE


def test_it_reports_nothing_for_an_empty_side() -> None:
    assert two_sample.proportion_difference(0, 0, 3, 5) == two_sample.MISSING


def test_it_says_which_proportion_is_higher() -> None:
    assert two_sample.proportion_difference(45, 50, 20, 50).verdict() == paired.A_BETTER
    assert two_sample.proportion_difference(20, 50, 45, 50).verdict() == paired.B_BETTER


def test_it_differences_two_nir_estimates_by_hand() -> None:
    d = two_sample.estimate_difference(0.10, 0.03, 0.02, 0.04)
    assert d.value == pytest.approx(0.08)
    # sd = sqrt(0.03² + 0.04²) = 0.05; z = 1.6; p = 2(1 − Φ(1.6)) = 0.10960
    assert (d.low, d.high) == pytest.approx((0.08 - 1.96 * 0.05, 0.08 + 1.96 * 0.05))
    assert d.p_value == pytest.approx(0.109599, abs=1e-6)
    assert d.verdict() == paired.NO_DIFFERENCE


def test_it_has_no_nir_difference_without_both_estimates() -> None:
    assert two_sample.estimate_difference(None, 0.1, 0.2, 0.1) == two_sample.MISSING


def test_it_keeps_small_p_values_in_the_normal_tail() -> None:
    assert two_sample.normal_two_sided_p(10.0) == pytest.approx(math.erfc(10 / math.sqrt(2)))
    assert two_sample.normal_two_sided_p(10.0) > 0
