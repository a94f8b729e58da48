"""Benchmark board figures (methodology §2) from run totals: entries, badges and ranks.

Every rule is a call into leaderboard.methodology.stats; this module only decides
which totals feed it and in which order entries are shown.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

from leaderboard.boards import intervals
from leaderboard.boards.sql import SELF_REPORTED, VERIFIED
from leaderboard.boards.totals import AgentKey, AgentTotals, CoverageOf
from leaderboard.methodology import stats


@dataclass(frozen=True)
class AgentName:
    harness: str
    harness_version: str
    model: str
    minimal_baseline: bool
    # Who and when (the registry's, copied into every entry of the agent).
    about: dict = field(default_factory=dict)


def finite(value: float | None) -> float | None:
    """The figure, or None when it is not a finite number.

    JSON carries no NaN or infinity (the API, the downloads and the snapshot's jsonb
    would refuse or mangle one). The bounds of limits.py keep every sum finite; this is
    the last guard, so that no input can ever make a board unreadable.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def entry_figures(
    t: AgentTotals,
    name: AgentName,
    *,
    pass_hat_k: dict | None = None,
    published: dict[int, date] | None = None,
    bounds: bool = True,
) -> dict:
    """Every published figure of one entry except rank and the Token Saving badge;
    `pass_hat_k` is its pass^k table when computed with the board's others (fresh_entries);
    `published` the publication dates of the tasks that have one (task id -> date).
    Without `bounds`, the pass^k and means' bounds are None (filled after the swap)."""
    if pass_hat_k is None:
        (pass_hat_k,) = intervals.pass_k_tables([t], bounds=bounds)
    figures = {
        **_figures(t, name, pass_hat_k),
        **intervals.mean_intervals(t, bounds=bounds),
        **after_cutoff(t, name.about.get("knowledge_cutoff"), published or {}),
    }
    return {key: finite(value) for key, value in figures.items()}


def _figures(t: AgentTotals, name: AgentName, pass_hat_k: dict) -> dict:
    low, high = stats.wilson_interval(t.passes, t.n)
    reported, reported_status = stats.cost_per_success(float(t.cost), t.passes, t.unpriced > 0)
    cost, cost_status = stats.list_cost_per_success(
        float(t.list_cost), t.passes, untokened=t.untokened, unpriced=t.list_unpriced
    )
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
        "reported_cost_per_success": reported,
        "reported_cost_per_success_status": reported_status,
        "cost_disagrees": stats.cost_disagrees(cost, reported),
        "tokens_per_success": stats.tokens_per_success(None if t.untokened else t.tokens, t.passes),
        "pass_hat_k": pass_hat_k,
        "partial_score": float(t.partial / t.partial_n) if t.partial_n else None,
        "ttft_ms_p50": ttft_p50,
        "ttft_ms_p95": ttft_p95,
        "duration_s_p50": duration_p50,
        "duration_s_p95": duration_p95,
        "mean_steps": t.steps / t.steps_n if t.steps_n else None,
        "mean_tool_calls": t.tool_calls / t.tool_calls_n if t.tool_calls_n else None,
        "latest_submission_at": t.latest_submission,
        "verification": entry_verification(t),
        # Tasks with counted runs (per_task holds exactly those); what it is out of is
        # the board's (finish_boards).
        "coverage_tasks": len(t.per_task),
        **{key: name.about.get(key, unknown) for key, unknown in ABOUT_FIELDS.items()},
    }


# Who made the model and the harness, and when: the model's and harness's registry
# fields, stored with each entry so the boards filter and serve them without a join.
# Each with its value when not known.
ABOUT_FIELDS = {
    "model_organisation": "", "open_weights": None, "model_release_date": None,
    "knowledge_cutoff": None, "harness_organisation": "", "harness_open_source": None,
}  # fmt: skip


