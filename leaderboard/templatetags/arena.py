"""Formatting filters for Arena pages: one place that decides how a figure reads.

Each filter is a plain function of plain values (or of an entry-like object), so the
wording of a tooltip or the geometry of an interval bar is tested without a template.
Missing figures render as an em dash, never as "None" or 0.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from leaderboard import stats

register = template.Library()

MISSING = "—"

COST_REASONS = {
    stats.COST_MISSING_PRICE: "n/a: some counted runs have no price, so no partial sum is published",
    stats.COST_NO_SUCCESSES: "n/a: no successes to divide the cost by",
}


@register.filter
def percent(value: float | None, digits: int = 1) -> str:
    """A rate in [0, 1] as a percentage: 0.718 -> "71.8%"."""
    if value is None:
        return MISSING
    return f"{value * 100:.{int(digits)}f}%"


@register.filter
def money(value: float | None) -> str:
    """Dollars: two decimals, or two significant digits below ten cents ($0.043)."""
    if value is None:
        return MISSING
    if 0 < value < 0.1:
        return f"${value:.2g}" if value >= 0.01 else f"${value:.1g}"
    return f"${value:,.2f}"


@register.filter
def compact(value: float | None) -> str:
    """Large counts in short form: 950, 12.3k, 4.1M."""
    if value is None:
        return MISSING
    for threshold, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= threshold:
            return f"{value / threshold:.1f}{suffix}"
    return f"{value:.0f}"


@register.filter
def ratio(value: float | None) -> str:
    """A multiplier: 0.58 -> "×0.58"."""
    return MISSING if value is None else f"×{value:.2f}"


def format_rank(rank: int | None, tied: bool) -> str:
    """Competition rank as shown: "2", or "=2" when another entry shares it."""
    if rank is None:
        return MISSING
    return f"={rank}" if tied else str(rank)


@register.filter
def rank_label(entry: Any) -> str:
    return format_rank(entry.rank, getattr(entry, "tied", False))


@dataclass(frozen=True)
class IntervalBar:
    """An interval drawn on a fixed 0–100 scale: the bar from low to high, a point."""

    low: float
    width: float
    point: float

    @property
    def point_x(self) -> float:
        """Left edge of the 2-unit point marker, kept inside the 0–100 box."""
        return round(min(max(self.point - 1, 0.0), 98.0), 2)


def _scale(value: float) -> float:
    return round(min(max(value, 0.0), 1.0) * 100, 2)


@register.filter
def interval_bar(entry: Any) -> IntervalBar | None:
    """Geometry of the pass-rate interval bar, or None when there is no interval."""
    if entry.pass_rate is None or entry.wilson_low is None or entry.wilson_high is None:
        return None
    low, high = _scale(entry.wilson_low), _scale(entry.wilson_high)
    return IntervalBar(low=low, width=round(high - low, 2), point=_scale(entry.pass_rate))


@register.filter
def interval_text(entry: Any) -> str:
    """'95% CI 62.1%–80.3%', or why there is none."""
    if entry.wilson_low is None or entry.wilson_high is None:
        return "No counted runs, so no interval"
    return (
        f"95% CI {percent(entry.wilson_low)}–{percent(entry.wilson_high)} (Wilson, z = {stats.Z})"
    )


@register.filter
def n_breakdown(entry: Any) -> str:
    """The tooltip of the n cell: where n comes from."""
    return (
        f"{entry.runs} runs: {entry.infra_errors} infra errors excluded, "
        f"{entry.conflict_excluded} conflict-excluded, {entry.n} counted "
        f"({entry.passes} passed)"
    )


@register.filter
def cost_reason(status: str) -> str:
    return COST_REASONS.get(status, "")


@register.filter
def unranked_reason(entry: Any) -> str:
    """The reason chip of an unranked entry."""
    if entry.under_review:
        return f"Under review: {percent(entry.infra_error_rate, 0)} infra errors"
    if entry.n == 0:
        return "No counted runs"
    return "Not ranked"


@register.filter
def milliseconds(value: float | None) -> str:
    if value is None:
        return MISSING
    return f"{value / 1000:.1f} s" if value >= 1000 else f"{value:.0f} ms"


@register.filter
def seconds(value: float | None) -> str:
    """A duration in seconds as '42 s', '4 min 10 s' or '1 h 5 min'."""
    if value is None:
        return MISSING
    total = round(value)
    if total < 60:
        return f"{total} s"
    minutes, secs = divmod(total, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


@register.filter
def ago(moment: dt.datetime | None) -> str:
    """'just now', '3 min ago', '5 h ago', '2 days ago'."""
    if moment is None:
        return "never"
    elapsed = max((timezone.now() - moment).total_seconds(), 0)
    if elapsed < 60:
        return "just now"
    if elapsed < 3600:
        return f"{int(elapsed // 60)} min ago"
    if elapsed < 86400:
        return f"{int(elapsed // 3600)} h ago"
    days = int(elapsed // 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


@dataclass(frozen=True)
class PassK:
    k: int
    value: float
    pass_at_k: float
    tasks: int


def pass_k_rows(pass_hat_k: dict | None) -> list[PassK]:
    """The pass^k table as rows ordered by k (JSON keys are strings)."""
    rows = [
        PassK(int(k), row["value"], row["pass_at_k"], row["tasks"])
        for k, row in (pass_hat_k or {}).items()
    ]
    return sorted(rows, key=lambda row: row.k)


@register.filter
def pass_k_list(pass_hat_k: dict | None) -> list[PassK]:
    return pass_k_rows(pass_hat_k)


@register.filter
def pass_k_top(pass_hat_k: dict | None) -> PassK | None:
    """pass^k at the largest k published (the strictest reliability figure)."""
    rows = pass_k_rows(pass_hat_k)
    return rows[-1] if rows else None


@register.filter
def pass_k_tooltip(pass_hat_k: dict | None) -> str:
    return "; ".join(
        f"k={row.k}: pass^k {percent(row.value)}, pass@k {percent(row.pass_at_k)}, "
        f"{row.tasks} tasks"
        for row in pass_k_rows(pass_hat_k)
    )


def agent_url_for(harness: str, version: str, model: str) -> str | None:
    """The agent page, or None for a name a URL path cannot carry (a '/' in it)."""
    try:
        return reverse("agent", args=[harness, version, model])
    except NoReverseMatch:
        return None


@register.filter
def agent_url(entry: Any) -> str | None:
    return agent_url_for(entry.harness_name, entry.harness_version, entry.model_name)


@register.filter
def http_url(url: str | None) -> str:
    """The URL when it is http(s), else "": a bundle's URL never becomes a javascript: link."""
    if url and url.lower().startswith(("https://", "http://")):
        return url
    return ""


