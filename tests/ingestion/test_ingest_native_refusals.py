"""A native upload holding one hostile value is refused whole through `manage.py ingest`:
the submission is rejected with the error at the native file, record and field, and
nothing of it is stored (no runs, no sessions)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from ingestion.models import Run, Session, Submission
from tests.ingestion.importers.builders import job_folder, tau_result, trial_result, write_tau
from tests.ingestion.importers.tau2_builders import tau2_results, tau2_simulation, write_tau2
from tests.ingestion.importers.transcripts.builders import Transcript, text

pytestmark = pytest.mark.django_db(transaction=True)

NATIVE = {
    "harness": "Terminus",
    "harness_version": "2.0.0",
    "suite": "terminal-bench",
    "suite_version": "4.0.0",
    "user": "staff",
}


def refused(path, **options) -> Submission:
    with pytest.raises(SystemExit) as exit_info:
        call_command("ingest", str(path), **options)
    assert exit_info.value.code == 1
    submission = Submission.objects.get()
    assert submission.status == Submission.Status.REJECTED
    assert Run.objects.count() == 0 and Session.objects.count() == 0
    return submission


def places(submission: Submission) -> list[tuple]:
    return [(e["file"], e["line"], e["field"]) for e in submission.errors]


def test_a_harbor_reward_past_one_refuses_the_job(registry, staff, tmp_path):
    bad = trial_result("regex-log", "regex-log__Qz8")
    bad["verifier_result"]["rewards"]["reward"] = 1e308
    job = job_folder(tmp_path, {"fix-git__Ab3": trial_result(), "regex-log__Qz8": bad})

    submission = refused(job, format="harbor", **NATIVE)

    assert places(submission) == [
        ("job/regex-log__Qz8/result.json", None, "verifier_result.rewards.reward")
    ]


def test_a_tau_bench_item_without_info_refuses_the_file(registry, staff, tmp_path):
    item = tau_result("regex-log", 0, 1.0)
    del item["info"]
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0), item])

    submission = refused(path, format="tau-bench", model="frontier-large", **NATIVE)

    assert places(submission) == [(path.name, 2, "info")]


def test_a_tau2_bench_duration_past_any_run_refuses_the_file(registry, staff, tmp_path):
    simulations = [
        tau2_simulation("fix-git", 0, sim_id="sim-a"),
        tau2_simulation("regex-log", 0, sim_id="sim-b", duration=1e308),
    ]
    path = write_tau2(tmp_path, tau2_results(simulations), name="results.json")

    submission = refused(path, format="tau2-bench", **NATIVE)

    assert places(submission) == [("results.json", None, "simulations[1].duration")]


def test_a_claude_code_session_id_too_long_refuses_the_folder(staff, tmp_path):
    transcript = Transcript("s" * 400)
    transcript.prompt("Fix the flaky login test, please.")
    transcript.say(text("I will look at the test first."))
    folder = tmp_path / "project"
    transcript.write(folder, "session.jsonl")

    submission = refused(folder, format="claude-code", user="staff")

    assert places(submission) == [("session.jsonl", 1, "sessionId")]
    assert "must be at most 200 characters (got 400)" in submission.errors[0]["message"]


def test_a_tau_bench_task_id_of_400_characters_is_named_at_its_item(registry, staff, tmp_path):
    # No limit of its own: the registry holds no such task, and the error says where.
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0), tau_result("t" * 400, 0, 1.0)])

    submission = refused(path, format="tau-bench", model="frontier-large", **NATIVE)

    assert places(submission) == [("runs.jsonl", 2, "task_id")]
    message = submission.errors[0]["message"]
    assert "is not in the registry" in message and f"(from {path.name}:2)" in message
