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

import struct

import numpy as np
import psycopg
from django.db import connection
from psycopg import postgres, pq, sql
from psycopg.adapt import Loader

from ingestion.bundles.limits import OUTCOMES, VERIFICATIONS
from ingestion.models import LatencyRollup, ModelPrice, RunRollup, Verifier
from ingestion.rollups.sql import INFRA_ERROR, latency_columns
from leaderboard.boards.catalogue import CATEGORY_PREFIX, CODING, OVERALL
from leaderboard.models import ConflictPair

# A submission's verification that makes its runs Verified (the other is self_reported).
SELF_REPORTED, VERIFIED = VERIFICATIONS
PASS = OUTCOMES[0]

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

# One row per (board, harness, model): what the entry's run groups add up to.
# `per_task` adds up the groups of each (harness, model, task), its sums over the
# outcomes that count (not infra errors); whether the pair is conflict-excluded is the
# same for every group of a task. The entry then adds up its tasks on the board, the
# counted figures only over tasks not conflict-excluded, and lists those tasks' trials
# and passes in task order (for pass^k).
_GROUPS = """
    WITH {excluded_pairs},
    g AS (
        SELECT g.*, sub.created_at,
               (sub.verification = {verified} AND v.active IS TRUE) AS verified,
               g.outcome <> {infra_error} AS counted,
               CASE WHEN lp.priced THEN {list_cost} END AS list_cost,
               CASE WHEN lp.priced THEN g.tokened ELSE 0 END AS list_priced
        FROM {run_rollups} g
        JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
        LEFT JOIN {verifiers} v ON v.id = sub.verifier_id
        LEFT JOIN LATERAL ({price_in_force}) lp ON true
        {where}
    ),
    per_task AS (
        SELECT g.harness_id, g.model_id, g.task_id,
               bool_or(ep.harness_id IS NOT NULL) AS conflicted, sum(g.runs) AS runs,
               sum(g.runs) FILTER (WHERE g.outcome = {infra_error}) AS infra_errors,
               sum(g.runs) FILTER (WHERE g.counted) AS counted,
               sum(g.runs) FILTER (WHERE g.outcome = {passed}) AS passes,
               {counted_sums}, max(g.created_at) AS latest,
               sum(g.runs) FILTER (WHERE NOT g.verified) AS self_reported
        FROM g
        LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
        GROUP BY g.harness_id, g.model_id, g.task_id
    ),
    {board_tasks}
    SELECT b.board, p.harness_id, p.model_id, sum(p.runs)::bigint,
           coalesce(sum(p.infra_errors), 0)::bigint,
           coalesce(sum(p.counted) FILTER (WHERE p.conflicted), 0)::bigint,
           coalesce(sum(p.counted) FILTER (WHERE NOT p.conflicted), 0)::bigint,
           coalesce(sum(p.passes) FILTER (WHERE NOT p.conflicted), 0)::bigint,
           {entry_sums}, max(p.latest), coalesce(sum(p.self_reported), 0)::bigint,
           array_agg(p.task_id ORDER BY p.task_id) FILTER (WHERE {task_counts}),
           array_agg(p.counted ORDER BY p.task_id) FILTER (WHERE {task_counts}),
           array_agg(coalesce(p.passes, 0) ORDER BY p.task_id) FILTER (WHERE {task_counts})
           {task_sums}
    FROM per_task p JOIN board_tasks b ON b.task_id = p.task_id
    GROUP BY b.board, p.harness_id, p.model_id
"""
# The price period in force on a group's date (the latest that began by then), and
# whether it prices both input and output: a group without one is unpriced.
_PRICE_IN_FORCE = """
    SELECT p.input_price_per_mtok AS input, p.output_price_per_mtok AS output,
           coalesce(p.cached_input_price_per_mtok, p.input_price_per_mtok) AS cached,
           (p.input_price_per_mtok IS NOT NULL AND p.output_price_per_mtok IS NOT NULL) AS priced
    FROM {model_prices} p
    WHERE p.model_id = g.model_id AND p.effective_from <= g.run_date
    ORDER BY p.effective_from DESC LIMIT 1
"""
# A group's list cost in dollars: its tokened runs' token sums at the period's prices
# per million (cached tokens are part of input, priced at the cached price).
_LIST_COST = """
    (greatest(g.tokens_input - g.tokens_cached, 0) * lp.input
     + least(g.tokens_cached, g.tokens_input) * lp.cached
     + g.tokens_output * lp.output) / 1000000
"""
# Summed over the counted outcomes of a task, then over the entry's counted tasks.
COUNTED_SUMS = (
    "cost", "priced", "tokens", "tokened", "steps", "steps_n", "tool_calls", "tool_calls_n",
    "partial", "partial_n", "list_cost", "list_priced",
)  # fmt: skip
# Summed over the entry's counted tasks too: the mean latencies are published exactly.
LATENCY_SUMS = ("ttft_sum", "ttft_n", "duration_sum", "duration_n")
# Listed per counted task as well, (sum, count) per mean: the means' intervals are
# clustered by task (leaderboard.boards.intervals.TASK_SUMS is this order). Only what
# computes those intervals reads them: half the query's cost is these arrays of numerics.
TASK_SUMS = (
    "partial", "partial_n", "steps", "steps_n", "tool_calls", "tool_calls_n", "ttft_sum",
    "ttft_n", "duration_sum", "duration_n",
)  # fmt: skip

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

