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

from leaderboard.boards.latency import AgentKey, latency_percentiles, task_boards
from leaderboard.boards.sql import BOARD_TASKS_SQL, groups_query

__all__ = ["AgentKey", "AgentTotals", "agent_totals", "board_tasks", "task_boards"]


@dataclass
class AgentTotals:
    """Everything one agent's runs on one board add up to."""

    runs: int = 0
    infra_errors: int = 0
    conflict_excluded: int = 0
    n: int = 0
    passes: int = 0
    cost: Decimal = Decimal(0)
    unpriced: int = 0
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
    per_task: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    # ttft p50, ttft p95, duration p50, duration p95
    percentiles: tuple = (None, None, None, None)
    # task id -> exact sums and counts of the means, in TASK_SUMS order: the means'
    # intervals are clustered by task (leaderboard.boards.intervals).
    task_sums: dict[int, list] = field(default_factory=lambda: defaultdict(lambda: [0] * 10))


def board_tasks() -> dict[int, list[str]]:
    """Task id -> the boards it counts on (approved tasks of official suites only): its
    suite's board, and Overall and Coding as far as the suite joins them."""
    boards: dict[int, list[str]] = {}
    with connection.cursor() as cursor:
        cursor.execute(BOARD_TASKS_SQL)
        for task_id, suite_board, overall, coding in cursor.fetchall():
            boards[task_id] = task_boards(suite_board, overall=overall, coding=coding)
    return boards


def agent_totals(*, harness_ids: list[int] | None = None) -> dict[AgentKey, AgentTotals]:
    """(board, harness, model) -> totals, optionally only for some harnesses."""
    tasks = board_tasks()
    restricted = harness_ids is not None
    params = [harness_ids] if restricted else []
    totals: dict[AgentKey, AgentTotals] = defaultdict(AgentTotals)
    with connection.cursor() as cursor:
        cursor.execute(groups_query(restricted=restricted), params)
        for row in cursor.fetchall():
            for board in tasks.get(row[2], ()):
                _add_group(totals[(board, row[0], row[1])], row)
    for key, percentiles in latency_percentiles(harness_ids=harness_ids).items():
        if key in totals:
            totals[key].percentiles = percentiles
    return dict(totals)


def _add_group(t: AgentTotals, row: tuple) -> None:
    (_, _, task_id, outcome, runs, cost, priced, tokens, tokened, steps, steps_n,
     tool_calls, tool_calls_n, partial, partial_n, submitted_at, conflicted,
     verified, ttft_sum, ttft_n, duration_sum, duration_n) = row  # fmt: skip
    t.runs += runs
    # Before the exclusions: an entry's infra errors are as trustworthy as its passes.
    t.self_reported += 0 if verified else runs
    t.latest_submission = max(filter(None, (t.latest_submission, submitted_at)))
    if outcome == "infra_error":
        t.infra_errors += runs
        return
    if conflicted:
        t.conflict_excluded += runs
        return
    passes = runs if outcome == "pass" else 0
    t.n, t.passes = t.n + runs, t.passes + passes
    t.per_task[task_id][0] += runs
    t.per_task[task_id][1] += passes
    t.cost += cost or 0
    t.unpriced += runs - priced
    # Integer sums arrive as exact numerics (Decimal): kept as Python ints, unbounded.
    t.tokens += int(tokens or 0)
    t.untokened += runs - tokened
    t.steps, t.steps_n = t.steps + int(steps or 0), t.steps_n + steps_n
    t.tool_calls += int(tool_calls or 0)
    t.tool_calls_n += tool_calls_n
    t.partial, t.partial_n = t.partial + (partial or 0), t.partial_n + partial_n
    sums = t.task_sums[task_id]
    figures = (partial, partial_n, steps, steps_n, tool_calls, tool_calls_n,
               ttft_sum, ttft_n, duration_sum, duration_n)  # fmt: skip
    for position, value in enumerate(figures):
        sums[position] += value or 0
