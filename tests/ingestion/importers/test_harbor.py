"""Harbor job folders (ingestion/importers/harbor.py) become valid bundles.

Pure conversion, no database: every converted archive is read back through the real
bundle reader (`open_bundle`), so "valid arena-bundle/1" is checked, not assumed.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest

from ingestion.bundles import BundleRejected
from ingestion.importers import convert_harbor, harbor_outcome
from tests.ingestion.importers.builders import (
    HARNESS,
    TB,
    harbor,
    job_folder,
    read_back,
    trial_result,
)

# --------------------------------------------------------------------- harbor


def test_it_converts_a_harbor_job_folder_into_a_valid_bundle(tmp_path):
    job = job_folder(
        tmp_path,
        {
            "fix-git__Ab3dE7x": trial_result("fix-git", "fix-git__Ab3dE7x", reward=1.0),
            "regex-log__Qz81mNp": trial_result("regex-log", "regex-log__Qz81mNp", reward=0.0),
        },
    )
    conversion = harbor(job, tmp_path / "out.tar.gz")
    manifest, runs = read_back(tmp_path / "out.tar.gz")

    assert conversion.runs == 2
    assert manifest.harness.name == "Terminus"
    assert manifest.harness.contributors == ["mira.chen"]
    by_task = {run.task_id: run for run in runs}
    passed, failed = by_task["fix-git"], by_task["regex-log"]
    assert (passed.outcome, failed.outcome) == ("pass", "fail")
    assert passed.infra_error is None
    assert (passed.suite, passed.suite_version) == ("terminal-bench", "4.0.0")
    assert passed.model == "anthropic/claude-sonnet-4-5"
    assert (passed.tokens.input, passed.tokens.output, passed.tokens.cached) == (48211, 5120, 30000)
    assert passed.cost_usd == pytest.approx(0.0123)
    assert passed.run_id == "fix-git__Ab3dE7x"
    # the agent's own execution, not the sandbox build before it
    assert passed.started_at.isoformat() == "2025-11-04T18:01:30.123456+00:00"
    assert passed.finished_at.isoformat() == "2025-11-04T18:05:00.654321+00:00"
    assert passed.extra["harbor"]["trial_name"] == "fix-git__Ab3dE7x"
    assert passed.extra["harbor"]["source"] == "fix-git__Ab3dE7x/result.json"
    assert conversion.sources == (
        "job/fix-git__Ab3dE7x/result.json",
        "job/regex-log__Qz81mNp/result.json",
    )


@pytest.mark.parametrize(
    ("exception", "reward", "outcome", "kind"),
    [
        ("RuntimeError", None, "infra_error", "other"),
        ("EnvironmentStartTimeoutError", None, "infra_error", "timeout"),
        ("AgentSetupTimeoutError", None, "infra_error", "timeout"),
        ("VerifierTimeoutError", None, "infra_error", "timeout"),
        ("DaytonaError", None, "infra_error", "other"),
        ("SandboxTimeoutError", None, "infra_error", "timeout"),
        ("DockerComposeError", None, "infra_error", "other"),
        ("RewardFileNotFoundError", None, "infra_error", "other"),
        ("VerifierOutputParseError", None, "infra_error", "other"),
        ("AddTestsDirError", None, "infra_error", "other"),
        ("modal.exception.SandboxTerminatedError", None, "infra_error", "other"),
        ("AgentTimeoutError", None, "fail", None),
        ("AgentTimeoutError", 0.0, "fail", None),
        ("NonZeroAgentExitCodeError", None, "fail", None),
        ("ContextLengthExceededError", None, "fail", None),
        ("ValueError", None, "fail", None),
        # the verifier ran after the agent's timeout and judged the final state
        ("AgentTimeoutError", 1.0, "pass", None),
        (None, 1.0, "pass", None),
        (None, 0.0, "fail", None),
        (None, 0.5, "fail", None),
        (None, 0.9999999999, "pass", None),
        # never verified and nothing went wrong on record: not the agent's failure
        (None, None, "infra_error", "other"),
    ],
)
def test_it_maps_rewards_and_exceptions_to_outcomes(tmp_path, exception, reward, outcome, kind):
    job = job_folder(tmp_path, {"t__1": trial_result(reward=reward, exception=exception)})
    harbor(job, tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.outcome, run.infra_error) == (outcome, kind)
    short = exception.rsplit(".", 1)[-1] if exception else None
    assert harbor_outcome(reward, short) == (outcome, kind)


def test_it_handles_a_missing_verifier_result_and_agent_result(tmp_path):
    result = trial_result(exception="EnvironmentStartTimeoutError", tokens=None, cost=None)
    for key in ("verifier_result", "agent_result", "agent_execution", "verifier"):
        del result[key]
    job = job_folder(tmp_path, {"fix-git__1": result})
    harbor(job, tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.outcome, run.infra_error) == ("infra_error", "timeout")
    assert run.tokens is None and run.cost_usd is None
    # no agent_execution timing: the trial's own span instead
    assert run.started_at.isoformat() == "2025-11-04T18:00:00.000001+00:00"


def test_it_reads_timestamps_without_an_offset_as_utc(tmp_path):
    result = trial_result()
    result["agent_execution"] = {
        "started_at": "2025-11-04T18:01:30.5",
        "finished_at": "2025-11-04T18:05:00",
    }
    harbor(job_folder(tmp_path, {"a__1": result}), tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.finished_at - run.started_at).total_seconds() == 209.5
    assert run.started_at.utcoffset().total_seconds() == 0


def test_it_numbers_trials_per_task_and_model_in_trial_name_order(tmp_path):
    trials = {
        "fix-git__zz": trial_result("fix-git", "fix-git__zz"),
        "fix-git__aa": trial_result("fix-git", "fix-git__aa", reward=0.0),
        "fix-git__mm": trial_result("fix-git", "fix-git__mm"),
        "fix-git__other": trial_result(
            "fix-git", "fix-git__other", model="gpt-5", provider="openai"
        ),
        "regex-log__kk": trial_result("regex-log", "regex-log__kk"),
    }
    harbor(job_folder(tmp_path, trials), tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    numbers = {(r.task_id, r.model, r.run_id): r.trial for r in runs}
    claude = "anthropic/claude-sonnet-4-5"
    assert numbers == {
        ("fix-git", claude, "fix-git__aa"): 1,
        ("fix-git", claude, "fix-git__mm"): 2,
        ("fix-git", claude, "fix-git__zz"): 3,
        ("fix-git", "openai/gpt-5", "fix-git__other"): 1,
        ("regex-log", claude, "regex-log__kk"): 1,
    }


def test_it_skips_the_job_summary_and_files_inside_trial_folders(tmp_path):
    job = job_folder(tmp_path, {"fix-git__1": trial_result()})
    artifacts = job / "fix-git__1" / "artifacts"
    artifacts.mkdir()
    # a task's own output that happens to be called result.json
    (artifacts / "result.json").write_text(json.dumps({"task_name": "not-a-trial"}))
    assert harbor(job, tmp_path / "out.tar.gz").runs == 1


def test_it_finds_trials_of_several_jobs_and_keeps_their_run_ids_apart(tmp_path):
    job_folder(tmp_path / "jobs", {"fix-git__1": trial_result()}, name="job-a")
    job_folder(tmp_path / "jobs", {"fix-git__1": trial_result()}, name="job-b")
    harbor(tmp_path / "jobs", tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert sorted((r.run_id, r.trial) for r in runs) == [
        ("job-a/fix-git__1", 1),
        ("job-b/fix-git__1", 2),
    ]


def test_it_converts_a_single_trial_result_file(tmp_path):
    job = job_folder(tmp_path, {"fix-git__Ab3": trial_result()})
    harbor(job / "fix-git__Ab3" / "result.json", tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert run.run_id == "fix-git__Ab3"


def test_it_sanitizes_and_uniquifies_run_ids(tmp_path):
    long = "x" * 250
    trials = {
        "fix git (retry) é": trial_result(trial_name="fix git (retry) é"),
        f"{long}a": trial_result(trial_name=f"{long}a"),
        f"{long}b": trial_result(trial_name=f"{long}b"),
    }
    harbor(job_folder(tmp_path, trials), tmp_path / "out.tar.gz")
    run_ids = sorted(r.run_id for r in read_back(tmp_path / "out.tar.gz")[1])
    assert run_ids == sorted(["fix-git--retry---", "x" * 200, "x" * 198 + "-2"])


def test_the_model_parameter_names_every_trials_model(tmp_path):
    job = job_folder(tmp_path, {"a__1": trial_result(), "b__1": trial_result(model=None)})
    harbor(job, tmp_path / "out.tar.gz", model="frontier-large")
    assert {r.model for r in read_back(tmp_path / "out.tar.gz")[1]} == {"frontier-large"}


def test_it_drops_a_leading_suite_prefix_from_task_names(tmp_path):
    job = job_folder(tmp_path, {"a__1": trial_result("terminal-bench/fix-git")})
    harbor(job, tmp_path / "out.tar.gz")
    assert read_back(tmp_path / "out.tar.gz")[1][0].task_id == "fix-git"


def test_the_same_folder_gives_the_same_bytes(tmp_path):
    trials = {"fix-git__1": trial_result(), "regex-log__2": trial_result("regex-log", reward=0.0)}
    job = job_folder(tmp_path, trials)
    harbor(job, tmp_path / "one.tar.gz")
    stream = io.BytesIO()
    harbor(job, stream)
    renamed = shutil.copytree(job, tmp_path / "copy-of-the-job")
    harbor(renamed, tmp_path / "two.tar.gz")
    first = (tmp_path / "one.tar.gz").read_bytes()
    assert first == stream.getvalue() == (tmp_path / "two.tar.gz").read_bytes()
    assert first[4:8] == b"\0\0\0\0"  # gzip mtime 0


def test_harbor_errors_name_the_file_and_are_all_reported(tmp_path):
    no_task = trial_result()
    del no_task["task_name"]
    no_model = trial_result(model=None)
    bad_cost = trial_result(cost=-1.0)
    job = job_folder(tmp_path, {"a__1": no_task, "b__1": no_model, "c__1": bad_cost})
    (job / "d__1").mkdir()
    (job / "d__1" / "result.json").write_text('{"task_name": "fix-git", ')
    with pytest.raises(BundleRejected) as info:
        harbor(job, tmp_path / "out.tar.gz")
    errors = {(e.file, e.field) for e in info.value.errors}
    assert errors == {
        ("job/a__1/result.json", "task_name"),
        ("job/b__1/result.json", "agent_info.model_info"),
        ("job/c__1/result.json", "agent_result.cost_usd"),
        ("job/d__1/result.json", ""),
    }
    assert all(e.line is None for e in info.value.errors)
    assert "not valid JSON" in str(info.value)
    assert not (tmp_path / "out.tar.gz").exists()


def test_nan_in_a_result_is_an_error_not_a_number(tmp_path):
    job = job_folder(tmp_path, {"a__1": trial_result()})
    text = (
        (job / "a__1" / "result.json").read_text().replace('"cost_usd": 0.0123', '"cost_usd": NaN')
    )
    (job / "a__1" / "result.json").write_text(text)
    with pytest.raises(BundleRejected, match="NaN"):
        harbor(job, tmp_path / "out.tar.gz")


def test_a_folder_without_trials_is_rejected(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleRejected, match=r"no Harbor trial result\.json"):
        harbor(tmp_path / "empty", tmp_path / "out.tar.gz")


def test_it_needs_the_harness_and_suite(tmp_path):
    job = job_folder(tmp_path, {"a__1": trial_result()})
    with pytest.raises(ValueError, match="harness"):
        convert_harbor(job, harness={"name": "X"}, **TB, out=tmp_path / "o.tar.gz")
    with pytest.raises(ValueError, match="suite"):
        convert_harbor(job, harness=HARNESS, suite="", suite_version="1", out=tmp_path / "o")
