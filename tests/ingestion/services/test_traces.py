"""Traces at ingest: one RunTrace per run of a suite that states something, with the
figures ingestion.traces gives, rolled up in the COPY's transaction."""

from __future__ import annotations

import contextlib
from collections import Counter, defaultdict

from ingestion.models import Run, RunTrace, Submission, TraceRollup, ViolationRollup
from ingestion.services.intake import submission_ingest
from ingestion.services.rollups import rollups_rebuild
from ingestion.traces import reference_calls_parse, run_trace, trace_spec_parse
from tests.builders import harness_manifest, outcomes, tar_gz_bundle
from tests.ingestion.services.trace_builders import (
    GOOD_CANCEL,
    REFERENCES,
    RULES,
    TRAJECTORY,
    load,
    submit_tools,
    tool_run,
    tool_runs,
    tool_suite,
    tool_task,
    turns,
)

SPEC = trace_spec_parse(TRAJECTORY, RULES)


def _rollups():
    figures = sorted(
        TraceRollup.objects.values_list(
            "submission_id",
            "harness_id",
            "model_id",
            "task_id",
            "outcome",
            "figure",
            "total",
            "runs",
        )
    )
    violations = sorted(
        ViolationRollup.objects.values_list(
            "submission_id", "harness_id", "model_id", "task_id", "outcome", "rule", "runs"
        )
    )
    return figures, violations


def test_it_writes_one_trace_per_run_with_the_figures_run_trace_gives(db, submitter):
    load()
    runs = tool_runs()
    submission = submit_tools(submitter, runs)
    traces = {t.run.run_id: t for t in RunTrace.objects.filter(run__submission=submission)
              .select_related("run")}  # fmt: skip
    assert set(traces) == {run["run_id"] for run in runs}
    for line in runs:
        reference = REFERENCES.get(line["task_id"])
        expected = run_trace(
            line["trajectory"],
            reference_calls_parse(reference, SPEC) if reference is not None else None,
            SPEC,
        )
        trace = traces[line["run_id"]]
        if expected.score is None:
            assert trace.figures == {}
            assert trace.reference_calls is None
        else:
            assert trace.figures == expected.score.figures
            assert trace.calls == expected.score.calls
            assert trace.reference_calls == len(reference)
        assert [v["rule"] for v in trace.violations] == [v.rule for v in expected.violations]
    assert traces["r-1"].figures["exact_args"] == 1.0
    assert traces["r-3"].figures["exact_args"] == 0.0
    assert {v["rule"] for v in traces["r-3"].violations} == {"no-delete", "lookup-first"}
    assert traces["r-1"].violations == []


def test_it_checks_rules_only_on_a_suite_without_references(db, submitter):
    tasks = [tool_task(t, reference_calls=None) for t in ("book", "cancel", "chat")]
    load(tool_suite(trajectory=None, tasks=tasks))
    submit_tools(submitter)
    traces = RunTrace.objects.all()
    assert traces.count() == 6
    assert all(t.figures == {} and t.alignment == [] for t in traces)
    assert RunTrace.objects.get(run__run_id="r-3").violations[0]["rule"] in {
        "no-delete",
        "lookup-first",
    }
    assert not TraceRollup.objects.exists()
    assert ViolationRollup.objects.filter(rule="").exists()


def test_it_writes_no_trace_for_a_suite_stating_nothing(
    db, registry, submitter, django_assert_max_num_queries
):
    from tests.builders import submit

    bundle_runs = outcomes("pass", "fail", task="regex-log", trajectory=turns(("bash", {})))
    submit(submitter, bundle_runs)
    assert Run.objects.count() == 2
    assert not RunTrace.objects.exists()
    assert not TraceRollup.objects.exists() and not ViolationRollup.objects.exists()
    # And it costs nothing: no statement is read per run.
    from ingestion.services.traces import Statements, run_traces_write

    statements, ids = Statements.read(), [Submission.objects.get().pk]
    with django_assert_max_num_queries(0):
        assert run_traces_write(submission_ids=ids, statements=statements) == 0