# (task id, board) of every approved task of an official suite, one row per board it
# counts on: its suite's, Overall and Coding as far as the suite joins them, and its
# category's when it counts on Overall (ingestion.aggregate_boards.task_boards).
_BOARD_TASKS_CTE = """
    board_tasks AS (
        SELECT t.id AS task_id, b.board
        FROM ingestion_task t
        JOIN ingestion_suite s ON s.id = t.suite_id
        JOIN ingestion_category cat ON cat.id = t.category_id
        CROSS JOIN LATERAL (VALUES ({overall}, s.in_overall),
                                   (s.slug || '-' || s.version, true),
                                   ({coding}, cat.coding AND s.in_coding),
                                   ({category_prefix} || cat.name, s.in_overall))
                           AS b(board, member)
        WHERE t.approved AND s.official AND b.member
    )
"""
# Every official suite's board and the groups it joins; every category's name and flag.
OFFICIAL_SUITES_SQL = sql.SQL(
    "SELECT id, slug || '-' || version, in_overall, in_coding FROM ingestion_suite WHERE official"
)
CATEGORIES_SQL = sql.SQL("SELECT id, name, coding FROM ingestion_category")

# Per board, its task count (harness id NULL) and, per harness, how many of its tasks are
# conflict-excluded for that harness: the denominators of coverage (methodology §2.6).
_BOARD_TASK_COUNTS = """
    WITH {excluded_pairs}, {board_tasks}
    SELECT b.board, NULL::bigint, count(*) FROM board_tasks b GROUP BY b.board
    UNION ALL
    SELECT b.board, ep.harness_id, count(*)
    FROM board_tasks b JOIN excluded_pairs ep ON ep.task_id = b.task_id
    GROUP BY b.board, ep.harness_id
"""

# (board, harness, model, submission, suite) of every counted submission's runs: whose
# run configuration an entry shows, compared with which suite's standard.
_ENTRY_SUBMISSIONS = """
    WITH {board_tasks}
    SELECT DISTINCT b.board, g.harness_id, g.model_id, g.submission_id, t.suite_id
    FROM {run_rollups} g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    JOIN board_tasks b ON b.task_id = g.task_id
    JOIN ingestion_task t ON t.id = g.task_id
    WHERE g.outcome <> {infra_error} {and_where}
"""

_EXCLUDED_TASKS = "WITH {excluded_pairs} SELECT task_id FROM excluded_pairs WHERE harness_id = %s"


def _harness_filter(*, restricted: bool, keyword: str) -> sql.Composable:
    if not restricted:
        return sql.SQL("")
    return sql.SQL("{} g.harness_id = ANY(%s)").format(sql.SQL(keyword))


