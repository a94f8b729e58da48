"""Mergeable latency percentiles: a log-bucket histogram with 1% relative accuracy.

A DDSketch-style sketch (Masson, Rim & Lee, VLDB 2019): a positive value x falls in
bucket k = ceil(log_γ x) with γ = (1 + α)/(1 − α), and every value of bucket k is within
α of its representative 2γᵏ/(γ + 1). Histograms merge by adding counts (and, since counts
are exact, un-merge by subtracting them), so one stored per group of runs adds up to any
entry's without reading the runs again. Zero goes to a bucket of its own whose value is 0
(the database refuses negative latencies).

Groups of at most SMALL_GROUP_RUNS values also keep the values themselves, so an entry
of at most that many runs gets the exact percentile (the one PostgreSQL's
percentile_cont gives), and a 10-run entry shows the same p50 as it always did.

The bucket of a value is computed by the database at ingest (ingestion.rollups.sql
renders `bucket_sql` from the constants here); this module only reads buckets back.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence

import numpy as np

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


class HistogramBatch:
    """The histograms of many entries, added and subtracted in bulk and read with NumPy.

    A board recompute adds thousands of stored histograms (a few per entry and board);
    merging them key by key in Python would cost more than everything else the boards
    do, so the keys and counts are only collected here, then summed per (entry, key) and
    read out for every entry at once.
    """

    def __init__(self) -> None:
        self._index: dict[Hashable, int] = {}
        self._owners: list[int] = []
        self._lengths: list[int] = []
        # One array (or sequence) per histogram added, joined once when read: the
        # stored histograms arrive as NumPy arrays (leaderboard.boards.sql), and
        # copying their elements into lists one by one cost more than the merge.
        self._keys: list[Sequence[int] | np.ndarray] = []
        self._counts: list[np.ndarray] = []

    def add(self, entry: Hashable, keys: Sequence[int], counts: Sequence[int], sign: int) -> None:
        if not len(keys):
            return
        self._owners.append(self._index.setdefault(entry, len(self._index)))
        self._lengths.append(len(keys))
        self._keys.append(keys)
        weights = np.asarray(counts, dtype=np.float64)
        self._counts.append(weights if sign > 0 else -weights)

    def percentiles(self, quantiles: Sequence[float]) -> dict[Hashable, tuple[float, ...]]:
        """Entry -> its sketched percentiles (sketch_percentile's rule, all at once)."""
        owner, bucket, counts = self._merged()
        if not len(owner):
            return {}
        values = np.where(bucket == ZERO_KEY, 0.0, 2 * GAMMA ** bucket.astype(float) / (GAMMA + 1))
        cumulative = np.cumsum(counts)
        present, starts = np.unique(owner, return_index=True)
        before = np.where(starts > 0, cumulative[starts - 1], 0)
        totals = cumulative[np.r_[starts[1:], len(owner)] - 1] - before
        columns = [_at_quantile(q, totals, before, cumulative, values) for q in quantiles]
        entries = list(self._index)
        return {
            entries[index]: tuple(float(column[row]) for column in columns)
            for row, index in enumerate(present)
        }

    def _merged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(entry, bucket, count) with a positive count, sorted by entry then bucket.

        Each entry's buckets span a short range of keys (a few hundred between the fastest
        and slowest run), so counts are summed into one dense slot per (entry, key) of
        that range with a bincount: no sort of the whole batch.
        """
        if not self._keys:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        owners = np.repeat(np.array(self._owners, dtype=np.int64), self._lengths)
        keys = np.concatenate([np.asarray(k, dtype=np.int64) for k in self._keys])
        real = keys != ZERO_KEY
        # The zero bucket sorts first: it takes the key just below every real one.
        zero_slot = (keys[real].min() if real.any() else 0) - 1
        keys = np.where(real, keys, zero_slot)
        entries = len(self._index)
        lowest = np.full(entries, np.iinfo(np.int64).max)
        highest = np.full(entries, np.iinfo(np.int64).min)
        np.minimum.at(lowest, owners, keys)
        np.maximum.at(highest, owners, keys)
        widths = highest - lowest + 1
        starts = np.concatenate(([0], np.cumsum(widths)[:-1]))
        slots = starts[owners] + keys - lowest[owners]
        # Float weights are exact: any count of runs is far below 2**53.
        weights = np.concatenate(self._counts)
        counts = np.rint(np.bincount(slots, weights=weights, minlength=widths.sum()))
        slot_owner = np.repeat(np.arange(entries), widths)
        slot_key = np.arange(len(counts)) - np.repeat(starts - lowest, widths)
        kept = counts > 0
        slot_key = np.where(slot_key[kept] == zero_slot, ZERO_KEY, slot_key[kept])
        return slot_owner[kept], slot_key, counts[kept].astype(np.int64)


def _at_quantile(q, totals, before, cumulative, values) -> np.ndarray:
    # The order statistics at floor(position) and the next one, as sketch_percentile.
    position = q * (totals - 1)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, totals - 1)
    at_low = values[np.searchsorted(cumulative, before + low, side="right")]
    at_high = values[np.searchsorted(cumulative, before + high, side="right")]
    return at_low + (position - low) * (at_high - at_low)


class LatencyTotals:
    """One latency figure (TTFT or duration) of many entries: stored groups added in,
    excluded ones taken out.

    An entry of at most SMALL_GROUP_RUNS values whose every group kept its values gets the
    exact percentiles; any other entry is read from the merged histogram.
    """

    def __init__(self) -> None:
        self.n: Counter = Counter()
        self._values: dict[Hashable, Counter | None] = {}
        self._histograms = HistogramBatch()

    def add(
        self,
        entry: Hashable,
        *,
        n: int,
        keys: Sequence[int] | None,
        counts: Sequence[int] | None,
        values: Sequence[float] | None,
        sign: int = 1,
    ) -> None:
        """Add (sign 1) or take out (sign -1) one stored group's latencies."""
        if not n:
            return
        self.n[entry] += sign * n
        self._histograms.add(
            entry, () if keys is None else keys, () if counts is None else counts, sign
        )
        kept = self._values.get(entry, Counter())
        if kept is None or values is None:
            self._values[entry] = None
            return
        kept.update(values) if sign > 0 else kept.subtract(values)
        self._values[entry] = kept

    def percentiles(self, quantiles: Sequence[float]) -> dict[Hashable, tuple[float | None, ...]]:
        """Entry -> its percentiles, None for an entry left without values."""
        sketched = self._histograms.percentiles(quantiles)
        result = {}
        for entry, n in self.n.items():
            kept = self._values.get(entry)
            if n <= 0:
                result[entry] = tuple(None for _ in quantiles)
            elif n <= SMALL_GROUP_RUNS and kept is not None:
                exact = list(kept.elements())
                result[entry] = tuple(exact_percentile(exact, q) for q in quantiles)
            else:
                result[entry] = sketched.get(entry, tuple(None for _ in quantiles))
        return result
