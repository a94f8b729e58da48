"""The benchmark boards' SQL (methodology §2), composed with psycopg.sql.

No query reads the runs table: the boards add up the rollups written at ingest
(ingestion.models.rollups), so a recompute costs what the number of groups costs.
* the run groups, one RunRollup row per (submission, harness, model, task, outcome)
  with plain counts and exact sums (tokens, money and checkpoint shares as numerics, so
  a figure never changes in its last digit between two recomputes). Every rule of §2
  (infra errors, conflicts, boards) applies to whole groups, so Python rolls them up
  (`totals`). Each group also says whether its runs are Verified: its submission is,
  and its verifier is still active;
* the latencies, one LatencyRollup histogram per (submission, harness, model, suite,
  category), and the corrections: the groups of tasks a board must leave out
  (conflicts, un-approved tasks) or count elsewhere (`latency`).
All can be restricted to some harnesses, for the incremental recompute after an ingest:
the harness ids are then their one parameter.

Values never enter the text by string formatting: the pieces that vary are sql.SQL
fragments, ids rendered by sql.Literal, or %s parameters.
"""

from __future__ import annotations

from psycopg import sql

from ingestion.bundles.limits import VERIFICATIONS
from ingestion.models import LatencyRollup, RunRollup, Verifier
from ingestion.rollups.sql import INFRA_ERROR, latency_columns
from leaderboard.models import ConflictPair

# A submission's verification that makes its runs Verified (the other is self_reported).
SELF_REPORTED, VERIFIED = VERIFICATIONS

# Which (harness, task) pairs are conflict-excluded (methodology §2.2): a task author who
# contributes to the harness, unless the latest admin decision dismissed the pair, or a
# pair an admin confirmed; never the Minimal baseline. The rule is stated once, in the
# conflict review queue's view (leaderboard.ConflictPair, migration 0006), and the boards
# read its `excluded` column, so the queue always says what the boards do.
EXCLUDED_PAIRS = sql.SQL("""
    excluded_pairs AS (
        SELECT harness_id, task_id FROM {view} WHERE excluded
    )
""").format(view=sql.Identifier(ConflictPair._meta.db_table))

_GROUPS = """
    WITH {excluded_pairs}
    SELECT g.harness_id, g.model_id, g.task_id, g.outcome, g.runs, g.cost, g.priced,
           g.tokens, g.tokened, g.steps, g.steps_n, g.tool_calls, g.tool_calls_n,
           g.partial, g.partial_n, sub.created_at,
           (ep.harness_id IS NOT NULL) AS conflicted,
           (sub.verification = {verified} AND v.active IS TRUE) AS verified,
           g.ttft_sum, g.ttft_n, g.duration_sum, g.duration_n
    FROM {run_rollups} g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
    LEFT JOIN {verifiers} v ON v.id = sub.verifier_id
    {where}
    ORDER BY g.harness_id, g.model_id, g.task_id, g.outcome, g.submission_id
"""

# The latencies of every counted submission, a few rows per agent (LatencyRollup).
_LATENCIES = """
    SELECT g.harness_id, g.model_id, g.suite_id, g.category_id, {latency_columns}
    FROM {latency_rollups} g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    {where}
"""

# The run groups whose latencies the LatencyRollup rows hold but a board must not, or
# holds under the wrong board: a conflict-excluded (harness, task) pair, a task no
# longer approved, or a task the registry moved to another suite or category since
# its rollup was written. Few rows: only such tasks' groups.
_LATENCY_CORRECTIONS = """
    WITH {excluded_pairs}
    SELECT g.harness_id, g.model_id, g.suite_id, g.category_id, {latency_columns},
           t.suite_id, t.category_id, (t.approved AND ep.harness_id IS NULL) AS counted_now
    FROM {run_rollups} g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    JOIN ingestion_task t ON t.id = g.task_id
    LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
    WHERE g.outcome <> {infra_error}
      AND (NOT t.approved OR ep.harness_id IS NOT NULL
           OR t.suite_id <> g.suite_id OR t.category_id <> g.category_id)
      {and_where}
"""

# Task id, its suite's board, and whether it counts on Overall and on Coding.
BOARD_TASKS_SQL = sql.SQL("""
    SELECT t.id, s.slug || '-' || s.version, s.in_overall, cat.coding AND s.in_coding
    FROM ingestion_task t
    JOIN ingestion_suite s ON s.id = t.suite_id
    JOIN ingestion_category cat ON cat.id = t.category_id
    WHERE t.approved AND s.official
""")
# Every official suite's board and the groups it joins; every category's coding flag.
OFFICIAL_SUITES_SQL = sql.SQL(
    "SELECT id, slug || '-' || version, in_overall, in_coding FROM ingestion_suite WHERE official"
)
CODING_CATEGORIES_SQL = sql.SQL("SELECT id FROM ingestion_category WHERE coding")

_EXCLUDED_TASKS = "WITH {excluded_pairs} SELECT task_id FROM excluded_pairs WHERE harness_id = %s"


def _harness_filter(*, restricted: bool, keyword: str) -> sql.Composable:
    if not restricted:
        return sql.SQL("")
    return sql.SQL("{} g.harness_id = ANY(%s)").format(sql.SQL(keyword))


def groups_query(*, restricted: bool) -> sql.Composed:
    """The run groups (RunRollup rows) of counted submissions with their conflict and
    verification flags; restricted adds one parameter, the list of harness ids."""
    return sql.SQL(_GROUPS).format(
        excluded_pairs=EXCLUDED_PAIRS,
        where=_harness_filter(restricted=restricted, keyword="WHERE"),
        verified=sql.Literal(VERIFIED),
        verifiers=sql.Identifier(Verifier._meta.db_table),
        run_rollups=sql.Identifier(RunRollup._meta.db_table),
    )


def latencies_query(*, restricted: bool) -> sql.Composed:
    """LatencyRollup rows of counted submissions; restricted: one parameter, harness ids."""
    return sql.SQL(_LATENCIES).format(
        latency_columns=latency_columns(),
        latency_rollups=sql.Identifier(LatencyRollup._meta.db_table),
        where=_harness_filter(restricted=restricted, keyword="WHERE"),
    )


def latency_corrections_query(*, restricted: bool) -> sql.Composed:
    """The run groups to take out of (and perhaps move between) the boards' latencies."""
    return sql.SQL(_LATENCY_CORRECTIONS).format(
        excluded_pairs=EXCLUDED_PAIRS,
        latency_columns=latency_columns(),
        run_rollups=sql.Identifier(RunRollup._meta.db_table),
        infra_error=sql.Literal(INFRA_ERROR),
        and_where=_harness_filter(restricted=restricted, keyword="AND"),
    )


def excluded_tasks_query() -> sql.Composed:
    """Tasks whose runs of one harness (the one parameter) are conflict-excluded."""
    return sql.SQL(_EXCLUDED_TASKS).format(excluded_pairs=EXCLUDED_PAIRS)
