"""What Arena knows: the registry (suites, tasks, people, harnesses, models) and the
evidence submitters upload (submissions with their runs and sessions).

Runs, sessions, turns and tool calls are written only by the ingest service through
PostgreSQL COPY, so nothing here may rely on save() or signals.

Every length, choice and bound a bundle value meets here comes from the one table in
ingestion/bundles/limits.py, which the validators read too: what the validator
accepts always fits its column.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ingestion.bundles import limits


def _choices(qualname: str, values: tuple[str, ...]) -> type[models.TextChoices]:
    """TextChoices of the table's values: member PASS = "pass", label "Pass".

    `qualname` is where the class lives ("Turn.Role"), so that members pickle.
    """
    name = qualname.rsplit(".", 1)[-1]
    members = [(value.upper(), value) for value in values]
    return models.TextChoices(name, members, module=__name__, qualname=qualname)


class Person(models.Model):
    """A task author and/or a harness contributor, known by a handle (`mira.chen`)."""

    handle = models.CharField(max_length=limits.HANDLE_LENGTH, unique=True)
    display_name = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["handle"]
        verbose_name_plural = "people"

    def __str__(self) -> str:
        return self.handle


class Suite(models.Model):
    slug = models.SlugField(max_length=100)
    version = models.CharField(max_length=50)
    name = models.CharField(max_length=200)
    official = models.BooleanField(default=False)
    execution = models.TextField(blank=True, help_text="Execution profile")
    scoring = models.TextField(blank=True)
    limitations = models.TextField(blank=True)

    class Meta:
        ordering = ["slug", "version"]
        constraints = [
            models.UniqueConstraint(fields=["slug", "version"], name="suite_slug_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def board_slug(self) -> str:
        return f"{self.slug}-{self.version}"


class Category(models.Model):
    """A task category; `coding` puts its tasks on the Coding board."""

    name = models.SlugField(max_length=100, unique=True)
    coding = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class TaskQuerySet(models.QuerySet):
    def approved_official(self) -> TaskQuerySet:
        return self.filter(approved=True, suite__official=True)

    def approved_lookup(self) -> dict[tuple[str, str, str], int]:
        """(suite slug, suite version, task id) -> primary key, for approved tasks."""
        rows = self.filter(approved=True).values_list(
            "suite__slug", "suite__version", "task_id", "pk"
        )
        return {(slug, version, task_id): pk for slug, version, task_id, pk in rows}


class Task(models.Model):
    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="tasks")
    task_id = models.CharField(max_length=200)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="tasks")
    approved = models.BooleanField(default=True)
    authors = models.ManyToManyField(Person, blank=True, related_name="authored_tasks")

    objects = TaskQuerySet.as_manager()

    class Meta:
        ordering = ["suite", "task_id"]
        constraints = [
            models.UniqueConstraint(fields=["suite", "task_id"], name="task_suite_task_id_unique")
        ]

    def __str__(self) -> str:
        return f"{self.suite.slug} {self.suite.version}/{self.task_id}"


class Harness(models.Model):
    """An agent framework at one version; `minimal_baseline` marks the Minimal harness."""

    name = models.CharField(max_length=limits.HARNESS_NAME_LENGTH)
    version = models.CharField(max_length=limits.HARNESS_VERSION_LENGTH)
    contributors = models.ManyToManyField(Person, blank=True, related_name="harnesses")
    minimal_baseline = models.BooleanField(default=False)
    url = models.URLField(max_length=limits.HARNESS_URL_LENGTH, blank=True)

    class Meta:
        ordering = ["name", "version"]
        verbose_name_plural = "harnesses"
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="harness_name_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


class LanguageModel(models.Model):
    """The model an agent drives (`frontier-large`); provider and prices are optional."""

    name = models.CharField(max_length=limits.MODEL_NAME_LENGTH, unique=True)
    provider = models.CharField(max_length=100, blank=True)
    input_price_per_mtok = models.DecimalField(
        max_digits=10, decimal_places=4, null=True, blank=True
    )
    output_price_per_mtok = models.DecimalField(
        max_digits=10, decimal_places=4, null=True, blank=True
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "model"

    def __str__(self) -> str:
        return self.name


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
        REJECTED = "rejected"
        WITHDRAWN = "withdrawn"

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

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["uploader", "-created_at"])]

    def __str__(self) -> str:
        return f"Submission {self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status not in {self.Status.QUEUED, self.Status.PROCESSING}


Outcome = _choices("Outcome", limits.OUTCOMES)
InfraErrorKind = _choices("InfraErrorKind", limits.INFRA_ERRORS)


class Run(models.Model):
    """One trial of one agent (harness + model) on one task, from one submission."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="runs")
    run_id = models.CharField(max_length=limits.RUN_ID_LENGTH)
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
            models.CheckConstraint(
                condition=Q(outcome__in=list(limits.OUTCOMES)), name="run_outcome_valid"
            ),
            models.CheckConstraint(
                condition=Q(outcome="infra_error", infra_error__in=list(limits.INFRA_ERRORS))
                | (~Q(outcome="infra_error") & Q(infra_error="")),
                name="run_infra_error_iff_outcome",
            ),
            models.CheckConstraint(
                condition=Q(cost_usd__isnull=True) | Q(cost_usd__gte=limits.COST_MIN),
                name="run_cost_non_negative",
            ),
        ]
        indexes = [models.Index(fields=["harness", "model", "task"])]

    def __str__(self) -> str:
        return self.run_id

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


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

    class Meta:
        ordering = ["submission", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "session_id"], name="session_submission_session_id_unique"
            )
        ]

    def __str__(self) -> str:
        return self.session_id


class Turn(models.Model):
    Role = _choices("Turn.Role", limits.ROLES)
    Label = _choices("Turn.Label", limits.LABELS)

    class LabelSource(models.TextChoices):
        BUNDLE = "bundle"
        EXTRACTOR = "extractor"

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=limits.ROLE_LENGTH, choices=Role.choices)
    text = models.TextField(blank=True)
    label = models.CharField(max_length=limits.LABEL_LENGTH, choices=Label.choices, blank=True)
    # Blank on assistant and tool turns; on user turns, where the label came from.
    label_source = models.CharField(max_length=10, choices=LabelSource.choices, blank=True)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "position"], name="turn_session_position_unique"
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