# ==== Signal boards (leaderboard/signals_views.py) ======================================
#
# One filter, signal_cell, decides how every signal figure reads: its headline text,
# an interval bar on a fixed scale, and a tooltip holding the interval and the count
# it rests on ("n on hover").

# NIR bars span −NIR_SCALE … +NIR_SCALE (a difference of rates), zero in the middle;
# a fixed scale keeps intervals comparable down a column.
NIR_SCALE = 0.5
SIGNAL_LABELS = {
    "confirmed_success": "Confirmed success",
    "praise_complaint": "Praise vs complaint",
    "steerability": "Steerability",
    "bash_recovery": "Bash recovery",
    "shell_success": "Shell success",
    "tool_hallucination": "Tool hallucination",
    "net_improvement": "Net improvement (NIR)",
}
# Signals whose value is a score in [0, 1] rather than a share of a count.
_SCORES = frozenset({"steerability", "bash_recovery"})


@dataclass(frozen=True)
class SignalCell:
    text: str  # the headline figure
    title: str  # tooltip: interval, count and details
    bar: IntervalBar | None
    zero: float | None  # x of the zero line, for NIR bars
    detail: str  # small print beside the figure (the NIR p-value)


@register.filter
def signal_cell(data: dict | None, signal: str) -> SignalCell | None:
    """How one signal of a SignalEntry's data reads; None when the entry has no such figure."""
    figure = (data or {}).get(signal)
    if not isinstance(figure, dict):
        return None
    if signal == "net_improvement":
        return _nir_cell(figure)
    value, low, high = figure.get("value"), figure.get("low"), figure.get("high")
    text = _score(value) if signal in _SCORES else percent(value)
    return SignalCell(
        text=text,
        title=_signal_title(signal, figure),
        bar=_unit_bar(value, low, high),
        zero=None,
        detail="",
    )


