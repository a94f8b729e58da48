"""What one history row changed, figure by figure, and which changes moved past their
interval (leaderboard.methodology.moves): read by the feeds and the alert e-mails."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leaderboard.history.services import SIGNAL_FIGURES
from leaderboard.methodology import moves
from leaderboard.models import EntryHistory, SignalHistory

RANK = "rank"
PASS_RATE = "pass_rate"


@dataclass(frozen=True)
class Figure:
    value: Any
    low: Any = None
    high: Any = None


@dataclass(frozen=True)
class FigureChange:
    """One figure before and after (`before` None for a first appearance, `after` None
    when the entry left its board)."""

    figure: str  # "rank", "pass_rate", "net_improvement" or a signal
    before: Figure | None
    after: Figure | None
    past_interval: bool


def entry_changes(row: EntryHistory) -> list[FigureChange]:
    """A board entry's rank and pass rate changes in this row (`row.previous` loaded)."""
    previous = row.previous if row.previous is not None and not row.previous.removed else None
    if row.removed:
        before = _entry_figures(previous) if previous else {}
        return [FigureChange(name, figure, None, False) for name, figure in before.items()]
    after = _entry_figures(row)
    if previous is None:
        return [FigureChange(name, None, figure, False) for name, figure in after.items()]
    before = _entry_figures(previous)
    changes = []
    if before[RANK] != after[RANK]:
        moved = moves.rank_range_moved(
            (previous.rank_best, previous.rank_worst), (row.rank_best, row.rank_worst)
        )
        changes.append(FigureChange(RANK, before[RANK], after[RANK], moved))
    if before[PASS_RATE] != after[PASS_RATE]:
        moved = moves.figure_moved(previous.wilson_low, previous.wilson_high, row.pass_rate)
        changes.append(FigureChange(PASS_RATE, before[PASS_RATE], after[PASS_RATE], moved))
    return changes


def _entry_figures(row: EntryHistory) -> dict[str, Figure]:
    return {
        RANK: Figure(row.rank, row.rank_best, row.rank_worst),
        PASS_RATE: Figure(row.pass_rate, row.wilson_low, row.wilson_high),
    }


def signal_changes(row: SignalHistory) -> list[FigureChange]:
    """A signal model's rank and figure changes in this row (`row.previous` loaded)."""
    previous = row.previous if row.previous is not None and not row.previous.removed else None
    before = _signal_figures(previous) if previous else {}
    after = {} if row.removed else _signal_figures(row)
    moved = set(moves.figures_moved(previous.figures, row.figures)) if previous else set()
    changes = []
    for name in after or before:
        old, new = before.get(name), after.get(name)
        if old != new:
            changes.append(FigureChange(name, old, new, name in moved))
    return changes


def _signal_figures(row: SignalHistory) -> dict[str, Figure]:
    """Rank first, then the figures in SIGNAL_FIGURES' order (jsonb keeps its own)."""
    figures = {RANK: Figure(row.rank)}
    names = [*SIGNAL_FIGURES, *sorted(set(row.figures) - set(SIGNAL_FIGURES))]
    for name in names:
        if name in row.figures:
            figure = row.figures[name] or {}
            figures[name] = Figure(figure.get("value"), figure.get("low"), figure.get("high"))
    return figures


def moved_past_interval(changes: list[FigureChange]) -> list[FigureChange]:
    return [change for change in changes if change.past_interval]
