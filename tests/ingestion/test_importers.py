"""Native importers: Harbor job folders and τ-bench result files become valid bundles.

Pure conversion, no database: every converted archive is read back through the real
bundle reader (`open_bundle`), so "valid arena-bundle/1" is checked, not assumed.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ingestion import importers
from ingestion.bundle import BundleLimits, BundleRejected, open_bundle
from ingestion.importers import convert_harbor, convert_tau_bench, detect_format, harbor_outcome
from tests.builders import EXAMPLE_RUN_BUNDLES, harness_manifest, run_line

HARNESS = {"name": "Terminus", "version": "2.0.0", "contributors": ["mira.chen"]}
TB = {"suite": "terminal-bench", "suite_version": "4.0.0"}

# ------------------------------------------------------------------ builders


def trial_result(
    task: str = "fix-git",
    trial_name: str | None = None,
    *,
    reward: float | None = 1.0,
    exception: str | None = None,
    model: str | None = "claude-sonnet-4-5",
    provider: str = "anthropic",
    tokens: tuple[int, int, int] | None = (48211, 5120, 30000),
    cost: float | None = 0.0123,
) -> dict[str, Any]:
    """A Harbor TrialResult as `model_dump_json` writes it (the fields we read, and
    the neighbours they really have)."""
    trial_name = trial_name or f"{task}__Ab3dE7x"
    timing = lambda start, end: {  # noqa: E731
        "started_at": f"2025-11-04T18:{start}.123456Z",
        "finished_at": f"2025-11-04T18:{end}.654321Z",
    }
    return {
        "id": "0f8e6c1e-6f3b-4d4e-9a57-3c1fb0c1e7aa",
        "task_name": task,
        "trial_name": trial_name,
        "trial_uri": f"file:///jobs/2025-11-04__18-00-00/{trial_name}",
        "task_id": {"path": f"tasks/{task}"},
        "source": "terminal-bench",
        "task_checksum": "9c1b8a2a42785eb6",
        "config": {
            "task": {"path": f"tasks/{task}", "git_url": None, "overwrite": False},
            "trial_name": trial_name,
            "trials_dir": "jobs/2025-11-04__18-00-00",
            "timeout_multiplier": 1.0,
            "agent": {
                "name": "terminus-2",
                "import_path": None,
                "model_name": f"{provider}/{model}" if model else None,
                "override_timeout_sec": None,
                "kwargs": {},
            },
            "environment": {"type": "docker", "force_build": False, "delete": True},
            "verifier": {"override_timeout_sec": None, "disable": False},
        },
        "agent_info": {
            "name": "terminus-2",
            "version": "2.0.0",
            "model_info": {"name": model, "provider": provider} if model else None,
        },
        "agent_result": None
        if tokens is None and cost is None
        else {
            "n_input_tokens": tokens[0] if tokens else None,
            "n_cache_tokens": tokens[2] if tokens else None,
            "n_output_tokens": tokens[1] if tokens else None,
            "cost_usd": cost,
            "rollout_details": None,
            "metadata": {"n_episodes": 12},
        },
        "verifier_result": None if reward is None else {"rewards": {"reward": reward}},
        "exception_info": None
        if exception is None
        else {
            "exception_type": exception,
            "exception_message": f"{exception}: something went wrong",
            "exception_traceback": "Traceback (most recent call last): ...",
            "occurred_at": "2025-11-04T18:03:00.000001",
        },
        "started_at": "2025-11-04T18:00:00.000001Z",
        "finished_at": "2025-11-04T18:06:00.000001Z",
        "environment_setup": timing("00:00", "01:00"),
        "agent_setup": timing("01:00", "01:30"),
        "agent_execution": timing("01:30", "05:00"),
        "verifier": timing("05:00", "06:00"),
    }


def job_folder(root: Path, trials: dict[str, dict[str, Any]], name: str = "job") -> Path:
    """A Harbor job folder: config.json, the job summary result.json, one folder per
    trial with its result.json, agent logs and verifier output."""
    job = root / name
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"job_name": name, "n_attempts": 3}))
    summary = {
        "id": "7b1c",
        "started_at": "2025-11-04T18:00:00",
        "finished_at": "2025-11-04T19:00:00",
        "n_total_trials": len(trials),
        "stats": {"n_trials": len(trials), "n_errors": 0, "evals": {}},
    }
    (job / "result.json").write_text(json.dumps(summary))
    (job / "job.log").write_text("started\n")
    for trial_name, result in trials.items():
        folder = job / trial_name
        (folder / "agent").mkdir(parents=True)
        (folder / "verifier").mkdir()
        (folder / "agent" / "trajectory.json").write_text("{}")
        (folder / "verifier" / "reward.txt").write_text("1")
        (folder / "result.json").write_text(json.dumps(result, indent=4))
    return job


def read_back(archive: Path | bytes) -> tuple[dict, list]:
    """(manifest, runs) of a converted bundle, validated by the real reader; every
    task exists (the registry is the database's business, not the importer's)."""
    with open_bundle(archive, limits=BundleLimits(), name="converted.tar.gz") as bundle:
        runs = list(bundle.iter_runs(lambda suite, version, task: 1))
        bundle.raise_if_errors()
        for run in runs:
            if isinstance(run.trajectory, str):
                run.trajectory = bundle.read_trajectory(run.trajectory)
        bundle.raise_if_errors()
        return bundle.manifest, runs


def harbor(folder: Path, out: Path, **options: Any):
    return convert_harbor(folder, harness=HARNESS, **TB, out=out, **options)


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


# -------------------------------------------------------------------- τ-bench


def tau_traj() -> list[dict[str, Any]]:
    """A tool-calling agent's messages, as τ-bench stores them (OpenAI shape)."""
    return [
        {"role": "system", "content": "# Retail agent policy\n..."},
        {"role": "user", "content": "Hi, I want to return my order #W2378156."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "get_order_details",
                        "arguments": '{"order_id": "#W2378156"}',
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "get_order_details",
            "content": '{"order_id": "#W2378156", "status": "delivered"}',
        },
        {"role": "assistant", "content": "Your order was delivered. Which items?"},
        {"role": "user", "content": "###STOP###"},
    ]


