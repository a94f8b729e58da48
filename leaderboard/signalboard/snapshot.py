"""The signal boards in a board snapshot: written fresh, or carried over unchanged.

Called by the recompute room (leaderboard.recompute) when it builds a new snapshot.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from leaderboard.models import BoardSnapshot, SignalEntry, SignalUploader
from leaderboard.signalboard.agents import MODEL
from leaderboard.signalboard.compute import json_safe, signal_rows
from leaderboard.signalboard.provenance import SignalProvenance, signal_provenance
from leaderboard.signalboard.slices import COMPOSITE_SCOPE

_COPIED_FIELDS = (
    "scope", "slice_kind", "greyed", "position", "rank", "model_name", "sessions", "data",
    "by", "harness_name", "harness_version",
)  # fmt: skip
_UPLOADER_FIELDS = (
    "model_name", "account_id", "account_name", "sessions", "confirmed", "conflict_excluded",
)  # fmt: skip


def signals_snapshot_write(snapshot: BoardSnapshot) -> None:
    """Store the signal boards in the snapshot: the sessions still without a current
    score are scored first, then every counted session's stored score is aggregated."""
    rows = signal_rows()
    # Server-side cursors stream only inside a transaction (see loading.stream_rows).
    with transaction.atomic():
        provenance = signal_provenance()
    _entries_write(snapshot, _with_provenance(rows, provenance))
    _uploaders_write(snapshot, provenance)


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
    uploaders = SignalUploader.objects.filter(snapshot=current).order_by("pk")
    SignalUploader.objects.bulk_create(
        [SignalUploader(snapshot=snapshot, **row) for row in uploaders.values(*_UPLOADER_FIELDS)],
        batch_size=1000,
    )


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


def _with_provenance(rows: list[dict[str, Any]], provenance: SignalProvenance) -> list[dict]:
    """Each model's composite row gains `data["provenance"]` (accounts, largest share,
    concentrated, the figures without the largest account, conflict-excluded sessions)."""
    for row in rows:
        if row["scope"] == COMPOSITE_SCOPE and row.get("by", MODEL) == MODEL:
            figures = provenance.by_model.get(row["model_name"])
            if figures is not None:
                row["data"] = {**row["data"], "provenance": json_safe(figures)}
    return rows


def _uploaders_write(snapshot: BoardSnapshot, provenance: SignalProvenance) -> None:
    SignalUploader.objects.bulk_create(
        [SignalUploader(snapshot=snapshot, **vars(row)) for row in provenance.uploaders],
        batch_size=1000,
    )
