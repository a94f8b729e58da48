"""When a published figure or rank "moves past its interval". No Django.

The rule behind the alert e-mails and the "past its interval" mark of the feeds:
* a figure (a board entry's pass rate, a signal model's NIR or one of its signals) moves
  past its interval when its new point lies outside the 95% interval it was published
  with last time (strictly: a point on a bound is inside);
* a board entry's rank moves past its interval when its new rank range (the ranks its
  Wilson interval allows, methodology "rank-range") no longer overlaps the one last
  recorded. An entry that enters or leaves the ranking has no range on one side: its
  rank moves, but not past an interval.
Anything missing on either side (a first appearance, a figure without an interval) is
no move past an interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def figure_moved(
    previous_low: float | None, previous_high: float | None, value: float | None
) -> bool:
    """The new point lies outside the previous 95% interval."""
    if value is None or previous_low is None or previous_high is None:
        return False
    return value < previous_low or value > previous_high


def rank_range_moved(
    previous: tuple[int | None, int | None], current: tuple[int | None, int | None]
) -> bool:
    """The new rank range [best, worst] and the previous one do not overlap."""
    (previous_best, previous_worst), (best, worst) = previous, current
    if None in (previous_best, previous_worst, best, worst):
        return False
    return worst < previous_best or best > previous_worst


def figures_moved(
    previous: Mapping[str, Mapping[str, Any] | None],
    current: Mapping[str, Mapping[str, Any] | None],
) -> list[str]:
    """The figures ({name: {value, low, high}}) whose new value left their previous
    interval, in `current`'s order."""
    moved = []
    for name, figure in current.items():
        before = previous.get(name) or {}
        if figure_moved(before.get("low"), before.get("high"), (figure or {}).get("value")):
            moved.append(name)
    return moved
