"""Board snapshots (what visitors read) and moderation records (what admins decide).

A recompute writes a complete new snapshot and makes it current in one transaction,
so readers never see a half-built board and never wait for a recompute.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now

from ingestion.bundles import limits
from ingestion.models import Submission


class BoardState(models.Model):
    """One row: when the boards were last computed.

    What is still to be recomputed is not kept here but in the outbox
    (`RecomputeRequest`), written with each change of evidence.
    """

    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "board state"

    def __str__(self) -> str:
        return f"boards computed {self.computed_at}"

    @property
    def is_stale(self) -> bool:
        """Some change of evidence has not reached the current snapshot yet."""
        return RecomputeRequest.objects.exists()

    @classmethod
    def load(cls) -> BoardState:
        return cls.objects.get_or_create(pk=1)[0]


class RecomputeRequest(models.Model):
    """The recompute outbox: one row per change of evidence, written in the change's
    own transaction (leaderboard.recompute.requests).

    A recompute claims the rows it covers and deletes them in the transaction that makes
    its snapshot current, so a crash, a lost task or a broker outage leaves them for the
    next run (or the periodic sweep).
    """

    # The harnesses whose runs changed; null when anything may have changed.
    harness_ids = ArrayField(models.BigIntegerField(), null=True, blank=True)
    sessions = models.BooleanField(default=False)
    # The database's clock, so the debounce compares times from one clock.
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        scope = "everything" if self.harness_ids is None else f"harnesses {self.harness_ids}"
        return f"recompute {scope}{' and sessions' if self.sessions else ''}"


class ConflictDecision(models.Model):
    """An append-only moderation record for one (harness version, task) pair.

    The latest decision for a pair is its current state: `confirm` excludes the
    pair's runs even where the data shows no shared person, `dismiss` keeps them even
    where it does. Runs of the Minimal baseline are never excluded either way.
    """

    class Decision(models.TextChoices):
        CONFIRM = "confirm"
        DISMISS = "dismiss"

    harness = models.ForeignKey(
        "ingestion.Harness", on_delete=models.CASCADE, related_name="conflict_decisions"
    )
    task = models.ForeignKey(
        "ingestion.Task", on_delete=models.CASCADE, related_name="conflict_decisions"
    )
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-decided_at", "-id"]
        indexes = [models.Index(fields=["harness", "task", "-decided_at"])]
        permissions = [("decide_conflict", "Can confirm or dismiss a conflict of interest")]

    def __str__(self) -> str:
        return f"{self.decision} {self.harness} × {self.task}"


class SnapshotQuerySet(models.QuerySet):
    def current(self) -> BoardSnapshot | None:
        return self.filter(is_current=True).first()


class BoardSnapshot(models.Model):
    computed_at = models.DateTimeField()
    is_current = models.BooleanField(default=False)
    duration_ms = models.PositiveIntegerField(default=0)
    runs_total = models.PositiveIntegerField(default=0)
    sessions_total = models.PositiveIntegerField(default=0)

    objects = SnapshotQuerySet.as_manager()

    class Meta:
        ordering = ["-computed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_current"], condition=Q(is_current=True), name="one_current_snapshot"
            )
        ]

    def __str__(self) -> str:
        return f"snapshot {self.pk} at {self.computed_at:%Y-%m-%d %H:%M:%S}"


class BoardQuerySet(models.QuerySet):
    def current(self) -> BoardQuerySet:
        """Boards of the current snapshot, in tab order."""
        return (
            self.filter(snapshot__is_current=True).select_related("snapshot").order_by("position")
        )


class Board(models.Model):
    """One benchmark board inside a snapshot (overall, coding, one per suite version)."""

    snapshot = models.ForeignKey(BoardSnapshot, on_delete=models.CASCADE, related_name="boards")
    slug = models.SlugField(max_length=120)
    title = models.CharField(max_length=200)
    position = models.PositiveSmallIntegerField()
    entry_count = models.PositiveIntegerField(default=0)
    task_count = models.PositiveIntegerField(default=0)

    objects = BoardQuerySet.as_manager()

    class Meta:
        ordering = ["snapshot", "position"]
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "slug"], name="board_snapshot_slug_unique")
        ]

    def __str__(self) -> str:
        return self.title


class BoardEntry(models.Model):
    """One agent (harness version + model) on one board, every figure precomputed.

    Names are copied in so that a board page reads one table, whatever its size.
    """

    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="entries")
    position = models.PositiveIntegerField(help_text="display order")
    rank = models.PositiveIntegerField(null=True, blank=True)
    harness = models.ForeignKey("ingestion.Harness", on_delete=models.CASCADE, related_name="+")
    # No constraint: merging models deletes the merged one, and its entries must stay on
    # the current snapshot (they carry its name) until the recompute the merge requests.
    model = models.ForeignKey(
        "ingestion.LanguageModel",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    harness_name = models.CharField(max_length=100)
    harness_version = models.CharField(max_length=100)
    model_name = models.CharField(max_length=200)
    minimal_baseline = models.BooleanField(default=False)
    runs = models.PositiveIntegerField()
    n = models.PositiveIntegerField()
    passes = models.PositiveIntegerField()
    pass_rate = models.FloatField(null=True)
    wilson_low = models.FloatField(null=True)
    wilson_high = models.FloatField(null=True)
    infra_errors = models.PositiveIntegerField()
    infra_error_rate = models.FloatField(null=True)
    under_review = models.BooleanField(default=False)
    conflict_excluded = models.PositiveIntegerField()
    cost_per_success = models.FloatField(null=True)
    cost_per_success_status = models.CharField(max_length=20)
    tokens_per_success = models.FloatField(null=True)
    token_saving_ratio = models.FloatField(null=True)
    token_saving_awarded = models.BooleanField(default=False)
    pass_hat_k = models.JSONField(default=dict)
    partial_score = models.FloatField(null=True)
    ttft_ms_p50 = models.FloatField(null=True)
    ttft_ms_p95 = models.FloatField(null=True)
    duration_s_p50 = models.FloatField(null=True)
    duration_s_p95 = models.FloatField(null=True)
    mean_steps = models.FloatField(null=True)
    mean_tool_calls = models.FloatField(null=True)
    # Picks the Minimal version to compare with when a board holds several.
    latest_submission_at = models.DateTimeField(null=True)
    # "verified" when every counted run comes from a Verified submission (issue 11).
    verification = models.CharField(
        max_length=limits.VERIFICATION_LENGTH, default=limits.VERIFICATIONS[0]
    )

    class Meta:
        ordering = ["board", "position"]
        verbose_name_plural = "board entries"

    def __str__(self) -> str:
        return f"{self.harness_name} {self.harness_version} · {self.model_name}"


class SignalEntry(models.Model):
    """One model on the signal board, for one slice (composite, a scenario or a
    capability signal: methodology §3.1–3.2)."""

    class SliceKind(models.TextChoices):
        COMPOSITE = "composite"
        SCENARIO = "scenario"
        CAPABILITY = "capability"

    snapshot = models.ForeignKey(
        BoardSnapshot, on_delete=models.CASCADE, related_name="signal_entries"
    )
    scope = models.CharField(max_length=40, help_text="'all', a scenario, or 'capability:<signal>'")
    # Which view the slice belongs to, so a page reads one view with one indexed filter.
    slice_kind = models.CharField(
        max_length=12, choices=SliceKind.choices, default=SliceKind.COMPOSITE
    )
    # Fewer sessions than MIN_RANKED_SESSIONS: shown greyed, never ranked.
    greyed = models.BooleanField(default=False)
    position = models.PositiveIntegerField()
    rank = models.PositiveIntegerField(null=True, blank=True)
    model_name = models.CharField(max_length=200)
    sessions = models.PositiveIntegerField()
    data = models.JSONField(help_text="every signal with its interval and count")

    class Meta:
        ordering = ["snapshot", "scope", "position"]
        verbose_name_plural = "signal entries"
        indexes = [models.Index(fields=["snapshot", "slice_kind", "scope", "position"])]

    def __str__(self) -> str:
        return f"{self.model_name} ({self.scope})"


class DecisionRecord(models.Model):
    """What every moderators' decision about a submission keeps: who, when and why.

    Append-only: only leaderboard.moderation writes these, together with the status
    change they record. PROTECT: a record outlives nothing it explains.
    """

    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["-decided_at", "-id"]
        indexes = [models.Index(fields=["submission", "-decided_at"])]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="%(class)s_reason_required")
        ]


class SubmissionDecision(DecisionRecord):
    """A withdraw/restore record; the latest one explains a submission's status."""

    class Action(models.TextChoices):
        WITHDRAW = "withdraw"
        RESTORE = "restore"

    submission = models.ForeignKey(
        "ingestion.Submission", on_delete=models.PROTECT, related_name="decisions"
    )
    action = models.CharField(max_length=10, choices=Action.choices)

    class Meta(DecisionRecord.Meta):
        permissions = [("withdraw_submission", "Can withdraw or restore a submission")]

    def __str__(self) -> str:
        return f"{self.action} submission {self.submission_id}"


