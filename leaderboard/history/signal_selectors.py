"""Reading the signal boards' history: the recomputes that changed them, and one
model's changes. A fixed number of queries each, whatever the size of the history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from leaderboard.history.selectors import CHANGES_SHOWN, Cause, causes_by_snapshot
from leaderboard.models import SignalHistory

# Recomputes a feed of the signal boards lists, and changes a model's feed lists.
SNAPSHOTS_LISTED = 20
MODEL_ROWS = 50


@dataclass
class SignalSnapshotChanges:
    snapshot_id: int
    computed_at: datetime
    causes: list[Cause] = field(default_factory=list)
    rows: list[SignalHistory] = field(default_factory=list)  # `previous` loaded
    changed_total: int = 0


@dataclass(frozen=True)
class SignalPoint:
    row: SignalHistory  # `previous` loaded
    causes: list[Cause]


def signal_change_log(*, limit: int = SNAPSHOTS_LISTED) -> list[SignalSnapshotChanges]:
    """The last `limit` recomputes that changed a signal model, newest first: three
    queries; at most CHANGES_SHOWN rows each (the count of the rest is kept)."""
    ids = list(
        SignalHistory.objects.order_by("-snapshot_id")
        .values_list("snapshot_id", flat=True)
        .distinct()[:limit]
    )
    rows = (
        SignalHistory.objects.filter(snapshot_id__in=ids)
        .select_related("previous")
        .order_by("-snapshot_id", "removed", "rank", "model_name")
    )
    by_snapshot: dict[int, SignalSnapshotChanges] = {}
    for row in rows:
        changes = by_snapshot.setdefault(
            row.snapshot_id, SignalSnapshotChanges(row.snapshot_id, row.valid_from)
        )
        changes.changed_total += 1
        if len(changes.rows) < CHANGES_SHOWN:
            changes.rows.append(row)
    causes = causes_by_snapshot(ids)
    for snapshot_id, changes in by_snapshot.items():
        changes.causes = causes.get(snapshot_id, [])
    return [by_snapshot[i] for i in ids if i in by_snapshot]


def model_signal_history(*, model_name: str, limit: int = MODEL_ROWS) -> list[SignalPoint]:
    """One model's last `limit` signal changes, newest first: two queries."""
    rows = list(
        SignalHistory.objects.filter(model_name=model_name)
        .select_related("previous")
        .order_by("-snapshot_id")[:limit]
    )
    causes = causes_by_snapshot({row.snapshot_id for row in rows})
    return [SignalPoint(row, causes.get(row.snapshot_id, [])) for row in rows]
