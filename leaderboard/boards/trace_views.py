"""Reads of the traces for the pages: an agent's rule violations with the runs that broke
them, and one run's calls against its task's reference."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count

from ingestion.models import Harness, LanguageModel, Run, RunTrace, Submission, Suite
from ingestion.rollups.sql import INFRA_ERROR
from ingestion.traces.calls import Call, trajectory_calls
from leaderboard.boards.selectors import excluded_task_ids
from leaderboard.presentation.traces import ALIGNMENT_LABELS

# Runs listed per rule on the agent page; the count above the list is always whole.
RUNS_LISTED = 50


@dataclass
class RuleBreaks:
    """One rule of a suite and the agent's counted runs that broke it."""

    rule: dict
    runs: int = 0
    listed: list[tuple[Run, str]] = field(default_factory=list)


@dataclass(frozen=True)
class SuiteRules:
    suite: Suite
    checked: int
    rules: list[RuleBreaks]


def agent_rule_breaks(harness: Harness, model: LanguageModel) -> list[SuiteRules]:
    """Per suite with rules that the agent has checked runs on: every rule with the
    runs that broke it (the runs its suite's board counts: of ingested submissions,
    approved tasks of official suites, no infra errors, no conflict-excluded task;
    three queries and one per suite)."""
    traces = RunTrace.objects.filter(
        run__harness=harness,
        run__model=model,
        run__submission__status=Submission.Status.INGESTED,
        run__task__approved=True,
        run__task__suite__official=True,
        violations__isnull=False,
    ).exclude(run__outcome=INFRA_ERROR)
    excluded = excluded_task_ids(harness)
    if excluded:
        traces = traces.exclude(run__task_id__in=excluded)
    checked = dict(
        traces.values("run__task__suite_id")
        .annotate(runs=Count("pk"))
        .values_list("run__task__suite_id", "runs")
    )
    found = []
    for suite in Suite.objects.filter(pk__in=checked).order_by("slug", "version"):
        by_rule = {rule.get("id"): RuleBreaks(rule) for rule in suite.rules}
        broken = (
            traces.filter(run__task__suite=suite)
            .exclude(violations=[])
            .select_related("run__task")
            # Only the violations are read: never a run's whole trajectory.
            .only("violations", "run__id", "run__trial", "run__task__id", "run__task__task_id")
            .order_by("run__task_id", "run__trial", "run_id")
        )
        for trace in broken:
            _count(by_rule, trace)
        found.append(SuiteRules(suite, checked[suite.pk], list(by_rule.values())))
    return found


def _count(by_rule: dict[str, RuleBreaks], trace: RunTrace) -> None:
    seen: set[str] = set()
    for violation in trace.violations or ():
        breaks = by_rule.get(violation.get("rule"))
        if breaks is None or violation.get("rule") in seen:
            continue
        seen.add(violation["rule"])
        breaks.runs += 1
        if len(breaks.listed) < RUNS_LISTED:
            breaks.listed.append((trace.run, str(violation.get("message", ""))))


@dataclass(frozen=True)
class AlignedRow:
    status: str
    label: str
    position: int | None
    agent_call: Call | None
    reference_call: dict | None
    differing: tuple[str, ...]


@dataclass(frozen=True)
class RunTraceView:
    trace: RunTrace
    rows: list[AlignedRow]
    # call position -> the rules it broke (rule dicts with the violation's message)
    broken: dict[int, list[dict]]
    rules: dict[str, dict]
    # [{position, rule, title, message}] in call order; None: no rule was checked
    violations: list[dict] | None


def run_trace_view(run: Run) -> RunTraceView | None:
    """The run's trace for its page, or None when it has none."""
    trace = RunTrace.objects.filter(run=run).first()
    if trace is None:
        return None
    calls = _calls(run.trajectory)
    reference = run.task.reference_calls or []
    rows = [
        AlignedRow(
            status=str(item.get("status", "")),
            label=ALIGNMENT_LABELS.get(item.get("status"), str(item.get("status", ""))),
            position=item.get("position"),
            agent_call=_at(calls, item.get("position")),
            reference_call=_at(reference, item.get("reference")),
            differing=tuple(item.get("differing") or ()),
        )
        for item in trace.alignment or ()
        if isinstance(item, dict)
    ]
    rules = {rule.get("id"): rule for rule in run.task.suite.rules}
    broken: dict[int, list[dict]] = {}
    violations = None if trace.violations is None else []
    for violation in trace.violations or ():
        rule = rules.get(violation.get("rule"), {"id": violation.get("rule"), "title": ""})
        message = str(violation.get("message", ""))
        broken.setdefault(violation.get("position"), []).append({**rule, "message": message})
        violations.append(
            {"position": violation.get("position"), "rule": rule.get("id"),
             "title": rule.get("title", ""), "message": message}
        )  # fmt: skip
    return RunTraceView(trace, rows, broken, rules, violations)


def _calls(trajectory) -> list[Call]:
    # The calls as the trace counted them: an alignment position indexes these.
    return trajectory_calls(trajectory) if isinstance(trajectory, list) else []


def _at(items: list, index):
    if isinstance(index, int) and 0 <= index < len(items) and items[index] is not None:
        return items[index]
    return None
