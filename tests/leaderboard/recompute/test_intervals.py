"""Interval bounds filled after the swap (leaderboard.recompute.intervals): the swap
publishes every point figure, the task fills the bounds the inline recompute would have
published, carried-over entries keep theirs, and an entry whose runs changed since
stays pending for its own recompute."""

from __future__ import annotations

import pytest

from ingestion.models import Harness
from ingestion.services.registry import registry_load
from leaderboard.boards.intervals import MEAN_BOUND_FIELDS, PASS_K_BOUNDS
from leaderboard.models import Board, BoardEntry, BoardSnapshot
from leaderboard.recompute.entries import ENTRY_FIELDS
from leaderboard.recompute.intervals import intervals_snapshot_fill
from leaderboard.recompute.services import boards_recompute
from tests.builders import board_tasks_only, outcomes, submit
from tests.ingestion.services.registry_builders import a_registry, a_suite, a_task

pytestmark = pytest.mark.django_db

HORIZON_SUITE = {"suite": "horizon-bench", "suite_version": "1.0.0"}
HORIZON_BOARD = "horizon-bench-1.0.0"


def entries(snapshot: BoardSnapshot) -> dict[tuple[str, str], BoardEntry]:
    found = BoardEntry.objects.filter(board__snapshot=snapshot).select_related("board")
    return {(e.board.slug, e.harness_name): e for e in found}


def figures(entry: BoardEntry) -> dict:
    return {field: getattr(entry, field) for field in ENTRY_FIELDS}


@pytest.fixture
def two_agents(registry, submitter):
    board_tasks_only("regex-log", "sqlite-db-truncate")
    runs = outcomes("pass", "fail", task="regex-log")
    runs += outcomes("pass", "pass", "fail", task="sqlite-db-truncate")
    for run, ttft, steps in zip(runs, (100, 300, 200, 600, 1000), (4, 6, 10, 20, 30), strict=True):
        run["ttft_ms"], run["steps"] = ttft, steps
    submit(submitter, runs)
    other = outcomes("pass", "fail", "fail", task="regex-log")
    other += outcomes("fail", "pass", task="sqlite-db-truncate", prefix="o")
    submit(submitter, other, harness="Other")
    return submitter


def test_it_swaps_in_every_point_figure_and_leaves_only_the_bounds_pending(two_agents):
    inline = entries(boards_recompute())
    deferred = entries(boards_recompute(defer_intervals=True))
    entry, full = deferred[("overall", "H")], inline[("overall", "H")]
    assert entry.intervals_pending and Board.objects.get(pk=entry.board_id).intervals_pending
    assert {k: row["value"] for k, row in entry.pass_hat_k.items()} == {
        k: row["value"] for k, row in full.pass_hat_k.items()
    }
    assert all(row[bound] is None for row in entry.pass_hat_k.values() for bound in PASS_K_BOUNDS)
    assert all(getattr(entry, field) is None for field in MEAN_BOUND_FIELDS)
    assert full.mean_steps_low is not None and full.pass_hat_k["1"]["low"] is not None
    for field in ("pass_rate", "wilson_low", "rank", "rank_best", "ttft_ms_mean", "mean_steps"):
        assert getattr(entry, field) == getattr(full, field)


def test_it_fills_the_bounds_the_inline_recompute_publishes(two_agents):
    inline = entries(boards_recompute())
    snapshot = boards_recompute(defer_intervals=True)
    assert intervals_snapshot_fill(snapshot_id=snapshot.pk) == len(inline)
    filled = entries(snapshot)
    assert {key: figures(e) for key, e in filled.items()} == {
        key: figures(e) for key, e in inline.items()
    }
    assert not Board.objects.filter(snapshot=snapshot, intervals_pending=True).exists()
    assert intervals_snapshot_fill(snapshot_id=snapshot.pk) == 0  # a retried task: done


def test_it_fills_them_once_the_snapshot_commits(two_agents, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        snapshot = boards_recompute(defer_intervals=True)
    entry = entries(snapshot)[("overall", "H")]
    assert not entry.intervals_pending and entry.pass_hat_k["1"]["low"] is not None


def test_it_leaves_the_carried_over_bounds_and_fills_the_recomputed_ones(two_agents):
    inline = entries(boards_recompute())
    other = Harness.objects.get(name="Other")
    snapshot = boards_recompute(harness_ids=[other.pk], defer_intervals=True)
    found = entries(snapshot)
    assert not found[("overall", "H")].intervals_pending  # carried over, with its bounds
    assert figures(found[("overall", "H")]) == figures(inline[("overall", "H")])
    assert found[("overall", "Other")].intervals_pending
    others = sum(harness == "Other" for _, harness in found)
    assert intervals_snapshot_fill(snapshot_id=snapshot.pk) == others
    assert figures(entries(snapshot)[("overall", "Other")]) == figures(inline[("overall", "Other")])


def test_it_carries_pending_entries_over_for_the_next_snapshot_to_fill(two_agents):
    first = boards_recompute(defer_intervals=True)  # its task never ran
    other = Harness.objects.get(name="Other")
    second = boards_recompute(harness_ids=[other.pk], defer_intervals=True)
    assert entries(second)[("overall", "H")].intervals_pending
    assert intervals_snapshot_fill(snapshot_id=second.pk) == len(entries(second))
    assert entries(first)[("overall", "H")].intervals_pending  # an old snapshot, left


def test_it_leaves_pending_an_entry_whose_runs_changed_since(two_agents):
    snapshot = boards_recompute(defer_intervals=True)
    submit(two_agents, outcomes("pass", "pass", task="regex-log", prefix="late"))
    others = sum(harness == "Other" for _, harness in entries(snapshot))
    assert intervals_snapshot_fill(snapshot_id=snapshot.pk) == others  # H's runs changed
    found = entries(snapshot)
    assert found[("overall", "H")].intervals_pending
    assert found[("overall", "H")].pass_hat_k["1"]["low"] is None
    assert not found[("overall", "Other")].intervals_pending
    assert Board.objects.get(snapshot=snapshot, slug="overall").intervals_pending


def test_it_fills_the_time_horizon_interval_as_the_inline_recompute_does(submitter):
    tasks = [
        a_task("short", human_minutes=2, family="parsing", authors=[]),
        a_task("mid", human_minutes=16, family="parsing", authors=[]),
        a_task("long", human_minutes=128, family="systems", authors=[]),
    ]
    registry_load(data=a_registry([a_suite("horizon-bench", tasks=tasks)]))
    runs = outcomes("pass", "pass", "fail", task="short", **HORIZON_SUITE)
    runs += outcomes("pass", "fail", task="mid", **HORIZON_SUITE)
    runs += outcomes("fail", "fail", task="long", **HORIZON_SUITE)
    submit(submitter, runs, harness="A")
    inline = entries(boards_recompute())[(HORIZON_BOARD, "A")].horizon
    snapshot = boards_recompute(defer_intervals=True)
    pending = entries(snapshot)[(HORIZON_BOARD, "A")].horizon
    assert pending["p50"] == inline["p50"] and inline["p50_low"] is not None
    assert pending["p50_low"] is None and pending["p80_high"] is None
    intervals_snapshot_fill(snapshot_id=snapshot.pk)
    assert entries(snapshot)[(HORIZON_BOARD, "A")].horizon == inline
