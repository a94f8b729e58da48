"""The latency sketch (ingestion.rollups.sketch) against NumPy and by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ingestion.rollups.sketch import (
    RELATIVE_ACCURACY,
    SMALL_GROUP_RUNS,
    ZERO_KEY,
    LatencyTotals,
    bucket_of,
    bucket_value,
    exact_percentile,
    sketch_percentile,
)


def histogram(values) -> dict[int, int]:
    buckets: dict[int, int] = {}
    for value in values:
        buckets[bucket_of(value)] = buckets.get(bucket_of(value), 0) + 1
    return buckets


@pytest.mark.parametrize("q", [0.0, 0.5, 0.95, 1.0])
def test_it_matches_numpy_linear_percentiles_exactly(q):
    values = list(np.random.default_rng(3).lognormal(6, 1.5, size=37))
    assert exact_percentile(values, q) == pytest.approx(np.percentile(values, q * 100), rel=1e-12)


def test_it_interpolates_by_hand():
    assert exact_percentile([4.0, 1.0, 2.0, 3.0], 0.5) == 2.5
    assert exact_percentile([10.0], 0.95) == 10.0


def test_it_keeps_every_value_within_the_stated_accuracy_of_its_bucket():
    for value in np.random.default_rng(1).lognormal(3, 4, size=5000):
        assert abs(bucket_value(bucket_of(value)) - value) <= RELATIVE_ACCURACY * value * 1.0000001


def test_it_puts_zero_in_its_own_bucket():
    assert bucket_of(0.0) == ZERO_KEY
    assert bucket_value(ZERO_KEY) == 0.0
    assert bucket_of(0.5) != ZERO_KEY


@pytest.mark.parametrize("q", [0.5, 0.95])
def test_it_sketches_percentiles_within_one_percent(q):
    values = np.random.default_rng(7).lognormal(7, 1.0, size=20_000)
    sketched = sketch_percentile(histogram(values), q)
    assert sketched == pytest.approx(np.percentile(values, q * 100), rel=RELATIVE_ACCURACY)


def keyed(values) -> dict:
    counted = histogram(values)
    keys = sorted(counted)
    return {"keys": keys, "counts": [counted[k] for k in keys]}


def test_it_merges_and_unmerges_histograms_exactly():
    rng = np.random.default_rng(5)
    kept, excluded = rng.lognormal(5, 1, 400), rng.lognormal(9, 1, 300)
    totals = LatencyTotals()
    for part, sign in ((kept, 1), (excluded, 1), (excluded, -1)):
        totals.add("e", n=len(part), **keyed(part), values=None, sign=sign)
    only_kept = LatencyTotals()
    only_kept.add("e", n=len(kept), **keyed(kept), values=None)
    assert totals.percentiles((0.5, 0.95)) == only_kept.percentiles((0.5, 0.95))


def test_it_reads_many_entries_at_once_as_one_sketch_each():
    rng = np.random.default_rng(11)
    parts = {entry: rng.lognormal(4 + entry, 1, 300 + 50 * entry) for entry in range(6)}
    totals = LatencyTotals()
    for entry, values in parts.items():
        half = len(values) // 2
        totals.add(entry, n=half, **keyed(values[:half]), values=None)
        totals.add(entry, n=len(values) - half, **keyed(values[half:]), values=None)
    found = totals.percentiles((0.0, 0.5, 0.95, 1.0))
    for entry, values in parts.items():
        buckets = histogram(values)
        assert found[entry] == tuple(sketch_percentile(buckets, q) for q in (0.0, 0.5, 0.95, 1.0))


def test_it_stays_exact_while_every_group_kept_its_values():
    totals = LatencyTotals()
    totals.add("e", n=3, keys=[], counts=[], values=[1.0, 2.0, 9.0])
    totals.add("e", n=1, keys=[], counts=[], values=[9.0], sign=-1)
    assert totals.percentiles((0.5,)) == {"e": (1.5,)}


def test_it_turns_to_the_sketch_when_one_group_did_not_keep_its_values():
    totals = LatencyTotals()
    totals.add("e", n=1, keys=[bucket_of(100.0)], counts=[1], values=[100.0])
    totals.add("e", n=1, keys=[bucket_of(100.0)], counts=[1], values=None)
    (p50,) = totals.percentiles((0.5,))["e"]
    assert p50 == bucket_value(bucket_of(100.0)) != 100.0


def test_it_turns_to_the_sketch_past_the_small_entry_size_even_with_every_value_kept():
    values = list(np.random.default_rng(2).lognormal(6, 1, SMALL_GROUP_RUNS + 1))
    totals = LatencyTotals()
    for chunk in (values[:100], values[100:]):
        totals.add("e", n=len(chunk), **keyed(chunk), values=chunk)
    (p50,) = totals.percentiles((0.5,))["e"]
    assert p50 == sketch_percentile(histogram(values), 0.5) != exact_percentile(values, 0.5)
    assert p50 == pytest.approx(exact_percentile(values, 0.5), rel=RELATIVE_ACCURACY)


def test_it_has_no_percentile_for_an_entry_whose_runs_were_all_taken_out():
    totals = LatencyTotals()
    totals.add("e", n=2, keys=[1, 2], counts=[1, 1], values=[1.0, 1.02])
    totals.add("e", n=2, keys=[1, 2], counts=[1, 1], values=[1.0, 1.02], sign=-1)
    assert totals.percentiles((0.5, 0.95)) == {"e": (None, None)}
