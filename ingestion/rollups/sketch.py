"""Mergeable latency percentiles: a log-bucket histogram with 1% relative accuracy.

A DDSketch-style sketch (Masson, Rim & Lee, VLDB 2019): a positive value x falls in
bucket k = ceil(log_γ x) with γ = (1 + α)/(1 − α), and every value of bucket k is within
α of its representative 2γᵏ/(γ + 1). Histograms merge by adding counts (and, since counts
are exact, un-merge by subtracting them), so one stored per group of runs adds up to any
entry's without reading the runs again. Zero goes to a bucket of its own whose value is 0
(the database refuses negative latencies).

Groups of at most SMALL_GROUP_RUNS values also keep the values themselves, so an entry
fed only by small groups gets the exact percentile (the one PostgreSQL's
percentile_cont gives), and a 10-run entry shows the same p50 as it always did.

The bucket of a value is computed by the database at ingest (ingestion.rollups.sql
renders `bucket_sql` from the constants here); this module only reads buckets back.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

RELATIVE_ACCURACY = 0.01  # α: every sketched percentile is within 1% of a true value
GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY)
LOG_GAMMA = math.log(GAMMA)  # the database divides by this very float (rollups.sql)
# Values at most this small (and zero) share the zero bucket, whose value is 0.
ZERO_BELOW = 1e-9
ZERO_KEY = -(2**31)  # smallest int4, sorts before every real bucket
# A group (or an entry) of at most this many values keeps them: exact percentiles.
SMALL_GROUP_RUNS = 256


def bucket_of(value: float) -> int:
    """The bucket a value falls in (the database computes the same at ingest)."""
    if value <= ZERO_BELOW:
        return ZERO_KEY
    return math.ceil(math.log(value) / LOG_GAMMA)


def bucket_value(key: int) -> float:
    """The value a bucket stands for: within RELATIVE_ACCURACY of every value in it."""
    if key == ZERO_KEY:
        return 0.0
    return 2 * GAMMA**key / (GAMMA + 1)


def exact_percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics, as percentile_cont does."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (position - low) * (ordered[high] - ordered[low])


def sketch_percentile(buckets: dict[int, int], q: float) -> float:
    """The same interpolation, each order statistic read as its bucket's value."""
    keys = sorted(k for k, count in buckets.items() if count > 0)
    total = sum(buckets[k] for k in keys)
    position = q * (total - 1)
    low = math.floor(position)
    values = _values_at_ranks(keys, buckets, (low, min(low + 1, total - 1)))
    return values[0] + (position - low) * (values[1] - values[0])


def _values_at_ranks(keys: list[int], buckets: dict[int, int], ranks: tuple[int, int]) -> list:
    found, seen = [], 0
    wanted = list(ranks)
    for key in keys:
        seen += buckets[key]
        while wanted and wanted[0] < seen:
            found.append(bucket_value(key))
            wanted.pop(0)
        if not wanted:
            break
    return found


@dataclass
class LatencyAccumulator:
    """One figure of one entry: stored groups added in, excluded ones taken out.

    `values` stays the exact multiset while every group that fed it kept its values; the
    first group that did not makes the entry a sketched one.
    """

    n: int = 0
    buckets: Counter = field(default_factory=Counter)
    values: Counter | None = field(default_factory=Counter)

    def add(
        self,
        *,
        n: int,
        keys: Iterable[int] | None,
        counts: Iterable[int] | None,
        values: Iterable[float] | None,
        sign: int = 1,
    ) -> None:
        """Add (sign 1) or take out (sign -1) one stored group's latencies."""
        if not n:
            return
        self.n += sign * n
        for key, count in zip(keys or (), counts or (), strict=True):
            self.buckets[key] += sign * count
        if values is None or self.values is None:
            self.values = None
        elif sign > 0:
            self.values.update(values)
        else:
            self.values.subtract(values)

    def percentiles(self, quantiles: Sequence[float]) -> tuple[float | None, ...]:
        """The entry's percentiles: exact when it kept its values, else sketched."""
        if self.n <= 0:
            return tuple(None for _ in quantiles)
        if self.values is not None:
            exact = list(self.values.elements())
            return tuple(exact_percentile(exact, q) for q in quantiles)
        return tuple(sketch_percentile(self.buckets, q) for q in quantiles)
