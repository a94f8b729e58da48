"""Tests for leaderboard.methodology.bootstrap: the pass^k / pass@k interval over tasks,
against a plain loop over the same draws, SciPy's bootstrap and hand-worked cases.

Pure: no Django, no database.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from scipy.stats import bootstrap as scipy_bootstrap

from leaderboard.methodology import bootstrap, stats
from leaderboard.methodology.bootstrap import (
    BOOTSTRAP_RESAMPLES,
    bootstrap_seed,
    pass_k_table_with_intervals,
    pass_k_tables_with_intervals,
    percentile_interval,
    resample_counts,
    task_count_seed,
)

# (counted trials n, passes c) per task: varied trial counts, so not every task
# qualifies for every k, and some resamples draw no task with 5 trials or more.
TASKS = [(3, 2), (5, 5), (2, 0), (8, 3), (3, 3), (1, 1), (4, 1), (6, 4), (8, 6)]
SEED = 20261201


def loop_interval(tasks: list[tuple[int, int]], k: int, seed: int, estimator) -> tuple:
    """The same bootstrap written as a plain loop over resamples, from the same draws."""
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, len(tasks), size=(BOOTSTRAP_RESAMPLES, len(tasks)))
    values = []
    for row in indices:
        drawn = [tasks[i] for i in row if tasks[i][0] >= k]
        if drawn:
            values.append(sum(estimator(c, n, k) for n, c in drawn) / len(drawn))
    return tuple(np.percentile(values, [2.5, 97.5]))


def test_it_counts_each_resample_of_the_index_matrix():
    counts = resample_counts(7, SEED, resamples=50)
    indices = np.random.default_rng(SEED).integers(0, 7, size=(50, 7))
    assert counts.shape == (50, 7)
    assert (counts.sum(axis=1) == 7).all()
    assert (counts[3] == np.bincount(indices[3], minlength=7)).all()


@pytest.mark.parametrize("k", range(1, 9))
def test_it_equals_a_plain_loop_bootstrap_with_the_same_draws(k):
    row = pass_k_table_with_intervals(TASKS, SEED)[str(k)]
    assert (row["low"], row["high"]) == pytest.approx(
        loop_interval(TASKS, k, SEED, stats.pass_hat_k), abs=1e-12
    )
    assert (row["pass_at_k_low"], row["pass_at_k_high"]) == pytest.approx(
        loop_interval(TASKS, k, SEED, stats.pass_at_k), abs=1e-12
    )


def test_it_agrees_with_scipy_percentile_bootstrap_when_every_task_qualifies():
    tasks = [(4, c) for c in (0, 1, 1, 2, 3, 3, 4, 4, 2, 1, 0, 4)]
    row = pass_k_table_with_intervals(tasks, SEED)["2"]
    per_task = np.array([stats.pass_hat_k(c, n, 2) for n, c in tasks])
    result = scipy_bootstrap(
        (per_task,), np.mean, n_resamples=BOOTSTRAP_RESAMPLES, method="percentile",
        confidence_level=0.95, rng=np.random.default_rng(SEED), vectorized=True,
    )  # fmt: skip
    interval = result.confidence_interval
    assert (row["low"], row["high"]) == pytest.approx((interval.low, interval.high), abs=1e-12)


def test_it_keeps_the_point_values_and_adds_the_bounds():
    table = pass_k_table_with_intervals(TASKS, SEED)
    assert set(table) == set(stats.pass_k_table(TASKS))
    for k, row in stats.pass_k_table(TASKS).items():
        assert {key: table[k][key] for key in row} == row
        assert table[k]["low"] <= row["value"] <= table[k]["high"]
        assert table[k]["pass_at_k_low"] <= row["pass_at_k"] <= table[k]["pass_at_k_high"]


def test_it_works_out_two_tasks_by_hand():
    # pass^1 per task 2/3 and 1: a resample is both tasks once (5/6), or one task twice
    # (2/3 or 1), each a quarter of the time, so the 2.5th and 97.5th percentiles are the
    # two ends.
    row = pass_k_table_with_intervals([(3, 2), (2, 2)], SEED)["1"]
    assert (row["low"], row["high"]) == (pytest.approx(2 / 3), 1.0)


def test_it_gives_a_zero_width_interval_when_every_task_has_the_same_value():
    row = pass_k_table_with_intervals([(4, 2)] * 6, SEED)["2"]
    assert row["low"] == row["high"] == pytest.approx(stats.pass_hat_k(2, 4, 2))


def test_it_publishes_no_interval_below_two_qualifying_tasks():
    table = pass_k_table_with_intervals([(3, 2), (1, 1)], SEED)
    assert table["1"]["low"] is not None
    assert table["2"]["tasks"] == 1
    assert table["2"]["low"] is None and table["2"]["pass_at_k_high"] is None


def test_it_returns_an_empty_table_without_tasks():
    assert pass_k_table_with_intervals([], SEED) == {}


def test_it_gives_the_same_interval_for_the_same_input_and_seed():
    assert pass_k_table_with_intervals(TASKS, SEED) == pass_k_table_with_intervals(TASKS, SEED)


def test_it_gives_another_interval_for_another_seed():
    first = pass_k_table_with_intervals(TASKS, SEED)["1"]
    second = pass_k_table_with_intervals(TASKS, SEED + 1)["1"]
    assert (first["low"], first["high"]) != (second["low"], second["high"])


def test_it_draws_the_same_resamples_for_every_k():
    # The seed and the index matrix do not depend on k: asking for fewer k changes nothing.
    assert (
        pass_k_table_with_intervals(TASKS, SEED, k_max=1)["1"]
        == (pass_k_table_with_intervals(TASKS, SEED)["1"])
    )


def test_it_seeds_from_blake2b_of_the_parts_not_from_python_hash():
    expected = hashlib.blake2b(b"overall|12|7", digest_size=8).digest()
    assert bootstrap_seed("overall", 12, 7) == int.from_bytes(expected, "big")
    assert bootstrap_seed("overall", 12, 7) != bootstrap_seed("overall", 1, 27)


def test_it_takes_percentiles_as_numpy_nanpercentile_does():
    rng = np.random.default_rng(3)
    values = rng.random((501, 6))
    values[rng.random((501, 6)) < 0.2] = np.nan
    values[:, 5] = np.nan  # a column without any value
    low, high = percentile_interval(values)
    expected = np.array([np.nanpercentile(values[:, c], [2.5, 97.5]) for c in range(5)])
    assert low[:5] == pytest.approx(expected[:, 0], abs=1e-12)
    assert high[:5] == pytest.approx(expected[:, 1], abs=1e-12)
    assert np.isnan(low[5]) and np.isnan(high[5])


@pytest.mark.parametrize("rows", [1, 2, 41, 2000])
def test_it_takes_percentiles_of_complete_columns_as_numpy_does(rows):
    values = np.random.default_rng(rows).random((rows, 4))
    low, high = percentile_interval(values)
    expected = np.percentile(values, [2.5, 97.5], axis=0)
    assert low == pytest.approx(expected[0], abs=1e-12)
    assert high == pytest.approx(expected[1], abs=1e-12)


def test_it_gives_every_entry_of_a_batch_the_bounds_it_gets_alone():
    rng = np.random.default_rng(4)
    entries = [
        [(int(n), int(rng.integers(0, n + 1))) for n in rng.integers(1, 9, size=size)]
        for size in (5, 5, 3, 12, 5, 1, 3)
    ]
    batch = pass_k_tables_with_intervals(entries)
    for tasks, table in zip(entries, batch, strict=True):
        assert table == pass_k_table_with_intervals(tasks, task_count_seed(len(tasks)))


def test_it_splits_a_large_batch_into_chunks_without_changing_a_bound(monkeypatch):
    entries = [[(4, i % 5), (3, 1), (2, 2)] for i in range(9)]
    whole = pass_k_tables_with_intervals(entries)
    monkeypatch.setattr(bootstrap, "_CHUNK_VALUES", 1)  # one entry per matrix product
    assert pass_k_tables_with_intervals(entries) == whole
