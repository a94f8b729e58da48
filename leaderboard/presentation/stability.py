"""How stable a signal figure is, in words: one rule for every page that shows one.

Below stats.MIN_RANKED_SESSIONS sessions a model is not ranked; below
stats.SETTLED_SESSIONS its rank may still move as sessions arrive. Either way the
wording says how wide the interval is, so a reader sees the uncertainty in the units
of the figure, not only as a count.
"""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.methodology.stats import MIN_RANKED_SESSIONS, SETTLED_SESSIONS

UNRANKED, UNSETTLED, SETTLED = "unranked", "unsettled", "settled"


@dataclass(frozen=True)
class Stability:
    level: str  # UNRANKED, UNSETTLED or SETTLED
    text: str


def stability(sessions: int, low: float | None, high: float | None) -> Stability:
    """How stable a figure resting on `sessions` sessions is, with its interval's width
    in percentage points (a share, or a difference of shares such as the NIR)."""
    width = _width(low, high)
    if sessions < MIN_RANKED_SESSIONS:
        return Stability(
            UNRANKED,
            f"Only {sessions} session{'s' * (sessions != 1)} (fewer than {MIN_RANKED_SESSIONS}): "
            f"not ranked; {width}, so the figure can still change a lot.",
        )
    if sessions < SETTLED_SESSIONS:
        return Stability(
            UNSETTLED,
            f"{sessions} sessions (fewer than {SETTLED_SESSIONS}): {width}; "
            "the rank may move as sessions arrive.",
        )
    return Stability(SETTLED, f"{sessions} sessions: {width}.")


def stability_text(sessions: int, figure: dict | None) -> str:
    """The stability sentence of a figure ({value, low, high}) over `sessions` (a
    template filter: `entry.sessions|stability_text:entry.data.net_improvement`)."""
    figure = figure or {}
    return stability(sessions, figure.get("low"), figure.get("high")).text


def _width(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "no interval yet"
    return f"the 95% interval is {(high - low) * 100:.1f} percentage points wide"
