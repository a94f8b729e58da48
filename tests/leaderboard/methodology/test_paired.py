"""The paired comparison of two agents (methodology "#compare") against SciPy and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from leaderboard.methodology import paired
from leaderboard.methodology.bootstrap import bootstrap_seed


def trials(*outcomes: int, start: int = 1) -> list[tuple[int, bool]]:
    return [(start + i, bool(o)) for i, o in enumerate(outcomes)]


# --- the bootstrap ---------------------------------------------------------------------------


def test_it_draws_the_same_means_as_a_plain_loop_with_the_same_generator() -> None:
    values = np.array([0.5, -0.25, 0.0, 1.0, -1.0, 0.75, 0.2])
    vectorised = paired.bootstrap_means(values, seed=42, draws=500)
    rng = np.random.default_rng(42)
    looped = []
    for _ in range(500):
        indices = rng.integers(0, len(values), size=len(values))
        looped.append(sum(values[i] for i in indices) / len(values))
    assert vectorised == pytest.approx(looped, abs=1e-12)


def test_it_draws_the_same_means_when_the_draws_come_in_chunks(monkeypatch) -> None:
    values = np.linspace(-1, 1, 13)
    whole = paired.bootstrap_means(values, seed=7, draws=300)
    monkeypatch.setattr(paired, "_CHUNK_CELLS", 13 * 7)  # 7 rows at a time
    assert paired.bootstrap_means(values, seed=7, draws=300) == pytest.approx(whole, abs=0)


def test_it_takes_the_percentile_interval_of_the_bootstrap_means() -> None:
    values = [0.0, 1.0, 0.5, 0.25, -0.5]
    low, high = paired.bootstrap_mean_interval(values, seed=3)
    means = paired.bootstrap_means(np.array(values), seed=3)
    assert (low, high) == (np.percentile(means, 2.5), np.percentile(means, 97.5))
    assert low < np.mean(values) < high


def test_it_gives_a_point_interval_when_every_task_differs_alike() -> None:
    assert paired.bootstrap_mean_interval([0.5, 0.5, 0.5], seed=1) == (0.5, 0.5)


def test_it_gives_no_interval_without_tasks() -> None:
    assert paired.bootstrap_mean_interval([], seed=1) == (None, None)


def test_it_seeds_from_the_names_the_same_way_every_time() -> None:
    seed = bootstrap_seed("overall", "A/1/m", "B/1/m")
    assert seed == bootstrap_seed("overall", "A/1/m", "B/1/m")
    assert seed != bootstrap_seed("coding", "A/1/m", "B/1/m")
    assert 0 <= seed < 2**64


# --- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize(("b", "c"), [(0, 0), (1, 0), (5, 1), (3, 9), (10, 10), (0, 12), (40, 21)])
def test_it_computes_the_exact_mcnemar_p_as_scipy_and_by_hand(b: int, c: int) -> None:
    p = paired.mcnemar_exact_p(b, c)
    n = b + c
    if n == 0:
        assert p == 1.0
        return
    assert p == pytest.approx(binomtest(min(b, c), n, 0.5).pvalue)
    # By hand: twice the lower tail of Binomial(n, 1/2) at min(b, c), capped at 1.
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    assert p == pytest.approx(min(1.0, 2 * tail))


def test_it_counts_the_two_by_two_table_of_trial_pairs() -> None:
    a = {1: trials(1, 1, 0, 0), 2: trials(1, 0)}
    b = {1: trials(1, 0, 1, 0), 2: trials(0, 0)}
    counts = paired.pair_counts(a, b, [1, 2])
    # task 1: (1,1) (1,0) (0,1) (0,0); task 2: (1,0) (0,0)
    assert counts == paired.PairCounts(both_pass=1, a_only=2, b_only=1, both_fail=2)


def test_it_uses_mcnemar_when_both_ran_the_same_trials() -> None:
    a = {task: trials(1, 1, 1) for task in range(6)}
    b = {task: trials(0, 0, 1) for task in range(6)}
    result = paired.paired_comparison(a, b, seed=1)
    assert result.test == paired.MCNEMAR
    assert (result.pairs.a_only, result.pairs.b_only) == (12, 0)
    assert result.p_value == pytest.approx(binomtest(0, 12, 0.5).pvalue)
    assert result.verdict == paired.A_BETTER
    assert result.difference == pytest.approx(2 / 3)


def test_it_falls_back_to_the_sign_test_when_trials_differ() -> None:
    a = {1: trials(1, 1), 2: trials(1, 0), 3: trials(0, 0), 4: trials(1, 1)}
    b = {1: trials(0, 0, 0), 2: trials(1, 0), 3: trials(1), 4: trials(0, 1)}
    result = paired.paired_comparison(a, b, seed=1)
    assert result.test == paired.SIGN_TEST
    assert result.signs == paired.SignCounts(positive=2, negative=1, ties=1)
    assert result.p_value == pytest.approx(binomtest(2, 3, 0.5).pvalue)
    assert result.verdict == paired.NO_DIFFERENCE


def test_it_falls_back_to_the_sign_test_when_a_trial_number_repeats() -> None:
    a = {1: [(1, True), (1, False)]}
    b = {1: [(1, True), (1, False)]}
    assert not paired.same_trials(a, b, [1])
    assert paired.paired_comparison(a, b, seed=1).test == paired.SIGN_TEST


def test_it_pairs_only_the_tasks_both_ran() -> None:
    a = {1: trials(1), 2: trials(1), 3: trials(1)}
    b = {2: trials(0), 3: trials(1), 4: trials(0)}
    result = paired.paired_comparison(a, b, seed=1)
    assert result.tasks == 2
    assert result.difference == pytest.approx(0.5)


def test_it_reports_nothing_without_shared_tasks() -> None:
    result = paired.paired_comparison({1: trials(1)}, {2: trials(1)}, seed=1)
    assert (result.tasks, result.difference, result.p_value) == (0, None, None)
    assert result.verdict == paired.NO_DIFFERENCE


def test_it_mirrors_the_interval_when_a_and_b_swap() -> None:
    rng = np.random.default_rng(0)
    a = {t: trials(*rng.integers(0, 2, 3)) for t in range(25)}
    b = {t: trials(*rng.integers(0, 2, 3)) for t in range(25)}
    ab = paired.paired_comparison(a, b, seed=9)
    ba = paired.paired_comparison(b, a, seed=9)
    assert (ab.low, ab.high) == pytest.approx((-ba.high, -ba.low))
    assert ab.p_value == pytest.approx(ba.p_value)


def test_it_says_b_is_better_in_the_direction_of_the_test() -> None:
    assert paired.verdict(0.01, -3) == paired.B_BETTER
    assert paired.verdict(0.01, 2) == paired.A_BETTER
    assert paired.verdict(0.05, 2) == paired.NO_DIFFERENCE  # not below alpha
    assert paired.verdict(None, 2) == paired.NO_DIFFERENCE
