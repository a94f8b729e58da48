"""An entry's published figures against what its instances give (see `swebench`).

Each figure is compared at its own precision: a percentage or mean written with d
decimals agrees when it is within half a unit of its last decimal (74.4 agrees with
74.40, 64.93 does not with 64.80); a total cost when within a millionth of itself (or
half a cent). A figure that disagrees is explained when one other count of instances
gives it (a rate over 499 instances where the file lists 500); otherwise the note says
it contradicts the instances.
"""

from __future__ import annotations

import math
from typing import Any

from ingestion.importers.common import is_number


def figure_notes(name: str, published: dict[str, Any], totals: dict[str, Any]) -> list[str]:
    """Warnings where `published` (the entry's figures) disagrees with `totals`."""
    n, resolved = totals["instances"], totals["resolved"]
    if not n:
        return []
    notes = []
    rate = published.get("resolved")
    if is_number(rate):
        notes += _rate_note(name, rate, resolved, n)
    cost = totals["cost_usd"]
    if cost is not None and totals["with_cost"] < n:
        notes.append(f"entry {name!r}: {n - totals['with_cost']} of {n} instances have no cost")
    stated = published.get("cost")
    if cost is not None and is_number(stated) and not _same_total(stated, cost):
        notes.append(
            f"entry {name!r}: its published total cost {stated} is not the ${cost:.4f} "
            f"its {totals['with_cost']} instances add up to"
        )
    if cost is not None:
        notes += _mean_note(name, "cost per instance", published.get("instance_cost"), cost, n)
    calls = totals["api_calls"]
    if calls is not None:
        notes += _mean_note(
            name, "API calls per instance", published.get("instance_calls"), calls, n
        )
    return notes


def _tolerance(value: float) -> float:
    """Half a unit of the last decimal `value` is written with (at most 6)."""
    text = repr(value)  # an integer (as JSON wrote it) has no decimals
    decimals = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    if "e" in text:
        decimals = 6
    return 0.5 * 10 ** -min(decimals, 6) + 1e-9


def _rate_note(name: str, rate: float, resolved: int, n: int) -> list[str]:
    tol = _tolerance(rate)
    if abs(rate - 100 * resolved / n) <= tol:
        return []
    denominator = _other_count(rate / 100, resolved, tol / 100, least=resolved)
    if denominator is not None:
        return [
            f"entry {name!r}: its published {rate}% resolved is {resolved} of {denominator} "
            f"instances, not of the {n} it lists ({100 * resolved / n:.2f}% of {n})"
        ]
    return [
        f"entry {name!r}: its published {rate}% resolved contradicts its per-instance "
        f"flags: {resolved} of {n} resolved ({100 * resolved / n:.2f}%); {rate}% of {n} "
        f"would be {rate * n / 100:.0f}"
    ]


def _mean_note(name: str, what: str, stated: Any, total: float, n: int) -> list[str]:
    if not is_number(stated):
        return []
    tol = max(_tolerance(stated), abs(stated) * 1e-6)
    if abs(stated - total / n) <= tol:
        return []
    denominator = _other_count(stated, total, tol)
    over = f" (the total over {denominator} instances)" if denominator is not None else ""
    return [
        f"entry {name!r}: its published {what} {stated} is not the {total / n:.6g} "
        f"of its {n} instances{over}"
    ]


def _other_count(mean: float, total: float, tol: float, least: int = 1) -> int | None:
    """The count of instances d ≥ `least` with total / d within `tol` of `mean`, if one is."""
    if mean <= 0 or total <= 0:
        return None
    guess = round(total / mean)
    for d in (guess, guess - 1, guess + 1):
        if d >= max(least, 1) and abs(total / d - mean) <= tol:
            return d
    return None


def _same_total(stated: float, total: float) -> bool:
    return math.isclose(stated, total, rel_tol=1e-6, abs_tol=0.005)
