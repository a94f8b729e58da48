"""Tests for leaderboard.methodology.uncertainty: rank ranges (against a brute-force
count), ties with the leader, and means clustered by task (by hand).

Pure: no Django, no database.
"""

from __future__ import annotations

import math
import random

import pytest

from leaderboard.methodology.stats import Z, cluster_robust_ratio, wilson_interval
from leaderboard.methodology.uncertainty import (
    ranges_overlap,
    rank_ranges,
    task_clustered_mean,
    tied_with_leader,
)


def brute_force(intervals: list[tuple[float, float]]) -> list[tuple[int, int]]:
    ranges = []
    for i, (low, high) in enumerate(intervals):
        others = [other for j, other in enumerate(intervals) if j != i]
        better = sum(1 for other_low, _ in others if other_low > high)
        worse = sum(1 for _, other_high in others if other_high < low)
        ranges.append((1 + better, len(intervals) - worse))
    return ranges


def test_it_matches_a_brute_force_count_on_random_boards():
    rng = random.Random(12)
    for _ in range(200):
        intervals = []
        for _ in range(rng.randint(1, 25)):
            n = rng.randint(1, 40)
            intervals.append(wilson_interval(rng.randint(0, n), n))
        assert rank_ranges(intervals) == brute_force(intervals)


def test_it_gives_disjoint_intervals_their_exact_ranks():
    assert rank_ranges([(0.8, 0.9), (0.5, 0.6), (0.1, 0.2)]) == [(1, 1), (2, 2), (3, 3)]


def test_it_gives_identical_intervals_the_same_range():
    assert rank_ranges([(0.4, 0.7), (0.4, 0.7), (0.1, 0.2)]) == [(1, 2), (1, 2), (3, 3)]


def test_it_counts_touching_bounds_as_overlapping():
    # 0.5 is not strictly above 0.5: neither is certainly better.
    assert rank_ranges([(0.5, 0.9), (0.2, 0.5)]) == [(1, 2), (1, 2)]


def test_it_ranks_a_single_entry_first_and_last():
    assert rank_ranges([(0.3, 0.6)]) == [(1, 1)]
    assert rank_ranges([]) == []


def test_it_marks_the_ranges_that_overlap_the_leaders():
    ranges = [(1, 2), (1, 3), (3, 4), (4, 4)]
    assert tied_with_leader(ranges) == [True, True, False, False]
    assert tied_with_leader([]) == []
    assert ranges_overlap((2, 5), (5, 6)) and not ranges_overlap((2, 4), (5, 6))


def test_it_works_out_a_clustered_mean_by_hand():
    # Two tasks of one run each, 2 and 4: R = 3, var = 2/1 · (1 + 1) / 2² = 1.
    mean, low, high = task_clustered_mean([2.0, 4.0], [1, 1])
    assert (mean, low, high) == (3.0, pytest.approx(3 - Z), pytest.approx(3 + Z))


def test_it_leaves_out_tasks_where_no_run_reports_the_figure():
    with_empty = task_clustered_mean([10.0, 0.0, 30.0], [2, 0, 3])
    assert with_empty == cluster_robust_ratio([10.0, 30.0], [2, 3])
    assert with_empty[0] == pytest.approx(8.0)


def test_it_gives_no_interval_for_one_task_and_no_mean_for_none():
    assert task_clustered_mean([5.0], [2]) == (2.5, None, None)
    assert task_clustered_mean([0.0], [0]) == (None, None, None)


def test_it_widens_with_the_spread_between_tasks():
    _, narrow_low, narrow_high = task_clustered_mean([5.0, 5.2, 4.8], [1, 1, 1])
    _, wide_low, wide_high = task_clustered_mean([1.0, 9.0, 5.0], [1, 1, 1])
    assert math.isclose(narrow_low + narrow_high, wide_low + wide_high)
    assert wide_high - wide_low > narrow_high - narrow_low
