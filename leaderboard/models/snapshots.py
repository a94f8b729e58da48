"""Board snapshots: what visitors read, and the recompute bookkeeping behind them.

A recompute writes a complete new snapshot and makes it current in one transaction,
so readers never see a half-built board and never wait for a recompute.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now

from ingestion.bundles import limits


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
    own transaction (leaderboard.recompute.receivers).

    A recompute claims the rows it covers and deletes them in the transaction that makes
    its snapshot current, so a crash, a lost task or a broker outage leaves them for the
    next run (or the periodic sweep).
    """

    # The harnesses whose runs changed; null when anything may have changed.
    harness_ids = ArrayField(models.BigIntegerField(), null=True, blank=True)
    sessions = models.BooleanField(default=False)
    # Why (ingestion.evidence.EvidenceCause): the snapshot that covers the request keeps
    # it (leaderboard.history), so the change log can say why a figure moved.
    cause_kind = models.CharField(max_length=20, blank=True, default="")
    cause_record_id = models.BigIntegerField(null=True, blank=True)
    cause_label = models.CharField(max_length=200, blank=True, default="")
    # The database's clock, so the debounce compares times from one clock.
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        scope = "everything" if self.harness_ids is None else f"harnesses {self.harness_ids}"
        return f"recompute {scope}{' and sessions' if self.sessions else ''}"


class SnapshotQuerySet(models.QuerySet):
    def current(self) -> BoardSnapshot | None:
        return self.filter(is_current=True).first()


