"""Board history: every change of a published entry, and why the boards changed.

Snapshots are pruned (leaderboard.recompute.services.SNAPSHOTS_KEPT); history is not.
It is run-length encoded: an `EntryHistory` row is written only when an entry's
published figures change (or it appears or leaves a board), so its size grows with
changes, not with recomputes. Neither table has a foreign key to the snapshot, which
is deleted while its history stays.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from ingestion.bundles import limits
from ingestion.evidence import CAUSE_KINDS, CAUSE_LABEL_LENGTH

# The figures whose change writes a history row (the ones the board publishes).
TRACKED_FIELDS = (
    "rank", "n", "passes", "pass_rate", "wilson_low", "wilson_high", "under_review",
    "verification", "conflict_excluded", "infra_errors",
)  # fmt: skip


class EntryHistory(models.Model):
    """One board entry's published figures from one snapshot on, until the next row
    of the same (board, harness, model); `removed` marks the entry leaving the board."""

    board_slug = models.SlugField(max_length=120)
    # Plain ids: harnesses and models can be deleted or merged, their history stays.
    harness_id = models.BigIntegerField()
    model_id = models.BigIntegerField()
    snapshot_id = models.BigIntegerField(help_text="the snapshot these figures appeared in")
    valid_from = models.DateTimeField(help_text="that snapshot's time")
    # The latest row of each key: what the next recompute compares with.
    is_latest = models.BooleanField(default=True)
    removed = models.BooleanField(default=False)
    previous = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    harness_name = models.CharField(max_length=100)
    harness_version = models.CharField(max_length=100)
    model_name = models.CharField(max_length=200)
    rank = models.PositiveIntegerField(null=True)
    n = models.PositiveIntegerField(default=0)
    passes = models.PositiveIntegerField(default=0)
    pass_rate = models.FloatField(null=True)
    wilson_low = models.FloatField(null=True)
    wilson_high = models.FloatField(null=True)
    under_review = models.BooleanField(default=False)
    verification = models.CharField(max_length=limits.VERIFICATION_LENGTH, blank=True)
    conflict_excluded = models.PositiveIntegerField(default=0)
    infra_errors = models.PositiveIntegerField(default=0)
    # The rank range as it stood when the row was written (not tracked: a row is never
    # written for a range alone); the alerts compare ranges (methodology.moves).
    rank_best = models.PositiveIntegerField(null=True)
    rank_worst = models.PositiveIntegerField(null=True)

    class Meta:
        ordering = ["-snapshot_id", "board_slug", "pk"]
        verbose_name_plural = "entry history"
        indexes = [
            # The recompute joins the new entries with the latest row of each key.
            models.Index(
                fields=["board_slug", "harness_id", "model_id"],
                condition=Q(is_latest=True),
                name="entryhistory_latest",
            ),
            # A board's change log, newest first; an agent's history.
            models.Index(fields=["board_slug", "-snapshot_id"], name="entryhistory_board"),
            models.Index(
                fields=["harness_id", "model_id", "-snapshot_id"], name="entryhistory_agent"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.board_slug}: {self.harness_name} {self.harness_version} · {self.model_name}"


class SnapshotCause(models.Model):
    """One reason a snapshot was computed: the outbox request's cause, kept for good."""

    snapshot_id = models.BigIntegerField(db_index=True)
    kind = models.CharField(max_length=20, choices=CAUSE_KINDS)
    record_id = models.BigIntegerField(null=True, blank=True)
    label = models.CharField(max_length=CAUSE_LABEL_LENGTH, blank=True)

    class Meta:
        ordering = ["snapshot_id", "pk"]

    def __str__(self) -> str:
        return f"snapshot {self.snapshot_id}: {self.kind} {self.record_id or ''}".rstrip()


class SignalHistory(models.Model):
    """One model's composite signal figures (the model view) from one snapshot on, until
    the next row of the same model; written like EntryHistory, only on a change."""

    model_name = models.CharField(max_length=200)
    snapshot_id = models.BigIntegerField(help_text="the snapshot these figures appeared in")
    valid_from = models.DateTimeField(help_text="that snapshot's time")
    is_latest = models.BooleanField(default=True)
    removed = models.BooleanField(default=False)
    previous = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    rank = models.PositiveIntegerField(null=True)
    sessions = models.PositiveIntegerField(default=0)
    greyed = models.BooleanField(default=False)
    # {figure: {"value", "low", "high"}} for the NIR and every signal: what the board
    # publishes of each, and all a change or a move past an interval needs.
    figures = models.JSONField(default=dict)

    class Meta:
        ordering = ["-snapshot_id", "model_name", "pk"]
        verbose_name_plural = "signal history"
        indexes = [
            models.Index(
                fields=["model_name"], condition=Q(is_latest=True), name="signalhistory_latest"
            ),
            models.Index(fields=["-snapshot_id"], name="signalhistory_snapshot"),
            models.Index(fields=["model_name", "-snapshot_id"], name="signalhistory_model"),
        ]

    def __str__(self) -> str:
        return f"signals: {self.model_name} (snapshot {self.snapshot_id})"
