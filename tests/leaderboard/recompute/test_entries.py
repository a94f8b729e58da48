"""A snapshot's entries (leaderboard.recompute.entries): an incremental recompute copies
each carried-over entry whole inside the database, with the position, rank, rank range,
badge and coverage of its place on the new board, so that every column equals what a
full recompute writes; the swap reads no per-task sums and publishes the same figures."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ingestion.models import Harness, Task
from leaderboard.models import BoardEntry, BoardSnapshot
from leaderboard.recompute.services import boards_recompute
from tests.builders import board_tasks_only, outcomes, submit

pytestmark = pytest.mark.django_db

# Every column but the row's own id and its board (another snapshot's).
COLUMNS = [
    f.attname for f in BoardEntry._meta.concrete_fields if f.attname not in ("id", "board_id")
]


def rows(snapshot: BoardSnapshot) -> dict[tuple[str, str], dict]:
    found = BoardEntry.objects.filter(board__snapshot=snapshot).values("board__slug", *COLUMNS)
    return {(row.pop("board__slug"), row["harness_name"]): row for row in found}


@pytest.fixture
def three_agents(registry, submitter):
    board_tasks_only("regex-log", "sqlite-db-truncate")
    for harness, marks in (("Kept", "pf"), ("Redone", "pp"), ("Other", "ff")):
        runs = []
        for task in ("regex-log", "sqlite-db-truncate"):
            runs += outcomes(
                *("pass" if m == "p" else "fail" for m in marks), task=task, prefix=harness
            )
        for run, ttft in zip(runs, (120, 340, 560, 780), strict=True):
            run["ttft_ms"], run["steps"] = ttft, ttft // 40
        submit(submitter, runs, harness=harness)
    return submitter


def test_it_writes_carried_over_entries_as_a_full_recompute_does(three_agents):
    boards_recompute()
    redone = Harness.objects.get(name="Redone")
    # Redone's results change, so the carried-over entries move and rank anew.
    submit(
        three_agents, outcomes("pass", "pass", task="regex-log", prefix="more"), harness="Redone"
    )
    incremental = rows(boards_recompute(harness_ids=[redone.pk]))
    full = rows(boards_recompute())
    assert incremental == full
    assert incremental[("overall", "Kept")]["pass_hat_k"]  # the JSON came along


def test_it_carries_the_new_boards_coverage_over(three_agents):
    boards_recompute()
    Task.objects.filter(task_id="sqlite-db-truncate").update(approved=False)
    redone = Harness.objects.get(name="Redone")
    incremental = rows(boards_recompute(harness_ids=[redone.pk]))
    full = rows(boards_recompute())
    assert incremental[("overall", "Kept")]["coverage_of"] == 1
    assert (
        incremental[("overall", "Kept")]["coverage_of"] == full[("overall", "Kept")]["coverage_of"]
    )


def test_it_reads_only_the_columns_ranking_needs_of_a_carried_over_entry(three_agents):
    boards_recompute()
    redone = Harness.objects.get(name="Redone")
    with CaptureQueriesContext(connection) as captured:
        boards_recompute(harness_ids=[redone.pk], defer_intervals=True)
    reads = [
        q["sql"] for q in captured if q["sql"].startswith("SELECT") and "boardentry" in q["sql"]
    ]
    assert reads and all('"pass_hat_k"' not in sql for sql in reads)


def test_it_publishes_the_same_figures_whether_the_bounds_are_deferred_or_not(three_agents):
    inline = rows(boards_recompute())
    deferred = rows(boards_recompute(defer_intervals=True))
    for key, row in inline.items():
        for column in ("ttft_ms_mean", "duration_s_mean", "mean_steps", "pass_rate", "rank"):
            assert deferred[key][column] == row[column]
    assert inline[("overall", "Kept")]["ttft_ms_mean"] is not None
