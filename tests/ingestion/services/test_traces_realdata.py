"""τ-bench's published gpt-4o airline runs, end to end: the registry built from the file
(its gold actions as reference calls, Arena's airline statement and rules), the native
upload, the traces at ingest, the board. Real data, extracted into a temporary folder;
skipped when the shared folder is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingestion.importers.references import tau_bench_registry
from ingestion.models import Run, RunTrace
from ingestion.services.intake import NativeSource, submission_ingest
from ingestion.services.registry import registry_load
from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.importers.realdata import HARBOR_TAU, extracted

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

BASE = (
    Path(__file__).resolve().parents[3] / "ingestion" / "fixtures" / "tau-bench-airline-suite.json"
)
# The τ-bench README's gpt-4o airline row (pass^1-4), three decimals as published.
README_PASS_HAT_K = {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


@pytest.fixture
def airline(tmp_path, submitter):
    folder = extracted(HARBOR_TAU, ("tau/",), tmp_path)
    results = folder / "tau" / "gpt-4o-airline.json"
    base = json.loads(BASE.read_text())
    registry_load(
        data=tau_bench_registry(results, suite=base["slug"], version=base["version"], base=base)
    )
    native = NativeSource(
        format="tau-bench", harness="tau-tool-calling", harness_version="1.0",
        suite="tau-bench-airline", suite_version="1.0", model="gpt-4o",
    )  # fmt: skip
    submission, _ = submission_ingest(
        upload=results, user=submitter, filename=results.name, native=native
    )
    assert submission.status == "ingested", submission.errors[:3]
    boards_recompute()
    return results, submission


def test_it_reads_every_run_against_its_gold_actions_at_ingest(airline):
    _, submission = airline
    assert RunTrace.objects.filter(run__submission=submission).count() == 200
    entry = BoardEntry.objects.get(
        board__slug="tau-bench-airline-1.0", board__snapshot__is_current=True
    )
    for k, published in README_PASS_HAT_K.items():
        assert round(entry.pass_hat_k[str(k)]["value"], 3) == published
    figures = entry.trajectory
    assert {"tool_f1", "write_same_calls_args", "argument_accuracy"} <= figures.keys()
    for found in figures.values():
        assert found["low"] <= found["value"] <= found["high"]
    assert figures["tool_f1"]["n"] == 200
    assert entry.violations["checked"] == 200


def test_it_keeps_the_published_relation_of_writes_and_reward(airline):
    # τ-bench's reward replays the gold actions: a run whose successful write calls are
    # the gold writes (exact arguments, as a multiset) leaves the same database, so on a
    # task with no required outputs and with reward information it passes.
    results, _ = airline
    items = {(str(i["task_id"]), i["trial"]): i for i in json.loads(results.read_text())}
    checked = 0
    for run in Run.objects.select_related("task", "trace"):
        item = items[(run.task.task_id, run.trial - 1)]  # τ-bench counts trials from 0
        info = item["info"]
        if info.get("task", {}).get("outputs") or not info.get("reward_info"):
            continue
        if run.trace.figures.get("write_same_calls_args") == 1.0:
            checked += 1
            assert run.outcome == "pass", (run.task.task_id, run.trial)
    # Not vacuous: 80 runs here, 25 of them on tasks whose gold writes something.
    assert checked >= 50


def test_it_counts_the_runs_that_broke_each_airline_rule(airline):
    entry = BoardEntry.objects.get(
        board__slug="tau-bench-airline-1.0", board__snapshot__is_current=True
    )
    by_run = {}
    for trace in RunTrace.objects.exclude(violations=[]):
        for violation in trace.violations:
            by_run.setdefault(violation["rule"], set()).add(trace.run_id)
    assert entry.violations.get("rules", {}) == {rule: len(runs) for rule, runs in by_run.items()}
    assert entry.violations["any"] == len(set().union(*by_run.values())) if by_run else 0
