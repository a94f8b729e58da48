"""Benchmark board computation (methodology §2): set-based SQL feeding leaderboard.stats.

Two aggregate queries over the runs table give every figure for every (board, agent):
one for counts, sums and percentiles, one for the (trials, passes) shape of each task
that pass^k needs. Python then only applies the formulas and orders the rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection

from leaderboard import stats

# Which runs are conflict-excluded (methodology §2.2): a person who authored the task
# and contributes to the harness, unless the latest admin decision dismissed it; or a
# pair an admin confirmed. Minimal baseline runs are never excluded (applied below).
EXCLUDED_PAIRS_SQL = """
    natural_conflicts AS (
        SELECT DISTINCT hc.harness_id, ta.task_id
        FROM ingestion_harness_contributors hc
        JOIN ingestion_task_authors ta ON ta.person_id = hc.person_id
    ),
    latest_decisions AS (
        SELECT DISTINCT ON (harness_id, task_id) harness_id, task_id, decision
        FROM leaderboard_conflictdecision
        ORDER BY harness_id, task_id, decided_at DESC, id DESC
    ),
    excluded_pairs AS (
        SELECT nc.harness_id, nc.task_id
        FROM natural_conflicts nc
        LEFT JOIN latest_decisions d USING (harness_id, task_id)
        WHERE d.decision IS DISTINCT FROM 'dismiss'
        UNION
        SELECT harness_id, task_id FROM latest_decisions WHERE decision = 'confirm'
    )
"""

# Every run of a submission that counts, with the flags the rules need. Tasks that
# are not approved, or not in an official suite, reach no board.
FLAGGED_RUNS_SQL = (
    "WITH "
    + EXCLUDED_PAIRS_SQL
    + """,
    board_tasks AS (
        SELECT 'overall' AS board, t.id AS task_id
        FROM ingestion_task t JOIN ingestion_suite s ON s.id = t.suite_id
        WHERE t.approved AND s.official
        UNION ALL
        SELECT 'coding', t.id
        FROM ingestion_task t
        JOIN ingestion_suite s ON s.id = t.suite_id
        JOIN ingestion_category c ON c.id = t.category_id
        WHERE t.approved AND s.official AND c.coding
        UNION ALL
        SELECT s.slug || '-' || s.version, t.id
        FROM ingestion_task t JOIN ingestion_suite s ON s.id = t.suite_id
        WHERE t.approved AND s.official
    ),
    flagged AS (
        SELECT r.*, sub.created_at AS submitted_at,
               (r.outcome <> 'infra_error' AND NOT h.minimal_baseline
                AND ep.harness_id IS NOT NULL) AS coi,
               (r.outcome <> 'infra_error'
                AND (h.minimal_baseline OR ep.harness_id IS NULL)) AS counted,
               EXTRACT(EPOCH FROM r.finished_at - r.started_at)::float8 AS duration_s
        FROM ingestion_run r
        JOIN ingestion_submission sub ON sub.id = r.submission_id AND sub.status = 'ingested'
        JOIN ingestion_harness h ON h.id = r.harness_id
        LEFT JOIN excluded_pairs ep ON ep.harness_id = r.harness_id AND ep.task_id = r.task_id
        {where}
    )
