"""How a signal-board figure reads: one function, signal_cell, for every signal.

Its headline text, an interval bar on a fixed scale and a tooltip holding the interval
and the count it rests on ("n on hover"). Registered as template filters by
leaderboard.templatetags.arena; plain functions of a SignalEntry's data otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.methodology import stats
from leaderboard.presentation.figures import MISSING, IntervalBar, percent, unit_bar

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
        bar=unit_bar(value, low, high),
        zero=None,
        detail=_detail(signal, figure),
    )


def _detail(signal: str, figure: dict) -> str:
    """Small print beside the figure: steerability's turns to recover, bash recovery's
    share fixed before the user's next words (absent from older snapshots: nothing)."""
    if signal == "steerability" and figure.get("turns_to_recover") is not None:
        return f"{figure['turns_to_recover']:.2f} turns to recover"
    if signal == "bash_recovery" and figure.get("autonomous_rate") is not None:
        return f"{percent(figure['autonomous_rate'])} on its own"
    return ""


def _score(value: float | None) -> str:
    return MISSING if value is None else f"{value:.2f}"


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
        return f"mean steering effort {_score(f.get('mean_effort'))}{turns}{_recovery_text(f)}"
    if signal == "bash_recovery":
        median = f.get("median_attempts")
        # Episodes are counted in assistant turns (the API keeps its name).
        attempts = f", median {median:g} turns" if median is not None else ""
        recovered = f"{percent(f.get('recovery_rate'))} recovered"
        low, high = f.get("recovery_rate_low"), f.get("recovery_rate_high")
        if low is not None and high is not None:
            recovered += f" (95% CI {percent(low)}–{percent(high)}, cluster-robust)"
        return f"n = {f.get('episodes')} error episodes, {recovered}{attempts}{_split_text(f)}"
    if signal == "shell_success":
        return f"n = {f.get('calls')} shell calls with an exit code"
    return f"n = {f.get('calls')} tool calls; lower is better"


def _recovery_text(f: dict) -> str:
    """Turns to recover after a correction, its interval and counts."""
    if "corrections" not in f:  # a snapshot computed before they were counted
        return ""
    mean = f.get("turns_to_recover")
    low, high = f.get("turns_to_recover_low"), f.get("turns_to_recover_high")
    text = "; turns to recover " + (MISSING if mean is None else f"{mean:.2f}")
    if low is not None and high is not None:
        text += f" (95% CI {low:.2f}–{high:.2f}, cluster-robust)"
    still_open = f.get("corrections_open", 0)
    return text + f" over n = {f['corrections']} corrections, {still_open} open at the end"


def _split_text(f: dict) -> str:
    """Episodes fixed before the user's next words and after them, each with its interval."""
    if "autonomous" not in f:  # a snapshot computed before the split
        return ""
    parts = []
    for key, what in (("autonomous", "before the user's next words"), ("after_user", "after")):
        share = f"{percent(f.get(f'{key}_rate'))} fixed {what}"
        low, high = f.get(f"{key}_rate_low"), f.get(f"{key}_rate_high")
        if low is not None and high is not None:
            share += f" (95% CI {percent(low)}–{percent(high)}, Wilson)"
        parts.append(share)
    return "; " + ", ".join(parts)


def points(value: float | None) -> str:
    """A difference of rates in percentage points, signed: 0.121 -> "+12.1 pp"."""
    return MISSING if value is None else f"{value * 100:+.1f} pp"


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