AFTER_CUTOFF_FIELDS = (
    "after_cutoff_tasks", "after_cutoff_n", "after_cutoff_passes", "after_cutoff_pass_rate",
    "after_cutoff_low", "after_cutoff_high",
)  # fmt: skip


def after_cutoff(t: AgentTotals, cutoff: date | None, published: dict[int, date]) -> dict:
    """The entry's counted runs on the tasks published after its model's knowledge
    cutoff (tasks it cannot have seen in training): tasks, n, passes, pass rate and its
    Wilson interval. All None without a cutoff or without such a task; a task with no
    publication date never counts as after. Read from the per-task counts the totals
    already hold, so it costs the entry's tasks, not its runs."""
    after = [] if cutoff is None else [
        counts for task, counts in t.per_task.items() if task in published and published[task] > cutoff
    ]  # fmt: skip
    if not after:
        return dict.fromkeys(AFTER_CUTOFF_FIELDS)
    n, passes = sum(c[0] for c in after), sum(c[1] for c in after)
    low, high = stats.wilson_interval(passes, n)
    return dict(
        zip(AFTER_CUTOFF_FIELDS, (len(after), n, passes, passes / n, low, high), strict=True)
    )


def entry_verification(t: AgentTotals) -> str:
    """Verified when every run of the entry, infra errors and conflict-excluded ones
    included, comes from a submission Verified by a still-active verifier."""
    return VERIFIED if t.runs and not t.self_reported else SELF_REPORTED


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
        saving = stats.token_saving(
            entry["tokens_per_success"],
            entry["pass_rate"],
            minimal.get("tokens_per_success"),
            minimal.get("pass_rate"),
            is_minimal=entry["minimal_baseline"],
        )
        entry["token_saving"] = {**saving, "ratio": finite(saving["ratio"])}


def is_complete(entry: dict) -> bool:
    """Whether the entry has counted runs on every task of its board it can be counted
    on (methodology §2.6)."""
    return entry["coverage_tasks"] >= entry["coverage_of"]


def is_rankable(entry: dict) -> bool:
    """Entries under review, without counted runs, or incomplete are listed but never
    ranked."""
    return not entry["under_review"] and entry["n"] > 0 and is_complete(entry)


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
    intervals.rank_ranges(ranked)
    for entry in unranked:
        entry["rank"] = None
        intervals.no_rank_range(entry)
    return ranked + unranked


def finish_boards(
    by_board: dict[str, list[dict]], coverage_of: CoverageOf
) -> dict[str, list[dict]]:
    """Coverage denominators, badges, ranks and display order for every board's entries
    (fresh or carried over: a board's tasks and conflicts may have changed since)."""
    for board, entries in by_board.items():
        for entry in entries:
            entry["coverage_of"] = coverage_of.of(board, entry["harness_id"])
        award_token_saving(entries)
    return {board: order_and_rank(entries) for board, entries in by_board.items()}


def fresh_entries(
    totals: dict[AgentKey, AgentTotals],
    names: dict[tuple[int, int], AgentName],
    published: dict[int, date] | None = None,
    *,
    bounds: bool = True,
) -> dict[str, list[dict]]:
    """Board slug -> entry figures (unordered) computed from run totals; without
    `bounds`, each entry's interval bounds are left for after the swap
    (`intervals_pending`)."""
    by_board: dict[str, list[dict]] = defaultdict(list)
    # Sorted: the bootstrap batches entries, and a fixed order keeps every batch the same.
    keys = sorted(totals)
    tables = intervals.pass_k_tables([totals[key] for key in keys], bounds=bounds)
    for (board, harness_id, model_id), table in zip(keys, tables, strict=True):
        t = totals[(board, harness_id, model_id)]
        entry = entry_figures(
            t, names[(harness_id, model_id)], pass_hat_k=table, published=published, bounds=bounds
        )
        entry["harness_id"], entry["model_id"] = harness_id, model_id
        entry["intervals_pending"] = not bounds
        by_board[board].append(entry)
    return by_board
