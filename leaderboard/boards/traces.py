"""An entry's trajectory figures and rule-violation counts, from the trace rollups.

The runs that count are the pass rate's (methodology §2.2): of ingested submissions,
not infra errors, not conflict-excluded, on the board's tasks. Match variants are
pass/fail per run, published with their Wilson interval; the shares (precision, recall,
F1, argument accuracy) are means over runs with an interval clustered by task, as every
other mean of the boards. Violations are counts of runs, budgeted at zero: no rate;
an aggregate board (Overall, Coding) counts runs checked and runs that broke any rule,
never per rule, since rule ids are each suite's own.
"""

from __future__ import annotations

from collections import defaultdict

from psycopg import sql

from ingestion.models import TraceRollup, ViolationRollup
from ingestion.rollups.sql import INFRA_ERROR
from ingestion.traces.figures import FIGURES
from leaderboard.boards.catalogue import is_aggregate
from leaderboard.boards.sql import EXCLUDED_PAIRS, binary_rows, board_tasks_cte
from leaderboard.methodology import stats, uncertainty

_KINDS = {figure.key: figure.kind for figure in FIGURES}
_COUNTED = """
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    JOIN board_tasks b ON b.task_id = g.task_id
    LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
    WHERE g.outcome <> {infra_error} AND ep.harness_id IS NULL {and_where}
"""
# Per (board, harness, model, figure): each counted task's sum and runs, in task order.
_FIGURES = """
    WITH {excluded_pairs}, {board_tasks},
    per_task AS (
        SELECT b.board, g.harness_id, g.model_id, g.figure, g.task_id,
               sum(g.total) AS total, sum(g.runs) AS runs
        FROM {trace_rollups} g {counted}
        GROUP BY b.board, g.harness_id, g.model_id, g.figure, g.task_id
    )
    SELECT board, harness_id, model_id, figure,
           array_agg(total ORDER BY task_id), array_agg(runs::int ORDER BY task_id)
    FROM per_task GROUP BY board, harness_id, model_id, figure
"""
# One agent's per-task sums and runs of every figure on one board (the compare page).
_TASK_FIGURES = """
    WITH {excluded_pairs}, {board_tasks}
    SELECT g.figure, g.task_id, sum(g.total), sum(g.runs)
    FROM {trace_rollups} g {counted} AND b.board = %s AND g.model_id = %s
    GROUP BY g.figure, g.task_id
"""
_VIOLATIONS = """
    WITH {excluded_pairs}, {board_tasks}
    SELECT b.board, g.harness_id, g.model_id, g.rule, sum(g.runs)::int
    FROM {violation_rollups} g {counted}
    GROUP BY b.board, g.harness_id, g.model_id, g.rule
"""


def _query(template: str, *, restricted: bool) -> sql.Composed:
    counted = sql.SQL(_COUNTED).format(
        infra_error=sql.Literal(INFRA_ERROR),
        and_where=sql.SQL("AND g.harness_id = ANY(%s)") if restricted else sql.SQL(""),
    )
    return sql.SQL(template).format(
        excluded_pairs=EXCLUDED_PAIRS,
        board_tasks=board_tasks_cte(),
        counted=counted,
        trace_rollups=sql.Identifier(TraceRollup._meta.db_table),
        violation_rollups=sql.Identifier(ViolationRollup._meta.db_table),
    )


def entry_traces(*, harness_ids: list[int] | None = None) -> dict[tuple, dict]:
    """(board, harness id, model id) -> the entry's `trajectory` and `violations`
    fields, for the entries with any trace (optionally only some harnesses')."""
    restricted = harness_ids is not None
    params = [harness_ids] if restricted else []
    found: dict[tuple, dict] = defaultdict(lambda: {"trajectory": {}, "violations": {}})
    for board, harness, model, figure, totals, runs in binary_rows(
        _query(_FIGURES, restricted=restricted), params
    ):
        if figure in _KINDS:  # a figure since retired is not published
            found[(board, harness, model)]["trajectory"][figure] = figure_summary(
                _KINDS[figure], [float(t) for t in totals], list(runs)
            )
    for board, harness, model, rule, runs in binary_rows(
        _query(_VIOLATIONS, restricted=restricted), params
    ):
        violations = found[(board, harness, model)]["violations"]
        if rule == "":
            violations["checked"] = runs
        elif rule == "*":
            violations["any"] = runs
        elif not is_aggregate(board):  # rule ids are a suite's own: no sum across suites
            violations.setdefault("rules", {})[rule] = runs
    return dict(found)


def agent_task_figures(board: str, harness_id: int, model_id: int) -> dict[str, dict[int, float]]:
    """figure -> task id -> the agent's mean over its counted runs of that task that
    define the figure, on one board (one query over the rollups)."""
    means: dict[str, dict[int, float]] = defaultdict(dict)
    rows = binary_rows(_query(_TASK_FIGURES, restricted=True), [[harness_id], board, model_id])
    for figure, task, total, runs in rows:
        if runs:
            means[figure][task] = float(total) / int(runs)
    return dict(means)


def figure_summary(kind: str, totals: list[float], runs: list[int]) -> dict:
    """{value, low, high, n} of one figure from its per-task sums and defined runs."""
    n = sum(runs)
    if kind == "rate":
        passes = round(sum(totals))  # sums of 1.0 and 0.0: whole numbers
        low, high = stats.wilson_interval(passes, n)
        return {"value": passes / n if n else None, "low": low, "high": high, "n": n}
    value, low, high = uncertainty.task_clustered_mean(totals, runs)
    if low is not None:  # a share: the normal interval is cut at [0, 1]
        low, high = max(low, 0.0), min(high, 1.0)
    return {"value": value, "low": low, "high": high, "n": n}


def trace_fields(found: dict | None) -> dict:
    """The BoardEntry fields of one entry: empty when it has no traces."""
    if found is None:
        return {"trajectory": {}, "violations": {}}
    return found
