"""Reading the signal boards back, for the page and the API."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.slices import COMPOSITE_SCOPE, SliceKind


@dataclass(frozen=True)
class SignalSelection:
    """The current snapshot's rows of some slice kinds, in display order per scope."""

    computed_at: Any
    sessions_total: int
    entries: list[SignalEntry]


def current_signal_entries(
    kinds: Iterable[str] = (SliceKind.COMPOSITE,),
    scope: str | None = None,
    by: str = SignalEntry.By.MODEL,
) -> SignalSelection:
    """Rows of the current snapshot of the given slice kinds (and scope), of the model
    view or the agent view (`by`): two queries."""
    snapshot = BoardSnapshot.objects.current()
    if snapshot is None:
        return SignalSelection(None, 0, [])
    entries = SignalEntry.objects.filter(snapshot=snapshot, by=by, slice_kind__in=list(kinds))
    if scope is not None:
        entries = entries.filter(scope=scope)
    return SignalSelection(
        snapshot.computed_at, snapshot.sessions_total, list(entries.order_by("scope", "position"))
    )


def on_signal_boards(model_name: str) -> bool:
    """Whether the current snapshot's model view lists this model (one query)."""
    return SignalEntry.objects.filter(
        snapshot__is_current=True, by=SignalEntry.By.MODEL, model_name=model_name
    ).exists()


# The leaders the home page shows of each signal view.
SIGNAL_LEADERS = 3


def signal_leaders(snapshot_id: int) -> dict[str, list[SignalEntry]]:
    """The first SIGNAL_LEADERS ranked rows of the composite view of every model and of
    every agent version (`by` -> rows), for the home page (one query)."""
    rows = SignalEntry.objects.filter(
        snapshot_id=snapshot_id,
        slice_kind=SliceKind.COMPOSITE,
        scope=COMPOSITE_SCOPE,
        rank__isnull=False,
        position__lt=SIGNAL_LEADERS,
    ).order_by("by", "position")
    leaders: dict[str, list[SignalEntry]] = {by: [] for by in SignalEntry.By.values}
    for row in rows:
        leaders[row.by].append(row)
    return leaders
