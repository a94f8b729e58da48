"""Reading a model's provenance back: its composite row, its accounts (moderators only)
and the sessions the conflict rule left out, from the current snapshot."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Sum

from leaderboard.models import BoardSnapshot, SignalEntry, SignalUploader
from leaderboard.signalboard.slices import COMPOSITE_SCOPE

# Who may see which accounts uploaded a model's sessions: whoever may see the
# submissions themselves in the admin (moderators, superusers).
VIEW_UPLOADERS = "ingestion.view_submission"


def may_see_uploaders(user) -> bool:
    return bool(user and user.is_active and user.has_perm(VIEW_UPLOADERS))


@dataclass(frozen=True)
class ModelSignals:
    computed_at: object
    snapshot_id: int
    model: str
    entry: SignalEntry | None  # None: every session of the model is conflict-excluded
    conflict_excluded: int


def model_signals(model: str) -> ModelSignals | None:
    """The model's composite row of the current snapshot (model view); None when the
    snapshot has neither a row nor a conflict-excluded session of it."""
    snapshot = BoardSnapshot.objects.current()
    if snapshot is None:
        return None
    entry = SignalEntry.objects.filter(
        snapshot=snapshot, by=SignalEntry.By.MODEL, scope=COMPOSITE_SCOPE, model_name=model
    ).first()
    excluded = SignalUploader.objects.filter(snapshot=snapshot, model_name=model).aggregate(
        n=Sum("conflict_excluded")
    )["n"]
    if entry is None and not excluded:
        return None
    return ModelSignals(snapshot.computed_at, snapshot.pk, model, entry, excluded or 0)


def model_uploaders(snapshot_id: int, model: str) -> list[SignalUploader]:
    """The model's accounts in the snapshot, the largest first. Call only for a user
    who may_see_uploaders."""
    return list(
        SignalUploader.objects.filter(snapshot_id=snapshot_id, model_name=model).order_by(
            "-sessions", "-conflict_excluded", "account_name"
        )
    )


@dataclass(frozen=True)
class ConflictSummary:
    sessions: int
    models: int


def conflict_summary() -> ConflictSummary:
    """Conflict-excluded sessions of the current snapshot, and how many models they are of."""
    totals = (
        SignalUploader.objects.filter(snapshot__is_current=True, conflict_excluded__gt=0)
        .aggregate(sessions=Sum("conflict_excluded"), models=Count("model_name", distinct=True))
    )  # fmt: skip
    return ConflictSummary(totals["sessions"] or 0, totals["models"])