"""
)

AGGREGATES_SQL = """
    SELECT bt.board, f.harness_id, f.model_id,
        count(*) AS runs,
        count(*) FILTER (WHERE f.outcome = 'infra_error') AS infra_errors,
        count(*) FILTER (WHERE f.coi) AS conflict_excluded,
        count(*) FILTER (WHERE f.counted) AS n,
        count(*) FILTER (WHERE f.counted AND f.outcome = 'pass') AS passes,
        coalesce(sum(f.cost_usd) FILTER (WHERE f.counted), 0) AS total_cost,
        count(*) FILTER (WHERE f.counted AND f.cost_usd IS NULL) AS missing_cost,
        coalesce(sum(f.tokens_input + f.tokens_output) FILTER (WHERE f.counted), 0) AS total_tokens,
        count(*) FILTER (WHERE f.counted
                         AND (f.tokens_input IS NULL OR f.tokens_output IS NULL)) AS missing_tokens,
        avg(f.checkpoints_passed::float8 / f.checkpoints_total)
            FILTER (WHERE f.counted AND f.checkpoints_total > 0) AS partial_score,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY f.ttft_ms) FILTER (WHERE f.counted) AS ttft_p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY f.ttft_ms) FILTER (WHERE f.counted) AS ttft_p95,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY f.duration_s) FILTER (WHERE f.counted) AS duration_p50,
        percentile_cont(0.95) WITHIN GROUP (ORDER BY f.duration_s) FILTER (WHERE f.counted) AS duration_p95,
        avg(f.steps) FILTER (WHERE f.counted)::float8 AS mean_steps,
        avg(f.tool_calls) FILTER (WHERE f.counted)::float8 AS mean_tool_calls,
        max(f.submitted_at) AS latest_submission
    FROM flagged f JOIN board_tasks bt ON bt.task_id = f.task_id
    GROUP BY bt.board, f.harness_id, f.model_id
"""

# pass^k depends on each task only through (counted trials, passes), so the tasks of
# an agent collapse to a handful of (n, c) shapes with a count each.
TASK_SHAPES_SQL = """
    SELECT board, harness_id, model_id, n, c, count(*) AS tasks
    FROM (
        SELECT bt.board, f.harness_id, f.model_id, f.task_id,
               count(*) AS n, count(*) FILTER (WHERE f.outcome = 'pass') AS c
        FROM flagged f JOIN board_tasks bt ON bt.task_id = f.task_id
        WHERE f.counted
        GROUP BY bt.board, f.harness_id, f.model_id, f.task_id
    ) per_task
    GROUP BY board, harness_id, model_id, n, c
