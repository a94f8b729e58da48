"""How a release's differences and its gate read: the release page, the gate's table
on the page and `manage.py release_gate` print the same texts."""

from __future__ import annotations

from leaderboard.methodology.release_gate import LOWER_IS_BETTER, VERDICT_LABELS
from leaderboard.presentation.figures import MISSING, percent
from leaderboard.presentation.signals import points

# Scores in [0, 1] (not shares of a count): their differences read as scores, not points.
SCORE_SIGNALS = frozenset({"steerability", "bash_recovery"})


def value_text(figure: str, value: float | None) -> str:
    """A figure of one version: a score, a share, or the NIR in points."""
    if figure == "net_improvement":
        return points(value)
    if figure in SCORE_SIGNALS:
        return MISSING if value is None else f"{value:.3f}"
    return percent(value)


def shift_text(figure: str, value: float | None) -> str:
    """A difference (or a margin) in the figure's unit, signed."""
    if value is None:
        return MISSING
    return f"{value:+.3f}" if figure in SCORE_SIGNALS else points(value)


def difference_text(figure: str, value: float | None, low: float | None, high: float | None) -> str:
    """after − before with its interval: "+50.0 pp [+15.4 pp to +84.6 pp]"."""
    if value is None:
        return MISSING
    if low is None or high is None:
        return f"{shift_text(figure, value)} (no interval)"
    return f"{shift_text(figure, value)} [{shift_text(figure, low)} to {shift_text(figure, high)}]"


def margin_text(figure: str, margin: float) -> str:
    """The gate's bound for a figure: "fails below −2.0 pp" (or above, lower is better)."""
    if figure in LOWER_IS_BETTER:
        return f"fails above {shift_text(figure, margin)}"
    return f"fails below {shift_text(figure, -margin)}"


def verdict_text(verdict: str) -> str:
    return VERDICT_LABELS.get(verdict, verdict)
