"""Template filters of the time horizon (`{% load horizons %}`): the board cell, the
agent page's texts. The formats live in leaderboard.presentation.horizons."""

from __future__ import annotations

from django import template

from leaderboard.boards.horizons import HORIZON_DRAWS, MIN_TASKS
from leaderboard.methodology.time_horizon import HEADLINE_C
from leaderboard.presentation import horizons as horizon_formatting

register = template.Library()

for _filter in (
    horizon_formatting.horizon_cell,
    horizon_formatting.horizon_value,
    horizon_formatting.horizon_title,
    horizon_formatting.minutes_text,
    horizon_formatting.degenerate_note,
    horizon_formatting.bound_text,
):
    register.filter(_filter.__name__, _filter)


@register.filter
def horizon_bounds(horizon: dict | None, key: str = "p50") -> str:
    """An interval of the horizon as text ("" without a horizon)."""
    if not horizon or horizon.get(key) is None:
        return ""
    return horizon_formatting.bound_text(horizon.get(f"{key}_low"), horizon.get(f"{key}_high"))


@register.simple_tag
def horizon_constants() -> dict:
    """The constants the methodology's time-horizon section states."""
    return {"draws": HORIZON_DRAWS, "min_tasks": MIN_TASKS, "c": HEADLINE_C, "l2": 1 / HEADLINE_C}