def test_it_rolls_up_what_a_hand_count_gives(db, submitter):
    load()
    runs = tool_runs()
    # A run calling only ignored tools: argument accuracy is undefined (None), not counted.
    runs.append(tool_run("r-7", "book", (("think", {}),), 5, model="m"))
    submission = submit_tools(submitter, runs)
    sums: dict = defaultdict(lambda: [0.0, 0])
    checked: Counter = Counter()
    broke: Counter = Counter()
    for trace in RunTrace.objects.filter(run__submission=submission).select_related("run__task"):
        group = (trace.run.task.task_id, trace.run.outcome)
        for key, value in trace.figures.items():
            if value is not None:
                sums[(*group, key)][0] += value
                sums[(*group, key)][1] += 1
        checked[group] += 1
        rules = {v["rule"] for v in trace.violations}
        broke.update((*group, rule) for rule in rules)
        if rules:
            broke[(*group, "*")] += 1
    figures = {
        (r.task.task_id, r.outcome, r.figure): [r.total, r.runs]
        for r in TraceRollup.objects.select_related("task")
    }
    assert figures == {key: value for key, value in sums.items()}
    assert RunTrace.objects.get(run__run_id="r-7").figures["argument_accuracy"] is None
    assert figures[("book", "pass", "argument_accuracy")][1] == 2  # r-1, r-2; not r-7
    violations = {(r.task.task_id, r.outcome, r.rule): r.runs
                  for r in ViolationRollup.objects.select_related("task")}  # fmt: skip
    expected = {(*group, ""): n for group, n in checked.items()} | dict(broke)
    assert violations == expected
    assert violations[("book", "fail", "*")] == 1
    assert violations[("book", "pass", "")] == 3


def test_it_rebuilds_the_same_rollups(db, submitter):
    load()
    submission = submit_tools(submitter)
    before = _rollups()
    rollups_rebuild(submission_ids=[submission.pk])
    assert _rollups() == before
    rollups_rebuild()
    assert _rollups() == before


def test_it_leaves_no_trace_of_a_rejected_or_duplicate_bundle(db, submitter):
    load()
    runs = tool_runs()
    runs.append(tool_run("r-1", "book", (), 9))  # a duplicate run id: the bundle is refused
    bundle = tar_gz_bundle(harness_manifest("Toolsmith"), runs)
    submission, _ = submission_ingest(upload=bundle, user=submitter)
    assert submission.status != Submission.Status.INGESTED
    assert not Run.objects.exists()
    assert not RunTrace.objects.exists()
    assert not TraceRollup.objects.exists() and not ViolationRollup.objects.exists()


def test_it_leaves_no_trace_of_a_bundle_sent_twice(db, submitter):
    load()
    bundle = tar_gz_bundle(harness_manifest("Toolsmith"), tool_runs())
    submission_ingest(upload=bundle, user=submitter)
    before = (RunTrace.objects.count(), _rollups())
    with contextlib.suppress(Exception):  # refused, or answered with the first one
        submission_ingest(upload=bundle, user=submitter)
    assert Submission.objects.filter(status=Submission.Status.INGESTED).count() == 1
    assert (RunTrace.objects.count(), _rollups()) == before


def test_it_scores_an_empty_reference_as_expecting_no_call(db, submitter):
    load(tool_suite(tasks=[tool_task("chat", reference_calls=[])]))
    submit_tools(submitter, [tool_run("q-1", "chat", ()), tool_run("q-2", "chat", GOOD_CANCEL, 2)])
    quiet, busy = (RunTrace.objects.get(run__run_id=r) for r in ("q-1", "q-2"))
    assert (quiet.reference_calls, quiet.figures["exact_names"]) == (0, 1.0)
    assert busy.figures["exact_names"] == 0.0
    assert [a["status"] for a in busy.alignment] == ["extra"]


