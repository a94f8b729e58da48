"""An agent before and after a release (leaderboard/methodology/release.py): each
difference checked against statsmodels or by hand."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from leaderboard.methodology import release, two_sample
from leaderboard.methodology.stats import Z, wilson_interval

EXACT = {"abs": 1e-12, "rel": 0}


def proportion(x: int, n: int, count: str = "n") -> dict:
    low, high = wilson_interval(x, n)
    return {"value": x / n, "low": low, "high": high, count: n}


@pytest.mark.parametrize(
    ("signal", "count"),
    [
        ("confirmed_success", "n"),
        ("praise_complaint", "n"),
        ("shell_success", "calls"),
        ("tool_hallucination", "calls"),
    ],
)
def test_a_proportion_difference_is_newcombes_interval_as_statsmodels_computes_it(signal, count):
    after, before = proportion(57, 96, count), proportion(38, 90, count)
    difference, method = release.signal_difference(signal, after, before)
    # The boards' z is 1.96 exactly: statsmodels at the alpha of that z agrees to 1e-9.
    alpha = math.erfc(Z / math.sqrt(2))
    low, high = confint_proportions_2indep(
        57, 96, 38, 90, method="newcomb", compare="diff", alpha=alpha
    )
    _, p = proportions_ztest([57, 38], [96, 90])
    assert difference.value == pytest.approx(57 / 96 - 38 / 90, **EXACT)
    assert (difference.low, difference.high) == (
        pytest.approx(low, abs=1e-9),
        pytest.approx(high, abs=1e-9),
    )
    assert difference.p_value == pytest.approx(p, rel=1e-6)
    assert method == release.NEWCOMBE_METHOD


def test_a_ratio_difference_takes_each_se_from_its_symmetric_interval():
    # Hand-worked: se_after = (0.9 − 0.8)/(2·1.96), se_before = (0.8 − 0.6)/(2·1.96).
    after = {"value": 0.85, "low": 0.80, "high": 0.90}
    before = {"value": 0.70, "low": 0.60, "high": 0.80}
    difference, method = release.signal_difference("steerability", after, before)
    se = math.sqrt((0.1 / (2 * Z)) ** 2 + (0.2 / (2 * Z)) ** 2)
    assert difference.value == pytest.approx(0.15, **EXACT)
    assert difference.low == pytest.approx(0.15 - Z * se, **EXACT)
    assert difference.high == pytest.approx(0.15 + Z * se, **EXACT)
    # Half-widths 0.05 and 0.1 add in quadrature: sqrt(0.05² + 0.1²) = 0.1118…
    assert difference.high - difference.value == pytest.approx(math.sqrt(0.0125), **EXACT)
    assert method == release.RATIO_METHOD


def test_a_ratio_clamped_to_zero_and_one_takes_its_se_from_the_unclamped_end():
    # Published as [0.95, 1.0], the after's interval was 0.99 ± 0.04 before its clamp.
    after = {"value": 0.99, "low": 0.95, "high": 1.0}
    before = {"value": 0.05, "low": 0.0, "high": 0.15}  # 0.05 ± 0.1
    difference, _ = release.signal_difference("bash_recovery", after, before)
    half = math.hypot(0.04, 0.1)
    assert (difference.low, difference.high) == (
        pytest.approx(0.94 - half, **EXACT),
        pytest.approx(0.94 + half, **EXACT),
    )


def test_a_ratio_whose_interval_spans_zero_to_one_gives_no_difference():
    # Both ends clamped: the interval says nothing of how wide it was (as one without
    # an interval, test_a_missing_figure_gives_no_difference).
    after = {"value": 0.5, "low": 0.0, "high": 1.0}
    before = {"value": 0.7, "low": 0.6, "high": 0.8}
    difference, _ = release.signal_difference("steerability", after, before)
    assert difference == two_sample.MISSING


def test_the_nir_difference_adds_the_null_sds_in_quadrature():
    after = {"value": 0.25, "null_sd": 0.25}
    before = {"value": -0.25, "null_sd": 0.25}
    difference = release.nir_difference(after, before)
    sd = math.sqrt(0.25**2 + 0.25**2)
    assert difference.value == pytest.approx(0.5, **EXACT)
    assert (difference.low, difference.high) == (
        pytest.approx(0.5 - Z * sd, **EXACT),
        pytest.approx(0.5 + Z * sd, **EXACT),
    )
    assert difference.p_value == pytest.approx(math.erfc(0.5 / sd / math.sqrt(2)), **EXACT)


def test_a_missing_figure_gives_no_difference():
    assert release.nir_difference(None, {"value": 0.1, "null_sd": 0.1}).value is None
    no_interval = {"value": 0.5, "low": None, "high": None}
    assert release.signal_difference("bash_recovery", no_interval, no_interval)[0].value is None
    assert release.signal_difference("confirmed_success", None, proportion(1, 2))[0].value is None


def test_counts_are_read_back_from_the_stored_proportion():
    assert release.proportion_counts(proportion(55, 96), ("n",)) == (55, 96)
    assert release.proportion_counts({"value": None, "calls": 0}, ("calls",)) == (0, 0)


def test_tool_hallucinations_are_over_calls_and_capability_claims():
    # 6 invented calls of 90 plus 4 unsupported claims: 10 of 94 references.
    after = {"value": 10 / 94, "calls": 90, "claims": 4}
    before = {"value": 3 / 50, "calls": 50}  # a snapshot without claims: calls alone
    difference, _ = release.signal_difference("tool_hallucination", after, before)
    alpha = math.erfc(Z / math.sqrt(2))
    low, high = confint_proportions_2indep(
        10, 94, 3, 50, method="newcomb", compare="diff", alpha=alpha
    )
    assert difference.value == pytest.approx(10 / 94 - 3 / 50, **EXACT)
    assert (difference.low, difference.high) == (
        pytest.approx(low, abs=1e-9),
        pytest.approx(high, abs=1e-9),
    )


def test_an_unknown_signal_is_refused():
    with pytest.raises(ValueError, match="no difference rule"):
        release.signal_difference("vibes", {}, {})
