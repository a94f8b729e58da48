"""Reading the signal boards back, for the page and the API."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.slices import SliceKind


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
