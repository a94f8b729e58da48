"""Benchmark board computation (methodology §2): set-based SQL feeding leaderboard.stats.

Two queries read the runs table:
* one GROUP BY (submission, harness, model, task, outcome) with plain counts and sums,
  about as costly as any aggregate over the table (money and checkpoint shares are
  summed as exact numerics, in a fixed order, so a figure never changes in its last
  digit between two recomputes of the same runs); every rule of §2 (infra errors,
  conflicts, withdrawals, boards) applies to whole groups, so Python rolls the few
  thousand group rows up into (board, agent) totals and per-task pass^k shapes;
* one percentile query (p50/p95 of TTFT and duration) over the counted runs, one row
  per agent with a filtered aggregate per board.
Both can be restricted to some harnesses, for the incremental recompute after an ingest.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db import connection

from leaderboard import stats

# Which (harness, task) pairs are conflict-excluded (methodology §2.2): a person who
# authored the task and contributes to the harness, unless the latest admin decision
# dismissed it; or a pair an admin confirmed. The Minimal baseline is exempted below.
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

GROUPS_SQL = (
    "WITH "
    + EXCLUDED_PAIRS_SQL
    + """,
    groups AS (
        SELECT submission_id, harness_id, model_id, task_id, outcome,
               count(*) AS runs,
               sum(cost_usd::numeric) AS cost, count(cost_usd) AS priced,
               sum(tokens_input + tokens_output)::bigint AS tokens,
               count(tokens_input + tokens_output) AS tokened,
               sum(steps) AS steps, count(steps) AS steps_n,
               sum(tool_calls) AS tool_calls, count(tool_calls) AS tool_calls_n,
               sum(checkpoints_passed::numeric / checkpoints_total) AS partial,
               count(checkpoints_total) AS partial_n
        FROM ingestion_run
        {where}
        GROUP BY submission_id, harness_id, model_id, task_id, outcome
    )
    SELECT g.harness_id, g.model_id, g.task_id, g.outcome, g.runs, g.cost, g.priced,
           g.tokens, g.tokened, g.steps, g.steps_n, g.tool_calls, g.tool_calls_n,
           g.partial, g.partial_n, sub.created_at,
           (NOT h.minimal_baseline AND ep.harness_id IS NOT NULL) AS conflicted
    FROM groups g
    JOIN ingestion_submission sub ON sub.id = g.submission_id AND sub.status = 'ingested'
    JOIN ingestion_harness h ON h.id = g.harness_id
    LEFT JOIN excluded_pairs ep ON ep.harness_id = g.harness_id AND ep.task_id = g.task_id
    ORDER BY g.harness_id, g.model_id, g.task_id, g.outcome, g.submission_id
"""
)

# One row per agent, with a pair of filtered ordered-set aggregates per board (the
# boards come from the registry, see percentile_boards). These sorts are most of the
# cost of a full recompute; the incremental one restricts them to a few harnesses.
PERCENTILES_SQL = (
    "WITH "
    + EXCLUDED_PAIRS_SQL
    + """
    SELECT r.harness_id, r.model_id, {aggregates}
    FROM ingestion_run r
    JOIN ingestion_submission sub ON sub.id = r.submission_id AND sub.status = 'ingested'
    JOIN ingestion_harness h ON h.id = r.harness_id
    JOIN ingestion_task t ON t.id = r.task_id
    JOIN ingestion_suite s ON s.id = t.suite_id
    JOIN ingestion_category c ON c.id = t.category_id
    LEFT JOIN excluded_pairs ep ON ep.harness_id = r.harness_id AND ep.task_id = r.task_id
    WHERE r.outcome <> 'infra_error' AND t.approved AND s.official
          AND (h.minimal_baseline OR ep.harness_id IS NULL) {and_where}
    GROUP BY r.harness_id, r.model_id
"""
)
PERCENTILE_OF = {
    "ttft": "r.ttft_ms",
    "duration": "EXTRACT(EPOCH FROM r.finished_at - r.started_at)::float8",
}

BOARD_TASKS_SQL = """
    SELECT t.id, s.slug || '-' || s.version, cat.coding
    FROM ingestion_task t
    JOIN ingestion_suite s ON s.id = t.suite_id
    JOIN ingestion_category cat ON cat.id = t.category_id
    WHERE t.approved AND s.official
"""


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
    # task id -> [counted trials, passes], for pass^k
    per_task: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    # ttft p50, ttft p95, duration p50, duration p95
    percentiles: tuple = (None, None, None, None)


AgentKey = tuple[str, int, int]  # (board slug, harness id, model id)


def board_tasks() -> dict[int, list[str]]:
    """Task id -> the boards it counts on (approved tasks of official suites only)."""
    boards: dict[int, list[str]] = {}
    with connection.cursor() as cursor:
        cursor.execute(BOARD_TASKS_SQL)
        for task_id, suite_board, coding in cursor.fetchall():
            boards[task_id] = ["overall", suite_board] + (["coding"] if coding else [])
    return boards


def agent_totals(*, harness_ids: list[int] | None = None) -> dict[AgentKey, AgentTotals]:
    """(board, harness, model) -> totals, optionally only for some harnesses."""
    tasks = board_tasks()
    boards = percentile_boards()
    where, and_where, params = "", "", []
    if harness_ids is not None:
        where, and_where, params = (
            "WHERE harness_id = ANY(%s)",
            "AND r.harness_id = ANY(%s)",
            [harness_ids],
        )
    totals: dict[AgentKey, AgentTotals] = defaultdict(AgentTotals)
    with connection.cursor() as cursor:
        cursor.execute(GROUPS_SQL.format(where=where), params)
        for row in cursor.fetchall():
            for board in tasks.get(row[2], ()):
                _add_group(totals[(board, row[0], row[1])], row)
        aggregates = _percentile_aggregates(boards)
        cursor.execute(PERCENTILES_SQL.format(aggregates=aggregates, and_where=and_where), params)
        for harness_id, model_id, *values in cursor.fetchall():
            for (board, _), ttft, duration in zip(boards, values[::2], values[1::2], strict=True):
                if (board, harness_id, model_id) in totals:
                    totals[(board, harness_id, model_id)].percentiles = (
                        *(ttft or (None, None)),
                        *(duration or (None, None)),
                    )
    return dict(totals)


def percentile_boards() -> list[tuple[str, str]]:
    """(board slug, SQL condition on a run's task) of every board, for PERCENTILES_SQL."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, slug || '-' || version FROM ingestion_suite WHERE official ORDER BY id"
        )
        suites = [(slug, f"t.suite_id = {int(suite_id)}") for suite_id, slug in cursor.fetchall()]
    return [("overall", "TRUE"), ("coding", "c.coding"), *suites]


