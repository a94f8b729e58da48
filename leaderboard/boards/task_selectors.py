"""The task pages' reads: one task's figures per entry, and a board's tasks by difficulty.

Solve rates and trials come from the run rollups (ingestion.models.RunRollup), counted
as the boards count them: counted submissions only, infra errors out of n, the runs of a
conflict-excluded (harness, task) pair out altogether. Only the first-try rate and the
links need the runs themselves, for one task at a time.

The first try of an entry on a task (docs/decisions.md "Task pages") is its counted
runs with the lowest trial number: trial numbers are the one order every bundle states,
and several submissions may each hold a trial 1, whose runs then all count as first
tries. Its rate is their passes over their number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.postgres.aggregates import ArrayAgg
from django.db import connection
from django.db.models import Q
from psycopg import sql

from ingestion.models import RunRollup, Task
from ingestion.natural_order import natural_key, natural_order
from ingestion.rollups.safety_sql import benign_run
from ingestion.rollups.sql import INFRA_ERROR
from leaderboard.boards.display import GridCell, run_status
from leaderboard.boards.sql import EXCLUDED_PAIRS, PASS, board_tasks_cte
from leaderboard.methodology import stats
from leaderboard.models import Board, BoardEntry

# The runs an entry's row links to on a task page; its agent page's grid has them all.
RUN_LINKS = 10


@dataclass
class SolveRate:
    """Passes out of counted runs with their Wilson interval (what the interval bar and
    its text read, like a board entry's pass rate)."""

    n: int
    passes: int
    pass_rate: float | None = field(init=False)
    wilson_low: float | None = field(init=False)
    wilson_high: float | None = field(init=False)

    def __post_init__(self) -> None:
        self.pass_rate = self.passes / self.n if self.n else None
        self.wilson_low, self.wilson_high = stats.wilson_interval(self.passes, self.n)


@dataclass
class TaskEntry:
    """One entry of the task's suite board, on this task."""

    entry: BoardEntry
    runs: int  # every run, infra errors included
    solve: SolveRate  # counted runs (n) and passes
    first_try: SolveRate  # the first tries' passes
    conflict_excluded: bool
    links: list[GridCell]  # as the agent page's task grid draws them

    @property
    def more_runs(self) -> int:
        return self.runs - len(self.links)


# ---------------------------------------------------------------------------------
# The task page


def task_for_page(suite: str, version: str, task_id: str) -> Task | None:
    """The task with its suite, category and authors' handles (one query)."""
    return (
        Task.objects.select_related("suite", "category")
        .annotate(
            author_handles=ArrayAgg(
                "authors__handle", filter=Q(authors__isnull=False), order_by="authors__handle"
            )
        )
        .filter(suite__slug=suite, suite__version=version, task_id=task_id)
        .first()
    )


# Per (harness, model): its runs of the task, counted runs and passes, and whether the
# pair is conflict-excluded (then nothing of it counts), from the rollups.
_TASK_TOTALS = """
    WITH {excluded_pairs}
    SELECT g.harness_id, g.model_id, sum(g.runs)::bigint,
           coalesce(sum(g.runs) FILTER (WHERE g.outcome <> {infra_error}), 0)::bigint,
           coalesce(sum(g.runs) FILTER (WHERE g.outcome = {passed}), 0)::bigint,
           bool_or(ep.harness_id IS NOT NULL)
    FROM {run_rollups} g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
    WHERE g.task_id = %s
    GROUP BY g.harness_id, g.model_id
"""
# Per (harness, model): its first tries' count and passes, and its first RUN_LINKS runs
# by trial (ids, trials, outcomes), from the runs of counted submissions not under attack.
_TASK_RUNS = """
    SELECT harness_id, model_id,
           count(*) FILTER (WHERE trial = first_trial AND outcome <> {infra_error}),
           count(*) FILTER (WHERE trial = first_trial AND outcome = {passed}),
           array_agg(id ORDER BY nth) FILTER (WHERE nth <= {links}),
           array_agg(trial ORDER BY nth) FILTER (WHERE nth <= {links}),
           array_agg(outcome ORDER BY nth) FILTER (WHERE nth <= {links})
    FROM (
        SELECT r.harness_id, r.model_id, r.id, r.trial, r.outcome,
               min(r.trial) FILTER (WHERE r.outcome <> {infra_error})
                   OVER (PARTITION BY r.harness_id, r.model_id) AS first_trial,
               row_number() OVER (PARTITION BY r.harness_id, r.model_id
                                  ORDER BY r.trial, r.id) AS nth
        FROM ingestion_run r
        JOIN ingestion_submission sub ON sub.id = r.submission_id AND sub.status = 'ingested'
        WHERE r.task_id = %s AND {benign}
    ) runs
    GROUP BY harness_id, model_id
"""


def _task_totals_query() -> sql.Composed:
    return sql.SQL(_TASK_TOTALS).format(
        excluded_pairs=EXCLUDED_PAIRS,
        run_rollups=sql.Identifier(RunRollup._meta.db_table),
        infra_error=sql.Literal(INFRA_ERROR),
        passed=sql.Literal(PASS),
    )


def _task_runs_query() -> sql.Composed:
    return sql.SQL(_TASK_RUNS).format(
        infra_error=sql.Literal(INFRA_ERROR),
        passed=sql.Literal(PASS),
        links=sql.Literal(RUN_LINKS),
        benign=benign_run("r"),
    )


def _rows(query: sql.Composed, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return cursor.fetchall()


def task_entries(task: Task, board: Board | None) -> list[TaskEntry]:
    """Every entry of `board` (the task's suite board) with runs of the task, the most
    solved first (by the lower end of the interval, then the board's order); three
    queries, whatever the number of entries and runs."""
    if board is None:
        return []
    totals = {(row[0], row[1]): row[2:] for row in _rows(_task_totals_query(), [task.pk])}
    if not totals:
        return []
    runs = {(row[0], row[1]): row[2:] for row in _rows(_task_runs_query(), [task.pk])}
    entries = (
        BoardEntry.objects.filter(board=board, harness_id__in={h for h, _ in totals})
        .select_related("harness__independent_by")
        .order_by("position")
    )
    found = []
    for entry in entries:
        key = (entry.harness_id, entry.model_id)
        if key in totals:
            found.append(_task_entry(entry, totals[key], runs.get(key)))
    found.sort(key=lambda row: -(row.solve.wilson_low or -1.0))  # stable: board order next
    return found


def _task_entry(entry: BoardEntry, totals: tuple, runs: tuple | None) -> TaskEntry:
    all_runs, counted, passes, excluded = totals
    first_n, first_passes, ids, trials, outcomes = runs or (0, 0, None, None, None)
    if excluded:  # a conflict-excluded pair counts nowhere, first tries included
        counted = passes = first_n = first_passes = 0
    links = [
        GridCell(pk, trial, run_status(outcome, excluded))
        for pk, trial, outcome in zip(ids or (), trials or (), outcomes or (), strict=True)
    ]
    return TaskEntry(
        entry=entry,
        runs=all_runs,
        solve=SolveRate(counted, passes),
        first_try=SolveRate(first_n, first_passes),
        conflict_excluded=excluded,
        links=links,
    )


# ---------------------------------------------------------------------------------
# The hardest tasks of a board


@dataclass
class TaskDifficulty:
    """One task of a board, pooled over every entry's counted runs on it."""

    suite_slug: str
    suite_version: str
    suite_name: str
    task_id: str
    category: str
    human_minutes: float | None
    agents: int  # entries with counted runs on it
    solved_by: int  # of which at least one run passed
    solve: SolveRate


# Per task of the board: its counted runs and passes over every agent, and how many
# agents have counted runs on it and how many passed it at least once (from rollups).
_BOARD_TASK_TOTALS = """
    WITH {excluded_pairs}, {board_tasks},
    per_agent AS (
        SELECT g.task_id, g.harness_id, g.model_id,
               sum(g.runs) FILTER (WHERE g.outcome <> {infra_error}) AS counted,
               sum(g.runs) FILTER (WHERE g.outcome = {passed}) AS passes
        FROM {run_rollups} g
        JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
        JOIN board_tasks b ON b.task_id = g.task_id AND b.board = %s
        LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
        WHERE ep.harness_id IS NULL
        GROUP BY g.task_id, g.harness_id, g.model_id
    )
    SELECT s.slug, s.version, s.name, t.task_id, cat.name, t.human_minutes,
           count(a.harness_id) FILTER (WHERE a.counted > 0),
           count(a.harness_id) FILTER (WHERE a.passes > 0),
           coalesce(sum(a.counted), 0)::bigint, coalesce(sum(a.passes), 0)::bigint
    FROM board_tasks b
    JOIN ingestion_task t ON t.id = b.task_id
    JOIN ingestion_suite s ON s.id = t.suite_id
    JOIN ingestion_category cat ON cat.id = t.category_id
    LEFT JOIN per_agent a ON a.task_id = b.task_id
    WHERE b.board = %s
    GROUP BY s.slug, s.version, s.name, t.task_id, cat.name, t.human_minutes
"""


def _board_task_totals_query() -> sql.Composed:
    return sql.SQL(_BOARD_TASK_TOTALS).format(
        excluded_pairs=EXCLUDED_PAIRS,
        board_tasks=board_tasks_cte(),
        run_rollups=sql.Identifier(RunRollup._meta.db_table),
        infra_error=sql.Literal(INFRA_ERROR),
        passed=sql.Literal(PASS),
    )


def hardest_tasks(board_slug: str) -> list[TaskDifficulty]:
    """Every task of the board, the least solved first (one query): by pooled solve rate,
    then the upper end of its interval (the surer hard task first), then the most counted
    runs; tasks with no counted run last, in natural order."""
    rows = _rows(_board_task_totals_query(), [board_slug, board_slug])
    tasks = [
        TaskDifficulty(*row[:8], solve=SolveRate(n=int(row[8]), passes=int(row[9]))) for row in rows
    ]
    return sorted(tasks, key=_difficulty_order)


def _difficulty_order(task: TaskDifficulty) -> tuple:
    solve = task.solve
    return (
        solve.pass_rate is None,
        solve.pass_rate or 0.0,
        solve.wilson_high or 0.0,
        -solve.n,
        task.suite_slug,
        task.suite_version,
        natural_key(task.task_id),
    )


def board_task_names() -> list[tuple[str, str, str]]:
    """(suite slug, suite version, task id) of every approved task of an official suite,
    in suite and natural task order: the tasks whose pages the boards link (one query)."""
    return list(
        Task.objects.approved_official()
        .order_by("suite__slug", "suite__version", *natural_order("task_id"))
        .values_list("suite__slug", "suite__version", "task_id")
    )
