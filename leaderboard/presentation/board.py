"""How a benchmark board entry reads: rank, interval, n, cost and pass^k texts.

Plain functions of an entry-like object (a BoardEntry, or anything with its fields),
registered as template filters by leaderboard.templatetags.arena and used by the charts
and downloads, so the wording of a tooltip is tested without a template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ingestion.bundles.limits import VERIFICATIONS
from leaderboard.methodology import stats
from leaderboard.presentation.figures import IntervalBar, format_rank, percent, unit_bar

VERIFIED = VERIFICATIONS[1]
COST_REASONS = {
    stats.COST_MISSING_TOKENS: "n/a: some counted runs have no token counts to price",
    stats.COST_MISSING_PRICE: (
        "n/a: the price list has no price for the model on some counted runs' dates"
    ),
    stats.COST_NO_SUCCESSES: "n/a: no successes to divide the cost by",
}
# The reported cost (the submitters' cost_usd): missing_price means a run reported none.
REPORTED_COST_REASONS = {
    stats.COST_MISSING_PRICE: "n/a: some counted runs report no cost",
    stats.COST_NO_SUCCESSES: "n/a: no successes to divide the cost by",
}


def rank_label(entry: Any) -> str:
    """The entry's rank as shown, "=" marking a tie."""
    return format_rank(entry.rank, getattr(entry, "tied", False))


def interval_bar(entry: Any) -> IntervalBar | None:
    """Geometry of the pass-rate interval bar, or None when there is no interval."""
    return unit_bar(entry.pass_rate, entry.wilson_low, entry.wilson_high)


def interval_text(entry: Any) -> str:
    """'95% CI 62.1%–80.3%', or why there is none."""
    if entry.wilson_low is None or entry.wilson_high is None:
        return "No counted runs, so no interval"
    return (
        f"95% CI {percent(entry.wilson_low)}–{percent(entry.wilson_high)} (Wilson, z = {stats.Z})"
    )


def is_verified(entry: Any) -> bool:
    """Whether every run of the entry is Verified (computed at recompute)."""
    return entry.verification == VERIFIED


def infra_errors_label(entry: Any) -> str:
    """'infra errors', marked self-reported unless an independent verifier stands behind
    them: an unverified submitter can relabel failures as infra errors."""
    return "infra errors" if is_verified(entry) else "infra errors (self-reported)"


def n_breakdown(entry: Any) -> str:
    """The tooltip of the n cell: where n comes from."""
    infra = infra_errors_label(entry) if entry.infra_errors else "infra errors"
    return (
        f"{entry.runs} runs: {entry.infra_errors} {infra} excluded, "
        f"{entry.conflict_excluded} conflict-excluded, {entry.n} counted "
        f"({entry.passes} passed)"
    )


def cost_reason(status: str) -> str:
    """Why a cost per success is n/a, from its status ("" when it is not)."""
    return COST_REASONS.get(status, "")


def reported_cost_reason(status: str) -> str:
    """Why a reported cost per success is n/a ("" when it is not)."""
    return REPORTED_COST_REASONS.get(status, "")


def cost_disagreement_note(entry: Any) -> str:
    """The flag of a reported cost far from the list price's ("" when none)."""
    if not entry.cost_disagrees:
        return ""
    return f"Reported cost differs from the list price's by more than {stats.COST_DISAGREEMENT:.0%}"


def after_cutoff_text(entry: Any) -> str:
    """The pass rate on tasks published after the model's knowledge cutoff, with its
    95% Wilson interval ("after cutoff: 41.0% [33–49], 120 tasks"); "" without one."""
    if entry.after_cutoff_pass_rate is None:
        return ""
    tasks = entry.after_cutoff_tasks
    return (
        f"after cutoff: {entry.after_cutoff_pass_rate * 100:.1f}% "
        f"[{entry.after_cutoff_low * 100:.0f}–{entry.after_cutoff_high * 100:.0f}], "
        f"{tasks} task{'s' * (tasks != 1)}"
    )


def who_and_when(entry: Any) -> str:
    """The model's maker, weights and dates, the harness's maker and licence, and the
    latest submission, as one line ("" when nothing is known)."""
    parts = []
    if entry.model_organisation:
        parts.append(entry.model_organisation)
    if entry.open_weights is not None:
        parts.append("open weights" if entry.open_weights else "proprietary weights")
    if entry.model_release_date:
        parts.append(f"released {entry.model_release_date.isoformat()}")
    if entry.knowledge_cutoff:
        parts.append(f"cutoff {entry.knowledge_cutoff.isoformat()}")
    harness = [entry.harness_organisation] if entry.harness_organisation else []
    if entry.harness_open_source is not None:
        harness.append("open source" if entry.harness_open_source else "closed source")
    if harness:
        parts.append("harness: " + " ".join(harness))
    if entry.latest_submission_at:
        parts.append(f"submitted {entry.latest_submission_at.date().isoformat()}")
    return " · ".join(parts)


