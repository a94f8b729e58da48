"""The evidence submitters upload: submissions with their runs and sessions.

Runs, sessions, turns and tool calls are written only by the ingest service through
PostgreSQL COPY, so nothing here may rely on save() or signals. Every length, choice and
bound a bundle value meets here comes from the one table in ingestion/bundles/limits.py,
which the validators read too: what the validator accepts always fits its column.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Coalesce

from ingestion.bundles import limits
from ingestion.models.registry import Harness, LanguageModel, Task


def _choices(qualname: str, values: tuple[str, ...]) -> type[models.TextChoices]:
    """TextChoices of the table's values: member PASS = "pass", label "Pass".

    `qualname` is where the class lives ("Turn.Role"), so that members pickle.
    """
    name = qualname.rsplit(".", 1)[-1]
    members = [(value.upper(), value) for value in values]
    return models.TextChoices(name, members, module=__name__, qualname=qualname)


class SubmissionQuerySet(models.QuerySet):
    def owned_by(self, user) -> SubmissionQuerySet:
        return self.filter(uploader=user)

    def counting(self) -> SubmissionQuerySet:
        """Submissions whose evidence reaches the boards."""
        return self.filter(status=Submission.Status.INGESTED)


class Submission(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        PROCESSING = "processing"
        INGESTED = "ingested"
        # Stored, but not on any board until a moderator approves it (an account not
        # yet trusted); approval makes it "ingested".
        PENDING_REVIEW = "pending_review"
        REJECTED = "rejected"
        WITHDRAWN = "withdrawn"

    Verification = _choices("Submission.Verification", limits.VERIFICATIONS)

    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions"
    )
    sha256 = models.CharField(max_length=64, unique=True)
    original_name = models.CharField(max_length=255, blank=True)
    size_bytes = models.BigIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    harness = models.ForeignKey(
        Harness, on_delete=models.PROTECT, null=True, blank=True, related_name="submissions"
    )
    manifest = models.JSONField(default=dict, blank=True)
    notes = models.TextField(blank=True)
    runs_count = models.PositiveIntegerField(default=0)
    sessions_count = models.PositiveIntegerField(default=0)
    errors = models.JSONField(
        default=list, blank=True, help_text=f"The first {limits.MAX_REPORTED_ERRORS} errors"
    )
    error_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When its ingest task was last sent (None: never). The sweep sends again only what
    # has waited longer than ARENA_REQUEUE_AFTER_S since, so it never piles up copies.
    enqueued_at = models.DateTimeField(null=True, blank=True)
    # Claims so far: one that keeps killing its worker or losing its database is
    # rejected after ARENA_MAX_INGEST_ATTEMPTS instead of being taken forever.
    attempts = models.PositiveSmallIntegerField(default=0)
    # A native upload (Harbor job archive, τ-bench file) is kept as sent and converted
    # by the worker: its format and what the files do not say (harness, version,
    # contributors, suite, suite_version, model). Empty for an arena bundle.
    native_format = models.CharField(
        max_length=limits.NATIVE_FORMAT_LENGTH,
        blank=True,
        choices=[(name, name) for name in limits.NATIVE_FORMATS],
    )
    native_params = models.JSONField(default=dict, blank=True)
    # What an importer noticed without rejecting: exception classes its table does not
    # know (by class, with counts), trials it refused (another agent's), warnings.
    report = models.JSONField(default=dict, blank=True)
    # Verified: its results files carry a valid signature of an active registered
    # verifier (checked at ingest, and again whenever a verifier is deactivated).
    verifier = models.ForeignKey(
        "ingestion.Verifier",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="submissions",
    )
    verification = models.CharField(
        max_length=limits.VERIFICATION_LENGTH,
        choices=Verification.choices,
        default=Verification.SELF_REPORTED,
    )
    # Nothing new: the same native results again (at another path, archived again), or
    # sessions all stored already, by the same account. Such a submission is "ingested"
    # with no rows of its own (a success, never a rejection) and names the one that
    # holds them; see docs/decisions.md "The same results again".
    duplicate_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="duplicates",
        help_text="the earlier submission of the same account that holds these results",
    )
    # How the runs were made: the manifest's (or for a native upload the converted
    # manifest's) run_config, {} when none is stated. Computed by PostgreSQL from
    # `manifest`, so the two can never disagree; see docs/decisions.md "Run configuration".
    run_config = models.GeneratedField(
        expression=Coalesce(
            KeyTransform("run_config", "manifest"), Value({}, output_field=models.JSONField())
        ),
        output_field=models.JSONField(),
        db_persist=True,
    )

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["uploader", "-created_at"])]

    def __str__(self) -> str:
        return f"Submission {self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status not in {self.Status.QUEUED, self.Status.PROCESSING}

    @property
    def results_noun(self) -> str:
        """ "sessions" for transcripts (signal boards), else "runs"."""
        source = (self.manifest or {}).get("source") or {}
        sessions = self.native_format == "claude-code" or source.get("kind") == "sessions"
        return "sessions" if sessions else "runs"

    @property
    def summary(self) -> str:
        """What the upload added, in words, where its counts do not say it: nothing new
        (and which submission holds its results), or how many stored sessions grew."""
        if self.duplicate_of_id is not None:
            earlier = self.duplicate_of
            state = earlier.get_status_display().lower()
            state = "" if earlier.status == self.Status.INGESTED else f" ({state})"
            return (
                f"nothing new: these {self.results_noun} are already submission {earlier.pk}{state}"
            )
        grown = (self.report or {}).get("grown")
        if not grown:
            return ""
        count, turns, held = (
            grown["sessions"],
            grown["turns"],
            sorted(grown["submissions"], key=int),
        )
        where = ", ".join(f"submission {pk}" for pk in held)
        new = f"{self.sessions_count} new session{'s' * (self.sessions_count != 1)}"
        return (
            f"{count} session{'s' * (count != 1)} grew by {turns} turn{'s' * (turns != 1)}"
            f" (stored in {where}), {new}"
        )


Outcome = _choices("Outcome", limits.OUTCOMES)
InfraErrorKind = _choices("InfraErrorKind", limits.INFRA_ERRORS)


def run_range_constraints() -> list[models.CheckConstraint]:
    """The database refuses what the validator refuses: one range per bounded number
    of a run (from the limits table), its timestamps and its duration."""
    constraints = []
    for bound in limits.FIELDS.values():
        model, column = bound.column.split(".")
        if model == "Run" and bound.le is not None:
            in_range = {f"{column}__gte": bound.ge, f"{column}__lte": bound.le}
            constraints.append(
                models.CheckConstraint(
                    condition=Q(**{f"{column}__isnull": True}) | Q(**in_range),
                    name=f"run_{column}_range",
                )
            )
    for column in ("started_at", "finished_at"):
        in_range = {f"{column}__gte": limits.TIMESTAMP_MIN, f"{column}__lt": limits.TIMESTAMP_MAX}
        constraints.append(
            models.CheckConstraint(
                condition=Q(**{f"{column}__isnull": True}) | Q(**in_range),
                name=f"run_{column}_range",
            )
        )
    longest = timedelta(seconds=limits.RUN_DURATION_MAX_S)
    constraints.append(
        models.CheckConstraint(
            condition=Q(started_at__isnull=True)
            | Q(finished_at__isnull=True)
            | Q(finished_at__gte=F("started_at"), finished_at__lte=F("started_at") + longest),
            name="run_duration_range",
        )
    )
    return constraints


class Run(models.Model):
    """One trial of one agent (harness + model) on one task, from one submission."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="runs")
    run_id = models.CharField(max_length=limits.RUN_ID_LENGTH)
    # The trial's identity where it was produced (bundle field `source_id`); blank when
    # the bundle gives none. Unique per harness: the same trial never counts twice.
    source_key = models.CharField(max_length=limits.SOURCE_ID_LENGTH, blank=True)
    # harness is the submission's, repeated here so board aggregates group one table.
    harness = models.ForeignKey(Harness, on_delete=models.PROTECT, related_name="runs")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="runs")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="runs")
    trial = models.PositiveIntegerField()
    outcome = models.CharField(max_length=limits.OUTCOME_LENGTH, choices=Outcome.choices)
    infra_error = models.CharField(
        max_length=limits.INFRA_ERROR_LENGTH, choices=InfraErrorKind.choices, blank=True
    )
    cost_usd = models.FloatField(null=True, blank=True)
    tokens_input = models.BigIntegerField(null=True, blank=True)
    tokens_output = models.BigIntegerField(null=True, blank=True)
    tokens_cached = models.BigIntegerField(null=True, blank=True)
    steps = models.IntegerField(null=True, blank=True)
    tool_calls = models.IntegerField(null=True, blank=True)
    ttft_ms = models.IntegerField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    checkpoints_passed = models.IntegerField(null=True, blank=True)
    checkpoints_total = models.IntegerField(null=True, blank=True)
    verifier = models.JSONField(null=True, blank=True)
    trajectory = models.JSONField(null=True, blank=True)
    extra = models.JSONField(default=dict, blank=True, help_text="Fields the format does not name")

    class Meta:
        ordering = ["submission", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "run_id"], name="run_submission_run_id_unique"
            ),
            models.UniqueConstraint(
                fields=["harness", "source_key"],
                condition=~Q(source_key=""),
                name="run_harness_source_key_unique",
            ),
            models.CheckConstraint(
                condition=Q(outcome__in=list(limits.OUTCOMES)), name="run_outcome_valid"
            ),
            models.CheckConstraint(
                condition=Q(outcome="infra_error", infra_error__in=list(limits.INFRA_ERRORS))
                | (~Q(outcome="infra_error") & Q(infra_error="")),
                name="run_infra_error_iff_outcome",
            ),
            *run_range_constraints(),
        ]
        indexes = [models.Index(fields=["harness", "model", "task"])]

    def __str__(self) -> str:
        return self.run_id

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class RunTrace(models.Model):
    """A run's trace read against its task's reference calls and its suite's rules,
    once, at ingest (or again when the registry changes them): ingestion.traces."""

    run = models.OneToOneField(
        Run, on_delete=models.CASCADE, primary_key=True, related_name="trace"
    )
    # ingestion.traces.figures key -> 1.0/0.0 (a match) or a share; None: undefined.
    # Empty when the task has no reference calls (rules only).
    figures = models.JSONField(default=dict, blank=True)
    calls = models.IntegerField(default=0)
    reference_calls = models.IntegerField(null=True)
    failed_calls = models.IntegerField(default=0)
    ignored_calls = models.IntegerField(default=0)
    # The agent's calls against the reference, for the run page: [{status, reference,
    # position, differing}].
    alignment = models.JSONField(default=list, blank=True)
    # [{rule, position, message}]: every call that broke a rule of the suite; None when
    # the suite states no rule (nothing was checked).
    violations = models.JSONField(null=True, blank=True)

    def __str__(self) -> str:
        return f"trace of run {self.run_id}"


