"""Rank ranges and task-clustered means: how uncertain a board's order and its means are.

Pure Python, no Django. Methodology §2.2 ("Intervals" and "Rank range" on /methodology/).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from leaderboard.methodology import stats


def rank_ranges(intervals: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """[best, worst] rank each (low, high) interval allows among all of them.

    best = 1 + the entries whose low is strictly above this high (certainly better);
    worst = the entries in all − those whose high is strictly below this low (certainly
    worse). An entry never counts against itself, since its low ≤ its high. Sorting
    makes it O(n log n), so a board of thousands of entries costs nothing.
    """
    lows = sorted(low for low, _ in intervals)
    highs = sorted(high for _, high in intervals)
    total = len(intervals)
    return [
        (1 + total - bisect_right(lows, high), total - bisect_left(highs, low))
        for low, high in intervals
    ]


def ranges_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two [best, worst] rank ranges share a rank."""
    return a[0] <= b[1] and b[0] <= a[1]


def tied_with_leader(ranges: Sequence[tuple[int, int]]) -> list[bool]:
    """For ranges in rank order: whether each overlaps the leader's (the first) range.
    The leader is tied with itself."""
    if not ranges:
        return []
    leader = ranges[0]
    return [ranges_overlap(leader, own) for own in ranges]


def task_clustered_mean(
    sums: Sequence[float], counts: Sequence[float]
) -> tuple[float | None, float | None, float | None]:
    """Mean over units (runs) as Σ sums / Σ counts, its interval clustered by task.

    sums[i] and counts[i] are task i's total and number of runs that report the figure;
    tasks where no run reports it are not clusters at all (they would only inflate the
    n/(n−1) correction). Returns (mean, low, high); bounds None below two tasks.
    """
    kept = [(y, m) for y, m in zip(sums, counts, strict=True) if m > 0]
    return stats.cluster_robust_ratio([y for y, _ in kept], [m for _, m in kept])