def _percentile_aggregates(boards: list[tuple[str, str]]) -> str:
    return ",\n".join(
        f"percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY {expression})"
        f" FILTER (WHERE {condition})"
        for _, condition in boards
        for expression in PERCENTILE_OF.values()
    )


def _add_group(t: AgentTotals, row: tuple) -> None:
    (_, _, task_id, outcome, runs, cost, priced, tokens, tokened, steps, steps_n,
     tool_calls, tool_calls_n, partial, partial_n, submitted_at, conflicted) = row  # fmt: skip
    t.runs += runs
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
    t.tokens += tokens or 0
    t.untokened += runs - tokened
    t.steps, t.steps_n = t.steps + (steps or 0), t.steps_n + steps_n
    t.tool_calls, t.tool_calls_n = t.tool_calls + (tool_calls or 0), t.tool_calls_n + tool_calls_n
    t.partial, t.partial_n = t.partial + (partial or 0), t.partial_n + partial_n


@dataclass(frozen=True)
class AgentName:
    harness: str
    harness_version: str
    model: str
    minimal_baseline: bool


def entry_figures(t: AgentTotals, name: AgentName) -> dict:
    """Every published figure of one entry except rank and the Token Saving badge."""
    low, high = stats.wilson_interval(t.passes, t.n)
    cost, cost_status = stats.cost_per_success(float(t.cost), t.passes, t.unpriced > 0)
    ttft_p50, ttft_p95, duration_p50, duration_p95 = t.percentiles
    return {
        "harness": name.harness,
        "harness_version": name.harness_version,
        "model": name.model,
        "minimal_baseline": name.minimal_baseline,
        "runs": t.runs,
        "n": t.n,
        "passes": t.passes,
        "pass_rate": t.passes / t.n if t.n else None,
        "wilson_low": low,
        "wilson_high": high,
        "infra_errors": t.infra_errors,
        "infra_error_rate": t.infra_errors / t.runs if t.runs else None,
        "under_review": stats.is_under_review(t.infra_errors, t.runs),
        "conflict_excluded": t.conflict_excluded,
        "cost_per_success": cost,
        "cost_per_success_status": cost_status,
        "tokens_per_success": stats.tokens_per_success(None if t.untokened else t.tokens, t.passes),
        "pass_hat_k": stats.pass_k_table(tuple(t.per_task[task]) for task in sorted(t.per_task)),
        "partial_score": float(t.partial / t.partial_n) if t.partial_n else None,
        "ttft_ms_p50": ttft_p50,
        "ttft_ms_p95": ttft_p95,
        "duration_s_p50": duration_p50,
        "duration_s_p95": duration_p95,
        "mean_steps": t.steps / t.steps_n if t.steps_n else None,
        "mean_tool_calls": t.tool_calls / t.tool_calls_n if t.tool_calls_n else None,
        "latest_submission_at": t.latest_submission,
    }


def award_token_saving(entries: list[dict]) -> None:
    """Set token_saving on every entry of one board, against the same model's Minimal.

    When a board holds several Minimal versions for one model, the most recently
    submitted one is the baseline.
    """
    minimal_by_model: dict[str, dict] = {}
    for entry in entries:
        current = minimal_by_model.get(entry["model"])
        if entry["minimal_baseline"] and (
            current is None or entry["latest_submission_at"] > current["latest_submission_at"]
        ):
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
    ranks = stats.competition_ranks([e["wilson_low"] for e in ranked])
    for entry, rank in zip(ranked, ranks, strict=True):
        entry["rank"] = rank
    for entry in unranked:
        entry["rank"] = None
    return ranked + unranked


def finish_boards(by_board: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Badges, ranks and display order for every board's entries."""
    for entries in by_board.values():
        award_token_saving(entries)
    return {board: order_and_rank(entries) for board, entries in by_board.items()}


def fresh_entries(
    totals: dict[AgentKey, AgentTotals], names: dict[tuple[int, int], AgentName]
) -> dict[str, list[dict]]:
    """Board slug -> entry figures (unordered) computed from run totals."""
    by_board: dict[str, list[dict]] = defaultdict(list)
    for (board, harness_id, model_id), t in totals.items():
        entry = entry_figures(t, names[(harness_id, model_id)])
        entry["harness_id"], entry["model_id"] = harness_id, model_id
        by_board[board].append(entry)
    return by_board