class HarnessTransfer(models.Model):
    """An append-only record of a moderator handing a harness name to another account.

    Only leaderboard.moderation.ownership writes these, together with the change of
    owner they record (ingestion.HarnessOwner).
    """

    name = models.CharField(
        max_length=limits.HARNESS_NAME_LENGTH, help_text="the harness name transferred"
    )
    from_owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    to_owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-decided_at", "-id"]
        permissions = [("transfer_harness", "Can transfer a harness name to another account")]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="harnesstransfer_reason_required")
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.from_owner} → {self.to_owner}"


class ConflictPair(models.Model):
    """One row of the conflict review queue: a database view, read-only.

    Every (harness version, task) pair where a task author also contributes to the
    harness, plus every pair an admin has decided on. The view (migration 0006) is the
    one statement of the conflict rule (methodology §2.2): the boards read `excluded`
    from it, so `state` always says what the boards do with the pair's runs.
    """

    class State(models.TextChoices):
        EXCLUDED = "excluded", "excluded, not reviewed"
        CONFIRMED = "confirmed", "excluded, confirmed"
        DISMISSED = "dismissed", "counted, dismissed"
        EXEMPT = "exempt", "counted, Minimal baseline"

    id = models.CharField(max_length=50, primary_key=True, help_text="harness id-task id")
    harness = models.ForeignKey(
        "ingestion.Harness", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    task = models.ForeignKey(
        "ingestion.Task", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    minimal_baseline = models.BooleanField()
    shown_by_data = models.BooleanField(help_text="a task author contributes to the harness")
    people = ArrayField(models.CharField(max_length=100), help_text="author and contributor")
    runs_affected = models.IntegerField(help_text="non-infra runs of ingested submissions")
    state = models.CharField(max_length=10, choices=State.choices)
    needs_review = models.BooleanField()
    latest_decision = models.ForeignKey(
        ConflictDecision,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        related_name="+",
    )
    excluded = models.BooleanField(help_text="the boards leave this pair's runs out")

    class Meta:
        managed = False
        db_table = "leaderboard_conflictpair"
        ordering = ["-needs_review", "-runs_affected", "id"]
        verbose_name = "conflict review queue"
        verbose_name_plural = "conflict review queue"

    def __str__(self) -> str:
        return f"{self.harness} × {self.task}"


class UnderReviewEntry(BoardEntry):
    """Board entries of the current snapshot that are under review (admin list only).

    The flag is computed by every recompute; nothing here can set or clear it.
    """

    class Meta:
        proxy = True
        verbose_name = "entry under review"
        verbose_name_plural = "entries under review"


class SubmissionReview(DecisionRecord):
    """An approve/reject record of a submission held for review (an account not yet
    trusted, issue 11)."""

    class Action(models.TextChoices):
        APPROVE = "approve"
        REJECT = "reject"

    submission = models.ForeignKey(
        "ingestion.Submission", on_delete=models.PROTECT, related_name="reviews"
    )
    action = models.CharField(max_length=10, choices=Action.choices)

    class Meta(DecisionRecord.Meta):
        permissions = [("review_submission", "Can approve or reject a submission held for review")]

    def __str__(self) -> str:
        return f"{self.get_action_display()} submission {self.submission_id}"


class PendingSubmission(Submission):
    """Submissions awaiting review (the admin queue only): approved or rejected through
    leaderboard.moderation.review, never edited."""

    class Meta:
        proxy = True
        verbose_name = "submission awaiting review"
        verbose_name_plural = "submissions awaiting review"


class SessionScore(models.Model):
    """One session's own contribution to the signal boards, scored once (issue 14).

    Written by leaderboard.signalboard.scoring for every session that has none yet (or
    one of an older `version`); a signal recompute aggregates these rows and never reads
    turns again. The model, scenario, confirmation and counting status are joined from
    the session when aggregating, so a model merge or a withdrawal needs no rescoring.
    Edits to a scored session's turns, tool calls or toolset delete its row (database
    triggers of migration 0013), so the next recompute scores it afresh. The foreign key
    cascades in the database too: raw deletes of sessions take their scores with them.
    """

    session = models.OneToOneField(
        "ingestion.Session",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="score",
        # Declared by migration 0013 with ON DELETE CASCADE (Django 5.2 cannot).
        db_constraint=False,
    )
    version = models.PositiveSmallIntegerField()
    scored_at = models.DateTimeField(db_default=Now())
    # The highest turn and tool-call ids when this row was scored: rows added later to a
    # scored session (an admin edit) are found above them (see scoring.py).
    turns_seen = models.BigIntegerField()
    calls_seen = models.BigIntegerField()
    praise_complaint = models.BooleanField(null=True, help_text="null: not scored")
    assistant_turns = models.PositiveIntegerField()
    effort = models.PositiveIntegerField(help_text="sum of the steering efforts")
    episodes = models.PositiveIntegerField(help_text="bash episodes")
    episode_score = models.FloatField(help_text="sum of the bash episode scores")
    attempts = ArrayField(
        models.PositiveIntegerField(), default=list, help_text="attempts of resolved episodes"
    )
    tool_calls = models.PositiveIntegerField(null=True, help_text="null: no toolset")
    hallucinated = models.PositiveIntegerField()
    shell_calls = models.PositiveIntegerField()
    shell_successes = models.PositiveIntegerField()

    class Meta:
        verbose_name = "session score"

    def __str__(self) -> str:
        return f"score of session {self.session_id} (v{self.version})"
