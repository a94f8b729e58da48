"""The intervals of a benchmark board entry, from its run totals.

pass^k and pass@k get a bootstrap over tasks, every mean (partial score, steps, tool
calls, TTFT, duration) a ratio-of-sums interval clustered by task, and every ranked
entry the range of ranks its Wilson interval allows. The statistics themselves are in
leaderboard.methodology (bootstrap, uncertainty); this module only feeds them.
"""

from __future__ import annotations

from decimal import Decimal

from leaderboard.boards.sql import TASK_SUMS
from leaderboard.boards.totals import AgentTotals
from leaderboard.methodology import bootstrap, stats, uncertainty

# Published figure -> the task sum and count it is the mean of (columns of
# sql.TASK_SUMS, the order of AgentTotals.task_sums).
MEANS = {
    "partial_score": ("partial", "partial_n"),
    "mean_steps": ("steps", "steps_n"),
    "mean_tool_calls": ("tool_calls", "tool_calls_n"),
    "ttft_ms_mean": ("ttft_sum", "ttft_n"),
    "duration_s_mean": ("duration_sum", "duration_n"),
}
# The fields these intervals add to an entry (BoardEntry columns; carried over as is by
# the incremental recompute, leaderboard.recompute.services).
INTERVAL_FIELDS = (
    "partial_score_low", "partial_score_high", "mean_steps_low", "mean_steps_high",
    "mean_tool_calls_low", "mean_tool_calls_high", "ttft_ms_mean", "ttft_ms_mean_low",
    "ttft_ms_mean_high", "duration_s_mean", "duration_s_mean_low", "duration_s_mean_high",
    "rank_best", "rank_worst", "tied_with_leader",
)  # fmt: skip
# The bounds the recompute may leave for after the swap (leaderboard.recompute.intervals):
# the means' (these columns) and the pass^k table's (PASS_K_BOUNDS in each of its rows).
MEAN_BOUND_FIELDS = tuple(f"{name}_{end}" for name in MEANS for end in ("low", "high"))
PASS_K_BOUNDS = ("low", "high", "pass_at_k_low", "pass_at_k_high")


def pass_k_tables(entries: list[AgentTotals], *, bounds: bool = True) -> list[dict[str, dict]]:
    """The entries' pass^k tables with their bootstrap intervals, in one batch (tasks in
    id order, so resamples are reproducible); without `bounds`, the tables with every
    bound None (filled after the swap)."""
    per_task = [[tuple(t.per_task[task]) for task in sorted(t.per_task)] for t in entries]
    if bounds:
        return bootstrap.pass_k_tables_with_intervals(per_task)
    return [unbounded(stats.pass_k_table(tasks)) for tasks in per_task]


def unbounded(table: dict[str, dict]) -> dict[str, dict]:
    """The pass^k table with every bound None, as a table of too few tasks has them."""
    for row in table.values():
        row.update(dict.fromkeys(PASS_K_BOUNDS))
    return table


def mean_intervals(t: AgentTotals, *, bounds: bool = True) -> dict:
    """Every mean's 95% interval clustered by task (None without `bounds`), and the mean
    latencies themselves (the other means are published from the exact totals already)."""
    figures = entry_mean_bounds(t) if bounds else dict.fromkeys(MEAN_BOUND_FIELDS)
    figures["ttft_ms_mean"] = _exact_mean(t.ttft_sum, t.ttft_n)
    figures["duration_s_mean"] = _exact_mean(t.duration_sum, t.duration_n)
    return figures


def mean_bounds(tasks: list[list]) -> dict:
    """MEAN_BOUND_FIELDS from the entry's per-task sums (task_sums rows in task order)."""
    figures: dict = {}
    for name, columns in MEANS.items():
        total, count = (TASK_SUMS.index(column) for column in columns)
        sums = [float(row[total]) for row in tasks]
        counts = [row[count] for row in tasks]
        _, low, high = uncertainty.task_clustered_mean(sums, counts)
        figures[f"{name}_low"], figures[f"{name}_high"] = _clamped(name, low, high)
    return figures


def entry_mean_bounds(t: AgentTotals) -> dict:
    """MEAN_BOUND_FIELDS of an entry, from its totals."""
    return mean_bounds([t.task_sums[task] for task in sorted(t.task_sums)])


def _clamped(name: str, low: float | None, high: float | None) -> tuple:
    """The normal interval can leave the figure's range (a share in [0, 1], counts and
    times ≥ 0) when tasks differ a lot; it is cut at the range's ends."""
    if low is None or high is None:
        return (low, high)
    top = 1.0 if name == "partial_score" else high
    return (max(low, 0.0), min(high, top))


def _exact_mean(total: Decimal, runs: Decimal) -> float | None:
    # Exact numeric sums from the rollups: the published mean is correctly rounded once.
    if not runs:
        return None
    return float(Decimal(total) / runs)


def rank_ranges(ranked: list[dict]) -> None:
    """Set rank_best, rank_worst and tied_with_leader on ranked entries (in rank order)."""
    ranges = uncertainty.rank_ranges([(e["wilson_low"], e["wilson_high"]) for e in ranked])
    tied = uncertainty.tied_with_leader(ranges)
    for entry, (best, worst), with_leader in zip(ranked, ranges, tied, strict=True):
        entry["rank_best"], entry["rank_worst"] = best, worst
        entry["tied_with_leader"] = with_leader


def no_rank_range(entry: dict) -> None:
    entry["rank_best"] = entry["rank_worst"] = None
    entry["tied_with_leader"] = False
