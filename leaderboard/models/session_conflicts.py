"""Session conflicts (methodology §3.3): an organisation's accounts uploading sessions of
a model the organisation makes or serves, and the moderators' decisions about them."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from leaderboard.models.snapshots import BoardSnapshot


class SessionConflictDecision(models.Model):
    """An append-only moderation record for one (account, model) pair.

    The latest decision for a pair is its current state: `confirm` excludes the
    account's sessions of the model even where no organisation links them, `dismiss`
    counts them even where one does.
    """

    class Decision(models.TextChoices):
        CONFIRM = "confirm"
        DISMISS = "dismiss"

    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    model = models.ForeignKey("ingestion.LanguageModel", on_delete=models.CASCADE, related_name="+")
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-decided_at", "-id"]
        indexes = [models.Index(fields=["account", "model", "-decided_at"])]
        constraints = [
            models.CheckConstraint(
                condition=~Q(reason=""), name="sessionconflictdecision_reason_required"
            )
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.account} × {self.model}"


class SessionConflictPair(models.Model):
    """One row of the session conflict queue: a database view, read-only.

    Every (account, model) pair where the account belongs to an organisation that makes
    or serves the model, plus every pair a moderator has decided on. The view
    (migration 0033) is the one statement of the rule: the signal boards read
    `excluded` from it, so `state` always says what they do with the pair's sessions.
    """

    class State(models.TextChoices):
        EXCLUDED = "excluded", "excluded, not reviewed"
        CONFIRMED = "confirmed", "excluded, confirmed"
        DISMISSED = "dismissed", "counted, dismissed"

    id = models.CharField(max_length=50, primary_key=True, help_text="account id-model id")
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    model = models.ForeignKey(
        "ingestion.LanguageModel",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    shown_by_data = models.BooleanField(
        help_text="the account belongs to an organisation that makes or serves the model"
    )
    organisations = ArrayField(models.CharField(max_length=100))
    sessions_affected = models.IntegerField(help_text="sessions of ingested submissions")
    state = models.CharField(max_length=10, choices=State.choices)
    needs_review = models.BooleanField()
    latest_decision = models.ForeignKey(
        SessionConflictDecision,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        related_name="+",
    )
    excluded = models.BooleanField(help_text="the signal boards leave this pair's sessions out")

    class Meta:
        managed = False
        db_table = "leaderboard_sessionconflictpair"
        ordering = ["-needs_review", "-sessions_affected", "id"]
        verbose_name = "session conflict"
        verbose_name_plural = "session conflict queue"

    def __str__(self) -> str:
        return f"{self.account} × {self.model}"


class SignalUploader(models.Model):
    """One account's sessions of one model in a snapshot (the signal boards' provenance).

    Written with the signal boards (leaderboard.signalboard.provenance), one row per
    (model, account) with sessions: its counted sessions, their confirmed successes, and
    its conflict-excluded sessions. Shown to moderators only; the public sees the
    count of accounts and the largest share, kept in the entry's data.
    """

    snapshot = models.ForeignKey(
        BoardSnapshot, on_delete=models.CASCADE, related_name="signal_uploaders"
    )
    model_name = models.CharField(max_length=200)
    # The account's name is copied in: the row outlives nothing, but reads one table.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    account_name = models.CharField(max_length=150)
    sessions = models.PositiveIntegerField(help_text="counted sessions")
    confirmed = models.PositiveIntegerField(help_text="of them, confirmed successes")
    conflict_excluded = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["snapshot", "model_name", "-sessions", "account_name"]
        indexes = [models.Index(fields=["snapshot", "model_name"], name="signaluploader_model_idx")]

    def __str__(self) -> str:
        return f"{self.account_name} · {self.model_name}"
