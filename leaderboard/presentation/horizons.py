"""How an entry's time horizon reads: minutes as text, the board cell, the reason a
horizon is beyond the tasks. The figures are the snapshot's `horizon` field
(leaderboard.boards.horizons): minutes, with null where the fit gives no finite
horizon, `degenerate` saying why."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.presentation.figures import MISSING

ABOVE = "> longest task"
BELOW = "< shortest task"
MODE_NAMES = {"headline": "headline (METR's weights)", "cross_domain": "cross-domain (unweighted)"}
DEGENERATE_NOTES = {
    "all_success": "every counted run passed",
    "all_failure": "every counted run failed",
    "non_decreasing": "success does not fall with task length",
    "separated": "every success is on a shorter task than every failure",
}


def minutes_text(minutes: float | None) -> str:
    """3 significant digits: "45 s", "12.1 min", "2.50 h", "3.2 days"."""
    if minutes is None:
        return MISSING
    if minutes < 1:
        return f"{minutes * 60:.0f} s"
    if minutes < 100:
        return f"{minutes:.3g} min"
    if minutes < 60 * 48:
        return f"{minutes / 60:.3g} h"
    return f"{minutes / (60 * 24):.3g} days"


def horizon_value(horizon: dict | None, key: str = "p50") -> str:
    """p50 or p80 as text; beyond the tasks when the fit gives none."""
    if not horizon:
        return MISSING
    value = horizon.get(key)
    if value is not None:
        return minutes_text(value)
    return BELOW if horizon.get("degenerate") == "all_failure" else ABOVE


def bound_text(low: float | None, high: float | None) -> str:
    """ "[low–high]": a null high bound is beyond the longest task, a zero low one below
    the shortest."""
    low_text = "< shortest" if not low else minutes_text(low)
    high_text = "> longest" if high is None else minutes_text(high)
    return f"[{low_text}–{high_text}]"


@dataclass(frozen=True)
class HorizonCell:
    p50: str
    p50_bounds: str
    p80: str
    title: str


def horizon_cell(horizon: dict | None) -> HorizonCell | None:
    """The board's Time horizon cell, or None for an entry without one."""
    if not horizon:
        return None
    bounds = "" if horizon.get("p50") is None else bound_text(
        horizon.get("p50_low"), horizon.get("p50_high")
    )  # fmt: skip
    return HorizonCell(
        p50=horizon_value(horizon, "p50"),
        p50_bounds=bounds,
        p80=horizon_value(horizon, "p80"),
        title=horizon_title(horizon),
    )


def horizon_title(horizon: dict) -> str:
    """The cell's tooltip: what the horizon is, from what, and why it is beyond the
    tasks when it is."""
    text = (
        f"Task length (human minutes) at which the fitted success curve crosses 50%; "
        f"95% interval {bound_text(horizon.get('p50_low'), horizon.get('p50_high'))}; p80 "
        f"{horizon_value(horizon, 'p80')} "
        f"{bound_text(horizon.get('p80_low'), horizon.get('p80_high'))}. "
        f"{MODE_NAMES.get(horizon.get('mode'), horizon.get('mode'))} fit over "
        f"{horizon.get('tasks')} tasks with human minutes, {horizon.get('runs')} runs"
    )
    note = degenerate_note(horizon)
    return f"{text}. {note}." if note else f"{text}."


def degenerate_note(horizon: dict | None) -> str:
    """Why the horizon is stated rather than fitted, or ""."""
    if not horizon or not horizon.get("degenerate"):
        return ""
    reason = DEGENERATE_NOTES.get(horizon["degenerate"], horizon["degenerate"])
    if horizon.get("p50") is None:
        where = (
            f"below the shortest task ({minutes_text(horizon.get('shortest'))})"
            if horizon["degenerate"] == "all_failure"
            else f"beyond the longest task ({minutes_text(horizon.get('longest'))})"
        )
        return f"No finite fit: {reason}, so the horizon is {where}"
    return f"No finite fit: {reason}; the horizon is the midpoint of the gap"


# The CSV's columns of the horizon, appended after every earlier column.
HORIZON_CSV_COLUMNS = (
    "horizon_mode", "horizon_p50", "horizon_p50_low", "horizon_p50_high", "horizon_p80",
    "horizon_p80_low", "horizon_p80_high", "horizon_slope", "horizon_tasks",
)  # fmt: skip


def horizon_csv_cells(horizon: dict | None) -> dict:
    """The horizon's CSV cells (empty without one; a null horizon stays empty)."""
    found = horizon or {}
    return {column: found.get(column.removeprefix("horizon_")) for column in HORIZON_CSV_COLUMNS}
