"""Run totals per (board, agent), read from the rollups with the queries of `sql`.

The run groups are rolled up here: every rule of methodology §2 that excludes runs
(infra errors, conflicts) applies to whole groups, and each group counts on every board
its task belongs to. The figures themselves are computed from these totals in `compute`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db import connection

from leaderboard.boards.latency import AgentKey, latency_percentiles
from leaderboard.boards.sql import (
    binary_rows,
    board_task_counts_query,
    board_tasks_query,
    groups_query,
)

__all__ = ["AgentKey", "AgentTotals", "CoverageOf", "agent_totals", "board_tasks"]


@dataclass
class AgentTotals:
    """Everything one agent's runs on one board add up to."""

    runs: int = 0
    infra_errors: int = 0
    conflict_excluded: int = 0
    n: int = 0
    passes: int = 0
    # Reported: the submitters' cost_usd; list: the price list's (tokens x prices).
    cost: Decimal = Decimal(0)
    unpriced: int = 0
    list_cost: Decimal = Decimal(0)
    # Counted runs with tokens whose model has no list price on the run's date.
    list_unpriced: int = 0
    tokens: int = 0
    untokened: int = 0
    steps: int = 0
    steps_n: int = 0
    tool_calls: int = 0
    tool_calls_n: int = 0
    partial: Decimal = Decimal(0)
    partial_n: int = 0
    latest_submission: datetime | None = None
    # Runs (any outcome) whose submission is not Verified by an active verifier.
    self_reported: int = 0
    # task id -> [counted trials, passes], for pass^k
    per_task: dict[int, list[int]] = field(default_factory=dict)
    # ttft p50, ttft p95, duration p50, duration p95
    percentiles: tuple = (None, None, None, None)
    # The exact sums and counts of the mean latencies over the counted tasks.
    ttft_sum: Decimal = Decimal(0)
    ttft_n: Decimal = Decimal(0)
    duration_sum: Decimal = Decimal(0)
    duration_n: Decimal = Decimal(0)
    # task id -> exact sums and counts of the means, in sql.TASK_SUMS order: the means'
    # intervals are clustered by task (leaderboard.boards.intervals). Empty when read
    # without them (agent_totals `task_sums`).
    task_sums: dict[int, list] = field(default_factory=dict)


def board_tasks() -> dict[int, list[str]]:
    """Task id -> the boards it counts on (approved tasks of official suites only)."""
    boards: dict[int, list[str]] = defaultdict(list)
    with connection.cursor() as cursor:
        cursor.execute(board_tasks_query())
        for task_id, board in cursor.fetchall():
            boards[task_id].append(board)
    return dict(boards)


@dataclass(frozen=True)
class CoverageOf:
    """What an entry's coverage is out of: its board's tasks less those conflict-excluded
    for its harness (methodology §2.6). Read again by every recompute, full or not: the
    denominators are the board's and the conflict rule's, not the entry's runs'."""

    tasks: dict[str, int]
    excluded: dict[tuple[str, int], int]

    @classmethod
    def read(cls) -> CoverageOf:
        tasks: dict[str, int] = {}
        excluded: dict[tuple[str, int], int] = {}
        with connection.cursor() as cursor:
            cursor.execute(board_task_counts_query())
            for board, harness_id, count in cursor.fetchall():
                if harness_id is None:
                    tasks[board] = count
                else:
                    excluded[(board, harness_id)] = count
        return cls(tasks, excluded)

    def of(self, board: str, harness_id: int) -> int:
        return self.tasks.get(board, 0) - self.excluded.get((board, harness_id), 0)


def agent_totals(
    *, harness_ids: list[int] | None = None, percentiles: bool = True, task_sums: bool = True
) -> dict[AgentKey, AgentTotals]:
    """(board, harness, model) -> totals, optionally only for some harnesses, without
    the latency percentiles when the caller needs only counts (effects), and without the
    per-task sums when it computes no interval of the means (the swap, the effects)."""
    restricted = harness_ids is not None
    params = [harness_ids] if restricted else []
    rows = binary_rows(groups_query(restricted=restricted, task_sums=task_sums), params)
    totals = {(row[0], row[1], row[2]): _entry_totals(row) for row in rows}
    if percentiles:
        for key, found in latency_percentiles(harness_ids=harness_ids).items():
            if key in totals:
                totals[key].percentiles = found
    return totals


def _entry_totals(row: tuple) -> AgentTotals:
    """One row of groups_query: the sums are exact numerics (Decimal) or None."""
    (_, _, _, runs, infra_errors, conflict_excluded, n, passes, cost, priced, tokens,
     tokened, steps, steps_n, tool_calls, tool_calls_n, partial, partial_n, list_cost,
     list_priced, ttft_sum, ttft_n, duration_sum, duration_n, latest,
     self_reported, tasks, trials, task_passes, *task_sums) = row  # fmt: skip
    tasks = tasks or ()
    return AgentTotals(
        runs=runs, infra_errors=infra_errors, conflict_excluded=conflict_excluded, n=n,
        passes=passes, cost=cost or Decimal(0), unpriced=n - int(priced or 0),
        # Kept as Python ints, unbounded.
        tokens=int(tokens or 0), untokened=n - int(tokened or 0),
        steps=int(steps or 0), steps_n=int(steps_n or 0),
        tool_calls=int(tool_calls or 0), tool_calls_n=int(tool_calls_n or 0),
        partial=partial or Decimal(0), partial_n=int(partial_n or 0),
        list_cost=list_cost or Decimal(0),
        list_unpriced=int(tokened or 0) - int(list_priced or 0),
        ttft_sum=ttft_sum or Decimal(0), ttft_n=ttft_n or Decimal(0),
        duration_sum=duration_sum or Decimal(0), duration_n=duration_n or Decimal(0),
        latest_submission=latest, self_reported=self_reported,
        per_task={task: [t, p] for task, t, p in zip(tasks, trials or (), task_passes or (), strict=True)},
        task_sums=dict(zip(tasks, map(list, zip(*(a or () for a in task_sums), strict=True)), strict=True))
        if task_sums else {},
    )  # fmt: skip
