"""The signal boards in a board snapshot: written fresh, or carried over unchanged.

Called by the recompute room (leaderboard.recompute) when it builds a new snapshot.
"""

from __future__ import annotations

from typing import Any

from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.agents import MODEL
from leaderboard.signalboard.compute import signal_rows
from leaderboard.signalboard.slices import COMPOSITE_SCOPE

_COPIED_FIELDS = (
    "scope", "slice_kind", "greyed", "position", "rank", "model_name", "sessions", "data",
    "by", "harness_name", "harness_version",
)  # fmt: skip


def signals_snapshot_write(snapshot: BoardSnapshot) -> None:
    """Store the signal boards in the snapshot: the sessions still without a current
    score are scored first, then every counted session's stored score is aggregated."""
    _entries_write(snapshot, signal_rows())


def signals_carry_over(current: BoardSnapshot | None, snapshot: BoardSnapshot) -> None:
    """Copy the current snapshot's signal boards into a new one (no session changed).

    With nothing to copy (no current snapshot, or one written before signal boards
    existed) the boards are computed instead, so they never go missing.
    """
    if current is None or not current.signal_entries.exists():
        signals_snapshot_write(snapshot)
        return
    rows = current.signal_entries.order_by("pk").values(*_COPIED_FIELDS)
    _entries_write(snapshot, list(rows))


def _entries_write(snapshot: BoardSnapshot, rows: list[dict[str, Any]]) -> None:
    SignalEntry.objects.bulk_create(
        [SignalEntry(snapshot=snapshot, **row) for row in rows], batch_size=1000
    )
    # Every session once: the model view's composite (the agent view holds a subset).
    total = sum(
        row["sessions"]
        for row in rows
        if row["scope"] == COMPOSITE_SCOPE and row.get("by", MODEL) == MODEL
    )
    BoardSnapshot.objects.filter(pk=snapshot.pk).update(sessions_total=total)
    snapshot.sessions_total = total
