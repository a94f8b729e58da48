"""The registry's trace statements: checked and stored, and a suite's runs read again
when they change."""

from __future__ import annotations

import pytest

from ingestion.models import RunTrace, Suite, Task, TraceRollup, ViolationRollup
from ingestion.services.registry import RegistryError, registry_load
from tests.ingestion.services.trace_builders import (
    RULES,
    SUITE,
    TRAJECTORY,
    load,
    submit_tools,
    tool_registry,
    tool_run,
    tool_suite,
    tool_task,
)


def _problems(data) -> list[str]:
    with pytest.raises(RegistryError) as caught:
        registry_load(data=data)
    return caught.value.problems


def _trace_state():
    traces = {
        t.run.run_id: (t.figures, t.violations) for t in RunTrace.objects.select_related("run")
    }
    rollups = sorted(TraceRollup.objects.values_list("task__task_id", "figure", "total", "runs"))
    violations = sorted(ViolationRollup.objects.values_list("task__task_id", "rule", "runs"))
    return traces, rollups, violations


@pytest.mark.parametrize(
    ("suite", "field"),
    [
        (tool_suite(trajectory={"write_tool": ["x"]}), "trajectory"),
        (tool_suite(trajectory=["book_flight"]), "trajectory"),
        (tool_suite(rules=[{"id": "r", "title": "T", "kind": "no_such_kind"}]), "rules"),
        (tool_suite(rules={"id": "r"}), "rules"),
    ],
)
def test_it_refuses_a_bad_statement_naming_the_suite_and_field(db, suite, field):
    problems = _problems(tool_registry(suite))
    assert len(problems) == 1
    assert f"suites[0] ({SUITE} 1.0.0)" in problems[0] or SUITE in problems[0]
    assert field in problems[0]
    assert not Suite.objects.filter(slug=SUITE).exists()


@pytest.mark.parametrize(
    "calls",
    [
        [{"arguments": {}}],
        [{"tool": "cancel", "arguments": ["R1"]}],
        [{"tool": "cancel", "write": "yes"}],
        {"tool": "cancel"},
        [{"tool": "cancel", "argument": {}}],
    ],
)
def test_it_refuses_bad_reference_calls_naming_the_suite_task_and_field(db, calls):
    suite = tool_suite(tasks=[tool_task("book"), tool_task("cancel", reference_calls=calls)])
    problems = _problems(tool_registry(suite))
    assert len(problems) == 1, problems
    assert SUITE in problems[0]
    assert "tasks[1]" in problems[0] and "cancel" in problems[0]
    assert "reference_calls" in problems[0]
    assert not Task.objects.filter(task_id="cancel").exists()


def test_it_stores_the_statements(db):
    load()
    suite = Suite.objects.get(slug=SUITE)
    assert suite.trajectory == TRAJECTORY
    assert suite.rules == RULES
    tasks = {t.task_id: t.reference_calls for t in suite.tasks.all()}
    assert tasks["cancel"] == [{"tool": "cancel", "arguments": {"id": "R1"}}]
    assert tasks["book"][1]["tool"] == "book_flight"
    assert tasks["chat"] is None


def test_it_stores_a_suite_stating_nothing_as_empty(db):
    load({**tool_suite(), "trajectory": None, "rules": None, "tasks": [tool_task("chat")]})
    suite = Suite.objects.get(slug=SUITE)
    assert (suite.trajectory, suite.rules) == ({}, [])


def test_it_changes_nothing_and_rescores_nothing_when_loaded_twice(db, submitter):
    load()
    submit_tools(submitter)
    before = _trace_state()
    rollup_ids = sorted(TraceRollup.objects.values_list("pk", flat=True))
    load()
    assert _trace_state() == before
    # Rescoring deletes and inserts the rollups: the same ids mean none was replaced.
    assert sorted(TraceRollup.objects.values_list("pk", flat=True)) == rollup_ids


def test_it_rescores_a_suite_s_runs_when_a_reference_changes(db, submitter):
    load(tool_suite(), tool_suite("other-bench"))
    submit_tools(submitter)
    other = [tool_run("o-1", "cancel", (("cancel", {"id": "R1"}),), suite="other-bench")]
    submit_tools(submitter, other, harness="Other")
    other_before = RunTrace.objects.get(run__run_id="o-1")
    rollup_ids = set(TraceRollup.objects.values_list("pk", flat=True))
    good = RunTrace.objects.get(run__run_id="r-4", run__task__suite__slug=SUITE)
    assert good.figures["exact_args"] == 1.0
    # The reference now cancels R2: the run that cancelled R1 no longer matches.
    changed = tool_task("cancel", reference_calls=[{"tool": "cancel", "arguments": {"id": "R2"}}])
    load(
        tool_suite(tasks=[tool_task("book"), changed, tool_task("chat")]), tool_suite("other-bench")
    )
    rescored = RunTrace.objects.get(run__run_id="r-4", run__task__suite__slug=SUITE)
    assert rescored.figures["exact_args"] == 0.0
    assert rescored.figures["exact_names"] == 1.0
    exact = TraceRollup.objects.get(
        task__suite__slug=SUITE, task__task_id="cancel", figure="exact_args"
    )
    assert (exact.total, exact.runs) == (0.0, 1)
    # The other suite's trace and rollups are untouched.
    other_after = RunTrace.objects.get(run__run_id="o-1")
    assert other_after.figures == other_before.figures
    other_rollups = set(
        TraceRollup.objects.filter(task__suite__slug="other-bench").values_list("pk", flat=True)
    )
    assert other_rollups and other_rollups <= rollup_ids


def test_it_rescores_when_a_rule_changes(db, submitter):
    load()
    submit_tools(submitter)
    assert ViolationRollup.objects.filter(rule="no-delete").exists()
    rules = [dict(RULES[1])]
    load(tool_suite(rules=rules))
    assert not ViolationRollup.objects.filter(rule="no-delete").exists()
    bad = RunTrace.objects.get(run__run_id="r-3")
    assert {v["rule"] for v in bad.violations} == {"lookup-first"}
    chat = RunTrace.objects.get(run__run_id="r-5")
    assert chat.violations == []


def test_it_drops_the_traces_when_a_suite_stops_stating_anything(db, submitter):
    load()
    submit_tools(submitter)
    tasks = [tool_task(t, reference_calls=None) for t in ("book", "cancel", "chat")]
    load(tool_suite(trajectory=None, rules=None, tasks=tasks))
    assert not RunTrace.objects.exists()
    assert not TraceRollup.objects.exists()
    assert not ViolationRollup.objects.exists()