def tau_result(task_id: Any = 0, trial: int = 0, reward: float = 1.0, **fields: Any) -> dict:
    return {
        "task_id": task_id,
        "reward": reward,
        "info": {
            "task": {"user_id": "yusuf_rossi_9620", "actions": [], "outputs": []},
            "source": "user",
            "user_cost": 0.0042,
            "reward_info": {"reward": reward, "info": {"r_actions": reward}, "actions": []},
        },
        "traj": tau_traj(),
        "trial": trial,
        **fields,
    }


def write_tau(tmp_path: Path, items: Any, name: str = "tool-calling-gpt-4o-0.0_0312.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(items, indent=2))
    return path


def tau(path: Path, out: Any, **options: Any):
    options = {"model": "frontier-large", **options}
    return convert_tau_bench(path, harness=HARNESS, **TB, out=out, **options)


def test_it_converts_a_tau_bench_results_file(tmp_path):
    results = [
        tau_result("fix-git", 0, 1.0),
        tau_result("fix-git", 1, 0.0),
        tau_result("regex-log", 0, 0.9999999999),
        tau_result("regex-log", 1, 0.5),
    ]
    conversion = tau(write_tau(tmp_path, results), tmp_path / "out.tar.gz")
    manifest, runs = read_back(tmp_path / "out.tar.gz")

    assert conversion.runs == 4
    assert manifest.source == {"name": "tau-bench", "kind": "runs"}
    outcomes = {(r.task_id, r.trial): r.outcome for r in runs}
    assert outcomes == {
        ("fix-git", 1): "pass",
        ("fix-git", 2): "fail",
        ("regex-log", 1): "pass",
        ("regex-log", 2): "fail",
    }
    run = runs[0]
    assert run.model == "frontier-large"
    assert run.infra_error is None
    assert run.extra["info"]["user_cost"] == 0.0042
    assert (run.steps, run.tool_calls) == (2, 1)
    assert run.run_id == "tool-calling-gpt-4o-0.0_0312/fix-git/1"
    assert conversion.source_of(2) == "tool-calling-gpt-4o-0.0_0312.json:2"


def test_it_turns_the_traj_into_arena_turns(tmp_path):
    tau(write_tau(tmp_path, [tau_result("fix-git")]), tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert run.trajectory == [
        {"role": "user", "text": "Hi, I want to return my order #W2378156."},
        {
            "role": "assistant",
            "text": None,
            "tool_calls": [
                {
                    "tool": "get_order_details",
                    "arguments": {"order_id": "#W2378156"},
                    "exit_code": None,
                }
            ],
        },
        {
            "role": "tool",
            "text": '{"order_id": "#W2378156", "status": "delivered"}',
            "name": "get_order_details",
        },
        {"role": "assistant", "text": "Your order was delivered. Which items?"},
        {"role": "user", "text": "###STOP###"},
    ]


def test_odd_messages_are_converted_where_possible():
    turns = importers.tau_turns(
        [
            {"role": "developer", "content": "hidden"},
            "not a message",
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, "b"]},
            {"role": "assistant", "function_call": {"name": "calc", "arguments": "2+"}},
            {"role": "function", "name": "calc", "content": "4"},
            {"role": "assistant", "tool_calls": [{"function": {"name": ""}}, {"type": "x"}]},
            {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]},
        ]
    )
    assert turns == [
        {"role": "assistant", "text": "a\nb"},
        {
            "role": "assistant",
            "text": None,
            "tool_calls": [{"tool": "calc", "arguments": {"raw": "2+"}, "exit_code": None}],
        },
        {"role": "tool", "text": "4", "name": "calc"},
        {"role": "assistant", "text": None},
        {
            "role": "assistant",
            "text": None,
            "tool_calls": [{"tool": "f", "arguments": {"value": [1]}, "exit_code": None}],
        },
    ]


