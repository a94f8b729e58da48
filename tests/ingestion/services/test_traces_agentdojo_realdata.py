"""AgentDojo's published benign runs, end to end: the registry built from its v1.1.2
ground-truth calls and task lists with Arena's suite statement, one pipeline's folder
uploaded, its traces read at ingest, the board. Real data, extracted into a temporary
folder; skipped when the shared folder is absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingestion.importers.agentdojo import task_ids_of_version
from ingestion.importers.references import agentdojo_registry
from ingestion.models import Run, RunTrace
from ingestion.services.intake import NativeSource, submission_ingest
from ingestion.services.registry import registry_load
from ingestion.traces import reference_calls_parse, run_trace, trace_spec_parse
from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.importers.realdata import extracted

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

BASE = Path(__file__).resolve().parents[3] / "ingestion" / "fixtures" / "agentdojo-suite.json"
PIPELINE = "claude-3-7-sonnet-20250219"
# The published results table's benign utility of this pipeline (v1.1.2, 97 user tasks).
PUBLISHED_UTILITY = 0.8866


@pytest.fixture
def pipeline(tmp_path, submitter):
    members = ("agentdojo/derived/", f"agentdojo/runs/{PIPELINE}/")
    root = extracted("agentdojo.tar.xz", members, tmp_path) / "agentdojo"
    base = json.loads(BASE.read_text())
    by_version = root / "derived" / "agentdojo_task_ids_by_version.json"
    registry_load(
        data=agentdojo_registry(
            root / "derived" / "agentdojo_v1.1.2_ground_truth_calls.json", by_version,
            suite=base["slug"], version=base["version"], benchmark_version="v1.1.2", base=base,
        )
    )  # fmt: skip
    folder = root / "runs" / PIPELINE
    native = NativeSource(
        format="agentdojo", harness="agentdojo-pipeline", harness_version="0.1.34",
        suite=base["slug"], suite_version=base["version"],
        task_ids=tuple(task_ids_of_version(json.loads(by_version.read_text()), "v1.1.2")),
    )  # fmt: skip
    submission, _ = submission_ingest(
        upload=folder, user=submitter, filename=f"{PIPELINE}.agentdojo", native=native
    )
    assert submission.status == "ingested", submission.errors[:3]
    boards_recompute()
    return base


def test_it_reads_every_benign_run_against_the_ground_truth_calls(pipeline):
    entry = BoardEntry.objects.get(board__slug="agentdojo-v1.1.2", board__snapshot__is_current=True)
    assert (entry.n, round(entry.pass_rate, 4)) == (97, PUBLISHED_UTILITY)
    assert RunTrace.objects.count() == 97
    assert {"tool_f1", "any_order_args", "argument_accuracy"} <= entry.trajectory.keys()
    assert entry.trajectory["tool_f1"]["n"] == 97


def test_free_text_compared_exactly_would_miss_most_successful_runs(pipeline):
    # The seed's pitfall: an e-mail body or a search query worded otherwise is not a
    # wrong call. Under the suite's rules (free text ignored or normalised) more passing
    # runs make every reference call than under exact comparison of every argument.
    exact = trace_spec_parse({**pipeline["trajectory"], "arguments": {"default": "exact"}}, None)
    stated = trace_spec_parse(pipeline["trajectory"], None)
    made = {"exact": 0, "stated": 0}
    passing = Run.objects.filter(outcome="pass").select_related("task")
    for run in passing:
        for name, spec in (("exact", exact), ("stated", stated)):
            reference = reference_calls_parse(run.task.reference_calls, spec)
            score = run_trace(run.trajectory, reference, spec).score
            made[name] += score.figures["write_any_order_args"] == 1.0
    assert made["stated"] > made["exact"]
