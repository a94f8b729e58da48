"""Runs under attack (AgentDojo's prompt injections) and the SafetyRollup rows they roll
up into, composed with psycopg.sql.

The separation rule, stated once (docs/decisions.md "Runs under attack"): a run whose
`extra.attack` names an attack (anything but absent, null or "none") is a run under
attack. It never enters RunRollup nor the trace rollups, so no pass-rate board, latency
or trajectory figure ever counts it; it rolls up here instead, one row per (submission,
harness, model, task, attack) with its counted runs, passes and breaches (runs whose
`extra.security` is true: AgentDojo's `security` says the injection task was carried
out, and its published targeted ASR is the share of such runs; checked against its
published table, tests/leaderboard/safety/test_safety_realdata.py). The safety boards read
these rows, never the runs, so their cost grows with groups, not runs.
"""

from __future__ import annotations

from psycopg import sql

from ingestion.bundles.limits import OUTCOMES
from ingestion.rollups.scope import rollup_scope

BENIGN = "none"
PASS, _, INFRA_ERROR = OUTCOMES
# The attack a run was under, "" for a benign run (no attack, null, or "none").
_ATTACK = "nullif(coalesce({run}.extra ->> 'attack', {benign}), {benign})"


def attack_of(run: str = "r") -> sql.Composed:
    """The run's attack, NULL for a benign run."""
    return sql.SQL(_ATTACK).format(run=sql.Identifier(run), benign=sql.Literal(BENIGN))


# The same rule as a predicate the planner estimates as "nearly every run": a test of a
# function's result IS NULL is estimated at 0.5% of the rows, which planned the rollup
# CTE for a handful of runs and joined its thousands of groups in nested loops (97 s
# for 6,500 runs); `?` and its negation are estimated from the containment default.
_BENIGN = (
    "(NOT ({run}.extra ? 'attack')"
    " OR ({run}.extra -> 'attack') IN ('null'::jsonb, {benign_json}::jsonb))"
)


def benign_run(run: str = "r") -> sql.Composed:
    """The predicate every pass-rate rollup filters its runs with: attack_of is NULL."""
    return sql.SQL(_BENIGN).format(run=sql.Identifier(run), benign_json=sql.Literal(f'"{BENIGN}"'))


_SAFETY_INSERT = """
    INSERT INTO ingestion_safetyrollup (submission_id, harness_id, model_id, task_id,
                                        suite_id, attack, runs, counted, passes, breaches)
    SELECT r.submission_id, r.harness_id, r.model_id, r.task_id, min(t.suite_id),
           {attack}, count(*),
           count(*) FILTER (WHERE r.outcome <> {infra_error}),
           count(*) FILTER (WHERE r.outcome = {passed}),
           count(*) FILTER (WHERE r.outcome <> {infra_error}
                              AND (r.extra -> 'security') = 'true'::jsonb)
    FROM ingestion_run r JOIN ingestion_task t ON t.id = r.task_id
    WHERE {scope} AND {attack} IS NOT NULL
    GROUP BY r.submission_id, r.harness_id, r.model_id, r.task_id, {attack}
"""


def safety_rollup_insert(*, by_model: bool = False) -> sql.Composed:
    """SafetyRollup rows for the attacked runs of some submissions (`submission_ids`)."""
    return sql.SQL(_SAFETY_INSERT).format(
        attack=attack_of("r"), infra_error=sql.Literal(INFRA_ERROR), passed=sql.Literal(PASS),
        scope=rollup_scope("r", by_model=by_model),
    )  # fmt: skip


def safety_rollups_delete(*, by_model: bool = False) -> sql.Composed:
    return sql.SQL("DELETE FROM {} WHERE {}").format(
        sql.Identifier("ingestion_safetyrollup"), rollup_scope(by_model=by_model)
    )