def test_it_moves_the_trace_rollups_with_a_merged_model(db, submitter):
    from ingestion.models import LanguageModel
    from ingestion.services.language_models import models_merge

    load()
    submit_tools(submitter)
    source, target = LanguageModel.objects.get(name="m"), LanguageModel.objects.create(name="m2")
    before = [row[:2] + row[3:] for row in _rollups()[0]]
    models_merge(source=source, target=target)
    assert set(TraceRollup.objects.values_list("model_id", flat=True)) == {target.pk}
    assert [row[:2] + row[3:] for row in _rollups()[0]] == before


def test_it_gives_a_run_without_a_trajectory_no_trace(db, submitter):
    # A bundle may leave trajectories out: its runs were never seen to make a call, so
    # they are neither scored nor counted as checked (not "0 of N broke a rule").
    load()
    runs = tool_runs()
    runs[0]["trajectory"] = None
    submission = submit_tools(submitter, runs)
    traced = set(
        RunTrace.objects.filter(run__submission=submission).values_list("run__run_id", flat=True)
    )
    assert traced == {run["run_id"] for run in runs[1:]}


def test_it_scores_each_trace_in_the_pass_over_the_runs_never_reading_them_back(
    db, submitter, monkeypatch
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    load()
    monkeypatch.setattr("ingestion.services.writers.RUN_BATCH", 2)  # traces of 3 batches
    runs = tool_runs()
    with CaptureQueriesContext(connection) as queries:
        submission = submit_tools(submitter, runs)
    read_back = ("r.trajectory", '"ingestion_run"."trajectory"')
    assert not [q["sql"] for q in queries if any(column in q["sql"] for column in read_back)]
    traces = {t.run.run_id: t for t in RunTrace.objects.filter(run__submission=submission)
              .select_related("run")}  # fmt: skip
    for line in runs:  # each trace on its own run, whichever batch it was written in
        reference = REFERENCES.get(line["task_id"])
        expected = run_trace(
            line["trajectory"],
            reference_calls_parse(reference, SPEC) if reference is not None else None,
            SPEC,
        )
        trace = traces[line["run_id"]]
        assert trace.figures == (expected.score.figures if expected.score else {})
        assert [v["rule"] for v in trace.violations] == [v.rule for v in expected.violations]


def test_it_scores_a_trajectory_given_as_a_file_of_the_bundle(db, submitter):
    import json

    from ingestion.services.intake import submission_ingest

    load()
    runs = tool_runs()[:3]
    files = {}
    for run in runs:
        path = f"trajectories/{run['run_id']}.json"
        files[path], run["trajectory"] = json.dumps(run["trajectory"]).encode(), path
    bundle = tar_gz_bundle(harness_manifest("Toolsmith"), runs, extra_files=files)
    submission, _ = submission_ingest(upload=bundle, user=submitter)
    assert submission.status == Submission.Status.INGESTED, submission.errors
    figures = dict(RunTrace.objects.values_list("run__run_id", "figures__exact_args"))
    assert figures == {"r-1": 1.0, "r-2": 1.0, "r-3": 0.0}


def test_it_scores_the_same_traces_when_the_registry_rescores_them(db, submitter):
    from ingestion.services.traces import traces_rescore

    loaded = load()
    submit_tools(submitter)
    fields = ("run__run_id", "figures", "calls", "failed_calls", "alignment", "violations")
    at_ingest = sorted(RunTrace.objects.values_list(*fields))
    before = _rollups()
    suite_ids = list(RunTrace.objects.values_list("run__task__suite_id", flat=True).distinct())
    assert loaded is not None and traces_rescore(suite_ids=suite_ids) == len(at_ingest)
    assert sorted(RunTrace.objects.values_list(*fields)) == at_ingest
    assert _rollups() == before
