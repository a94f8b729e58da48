"""Rollups: what the boards need from the runs, kept per group and written at ingest.

A board recompute reads these, never the runs table, so its cost grows with the number
of groups, not of runs (docs/decisions.md "Rollups"). They are written by
ingestion.services.rollups in the transaction that COPYs the runs, rebuilt from the runs
when runs change owner or model, and always equal to a rebuild from the runs
(`manage.py rollups_rebuild`). Which of them count (submission status, conflicts, task
approval, boards) is decided when the boards read them, so withdrawals, restores and
decisions never rewrite a rollup.

Each latency figure (TTFT, duration) is stored as a mergeable histogram
(ingestion.rollups.sketch): bucket keys, their counts, and the values themselves while
the group is small.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models

from ingestion.bundles import limits
from ingestion.models.evidence import Submission
from ingestion.models.registry import Category, Harness, LanguageModel, Suite, Task


class ExactSum(models.Field):
    """PostgreSQL `numeric` with no precision limit: sums stay exact to the last digit."""

    def db_type(self, connection) -> str:
        return "numeric"


def _keys() -> ArrayField:
    return ArrayField(models.IntegerField(), null=True)


def _values() -> ArrayField:
    return ArrayField(models.FloatField(), null=True)


class LatencyColumns(models.Model):
    """TTFT (ms) and duration (s): how many runs have one, their histogram, and their
    values while at most ingestion.rollups.sketch.SMALL_GROUP_RUNS."""

    ttft_n = models.IntegerField(default=0)
    ttft_keys = _keys()
    ttft_counts = _keys()
    ttft_values = _values()
    duration_n = models.IntegerField(default=0)
    duration_keys = _keys()
    duration_counts = _keys()
    duration_values = _values()

    class Meta:
        abstract = True


class RunRollup(LatencyColumns):
    """The runs of one submission for one (harness, model, task, outcome) on one UTC
    date (the run's start, else its submission's upload): the price list is priced per
    date, so the boards price a group's token sums with the period in force on it."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    harness = models.ForeignKey(Harness, on_delete=models.PROTECT, related_name="+")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="+")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="+")
    outcome = models.CharField(max_length=limits.OUTCOME_LENGTH)
    # The task's suite and category when the rollup was written: the boards correct
    # for a task the registry has since moved (see leaderboard.boards.latency).
    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="+")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="+")
    run_date = models.DateField(null=True)
    runs = models.IntegerField()
    cost = ExactSum(null=True)
    priced = models.IntegerField()
    tokens = ExactSum(null=True)
    tokened = models.IntegerField()
    # Token sums of the `tokened` runs (cached: those of their input tokens read from
    # the cache, part of input), what the list price multiplies.
    tokens_input = ExactSum(null=True)
    tokens_output = ExactSum(null=True)
    tokens_cached = ExactSum(null=True)
    steps = models.BigIntegerField(null=True)
    steps_n = models.IntegerField()
    tool_calls = models.BigIntegerField(null=True)
    tool_calls_n = models.IntegerField()
    partial = ExactSum(null=True)
    partial_n = models.IntegerField()
    # Exact sums of the latencies (over ttft_n and duration_n runs): the boards' mean
    # latency and its interval clustered by task.
    ttft_sum = ExactSum(null=True)
    duration_sum = ExactSum(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "harness", "model", "task", "outcome", "run_date"],
                name="runrollup_group_unique",
                nulls_distinct=False,
            )
        ]
        indexes = [models.Index(fields=["harness"], name="runrollup_harness")]

    def __str__(self) -> str:
        return f"{self.runs} {self.outcome} runs of submission {self.submission_id}"


class LatencyRollup(LatencyColumns):
    """The counted-outcome (pass, fail) latencies of one submission's runs for one
    (harness, model) over the tasks of one (suite, category): what the percentiles of a
    board add up, a few rows per agent whatever the number of runs."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    harness = models.ForeignKey(Harness, on_delete=models.PROTECT, related_name="+")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="+")
    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="+")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "harness", "model", "suite", "category"],
                name="latencyrollup_group_unique",
            )
        ]
        indexes = [models.Index(fields=["harness"], name="latencyrollup_harness")]

    def __str__(self) -> str:
        return f"latencies of submission {self.submission_id}, suite {self.suite_id}"


class TraceRollup(models.Model):
    """One trajectory figure of one submission's runs for one (harness, model, task,
    outcome): its sum and the number of runs where it is defined. The boards add these
    up per task (the intervals are clustered by task), never reading the traces."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    harness = models.ForeignKey(Harness, on_delete=models.PROTECT, related_name="+")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="+")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="+")
    outcome = models.CharField(max_length=limits.OUTCOME_LENGTH)
    figure = models.CharField(max_length=limits.TRACE_FIGURE_LENGTH)
    total = models.FloatField()
    runs = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "harness", "model", "task", "outcome", "figure"],
                name="tracerollup_group_unique",
            )
        ]
        indexes = [models.Index(fields=["harness"], name="tracerollup_harness")]

    def __str__(self) -> str:
        return f"{self.figure} over {self.runs} runs of submission {self.submission_id}"


class ViolationRollup(models.Model):
    """How many of one submission's runs for one (harness, model, task, outcome) broke
    one rule of their suite (a run breaking it twice counts once), and how many runs
    were checked at all (rule "") and broke any rule (rule "*")."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    harness = models.ForeignKey(Harness, on_delete=models.PROTECT, related_name="+")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="+")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="+")
    outcome = models.CharField(max_length=limits.OUTCOME_LENGTH)
    rule = models.CharField(max_length=limits.RULE_ID_LENGTH, blank=True)
    runs = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "harness", "model", "task", "outcome", "rule"],
                name="violationrollup_group_unique",
            )
        ]
        indexes = [models.Index(fields=["harness"], name="violationrollup_harness")]

    def __str__(self) -> str:
        return f"{self.runs} runs of submission {self.submission_id}: rule {self.rule!r}"


class SafetyRollup(models.Model):
    """The runs under one attack of one submission for one (harness, model, task): how
    many (`counted`: not infra errors), how many passed the user task, how many breached
    (the injection task was carried out). Written from the runs whose `extra.attack`
    names an attack, which no other rollup holds (ingestion.rollups.safety_sql)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    harness = models.ForeignKey(Harness, on_delete=models.PROTECT, related_name="+")
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="+")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="+")
    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="+")
    attack = models.CharField(max_length=200)
    runs = models.IntegerField()
    counted = models.IntegerField()
    passes = models.IntegerField()
    breaches = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "harness", "model", "task", "attack"],
                name="safetyrollup_group_unique",
            )
        ]
        indexes = [models.Index(fields=["harness"], name="safetyrollup_harness")]

    def __str__(self) -> str:
        return f"{self.runs} runs under {self.attack} of submission {self.submission_id}"