def unranked_reason(entry: Any) -> str:
    """The reason chip of an unranked entry."""
    if entry.under_review:
        return f"Under review: {percent(entry.infra_error_rate, 0)} {infra_errors_label(entry)}"
    if entry.n == 0:
        return "No counted runs"
    if entry.coverage_tasks < entry.coverage_of:
        return f"incomplete: {coverage_text(entry)}"
    return "Not ranked"


def unranked_anchor(entry: Any) -> str:
    """The methodology section that says why the entry is unranked."""
    if entry.under_review:
        return "under-review"
    if entry.n and entry.coverage_tasks < entry.coverage_of:
        return "coverage"
    return "ranking"


def coverage_text(entry: Any) -> str:
    """ "38/50 tasks": the board's tasks it has counted runs on, of those it can."""
    return f"{entry.coverage_tasks}/{entry.coverage_of} task{'s' * (entry.coverage_of != 1)}"


@dataclass(frozen=True)
class PassK:
    k: int
    value: float
    pass_at_k: float
    tasks: int
    # Bootstrap 95% bounds (None below two tasks, or in a snapshot before they existed).
    low: float | None = None
    high: float | None = None
    pass_at_k_low: float | None = None
    pass_at_k_high: float | None = None


def pass_k_rows(pass_hat_k: dict | None) -> list[PassK]:
    """The pass^k table as rows ordered by k (JSON keys are strings)."""
    bounds = ("low", "high", "pass_at_k_low", "pass_at_k_high")
    rows = [
        PassK(int(k), row["value"], row["pass_at_k"], row["tasks"], *map(row.get, bounds))
        for k, row in (pass_hat_k or {}).items()
    ]
    return sorted(rows, key=lambda row: row.k)


def pass_k_top(pass_hat_k: dict | None) -> PassK | None:
    """pass^k at the largest k published (the strictest reliability figure)."""
    rows = pass_k_rows(pass_hat_k)
    return rows[-1] if rows else None


def pass_k_over_every_task(entry: Any) -> list[PassK]:
    """The k whose pass^k averages over every task the entry covers (each has at least k
    counted trials): the only ones a row shows, so that two rows' pass^k at one k are
    over their whole coverage, not over whichever tasks happened to have k trials."""
    return [row for row in pass_k_rows(entry.pass_hat_k) if row.tasks == entry.coverage_tasks]


def pass_k_headline(entry: Any) -> PassK | None:
    """pass^k at the largest such k, or None."""
    rows = pass_k_over_every_task(entry)
    return rows[-1] if rows else None


def pass_k_at(entry: Any, k: int | None) -> PassK | None:
    """pass^k at the k a visitor chose, over every task the entry covers; None when some
    covered task has fewer than k trials. With no k chosen, the headline (largest k)."""
    if k is None:
        return pass_k_headline(entry)
    return next((row for row in pass_k_over_every_task(entry) if row.k == k), None)


def pass_k_range(entry: Any) -> str:
    """ "k = 1–5": the range of k shown (every covered task has that many trials)."""
    rows = pass_k_over_every_task(entry)
    if not rows:
        return ""
    first, last = rows[0].k, rows[-1].k
    return f"k = {first}" if first == last else f"k = {first}–{last}"


def pass_k_tooltip(pass_hat_k: dict | None) -> str:
    """Every published k with pass^k, pass@k and the tasks it is averaged over."""
    return "; ".join(
        f"k={row.k}: pass^k {percent(row.value)}{_bounds(row.low, row.high)}, "
        f"pass@k {percent(row.pass_at_k)}{_bounds(row.pass_at_k_low, row.pass_at_k_high)}, "
        f"{row.tasks} tasks"
        for row in pass_k_rows(pass_hat_k)
    )


def _bounds(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f" [{percent(low)}–{percent(high)}]"


def run_config_text(config: dict) -> str:
    """One run configuration as stated, field by field ("trials 5, internet False")."""
    if not config:
        return "nothing stated"
    return ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in sorted(config.items()))


def run_configs_differ(entry: Any) -> str:
    """ "2 run configurations" when the entry's submissions state different ones, with
    each one in the title; "" when they agree (or state nothing)."""
    configs = entry.run_configs or []
    if len(configs) < 2:
        return ""
    return f"{len(configs)} run configurations"


def run_configs_title(entry: Any) -> str:
    return " | ".join(run_config_text(config) for config in entry.run_configs or [])
