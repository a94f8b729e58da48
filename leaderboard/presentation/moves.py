"""How a history row's changes read in the feeds and the alert e-mails: one line per
figure, "Pass rate 45.0% [30.1%–60.2%] → 71.8% [62.0%–80.0%], past its interval"."""

from __future__ import annotations

from typing import Any

from leaderboard.presentation.figures import MISSING
from leaderboard.presentation.releases import value_text
from leaderboard.presentation.signals import SIGNAL_LABELS

FIGURE_LABELS = {"rank": "Rank", "pass_rate": "Pass rate", **SIGNAL_LABELS}
PAST_INTERVAL = "past its interval"


def figure_text(figure: str, state: Any) -> str:
    """One state of a figure (its value and interval), or "—" when there is none."""
    if state is None:
        return MISSING
    if figure == "rank":
        if state.value is None:
            return "unranked"
        if state.low is None or state.high is None or state.low == state.high:
            return f"#{state.value}"
        return f"#{state.value} (range {state.low}–{state.high})"
    text = value_text(figure, state.value)
    if state.value is None or state.low is None or state.high is None:
        return text
    return f"{text} [{value_text(figure, state.low)}–{value_text(figure, state.high)}]"


def change_text(change: Any) -> str:
    """ "<Figure> <before> → <after>", with the mark of a move past its interval."""
    label = FIGURE_LABELS.get(change.figure, change.figure)
    if change.before is None:
        text = f"{label} {figure_text(change.figure, change.after)} (new)"
    elif change.after is None:
        text = f"{label} {figure_text(change.figure, change.before)} → gone"
    else:
        before = figure_text(change.figure, change.before)
        text = f"{label} {before} → {figure_text(change.figure, change.after)}"
    return f"{text}, {PAST_INTERVAL}" if change.past_interval else text