def groups_query(*, restricted: bool, task_sums: bool = True) -> sql.Composed:
    """What the run groups (RunRollup rows) of counted submissions add up to per
    (board, harness, model); restricted adds one parameter, the list of harness ids.
    Without `task_sums`, the per-task sums of the means (TASK_SUMS) are left out."""
    return sql.SQL(_GROUPS).format(
        excluded_pairs=EXCLUDED_PAIRS,
        board_tasks=_board_tasks_cte(),
        counted_sums=sql.SQL(", ").join(
            sql.SQL("sum(g.{c}) FILTER (WHERE g.counted) AS {c}").format(c=sql.Identifier(c))
            for c in dict.fromkeys(COUNTED_SUMS + TASK_SUMS)
        ),
        task_sums=sql.SQL("").join(
            sql.SQL(", array_agg(coalesce(p.{}, 0) ORDER BY p.task_id) FILTER (WHERE {})").format(
                sql.Identifier(c), sql.SQL("p.counted > 0 AND NOT p.conflicted")
            )
            for c in (TASK_SUMS if task_sums else ())
        ),
        entry_sums=sql.SQL(", ").join(
            sql.SQL("sum(p.{}) FILTER (WHERE NOT p.conflicted)").format(sql.Identifier(c))
            for c in COUNTED_SUMS + LATENCY_SUMS
        ),
        task_counts=sql.SQL("p.counted > 0 AND NOT p.conflicted"),
        where=_harness_filter(restricted=restricted, keyword="WHERE"),
        list_cost=sql.SQL(_LIST_COST),
        price_in_force=sql.SQL(_PRICE_IN_FORCE).format(
            model_prices=sql.Identifier(ModelPrice._meta.db_table)
        ),
        verified=sql.Literal(VERIFIED),
        infra_error=sql.Literal(INFRA_ERROR),
        passed=sql.Literal(PASS),
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


def board_tasks_cte() -> sql.Composed:
    """The `board_tasks` CTE: (task id, board) of every board a task counts on."""
    return _board_tasks_cte()


def _board_tasks_cte() -> sql.Composed:
    return sql.SQL(_BOARD_TASKS_CTE).format(
        overall=sql.Literal(OVERALL.slug),
        coding=sql.Literal(CODING.slug),
        category_prefix=sql.Literal(CATEGORY_PREFIX),
    )


def board_tasks_query() -> sql.Composed:
    """(task id, board) rows: the boards every task counts on."""
    return sql.SQL("WITH {} SELECT task_id, board FROM board_tasks").format(_board_tasks_cte())


def board_task_counts_query() -> sql.Composed:
    """(board, None, tasks) and (board, harness id, its conflict-excluded tasks) rows."""
    return sql.SQL(_BOARD_TASK_COUNTS).format(
        excluded_pairs=EXCLUDED_PAIRS, board_tasks=_board_tasks_cte()
    )


def entry_submissions_query(*, restricted: bool) -> sql.Composed:
    """(board, harness, model, submission, suite) rows; restricted: one parameter."""
    return sql.SQL(_ENTRY_SUBMISSIONS).format(
        board_tasks=_board_tasks_cte(),
        run_rollups=sql.Identifier(RunRollup._meta.db_table),
        infra_error=sql.Literal(INFRA_ERROR),
        and_where=_harness_filter(restricted=restricted, keyword="AND"),
    )


def excluded_tasks_query() -> sql.Composed:
    """Tasks whose runs of one harness (the one parameter) are conflict-excluded."""
    return sql.SQL(_EXCLUDED_TASKS).format(excluded_pairs=EXCLUDED_PAIRS)


def binary_rows(query: sql.Composed, params: list, *, int_arrays: bool = False) -> list[tuple]:
    """The rows in PostgreSQL's binary format: the boards read arrays (per-task counts,
    latency histograms) of hundreds of thousands of ints in all, which psycopg reads
    about twice as fast in binary as in text. Django's cursors bind parameters on the
    client, which rules binary results out, hence a plain psycopg cursor on Django's
    connection (the same session and transaction). With `int_arrays`, every integer
    array comes as a NumPy array (the latency histograms, which are only added up)."""
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        if int_arrays:
            cursor.adapters.register_loader(postgres.types["int4"].array_oid, IntArrayLoader)
        cursor.execute(query, params, binary=True)
        return cursor.fetchall()


class IntArrayLoader(Loader):
    """A one-dimensional int4[] without NULLs, in binary, as an int64 NumPy array read
    straight from the buffer (each element is its length, 4, then its value)."""

    format = pq.Format.BINARY
    _HEADER = struct.Struct("!iiIii")  # dimensions, has nulls, element type, size, lower bound

    def load(self, data) -> np.ndarray:
        dimensions, has_nulls = struct.unpack_from("!ii", data)
        if dimensions == 0:
            return np.zeros(0, dtype=np.int64)
        if dimensions != 1 or has_nulls:
            raise ValueError("a histogram array has one dimension and no NULL")
        size = self._HEADER.unpack_from(data)[3]
        pairs = np.frombuffer(data, dtype=">i4", count=2 * size, offset=self._HEADER.size)
        return pairs[1::2].astype(np.int64)
