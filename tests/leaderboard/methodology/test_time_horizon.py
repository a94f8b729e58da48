"""Tests for leaderboard.methodology.time_horizon and time_horizon_bootstrap: METR's
logistic time horizon on hand-made data (closed forms, symmetry, the penalised
objective written out for SciPy, the degenerate rules) and the hierarchical bootstrap.

Pure: no Django, no database.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from leaderboard.methodology.bootstrap import bootstrap_seed
from leaderboard.methodology.time_horizon import (
    CROSS_DOMAIN,
    HEADLINE,
    HEADLINE_C,
    headline_weights,
    horizon_fit,
)
from leaderboard.methodology.time_horizon_bootstrap import (
    HorizonRun,
    _Layout,
    horizon_interval,
    percentile_bounds,
    resample_runs,
)

SEED = bootstrap_seed("time-horizon", "tests")


def two_lengths(short: float, long: float, short_wins: int, long_wins: int, n: int = 4):
    """n runs at each of two lengths, with so many successes at each."""
    minutes = [short] * n + [long] * n
    successes = [1.0] * short_wins + [0.0] * (n - short_wins)
    successes += [1.0] * long_wins + [0.0] * (n - long_wins)
    return minutes, successes


def graded_runs(families: int = 6, tasks_per_family: int = 4, runs_per_task: int = 3):
    """Runs whose success falls with length: task k of family f is 2^(f+k/2) minutes and
    succeeds on a deterministic, length-dependent share of its runs."""
    runs = []
    for f in range(families):
        for k in range(tasks_per_family):
            minutes = 2.0 ** (f + k / 2)
            rate = 1 / (1 + (minutes / 8) ** 0.8)
            for r in range(runs_per_task):
                success = 1.0 if (r + 0.5) / runs_per_task < rate + 0.15 * ((f + k) % 2) else 0.0
                runs.append(HorizonRun(f"f{f}/t{k}", f"f{f}", minutes, success))
    return runs


def test_it_fits_two_lengths_exactly_in_closed_form():
    # Two lengths: the unpenalised fit passes through both empirical rates, 3/4 at 2 min
    # and 1/4 at 8 min, so slope = (logit ¼ − logit ¾) / 2 = −ln 3 per log2 minute.
    fit = horizon_fit(*two_lengths(2, 8, 3, 1), mode=CROSS_DOMAIN)
    assert fit.slope == pytest.approx(-math.log(3), abs=1e-12)
    assert fit.intercept == pytest.approx(2 * math.log(3), abs=1e-12)
    # Symmetric rates about ½: p50 is the geometric middle of the lengths.
    assert fit.p50_minutes == pytest.approx(4.0, rel=1e-12)
    assert fit.p80_minutes == pytest.approx(2 ** (2 - math.log(4) / math.log(3)), rel=1e-12)
    assert (fit.mode, fit.n_runs, fit.n_tasks, fit.degenerate) == (CROSS_DOMAIN, 8, 8, None)


def test_it_puts_p80_before_p50():
    for mode in (CROSS_DOMAIN, HEADLINE):
        fit = horizon_fit(*two_lengths(1, 60, 3, 1), mode=mode)
        assert 0 < fit.p80_minutes < fit.p50_minutes
        assert fit.slope < 0


def test_it_lengthens_the_horizon_when_a_task_near_it_succeeds():
    # A canonical-link fit's value at a point rises with that point's outcome, so a
    # failure turned success at the horizon's length moves the crossing to longer tasks.
    runs = graded_runs()
    minutes = [run.minutes for run in runs]
    successes = [run.success for run in runs]
    failures = [i for i, run in enumerate(runs) if run.success == 0]
    for mode in (CROSS_DOMAIN, HEADLINE):
        before = horizon_fit(minutes, successes, mode=mode)
        for attribute in ("p50_minutes", "p80_minutes"):
            horizon = getattr(before, attribute)
            nearest = min(failures, key=lambda i: abs(math.log2(minutes[i] / horizon)))
            better = list(successes)
            better[nearest] = 1.0
            after = horizon_fit(minutes, better, mode=mode)
            assert getattr(after, attribute) > horizon


def test_it_scales_with_the_task_lengths():
    # Every length doubled: the same curve moved by one log2 minute, horizons doubled.
    minutes, successes = two_lengths(3, 30, 3, 1)
    fit = horizon_fit(minutes, successes, mode=HEADLINE)
    doubled = horizon_fit([2 * m for m in minutes], successes, mode=HEADLINE)
    assert doubled.slope == pytest.approx(fit.slope, abs=1e-10)
    assert doubled.p50_minutes == pytest.approx(2 * fit.p50_minutes, rel=1e-9)


def test_it_weights_runs_by_task_and_family_and_sums_to_one():
    # Family A: t1 with two runs, t2 with one; family B: t3 with one run.
    tasks = ["t1", "t1", "t2", "t3"]
    families = ["A", "A", "A", "B"]
    weights = headline_weights(tasks, families)
    raw = np.array([1 / (2 * math.sqrt(2))] * 2 + [1 / math.sqrt(2), 1.0])
    np.testing.assert_allclose(weights, raw / raw.sum(), rtol=1e-12)
    assert weights.sum() == pytest.approx(1.0, abs=1e-12)
    # A task counts once in its family however many runs it has, in any order.
    shuffled = headline_weights(tasks[::-1], families[::-1])
    np.testing.assert_allclose(shuffled, weights[::-1], rtol=1e-12)


def test_it_minimises_the_penalised_weighted_log_loss():
    runs = graded_runs()
    x = np.log2([run.minutes for run in runs])
    y = np.array([run.success for run in runs])
    w = headline_weights([run.task_id for run in runs], [run.family for run in runs])

    def objective(beta: np.ndarray) -> float:
        p = np.clip(expit(beta[0] + beta[1] * x), 1e-300, 1 - 1e-16)
        loss = -(w * (y * np.log(p) + (1 - y) * np.log1p(-p))).sum()
        return loss + beta[1] ** 2 / (2 * HEADLINE_C)  # the intercept is not penalised

    reference = minimize(objective, x0=[0.0, 0.0], method="BFGS", options={"gtol": 1e-12})
    fit = horizon_fit(2.0**x, y, weights=w, mode=HEADLINE)
    assert fit.intercept == pytest.approx(reference.x[0], abs=1e-6)
    assert fit.slope == pytest.approx(reference.x[1], abs=1e-6)
    assert fit.p50_minutes == pytest.approx(2 ** (-reference.x[0] / reference.x[1]), rel=1e-5)


def test_it_fits_a_fractional_score_as_a_weighted_success_and_failure():
    # METR splits a score y into a success weighted y and a failure weighted 1 − y.
    minutes = [1.0, 4.0, 16.0, 64.0]
    scores = [0.9, 0.7, 0.4, 0.1]
    fit = horizon_fit(minutes, scores, mode=HEADLINE, weights=[0.25] * 4)
    split = horizon_fit(
        minutes * 2,
        [1.0] * 4 + [0.0] * 4,
        mode=HEADLINE,
        weights=[0.25 * s for s in scores] + [0.25 * (1 - s) for s in scores],
    )
    assert fit.slope == pytest.approx(split.slope, abs=1e-10)
    assert fit.intercept == pytest.approx(split.intercept, abs=1e-10)


def test_it_penalises_the_slope_towards_zero():
    minutes, successes = two_lengths(2, 8, 3, 1)
    plain = horizon_fit(minutes, successes, mode=CROSS_DOMAIN)
    penalised = horizon_fit(minutes, successes, mode=HEADLINE)
    assert plain.slope < penalised.slope < 0


def test_it_gives_degenerate_data_their_stated_horizons():
    minutes = [1.0, 2.0, 4.0, 8.0]
    for mode in (CROSS_DOMAIN, HEADLINE):
        every = horizon_fit(minutes, [1.0] * 4, mode=mode)
        assert (every.p50_minutes, every.p80_minutes, every.degenerate) == (
            math.inf,
            math.inf,
            "all_success",
        )
        assert math.isnan(every.slope)
        none = horizon_fit(minutes, [0.0] * 4, mode=mode)
        assert (none.p50_minutes, none.p80_minutes, none.degenerate) == (0.0, 0.0, "all_failure")
    # Unpenalised, successes at 1–2 min and failures at 4–8 min: no finite slope, both
    # horizons at the gap's geometric middle, √(2·4) minutes.
    separated = horizon_fit(minutes, [1.0, 1.0, 0.0, 0.0], mode=CROSS_DOMAIN)
    assert separated.degenerate == "separated"
    assert separated.p50_minutes == separated.p80_minutes == pytest.approx(math.sqrt(8))
    # The penalty keeps the slope finite on the same data.
    assert horizon_fit(minutes, [1.0, 1.0, 0.0, 0.0], mode=HEADLINE).degenerate is None
    # Success that rises with length has no horizon: +inf.
    for mode in (CROSS_DOMAIN, HEADLINE):
        rising = horizon_fit(minutes, [0.0, 1.0, 0.0, 1.0], mode=mode)
        assert rising.degenerate == "non_decreasing"
        assert rising.p50_minutes == rising.p80_minutes == math.inf


def test_it_rejects_bad_input():
    with pytest.raises(ValueError, match="mode"):
        horizon_fit([1.0], [1.0], mode="paper")
    with pytest.raises(ValueError, match="minutes"):
        horizon_fit([0.0, 1.0], [1.0, 0.0], mode=CROSS_DOMAIN)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        horizon_fit([1.0, 2.0], [1.5, 0.0], mode=CROSS_DOMAIN)


def test_it_draws_families_then_tasks_then_runs():
    # Three families of two one-run tasks: a draw holds each family 0, 2, 4 or 6 times,
    # so every family's runs sum to an even count and all runs to six.
    runs = [HorizonRun(f"{f}/{k}", f, 2.0 ** (k + 1), float(k == 0)) for f in "abc" for k in (0, 1)]
    counts = resample_runs(_Layout.of(runs, HEADLINE), np.random.default_rng(SEED), 500)
    assert (counts.sum(axis=1) == 6).all()
    per_family = counts.reshape(500, 3, 2).sum(axis=2)
    assert (per_family % 2 == 0).all()
    # One family, one task, four runs: each draw redraws the four runs.
    single = [HorizonRun("t", "f", 5.0, float(r % 2)) for r in range(4)]
    counts = resample_runs(_Layout.of(single, CROSS_DOMAIN), np.random.default_rng(SEED), 500)
    assert (counts.sum(axis=1) == 4).all()
    assert counts.std() > 0


def test_it_reproduces_an_interval_from_its_seed():
    runs = graded_runs()
    for mode in (CROSS_DOMAIN, HEADLINE):
        first = horizon_interval(runs, mode=mode, seed=SEED, draws=400)
        again = horizon_interval(list(runs), mode=mode, seed=SEED, draws=400)
        other = horizon_interval(runs, mode=mode, seed=SEED + 1, draws=400)
        assert first == again
        assert first != other
        fit = horizon_fit(
            [run.minutes for run in runs],
            [run.success for run in runs],
            weights=headline_weights([r.task_id for r in runs], [r.family for r in runs])
            if mode == HEADLINE
            else None,
            mode=mode,
        )
        assert first.p50_low < fit.p50_minutes < first.p50_high
        assert first.p80_low < fit.p80_minutes < first.p80_high
        assert first.p80_high < first.p50_high
        assert first.draws == 400


def test_it_keeps_degenerate_draws_in_the_interval():
    # Two families: one always succeeds, one mostly fails. A draw of the succeeding
    # family twice is all successes, so the upper bounds are +inf, never NaN.
    runs = [HorizonRun(f"a{k}", "a", 1.0 + k, 1.0) for k in range(3)]
    runs += [HorizonRun(f"b{k}", "b", 10.0 + k, float(k == 0)) for k in range(3)]
    interval = horizon_interval(runs, mode=HEADLINE, seed=SEED, draws=200)
    assert interval.degenerate_draws > 0
    assert interval.p50_high == math.inf
    assert interval.p80_high == math.inf
    assert 0.0 <= interval.p80_low <= interval.p50_low < math.inf


def test_it_interpolates_percentiles_like_numpy_and_saturates_at_infinity():
    values = np.random.default_rng(SEED).lognormal(size=999)
    assert percentile_bounds(values) == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])))
    with_inf = np.r_[values[:900], [np.inf] * 99]
    low, high = percentile_bounds(with_inf)
    # The lower bound lies among finite values: numpy's, with the infinities made large.
    assert low == pytest.approx(np.percentile(np.minimum(with_inf, 1e300), 2.5))
    assert high == math.inf


def test_it_rejects_a_task_in_two_families():
    runs = [HorizonRun("t", "a", 1.0, 1.0), HorizonRun("t", "b", 1.0, 0.0)]
    with pytest.raises(ValueError, match="family"):
        horizon_interval(runs, mode=CROSS_DOMAIN, seed=SEED)
