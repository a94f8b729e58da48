"""How an entry's trajectory figures and rule violations read: board cells, the agent
page's table, the run page's alignment. Labels and definitions come from the one table
of figures (ingestion.traces.figures)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ingestion.traces.figures import FIGURES, Figure
from leaderboard.presentation.figures import MISSING, percent
from leaderboard.presentation.intervals import share_bounds

# The board's Trajectory columns: the figures most read, in display order.
BOARD_FIGURES = ("tool_f1", "in_order_args", "argument_accuracy")
_BY_KEY = {figure.key: figure for figure in FIGURES}
ALIGNMENT_LABELS = {
    "matched": "matched",
    "arguments_differ": "arguments differ",
    "missing": "missing",
    "extra": "extra",
    "failed": "failed (not counted)",
    "ignored": "ignored tool",
}


@dataclass(frozen=True)
class FigureRow:
    figure: Figure
    value: str
    bounds: str
    n: int


def figure_rows(trajectory: dict | None, keys: tuple[str, ...] | None = None) -> list[FigureRow]:
    """An entry's figures in the table's order (only those it has), formatted."""
    if not trajectory:
        return []
    wanted = keys if keys is not None else tuple(f.key for f in FIGURES)
    return [
        FigureRow(_BY_KEY[key], percent(found.get("value")),
                  share_bounds(found.get("low"), found.get("high")), int(found.get("n") or 0))
        for key in wanted
        if key in _BY_KEY and isinstance(found := trajectory.get(key), dict)
    ]  # fmt: skip


@dataclass(frozen=True)
class FigurePair:
    all: FigureRow
    write: FigureRow | None


def figure_pairs(trajectory: dict | None) -> list[FigurePair]:
    """The agent page's rows: each figure over all calls beside its write-only twin."""
    rows = {row.figure.key: row for row in figure_rows(trajectory)}
    return [
        FigurePair(row, rows.get(f"write_{key}"))
        for key, row in rows.items()
        if not key.startswith("write_")
    ]


def board_trajectory_cells(entry: Any) -> list[FigureRow | None]:
    """The board's Trajectory cells: one per BOARD_FIGURES key, None where undefined."""
    found = {row.figure.key: row for row in figure_rows(getattr(entry, "trajectory", None))}
    return [found.get(key) for key in BOARD_FIGURES]


def board_trajectory_labels() -> list[Figure]:
    return [_BY_KEY[key] for key in BOARD_FIGURES]


def violations_total(entry: Any) -> int | None:
    """Runs that broke any rule (once however many); None when none was checked (its
    suites state no rule)."""
    violations = getattr(entry, "violations", None) or {}
    if not violations.get("checked"):
        return None
    return int(violations.get("any", 0))


def violations_text(entry: Any) -> str:
    """'3 of 200 runs broke a rule': a count, never a rate."""
    total = violations_total(entry)
    if total is None:
        return MISSING
    checked = (getattr(entry, "violations", None) or {}).get("checked", 0)
    return f"{total} of {checked} runs checked broke a rule"


def rule_counts(entry: Any, rules: list[dict]) -> list[tuple[dict, int]]:
    """Each rule of the suite (as the registry states it) with its count of runs, zero
    included: a zero is the figure a rule is budgeted at."""
    counts = (getattr(entry, "violations", None) or {}).get("rules", {})
    return [(rule, int(counts.get(rule.get("id"), 0))) for rule in rules]


BRIEF_CHARACTERS = 160


def arguments_brief(arguments: Any) -> str:
    """A call's arguments as one line of compact JSON, cut with an ellipsis."""
    try:
        text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        text = str(arguments)
    return text if len(text) <= BRIEF_CHARACTERS else text[: BRIEF_CHARACTERS - 1] + "…"