"""


@dataclass
class AgentAggregate:
    board: str
    harness_id: int
    model_id: int
    runs: int
    infra_errors: int
    conflict_excluded: int
    n: int
    passes: int
    total_cost: float
    missing_cost: int
    total_tokens: int
    missing_tokens: int
    partial_score: float | None
    ttft_p50: float | None
    ttft_p95: float | None
    duration_p50: float | None
    duration_p95: float | None
    mean_steps: float | None
    mean_tool_calls: float | None
    latest_submission: object
    task_shapes: list[tuple[int, int, int]] = field(default_factory=list)


def board_aggregates(*, harness_ids: list[int] | None = None) -> list[AgentAggregate]:
    """Every (board, agent) aggregate, optionally only for some harnesses."""
    where, params = "", []
    if harness_ids is not None:
        where, params = "WHERE r.harness_id = ANY(%s)", [harness_ids]
    prefix = FLAGGED_RUNS_SQL.format(where=where)
    with connection.cursor() as cursor:
        cursor.execute(prefix + AGGREGATES_SQL, params)
        aggregates = {(row[0], row[1], row[2]): AgentAggregate(*row) for row in cursor.fetchall()}
        cursor.execute(prefix + TASK_SHAPES_SQL, params)
        for board, harness_id, model_id, n, c, tasks in cursor.fetchall():
            aggregates[(board, harness_id, model_id)].task_shapes.append((n, c, tasks))
    return list(aggregates.values())


@dataclass(frozen=True)
class AgentName:
    harness: str
    harness_version: str
    model: str
    minimal_baseline: bool


def entry_figures(aggregate: AgentAggregate, name: AgentName) -> dict:
    """Every published figure of one entry except rank and the Token Saving badge."""
    a = aggregate
    pass_rate = a.passes / a.n if a.n else None
    low, high = stats.wilson_interval(a.passes, a.n)
    cost, cost_status = stats.cost_per_success(a.total_cost, a.passes, a.missing_cost > 0)
    tokens = None if a.missing_tokens else a.total_tokens
    return {
        "harness": name.harness,
        "harness_version": name.harness_version,
        "model": name.model,
        "minimal_baseline": name.minimal_baseline,
        "runs": a.runs,
        "n": a.n,
        "passes": a.passes,
        "pass_rate": pass_rate,
        "wilson_low": low,
        "wilson_high": high,
        "infra_errors": a.infra_errors,
        "infra_error_rate": a.infra_errors / a.runs if a.runs else None,
        "under_review": stats.is_under_review(a.infra_errors, a.runs),
        "conflict_excluded": a.conflict_excluded,
        "cost_per_success": cost,
        "cost_per_success_status": cost_status,
        "tokens_per_success": stats.tokens_per_success(tokens, a.passes),
        "pass_hat_k": pass_k_from_shapes(a.task_shapes),
        "partial_score": a.partial_score,
        "ttft_ms_p50": a.ttft_p50,
        "ttft_ms_p95": a.ttft_p95,
        "duration_s_p50": a.duration_p50,
        "duration_s_p95": a.duration_p95,
        "mean_steps": a.mean_steps,
        "mean_tool_calls": a.mean_tool_calls,
    }


def pass_k_from_shapes(shapes: list[tuple[int, int, int]]) -> dict[str, dict]:
    """pass^k table from (n, c, number of tasks) shapes; same as stats.pass_k_table."""
    per_task = [(n, c) for n, c, tasks in sorted(shapes) for _ in range(tasks)]
    return stats.pass_k_table(per_task)


def award_token_saving(entries: list[dict], latest: dict[int, object]) -> None:
    """Set token_saving on every entry of one board, against the same model's Minimal.

    `latest` maps id(entry) to its latest submission time, which picks the Minimal
    version when a board holds several for one model.
    """
    minimal_by_model: dict[str, dict] = {}
    for entry in entries:
        if entry["minimal_baseline"]:
            current = minimal_by_model.get(entry["model"])
            if current is None or latest[id(entry)] > latest[id(current)]:
                minimal_by_model[entry["model"]] = entry
    for entry in entries:
        minimal = minimal_by_model.get(entry["model"], {})
        entry["token_saving"] = stats.token_saving(
            entry["tokens_per_success"],
            entry["pass_rate"],
            minimal.get("tokens_per_success"),
            minimal.get("pass_rate"),
            is_minimal=entry["minimal_baseline"],
        )


def is_rankable(entry: dict) -> bool:
    return not entry["under_review"] and entry["n"] > 0


def _tie_order(entry: dict) -> tuple:
    pass_rate = entry["pass_rate"]
    return (
        pass_rate is None,
        -(pass_rate or 0.0),
        -entry["n"],
        entry["harness"],
        entry["harness_version"],
        entry["model"],
    )


def order_and_rank(entries: list[dict]) -> list[dict]:
    """Ranked entries by wilson_low (competition ranks), then the unranked ones."""
    ranked = sorted(
        (e for e in entries if is_rankable(e)), key=lambda e: (-e["wilson_low"], *_tie_order(e))
    )
    unranked = sorted((e for e in entries if not is_rankable(e)), key=_tie_order)
    for entry, rank in zip(
        ranked, stats.competition_ranks([e["wilson_low"] for e in ranked]), strict=True
    ):
        entry["rank"] = rank
    for entry in unranked:
        entry["rank"] = None
    return ranked + unranked


def build_board_entries(
    aggregates: list[AgentAggregate], names: dict[tuple[int, int], AgentName]
) -> dict[str, list[dict]]:
    """Board slug -> entries in display order, every figure of api.md's Entry."""
    by_board: dict[str, list[dict]] = defaultdict(list)
    latest: dict[int, object] = {}
    for aggregate in aggregates:
        entry = entry_figures(aggregate, names[(aggregate.harness_id, aggregate.model_id)])
        entry["harness_id"], entry["model_id"] = aggregate.harness_id, aggregate.model_id
        latest[id(entry)] = aggregate.latest_submission
        by_board[aggregate.board].append(entry)
    for entries in by_board.values():
        award_token_saving(entries, latest)
    return {board: order_and_rank(entries) for board, entries in by_board.items()}