class BoardSnapshot(models.Model):
    computed_at = models.DateTimeField()
    is_current = models.BooleanField(default=False)
    duration_ms = models.PositiveIntegerField(default=0)
    runs_total = models.PositiveIntegerField(default=0)
    sessions_total = models.PositiveIntegerField(default=0)
    # The safety boards of this snapshot, [slug, title, suite board slug] in tab order
    # (leaderboard.boards.safety): read with the boards, so their tabs cost no query.
    safety_boards = models.JSONField(default=list, blank=True)

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
    # Some entry's bootstrap and clustered intervals are still being computed after the
    # swap (leaderboard.recompute.intervals): the page and the API say so until they land.
    intervals_pending = models.BooleanField(default=False)

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
    # cost_per_success is at list prices; the submitters' own cost_usd gives this one.
    reported_cost_per_success = models.FloatField(null=True)
    reported_cost_per_success_status = models.CharField(max_length=20, default="")
    # The two differ by more than methodology.stats.COST_DISAGREEMENT.
    cost_disagrees = models.BooleanField(default=False)
    # Who and when, the registry's when the entry was computed (boards.compute.ABOUT_FIELDS).
    model_organisation = models.CharField(max_length=100, blank=True, default="")
    open_weights = models.BooleanField(null=True)
    model_release_date = models.DateField(null=True)
    knowledge_cutoff = models.DateField(null=True)
    harness_organisation = models.CharField(max_length=100, blank=True, default="")
    harness_open_source = models.BooleanField(null=True)
    # The counted runs on tasks published after the model's knowledge cutoff
    # (boards.compute.after_cutoff); all null without both dates.
    after_cutoff_tasks = models.PositiveIntegerField(null=True)
    after_cutoff_n = models.PositiveIntegerField(null=True)
    after_cutoff_passes = models.PositiveIntegerField(null=True)
    after_cutoff_pass_rate = models.FloatField(null=True)
    after_cutoff_low = models.FloatField(null=True)
    after_cutoff_high = models.FloatField(null=True)
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
    # "verified" when every counted run comes from a Verified submission.
    verification = models.CharField(
        max_length=limits.VERIFICATION_LENGTH, default=limits.VERIFICATIONS[0]
    )
    # the ranks the Wilson interval allows (null when unranked), and whether
    # that range overlaps the leader's (leaderboard.methodology.uncertainty).
    rank_best = models.PositiveIntegerField(null=True, blank=True)
    rank_worst = models.PositiveIntegerField(null=True, blank=True)
    tied_with_leader = models.BooleanField(default=False)
    # Coverage (methodology §2.6): the board's tasks with counted runs of this entry, out
    # of the board's tasks less those conflict-excluded for its harness. Only a complete
    # entry is ranked.
    coverage_tasks = models.PositiveIntegerField(default=0)
    coverage_of = models.PositiveIntegerField(default=0)
    # The run configurations of its counted submissions (distinct, usually one) against
    # their suites' standards (leaderboard.boards.run_configs): the status, the
    # "non-standard: …" and "not stated: …" texts.
    run_configs = models.JSONField(default=list)
    run_config_status = models.CharField(max_length=20, default="", blank=True)
    run_config_summary = models.TextField(default="", blank=True)
    run_config_unstated = models.TextField(default="", blank=True)
    # 95% intervals of the means, clustered by task; mean latency beside p50/p95.
    partial_score_low = models.FloatField(null=True)
    partial_score_high = models.FloatField(null=True)
    mean_steps_low = models.FloatField(null=True)
    mean_steps_high = models.FloatField(null=True)
    mean_tool_calls_low = models.FloatField(null=True)
    mean_tool_calls_high = models.FloatField(null=True)
    ttft_ms_mean = models.FloatField(null=True)
    ttft_ms_mean_low = models.FloatField(null=True)
    ttft_ms_mean_high = models.FloatField(null=True)
    duration_s_mean = models.FloatField(null=True)
    duration_s_mean_low = models.FloatField(null=True)
    duration_s_mean_high = models.FloatField(null=True)
    # Its runs' traces (leaderboard.boards.traces): trajectory figure key -> {value, low,
    # high, n}; violations {checked: runs checked, rules: {rule id: runs that broke it}}.
    trajectory = models.JSONField(default=dict)
    violations = models.JSONField(default=dict)
    # Its time horizon (leaderboard.boards.horizons): {mode, p50, p80, p50_low, p50_high,
    # p80_low, p80_high, slope, tasks, runs, degenerate} in minutes; {}: fewer than two
    # counted tasks with human minutes.
    horizon = models.JSONField(default=dict)
    # Its interval bounds (pass^k and pass@k, the means', the horizon's) are computed
    # after the snapshot is swapped in, and are null until then (recompute.intervals).
    intervals_pending = models.BooleanField(default=False)

    class Meta:
        ordering = ["board", "position"]
        verbose_name_plural = "board entries"

    def __str__(self) -> str:
        return f"{self.harness_name} {self.harness_version} · {self.model_name}"

    @property
    def complete(self) -> bool:
        return self.coverage_tasks >= self.coverage_of


class SignalEntry(models.Model):
    """One model on the signal board, for one slice (composite, a scenario or a
    capability signal: methodology §3.1–3.2)."""

    class SliceKind(models.TextChoices):
        COMPOSITE = "composite"
        SCENARIO = "scenario"
        CAPABILITY = "capability"

    class By(models.TextChoices):
        """What a row stands for: a model, or an agent version."""

        MODEL = "model"
        AGENT = "agent"

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
    # Rows of the agent view are keyed by harness name and version (model_name then
    # holds both, for display); blank on the model view's rows.
    by = models.CharField(max_length=5, choices=By.choices, default=By.MODEL)
    harness_name = models.CharField(max_length=limits.HARNESS_NAME_LENGTH, blank=True)
    harness_version = models.CharField(max_length=limits.HARNESS_VERSION_LENGTH, blank=True)

    class Meta:
        ordering = ["snapshot", "scope", "position"]
        verbose_name_plural = "signal entries"
        indexes = [
            models.Index(
                fields=["snapshot", "by", "slice_kind", "scope", "position"],
                name="signalentry_view_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.model_name} ({self.scope})"