def test_a_crashed_tau_bench_task_is_a_failure_without_trajectory(tmp_path):
    crashed = tau_result("fix-git", 0, 0.0, traj=[], info={"error": "RateLimitError"})
    tau(write_tau(tmp_path, [crashed]), tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.outcome, run.trajectory, run.steps) == ("fail", None, None)
    assert run.extra["info"] == {"error": "RateLimitError"}


def test_numbered_tau_bench_tasks_become_task_ids(tmp_path):
    tau(write_tau(tmp_path, [tau_result(7, 2)]), tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.task_id, run.trial) == ("7", 3)


def test_a_long_trajectory_goes_to_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setattr(importers, "INLINE_TRAJECTORY_BYTES", 100)
    tau(write_tau(tmp_path, [tau_result("fix-git")]), tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert run.trajectory[0] == {"role": "user", "text": "Hi, I want to return my order #W2378156."}


def test_the_same_tau_bench_file_gives_the_same_bytes(tmp_path):
    path = write_tau(tmp_path, [tau_result("fix-git", t) for t in range(3)])
    first, second = io.BytesIO(), io.BytesIO()
    tau(path, first)
    tau(path, second)
    assert first.getvalue() == second.getvalue()


def test_tau_bench_errors_name_the_file_and_item(tmp_path):
    items = [
        tau_result("fix-git", 0),
        {"reward": 1.0, "trial": 0, "traj": []},
        tau_result("fix-git", -1),
        tau_result("fix-git", 0),
        tau_result("regex-log", 0, reward="1"),
        "not a result",
    ]
    with pytest.raises(BundleRejected) as info:
        tau(write_tau(tmp_path, items, name="results.json"), tmp_path / "out.tar.gz")
    errors = {(e.file, e.line, e.field) for e in info.value.errors}
    assert errors == {
        ("results.json", 2, "task_id"),
        ("results.json", 3, "trial"),
        ("results.json", 4, "trial"),
        ("results.json", 5, "reward"),
        ("results.json", 6, ""),
    }
    assert "already appears as item 1" in str(info.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"task_id": 0,', "not valid JSON"),
        ('{"task_id": 0}', "must be a JSON list"),
        ("[]", "holds no results"),
        ('[{"task_id": 0, "trial": 0, "reward": Infinity}]', "Infinity"),
    ],
)
def test_an_unusable_tau_bench_file_is_rejected_by_name(tmp_path, content, message):
    (tmp_path / "run.json").write_text(content)
    with pytest.raises(BundleRejected, match=message) as info:
        tau(tmp_path / "run.json", tmp_path / "out.tar.gz")
    assert info.value.errors[0].file == "run.json"


def test_tau_bench_needs_a_model(tmp_path):
    with pytest.raises(ValueError, match="model"):
        tau(write_tau(tmp_path, [tau_result()]), tmp_path / "o.tar.gz", model=" ")


# ------------------------------------------------------------------ detection


def test_it_detects_each_format(tmp_path):
    job = job_folder(tmp_path, {"fix-git__1": trial_result()})
    arena_dir = tmp_path / "arena-dir"
    arena_dir.mkdir()
    (arena_dir / "manifest.json").write_text(json.dumps(harness_manifest()))
    (arena_dir / "runs.jsonl").write_text(json.dumps(run_line()) + "\n")
    arena_json = tmp_path / "bundle.json"
    arena_json.write_text(json.dumps({"manifest": harness_manifest(), "runs": [run_line()]}))
    tau_file = write_tau(tmp_path, [tau_result()])
    tau_file.write_bytes(b"\xef\xbb\xbf\n  " + tau_file.read_bytes())

    assert detect_format(job) == "harbor"
    assert detect_format(tmp_path) == "harbor"  # a folder holding job folders
    assert detect_format(job / "fix-git__1" / "result.json") == "harbor"
    assert detect_format(tau_file) == "tau-bench"
    assert detect_format(arena_dir) == "arena"
    assert detect_format(arena_json) == "arena"
    assert detect_format(EXAMPLE_RUN_BUNDLES[0]) == "arena"
    assert detect_format(job / "job.log") == "arena"  # not native: the normal path says why
