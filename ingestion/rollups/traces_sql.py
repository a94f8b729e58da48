"""The SQL that rolls traces up (TraceRollup, ViolationRollup), composed with psycopg.sql.

Two set-based statements per batch of submissions, run in the ingest transaction after
the traces are written: each figure's sum and defined count per (submission, harness,
model, task, outcome), and per rule the runs that broke it (once per run, however many
calls did), with rule "" counting the runs checked at all and "*" the runs that broke
any rule. Runs under attack are left out (ingestion.rollups.safety_sql).
"""

from __future__ import annotations

from psycopg import sql

from ingestion.rollups.safety_sql import benign_run
from ingestion.rollups.scope import rollup_scope

TRACE_TABLES = ("ingestion_tracerollup", "ingestion_violationrollup")
_GROUP = "r.submission_id, r.harness_id, r.model_id, r.task_id, r.outcome"

_FIGURES = """
    INSERT INTO {table} (submission_id, harness_id, model_id, task_id, outcome, figure,
                         total, runs)
    SELECT {group}, f.key, sum((f.value)::float8), count(*)
    FROM ingestion_runtrace t
    JOIN ingestion_run r ON r.id = t.run_id
    CROSS JOIN LATERAL jsonb_each(t.figures) f
    WHERE {scope} AND {benign}
      AND jsonb_typeof(f.value) = 'number'
    GROUP BY {group}, f.key
"""
# Checked runs under rule "", runs with any violation under "*", every (run, rule) once.
_VIOLATIONS = """
    INSERT INTO {table} (submission_id, harness_id, model_id, task_id, outcome, rule, runs)
    SELECT {group}, v.rule, count(*)
    FROM ingestion_runtrace t
    JOIN ingestion_run r ON r.id = t.run_id
    CROSS JOIN LATERAL (
        SELECT '' AS rule
        UNION
        SELECT '*' WHERE jsonb_array_length(t.violations) > 0
        UNION
        SELECT e ->> 'rule' FROM jsonb_array_elements(t.violations) e
    ) v
    WHERE {scope} AND {benign}
      AND jsonb_typeof(t.violations) = 'array'
    GROUP BY {group}, v.rule
"""


def trace_rollups_insert(*, by_model: bool = False) -> list[sql.Composed]:
    """Both rollups of some submissions' traces (parameter `submission_ids`)."""
    parts = {
        "group": sql.SQL(_GROUP), "benign": benign_run("r"),
        "scope": rollup_scope("r", by_model=by_model),
    }  # fmt: skip
    return [
        sql.SQL(_FIGURES).format(table=sql.Identifier(TRACE_TABLES[0]), **parts),
        sql.SQL(_VIOLATIONS).format(table=sql.Identifier(TRACE_TABLES[1]), **parts),
    ]


def trace_rollups_delete(*, by_model: bool = False) -> list[sql.Composed]:
    """Both rollups' rows of some submissions (parameter `submission_ids`)."""
    return [
        sql.SQL("DELETE FROM {} WHERE {}").format(
            sql.Identifier(table), rollup_scope(by_model=by_model)
        )
        for table in TRACE_TABLES
    ]
