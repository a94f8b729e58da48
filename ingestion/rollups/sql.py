"""The SQL that writes rollups (ingestion.models.rollups), composed with psycopg.sql.

Two set-based statements per batch of submissions, both run in the ingest transaction:
* RunRollup rows from the benign runs (runs under attack roll up into SafetyRollup,
  ingestion.rollups.safety_sql): one GROUP BY (submission, harness, model, task,
  outcome) with the counts and exact sums the boards need, and each latency figure as a
  histogram of sketch buckets (a second GROUP BY on the bucket) plus, for small groups,
  its sorted values;
* LatencyRollup rows from those RunRollup rows (never from the runs again): the pass
  and fail groups merged per (suite, category) by adding bucket counts.

The bucket expression is rendered from the constants of ingestion.rollups.sketch, so the
database and Python agree on what a bucket is.
"""

from __future__ import annotations

from psycopg import sql

from ingestion.rollups.safety_sql import benign_run
from ingestion.rollups.scope import rollup_scope
from ingestion.rollups.sketch import LOG_GAMMA, SMALL_GROUP_RUNS, ZERO_BELOW, ZERO_KEY

# The figures with percentiles, and how each is read from a run `r`.
LATENCY_FIGURES: dict[str, sql.Composable] = {
    "ttft": sql.SQL("r.ttft_ms::float8"),
    "duration": sql.SQL("EXTRACT(EPOCH FROM r.finished_at - r.started_at)::float8"),
}
RUN_KEY = ("submission_id", "harness_id", "model_id", "task_id", "outcome", "run_date")
LATENCY_KEY = ("submission_id", "harness_id", "model_id", "suite_id", "category_id")
# Outcomes whose runs have percentiles (an infra error's latency says nothing of the agent).
INFRA_ERROR = "infra_error"


def bucket_sql(value: sql.Composable) -> sql.Composed:
    """ingestion.rollups.sketch.bucket_of, computed by the database."""
    return sql.SQL(
        "CASE WHEN {v} <= {zero} THEN {zero_key} ELSE ceil(ln({v}) / {log})::int END"
    ).format(
        v=value,
        zero=sql.Literal(ZERO_BELOW),
        zero_key=sql.Literal(ZERO_KEY),
        log=sql.Literal(LOG_GAMMA),
    )


def _columns(names: tuple[str, ...], prefix: str = "") -> sql.Composed:
    return sql.SQL(", ").join(sql.SQL(prefix) + sql.Identifier(name) for name in names)


def _latency_ctes(figure: str, source: str, key: tuple[str, ...], *, buckets_from_runs: bool):
    """Two CTEs per figure: its sorted values per group, and its histogram per group."""
    columns = _columns(key)
    if buckets_from_runs:
        histogram = sql.SQL(
            "SELECT {key}, {bucket} AS k, count(*)::int AS c FROM {source}"
            " WHERE {figure} IS NOT NULL GROUP BY {key}, k"
        )
        values = sql.SQL(
            "SELECT {key}, array_agg({figure} ORDER BY {figure}) AS v FROM {source}"
            " WHERE {figure} IS NOT NULL GROUP BY {key}"
        )
    else:
        histogram = sql.SQL(
            "SELECT {key}, u.k, sum(u.c)::int AS c FROM {source},"
            " unnest({keys}, {counts}) AS u(k, c) GROUP BY {key}, u.k"
        )
        values = sql.SQL(
            "SELECT {key}, array_agg(u.v ORDER BY u.v) AS v FROM {source},"
            " unnest({values}) AS u(v) GROUP BY {key}"
        )
    names = {
        "key": columns,
        "source": sql.Identifier(source),
        "figure": sql.Identifier(figure),
        "keys": sql.Identifier(f"{figure}_keys"),
        "counts": sql.Identifier(f"{figure}_counts"),
        "values": sql.Identifier(f"{figure}_values"),
        "bucket": bucket_sql(sql.Identifier(figure)),
    }
    return sql.SQL("""
        {figure_values} AS ({values}),
        {figure_buckets} AS (
            SELECT {key}, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts
            FROM ({histogram}) AS h GROUP BY {key}
        )""").format(
        figure_values=sql.Identifier(f"{figure}_v"),
        figure_buckets=sql.Identifier(f"{figure}_b"),
        values=values.format(**names),
        histogram=histogram.format(**names),
        key=columns,
    )


def _latency_select(key: tuple[str, ...]) -> tuple[sql.Composed, sql.Composed]:
    """(the latency columns selected, the joins they need) for the final INSERT."""
    selected, joins = [], []
    for figure in LATENCY_FIGURES:
        selected.append(
            sql.SQL(
                "coalesce(t.{n}, 0), {b}.keys, {b}.counts,"
                " CASE WHEN t.{n} <= {small} THEN {v}.v END"
            ).format(
                n=sql.Identifier(f"{figure}_n"),
                b=sql.Identifier(f"{figure}_b"),
                v=sql.Identifier(f"{figure}_v"),
                small=sql.Literal(SMALL_GROUP_RUNS),
            )
        )
        for cte in (f"{figure}_b", f"{figure}_v"):
            joins.append(
                sql.SQL("LEFT JOIN {cte} USING ({key})").format(
                    cte=sql.Identifier(cte), key=_columns(key)
                )
            )
    return sql.SQL(", ").join(selected), sql.SQL(" ").join(joins)


def latency_columns() -> sql.Composed:
    """The latency columns of both rollup tables, in _latency_select's order."""
    return _columns(
        tuple(
            f"{figure}_{part}"
            for figure in LATENCY_FIGURES
            for part in ("n", "keys", "counts", "values")
        )
    )


