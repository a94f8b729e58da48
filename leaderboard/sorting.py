"""Sortable column headers and the sort rules they link to, shared by every table.

The benchmark boards and the signal board both sort by `?sort=key` (ascending) or
`?sort=-key` (descending), flip the direction on a second click, sort best first on a
first click, and keep missing figures last whichever the direction. Each of those rules
is written here once; a page only names its keys, labels and links.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class SortHeader:
    """One sortable header, as templates/leaderboard/_sort_th.html draws it."""

    key: str
    href_query: str
    aria_sort: str
    indicator: str
    next_label: str


def valid_sort(raw: str, keys: Collection[str]) -> str:
    """`?sort=` as asked when it names a sortable key (with an optional "-"), else ""."""
    return raw if raw.removeprefix("-") in keys else ""


def sort_key(sort: str) -> str:
    """The key a sort value names, without its direction."""
    return sort.removeprefix("-")


def is_descending(sort: str) -> bool:
    return sort.startswith("-")


def sort_header(
    key: str,
    *,
    current: str,
    first_descending: bool,
    label: str,
    href_query: Callable[[str], str],
) -> SortHeader:
    """The header of column `key` while the table is sorted by `current`.

    Its link sorts by the key: the other direction when the table is already sorted by
    it, else the better end first (first_descending). href_query turns the next sort
    value into the link's query string.
    """
    active = sort_key(current) == key
    descending = is_descending(current)
    next_descending = not descending if active else first_descending
    aria, indicator = "none", ""
    if active:
        aria, indicator = ("descending", "▼") if descending else ("ascending", "▲")
    direction = "descending" if next_descending else "ascending"
    return SortHeader(
        key=key,
        href_query=href_query(("-" if next_descending else "") + key),
        aria_sort=aria,
        indicator=indicator,
        next_label=f"Sort by {label.lower()}, {direction}",
    )


def sorted_missing_last(items: Iterable[T], key: Callable[[T], Any], descending: bool) -> list[T]:
    """Sort by key, missing (None or NaN) values last whichever the direction.

    The Python form of the rule the board tables apply in SQL (NULLS LAST both ways).
    """
    rows = list(items)
    present = [item for item in rows if _present(key(item))]
    missing = [item for item in rows if not _present(key(item))]
    return sorted(present, key=key, reverse=descending) + missing


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))
