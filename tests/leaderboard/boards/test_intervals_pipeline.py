"""Intervals through the real pipeline (bundle → rollups → recompute → snapshot): the
means' intervals clustered by task, the pass^k bootstrap reproducible at every
recompute, and both carried over unchanged by an incremental recompute."""

from __future__ import annotations

import math

import pytest

from ingestion.models import Harness
from leaderboard.methodology.stats import Z
from leaderboard.models import BoardEntry
from leaderboard.recompute.entries import ENTRY_FIELDS
from leaderboard.recompute.services import boards_recompute
from tests.builders import board_tasks_only, outcomes, submit

pytestmark = pytest.mark.django_db


def two_task_runs() -> list[dict]:
    # regex-log: TTFT 100 and 300 ms; sqlite-db-truncate: 200, 600 and 1000 ms.
    runs = outcomes("pass", "fail", task="regex-log")
    runs += outcomes("pass", "pass", "fail", task="sqlite-db-truncate")
    for run, ttft, steps in zip(runs, (100, 300, 200, 600, 1000), (4, 6, 10, 20, 30), strict=True):
        run["ttft_ms"], run["steps"] = ttft, steps
    return runs


def entry(snapshot, harness: str = "H") -> BoardEntry:
    return BoardEntry.objects.get(
        board__snapshot=snapshot, board__slug="overall", harness_name=harness
    )


@pytest.fixture
def recomputed(registry, submitter):
    # Both agents complete on a two-task board, so both are ranked.
    board_tasks_only("regex-log", "sqlite-db-truncate")
    submit(submitter, two_task_runs())
    other = outcomes("pass", "fail", "fail", task="regex-log")
    other += outcomes("fail", task="sqlite-db-truncate", prefix="o")
    submit(submitter, other, harness="Other")
    return boards_recompute()


def test_it_publishes_the_mean_latency_with_its_interval_by_task(recomputed):
    e = entry(recomputed)
    # y = (400, 1800) over m = (2, 3): R = 440, var = 2 · (480² + 480²) / 5² = 192².
    assert e.ttft_ms_mean == 440.0
    assert (e.ttft_ms_mean_low, e.ttft_ms_mean_high) == (
        pytest.approx(440 - Z * 192),
        pytest.approx(440 + Z * 192),
    )
    assert e.duration_s_mean == 60.0
    assert e.duration_s_mean_low == e.duration_s_mean_high == pytest.approx(60.0)


def test_it_publishes_mean_steps_with_its_interval_cut_at_zero(recomputed):
    e = entry(recomputed)
    assert e.mean_steps == 14.0  # 70 steps over 5 runs
    # y = (10, 60), m = (2, 3): residuals −18 and 18, var = 2 · 648 / 25.
    half = Z * math.sqrt(2 * 648 / 25)
    assert (e.mean_steps_low, e.mean_steps_high) == (pytest.approx(max(14 - half, 0)), 14 + half)


def test_it_publishes_the_same_pass_k_bounds_at_every_recompute(recomputed):
    first = entry(recomputed).pass_hat_k
    assert first["1"]["low"] is not None and first["1"]["low"] <= first["1"]["value"]
    assert entry(boards_recompute()).pass_hat_k == first


def test_it_carries_intervals_and_ranges_over_in_an_incremental_recompute(recomputed):
    before = entry(recomputed)
    other = Harness.objects.get(name="Other")
    after = entry(boards_recompute(harness_ids=[other.pk]))
    assert {f: getattr(after, f) for f in ENTRY_FIELDS} == {
        f: getattr(before, f) for f in ENTRY_FIELDS
    }
    assert (after.rank_best, after.rank_worst, after.tied_with_leader) == (1, 2, True)