_RUN_ROLLUP_INSERT = """
    WITH r AS MATERIALIZED (
        SELECT r.submission_id, r.harness_id, r.model_id, r.task_id, r.outcome,
               t.suite_id, t.category_id, r.cost_usd, r.tokens_input, r.tokens_output,
               r.steps, r.tool_calls, r.checkpoints_passed, r.checkpoints_total,
               r.tokens_cached, {ttft} AS ttft, {duration} AS duration,
               (coalesce(r.started_at, sub.created_at) AT TIME ZONE 'UTC')::date AS run_date
        FROM ingestion_run r JOIN ingestion_task t ON t.id = r.task_id
        JOIN ingestion_submission sub ON sub.id = r.submission_id
        WHERE {scope} AND {benign}
    ),
    t AS (
        SELECT {key}, min(suite_id) AS suite_id, min(category_id) AS category_id,
               count(*) AS runs,
               sum(cost_usd::numeric) AS cost, count(cost_usd) AS priced,
               sum(tokens_input::numeric + tokens_output) AS tokens,
               count(*) FILTER (WHERE tokens_input IS NOT NULL
                                  AND tokens_output IS NOT NULL) AS tokened,
               {tokened_sums},
               sum(steps) AS steps, count(steps) AS steps_n,
               sum(tool_calls) AS tool_calls, count(tool_calls) AS tool_calls_n,
               sum(checkpoints_passed::numeric / checkpoints_total) AS partial,
               count(checkpoints_total) AS partial_n,
               count(ttft) AS ttft_n, count(duration) AS duration_n,
               sum(ttft::numeric) AS ttft_sum, sum(duration::numeric) AS duration_sum
        FROM r GROUP BY {key}
    ),
    {ttft_ctes},
    {duration_ctes}
    INSERT INTO ingestion_runrollup (
        {key}, suite_id, category_id, runs, cost, priced, tokens, tokened, tokens_input,
        tokens_output, tokens_cached, steps, steps_n,
        tool_calls, tool_calls_n, partial, partial_n, ttft_sum, duration_sum,
        {latency_columns})
    SELECT {t_key}, t.suite_id, t.category_id, t.runs, t.cost, t.priced, t.tokens,
           t.tokened, t.tokens_input, t.tokens_output, t.tokens_cached, t.steps, t.steps_n, t.tool_calls, t.tool_calls_n, t.partial,
           t.partial_n, t.ttft_sum, t.duration_sum, {latency}
    FROM t {joins}
"""

_LATENCY_ROLLUP_INSERT = """
    WITH r AS MATERIALIZED (
        SELECT * FROM ingestion_runrollup
        WHERE {scope} AND outcome <> {infra_error}
    ),
    t AS (
        SELECT {key}, sum(ttft_n)::int AS ttft_n, sum(duration_n)::int AS duration_n
        FROM r GROUP BY {key}
    ),
    {ttft_ctes},
    {duration_ctes}
    INSERT INTO ingestion_latencyrollup ({key}, {latency_columns})
    SELECT {t_key}, {latency}
    FROM t {joins}
"""


def _insert_parts(key: tuple[str, ...], *, buckets_from_runs: bool) -> dict:
    """The pieces both INSERTs share: group key, per-figure CTEs, latency columns."""
    latency, joins = _latency_select(key)
    ctes = {
        f"{figure}_ctes": _latency_ctes(figure, "r", key, buckets_from_runs=buckets_from_runs)
        for figure in LATENCY_FIGURES
    }
    return {
        "key": _columns(key),
        "t_key": _columns(key, "t."),
        "latency_columns": latency_columns(),
        "latency": latency,
        "joins": joins,
        **ctes,
    }


def _tokened_sums() -> sql.Composed:
    """The token sums of the runs with both input and output counts (the `tokened`)."""
    both = sql.SQL("tokens_input IS NOT NULL AND tokens_output IS NOT NULL")
    return sql.SQL(", ").join(
        sql.SQL("sum({value}::numeric) FILTER (WHERE {both}) AS {name}").format(
            value=value, both=both, name=sql.Identifier(name)
        )
        for name, value in (
            ("tokens_input", sql.SQL("tokens_input")),
            ("tokens_output", sql.SQL("tokens_output")),
            ("tokens_cached", sql.SQL("coalesce(tokens_cached, 0)")),
        )
    )


def run_rollup_insert(*, by_model: bool = False) -> sql.Composed:
    """RunRollup rows for the runs of some submissions (parameter `submission_ids`)."""
    return sql.SQL(_RUN_ROLLUP_INSERT).format(
        scope=rollup_scope("r", by_model=by_model),
        benign=benign_run("r"),  # runs under attack: safety_sql
        tokened_sums=_tokened_sums(),
        ttft=LATENCY_FIGURES["ttft"],
        duration=LATENCY_FIGURES["duration"],
        **_insert_parts(RUN_KEY, buckets_from_runs=True),
    )


def latency_rollup_insert(*, by_model: bool = False) -> sql.Composed:
    """LatencyRollup rows from the RunRollup rows of some submissions (`submission_ids`)."""
    return sql.SQL(_LATENCY_ROLLUP_INSERT).format(
        scope=rollup_scope(by_model=by_model),
        infra_error=sql.Literal(INFRA_ERROR),
        **_insert_parts(LATENCY_KEY, buckets_from_runs=False),
    )


def rollups_delete(*, by_model: bool = False) -> list[sql.Composed]:
    """Both tables' rows of some submissions (parameter `submission_ids`)."""
    return [
        sql.SQL("DELETE FROM {} WHERE {}").format(
            sql.Identifier(table), rollup_scope(by_model=by_model)
        )
        for table in ("ingestion_latencyrollup", "ingestion_runrollup")
    ]