Scenario = _choices("Scenario", limits.SCENARIOS)


class Session(models.Model):
    """One user task with one model, over many turns (for the signal boards)."""

    Confirmation = _choices("Session.Confirmation", limits.CONFIRMATIONS)

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="sessions")
    session_id = models.CharField(max_length=limits.SESSION_ID_LENGTH)
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="sessions")
    scenario = models.CharField(
        max_length=limits.SCENARIO_LENGTH, choices=Scenario.choices, blank=True
    )
    user_hash = models.CharField(
        max_length=64, blank=True, help_text="Salted SHA-256, never the raw id"
    )
    confirmation = models.CharField(
        max_length=limits.CONFIRMATION_LENGTH, choices=Confirmation.choices, blank=True
    )
    toolset = models.JSONField(null=True, blank=True)
    extra = models.JSONField(default=dict, blank=True)
    # The session's identity where it was recorded (bundle field `source_id`, such as
    # a Claude Code sessionId); blank when not given. A session is stored once.
    source_key = models.CharField(max_length=limits.SOURCE_ID_LENGTH, blank=True)
    # The agent that ran the session, when the bundle names it: a maintained
    # Harness row, whose name and version are the agent and its version.
    agent = models.ForeignKey(
        Harness,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="agent_sessions",
        help_text="the harness version the session ran, when the bundle names it",
    )

    class Meta:
        ordering = ["submission", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "session_id"], name="session_submission_session_id_unique"
            ),
            models.UniqueConstraint(
                fields=["source_key"],
                condition=~Q(source_key=""),
                name="session_source_key_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.session_id


class Turn(models.Model):
    Role = _choices("Turn.Role", limits.ROLES)
    Label = _choices("Turn.Label", limits.LABELS)
    LabelSource = _choices("Turn.LabelSource", limits.LABEL_SOURCES)

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=limits.ROLE_LENGTH, choices=Role.choices)
    text = models.TextField(blank=True)
    # A user turn's labels, a set (no repeats, in the table's order); empty: none of
    # them, or not labelled yet (then label_source is blank).
    labels = ArrayField(
        models.CharField(max_length=limits.LABEL_LENGTH, choices=Label.choices),
        default=list,
        blank=True,
    )
    # Blank on assistant and tool turns; on user turns, where the labels came from.
    label_source = models.CharField(
        max_length=limits.LABEL_SOURCE_LENGTH, choices=LabelSource.choices, blank=True
    )
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "position"], name="turn_session_position_unique"
            ),
            # Every element is a label of the table (COPY bypasses the field's choices).
            models.CheckConstraint(
                condition=Q(labels__contained_by=list(limits.LABELS)), name="turn_labels_known"
            ),
        ]
        indexes = [
            # The user turns still waiting for the extractor (leaderboard.signalboard.
            # labels): found without reading every turn at each signal recompute.
            models.Index(
                fields=["session"],
                name="turn_unlabelled_user",
                condition=Q(role="user", label_source=""),
            )
        ]

    def __str__(self) -> str:
        return f"{self.role} turn {self.position}"


class ToolCall(models.Model):
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="calls")
    position = models.PositiveIntegerField()
    tool = models.CharField(max_length=limits.TOOL_NAME_LENGTH)
    arguments = models.JSONField(default=dict, blank=True)
    exit_code = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["turn", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["turn", "position"], name="toolcall_turn_position_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tool} (exit {self.exit_code})"