def _score(value: float | None) -> str:
    return MISSING if value is None else f"{value:.2f}"


def _unit_bar(value: float | None, low: float | None, high: float | None) -> IntervalBar | None:
    if value is None or low is None or high is None:
        return None
    low_x, high_x = _scale(low), _scale(high)
    return IntervalBar(low=low_x, width=round(high_x - low_x, 2), point=_scale(value))


def _interval(signal: str, figure: dict) -> str:
    low, high = figure.get("low"), figure.get("high")
    if low is None or high is None:
        return "no interval (too few to estimate one)"
    show = _score if signal in _SCORES else percent
    how = "cluster-robust" if signal in _SCORES else "Wilson"
    return f"95% CI {show(low)}–{show(high)} ({how}, z = {stats.Z})"


def _signal_title(signal: str, figure: dict) -> str:
    return f"{SIGNAL_LABELS[signal]}: {_interval(signal, figure)}; {_count_text(signal, figure)}"


def _count_text(signal: str, f: dict) -> str:
    """What the figure rests on ("n on hover")."""
    if signal == "confirmed_success":
        return f"n = {f.get('n')} sessions"
    if signal == "praise_complaint":
        return f"n = {f.get('n')} scored sessions (praise ≠ complaints)"
    if signal == "steerability":
        turns = f" over n = {f['turns']} assistant turns" if "turns" in f else ""
        return f"mean steering effort {_score(f.get('mean_effort'))}{turns}"
    if signal == "bash_recovery":
        median = f.get("median_attempts")
        attempts = f", median {median:g} attempts" if median is not None else ""
        recovered = percent(f.get("recovery_rate"))
        return f"n = {f.get('episodes')} error episodes, {recovered} recovered{attempts}"
    if signal == "shell_success":
        return f"n = {f.get('calls')} shell calls with an exit code"
    return f"n = {f.get('calls')} tool calls; lower is better"


def points(value: float | None) -> str:
    """A difference of rates in percentage points, signed: 0.121 -> "+12.1 pp"."""
    return MISSING if value is None else f"{value * 100:+.1f} pp"


@register.filter
def p_value(value: float | None) -> str:
    if value is None:
        return MISSING
    if value < 0.001:
        return "p < 0.001"
    return f"p = {value:.3f}" if value < 0.01 else f"p = {value:.2f}"


def _nir_x(value: float) -> float:
    return round(min(max((value + NIR_SCALE) / (2 * NIR_SCALE), 0.0), 1.0) * 100, 2)


def _nir_cell(figure: dict) -> SignalCell:
    value, low, high = figure.get("value"), figure.get("low"), figure.get("high")
    bar = None
    if value is not None and low is not None and high is not None:
        low_x, high_x = _nir_x(low), _nir_x(high)
        bar = IntervalBar(low=low_x, width=round(high_x - low_x, 2), point=_nir_x(value))
    interval = "no interval" if low is None or high is None else f"{points(low)} to {points(high)}"
    title = (
        f"Net improvement rate: 95% CI {interval}, {p_value(figure.get('p_value'))}; "
        f"observed gap {points(figure.get('observed_gap'))}, expected under within-scenario "
        f"shuffles {points(figure.get('null_mean'))} (sd {points(figure.get('null_sd'))})"
    )
    return SignalCell(
        text=points(value),
        title=title,
        bar=bar,
        zero=_nir_x(0.0),
        detail=p_value(figure.get("p_value")),
    )
