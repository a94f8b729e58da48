"""τ²-bench results objects (ingestion/importers/tau2_bench.py) become valid bundles.

Pure conversion, no database: every converted archive is read back through the real
bundle reader.
"""

from __future__ import annotations

import hashlib
import io
import json

import msgspec
import pytest

from ingestion.bundles import BundleRejected
from ingestion.importers.common import (
    OTHER_KEY,
    REPORT_KEY_CHARS,
    REPORT_MAX_KEYS,
)
from ingestion.importers.tau2_bench import tau2_outcome
from tests.ingestion.importers.builders import read_back
from tests.ingestion.importers.tau2_builders import (
    RESULTS_NAME,
    tau2,
    tau2_crash,
    tau2_messages,
    tau2_results,
    tau2_simulation,
    write_tau2,
    write_tau2_folder,
)


def convert_back(tmp_path, simulations, **options):
    """(conversion, runs) of a results file holding `simulations`."""
    results_options = {k: options.pop(k) for k in ("llm", "domain") if k in options}
    path = write_tau2(tmp_path, tau2_results(simulations, **results_options))
    conversion = tau2(path, tmp_path / "out.tar.gz", **options)
    return conversion, read_back(tmp_path / "out.tar.gz")[1]


# ------------------------------------------------------------------ conversion


def test_it_converts_a_tau2_results_file(tmp_path):
    simulations = [
        tau2_simulation("fix-git", 0, 1.0),
        tau2_simulation("fix-git", 1, 0.0),
        tau2_simulation("regex-log", 0, 0.9999999999, termination="agent_stop"),
        tau2_crash("regex-log", 1),
    ]
    conversion, runs = convert_back(tmp_path, simulations)

    assert conversion.runs == 4
    assert conversion.format == "tau2-bench"
    outcomes = {(r.task_id, r.trial): (r.outcome, r.infra_error) for r in runs}
    assert outcomes == {
        ("fix-git", 1): ("pass", None),
        ("fix-git", 2): ("fail", None),
        ("regex-log", 1): ("pass", None),
        ("regex-log", 2): ("infra_error", "provider_crash"),
    }
    run = runs[0]
    assert run.model == "claude-sonnet-4-5"
    assert run.source_id == "tau2-bench:f76e8f3a-c4d8-478f-81ae-fix-git0"
    assert run.run_id == "retail/fix-git/1"
    assert run.cost_usd == 0.293874
    assert (run.tokens.input, run.tokens.output) == (5702 + 7100, 180 + 427)  # the agent's
    assert (run.steps, run.tool_calls) == (3, 1)
    assert run.started_at.isoformat() == "2025-10-31T07:16:28.711898+00:00"
    assert run.extra["tau2"]["domain"] == "retail"
    assert run.extra["tau2"]["user_cost"] == 0.011226
    assert run.extra["tau2"]["termination_reason"] == "user_stop"
    assert conversion.source_of(4) == f"{RESULTS_NAME}:simulations[3]"
    crash = runs[3]
    assert (crash.trajectory, crash.steps, crash.cost_usd) == (None, None, None)
    assert crash.extra["tau2"]["error_type"] == "RateLimitError"


def test_the_messages_become_arena_turns_with_tool_exit_codes(tmp_path):
    failed = tau2_simulation("fix-git", 0, 0.0, messages=tau2_messages(tool_error=True))
    [run] = convert_back(tmp_path, [failed])[1]
    assert run.trajectory[:4] == [
        {"role": "assistant", "text": "Hi! How can I help you today?"},
        {"role": "user", "text": "I'd like to return the cleaner from order #W2378156."},
        {
            "role": "assistant",
            "text": None,
            "tool_calls": [
                {
                    "tool": "get_order_details",
                    "arguments": {"order_id": "#W2378156"},
                    "exit_code": 1,
                }
            ],
        },
        {"role": "tool", "text": "Error: order not found"},
    ]


def test_trials_count_from_one_and_fill_in_per_task_when_absent(tmp_path):
    simulations = [
        tau2_simulation("fix-git", None, sim_id="a"),
        tau2_simulation("fix-git", None, sim_id="b"),
        tau2_simulation("regex-log", None, sim_id="c"),
        tau2_simulation("regex-log", 3, sim_id="d"),
    ]
    runs = convert_back(tmp_path, simulations)[1]
    assert [(r.task_id, r.trial) for r in runs] == [
        ("fix-git", 1), ("fix-git", 2), ("regex-log", 1), ("regex-log", 4),
    ]  # fmt: skip


def test_numbered_tasks_become_task_ids(tmp_path):
    [run] = convert_back(tmp_path, [tau2_simulation(7, 2)])[1]
    assert (run.task_id, run.trial) == ("7", 3)


def test_the_same_file_gives_the_same_bytes(tmp_path):
    path = write_tau2(tmp_path, tau2_results([tau2_simulation("fix-git", t) for t in range(3)]))
    first, second = io.BytesIO(), io.BytesIO()
    tau2(path, first)
    tau2(path, second)
    assert first.getvalue() == second.getvalue()


def test_a_long_trajectory_goes_to_its_own_file(tmp_path, monkeypatch):
    from ingestion.importers import tau_bench

    monkeypatch.setattr(tau_bench, "INLINE_TRAJECTORY_BYTES", 100)
    [run] = convert_back(tmp_path, [tau2_simulation("fix-git")])[1]
    assert run.trajectory[0] == {"role": "assistant", "text": "Hi! How can I help you today?"}


# ------------------------------------------------------------------ outcome


@pytest.mark.parametrize(
    ("termination", "reward", "error", "expected"),
    [
        ("user_stop", 1.0, None, ("pass", None)),
        ("agent_stop", 0.9999999999, None, ("pass", None)),
        ("user_stop", 0.5, None, ("fail", None)),
        # Ended early: tau2 scores these 0; they are the agent's own failures.
        ("max_steps", 0.0, None, ("fail", None)),
        ("too_many_errors", 0.0, None, ("fail", None)),
        ("agent_error", 0.0, None, ("fail", None)),
        ("user_error", 0.0, None, ("fail", None)),
        ("timeout", 0.0, None, ("fail", None)),
        ("context_window_exceeded", 0.0, None, ("fail", None)),
        ("unexpected_error", 0.0, None, ("fail", None)),
        # The runner gave up on the simulation: the agent was never measured.
        ("infrastructure_error", None, ("RateLimitError", "litellm.RateLimitError: 429"), ("infra_error", "provider_crash")),
        ("infrastructure_error", None, ("InternalServerError", "500"), ("infra_error", "provider_crash")),
        ("infrastructure_error", None, ("APIConnectionError", "Connection reset"), ("infra_error", "network")),
        ("infrastructure_error", None, ("Timeout", "litellm.Timeout: timed out"), ("infra_error", "timeout")),
        ("infrastructure_error", None, ("ServiceUnavailableError", "503"), ("infra_error", "provider_crash")),
        ("infrastructure_error", None, ("AuthenticationError", "bad key"), ("infra_error", "provider_crash")),
        # …unless the agent's own conversation outgrew its model, or the exception may
        # be the agent's own code crashing, whatever its message says.
        ("infrastructure_error", None, ("ContextWindowExceededError", "too long"), ("fail", None)),
        ("infrastructure_error", None, ("KeyError", "'order_id'"), ("fail", None)),
        ("infrastructure_error", None, ("KeyError", "'connection_id'"), ("fail", None)),
        ("infrastructure_error", None, ("RuntimeError", "Command timed out after 300 seconds"), ("fail", None)),
        ("infrastructure_error", None, (None, "Rate limit exceeded: connection timed out"), ("fail", None)),
        # Never scored at all.
        ("user_stop", None, None, ("infra_error", "other")),
    ],
)  # fmt: skip
def test_each_termination_reason_has_its_outcome(termination, reward, error, expected):
    assert tau2_outcome(termination, reward, *(error or ())) == expected


def test_unknown_crashes_are_reported(tmp_path):
    simulations = [
        tau2_crash("fix-git", 3, error_type="ContextWindowExceededError"),  # known: not listed
        tau2_crash("fix-git", 0, error_type="KeyError"),
        tau2_crash("fix-git", 1, error_type="KeyError"),
        tau2_crash("fix-git", 2, error_type="APIConnectionError"),
    ]
    conversion, runs = convert_back(tmp_path, simulations)
    assert [(r.outcome, r.infra_error) for r in runs] == [
        ("fail", None), ("fail", None), ("fail", None), ("infra_error", "network"),
    ]  # fmt: skip
    assert conversion.report["unknown_exceptions"] == {"KeyError": 2}
    assert runs[1].extra["tau2"]["error_type"] == "KeyError"


def noise(seed: str, chars: int = 1000) -> str:
    """Text that does not compress (the converted archive refuses a zip bomb)."""
    digests = (hashlib.sha256(f"{seed}-{n}".encode()).hexdigest() for n in range(chars // 64 + 1))
    return "".join(digests)[:chars]


def test_the_report_stays_bounded_whatever_the_file_names(tmp_path):
    crashes = [
        tau2_crash("fix-git", n, error_type=f"Error{n:03d}" + noise(f"e{n}")) for n in range(500)
    ]
    conversion, runs = convert_back(tmp_path, crashes)

    assert len(runs) == 500
    unknown = conversion.report["unknown_exceptions"]
    assert len(unknown) == REPORT_MAX_KEYS + 1  # the first ones, then the rest together
    assert unknown[OTHER_KEY] == 500 - REPORT_MAX_KEYS
    assert sum(unknown.values()) == 500
    assert max(len(key) for key in unknown) <= REPORT_KEY_CHARS
    assert len(json.dumps(conversion.report)) < 100_000


# ------------------------------------------------------------------ model


def test_the_model_comes_from_the_file_and_the_parameter_only_fills_in(tmp_path):
    conversion, runs = convert_back(tmp_path, [tau2_simulation("fix-git")], model="other")
    assert runs[0].model == "claude-sonnet-4-5"
    assert "the model parameter 'other' was not used" in conversion.report["warnings"][0]

    conversion, runs = convert_back(tmp_path, [tau2_simulation("fix-git")], llm=None, model="m")
    assert (runs[0].model, conversion.report) == ("m", {})


def test_a_file_without_a_model_needs_the_parameter(tmp_path):
    path = write_tau2(tmp_path, tau2_results([tau2_simulation("fix-git")], llm=None))
    with pytest.raises(BundleRejected) as info:
        tau2(path, tmp_path / "out.tar.gz")
    [error] = info.value.errors
    assert (error.file, error.field) == (RESULTS_NAME, "info.agent_info.llm")
    assert "give the model as a parameter" in error.message


# ------------------------------------------------------------------ identity


def test_source_ids_are_the_simulation_ids(tmp_path):
    simulations = [tau2_simulation("fix-git", t, sim_id=f"sim-{t}") for t in range(3)]
    runs = convert_back(tmp_path, simulations)[1]
    assert [r.source_id for r in runs] == [
        "tau2-bench:sim-0",
        "tau2-bench:sim-1",
        "tau2-bench:sim-2",
    ]


def test_a_simulation_id_twice_in_one_file_is_an_error(tmp_path):
    simulations = [
        tau2_simulation("fix-git", 0, sim_id="same"),
        tau2_simulation("fix-git", 1, sim_id="same"),
        tau2_simulation("regex-log", 0),
        tau2_simulation("regex-log", 0),
    ]
    path = write_tau2(tmp_path, tau2_results(simulations), name="results.json")
    with pytest.raises(BundleRejected) as info:
        tau2(path, tmp_path / "out.tar.gz")
    errors = {(e.file, e.field): e.message for e in info.value.errors}
    assert errors == {
        ("results.json", "simulations[1].id"): (
            "simulation 'same' already appears at results.json:simulations[0]"
        ),
        ("results.json", "simulations[3].id"): (
            "simulation 'f76e8f3a-c4d8-478f-81ae-regex-log0' already appears at "
            "results.json:simulations[2]"
        ),
    }


def test_a_task_trial_twice_in_one_file_is_an_error(tmp_path):
    simulations = [
        tau2_simulation("fix-git", 0, sim_id="a"),
        tau2_simulation("fix-git", 0, sim_id="b"),
    ]
    path = write_tau2(tmp_path, tau2_results(simulations))
    with pytest.raises(
        BundleRejected, match=r"task 'fix-git' trial 0 already appears at .*json:simulations\[0\]"
    ):
        tau2(path, tmp_path / "out.tar.gz")


# ------------------------------------------------------------------ malformed


def test_errors_name_the_file_the_simulation_and_the_field(tmp_path):
    simulations = [
        tau2_simulation("fix-git", 0),
        tau2_simulation("fix-git", -1, sim_id="a"),
        tau2_simulation("fix-git", "1", sim_id="b"),
        tau2_simulation("fix-git", 2, "1", sim_id="c"),
        tau2_simulation(None, 0, sim_id="d"),
        tau2_simulation("regex-log", 0, sim_id=None, id=7),
        tau2_simulation("regex-log", 1, sim_id="e", termination_reason=None),
        tau2_simulation("regex-log", 2, sim_id="f", messages={"role": "user"}),
        tau2_simulation("regex-log", 3, sim_id="g", agent_cost=-1),
        tau2_simulation("regex-log", 4, sim_id="h", end_time="2025-10-31T07:00:00"),
        tau2_simulation("regex-log", 5, sim_id="i", reward_info=[1]),
        "not a simulation",
    ]
    path = write_tau2(tmp_path, tau2_results(simulations), name="results.json")
    with pytest.raises(BundleRejected) as info:
        tau2(path, tmp_path / "out.tar.gz")
    assert {(e.file, e.line, e.field) for e in info.value.errors} == {
        ("results.json", None, "simulations[1].trial"),
        ("results.json", None, "simulations[2].trial"),
        ("results.json", None, "simulations[3].reward_info.reward"),
        ("results.json", None, "simulations[4].task_id"),
        ("results.json", None, "simulations[5].id"),
        ("results.json", None, "simulations[6].termination_reason"),
        ("results.json", None, "simulations[7].messages"),
        ("results.json", None, "simulations[8].agent_cost"),
        ("results.json", None, "simulations[9].end_time"),
        ("results.json", None, "simulations[10].reward_info"),
        ("results.json", None, "simulations[11]"),
    }


@pytest.mark.parametrize(
    ("content", "field", "message"),
    [
        ("[]", "", "must be a JSON object of τ²-bench results, not a list"),
        ('{"info": {"num_trials": 1}, "tasks": []}', "simulations", "is missing"),
        ('{"info": {}, "simulations": {"a": 1}}', "simulations", "must be a list, not an object"),
        ('{"info": {}, "simulations": null}', "simulations", "must be a list, not null"),
        (
            '{"info": {"agent_info": {"llm": "m"}}, "simulations": []}',
            "simulations",
            "holds no simulations",
        ),
        ('{"info": "retail", "simulations": []}', "info", "must be an object, not a string"),
        ('{"info": {}, "simulations": [{"id": ', "", "is not valid JSON"),
        (
            '{"info": {}, "simulations": [{"id": "a", "reward_info": {"reward": NaN}}]}',
            "",
            "NaN is not allowed in JSON",
        ),
        ("", "", "must be a JSON object of τ²-bench results, not empty"),
    ],
)
def test_an_unusable_results_file_is_rejected_by_name(tmp_path, content, field, message):
    (tmp_path / "run.json").write_text(content)
    with pytest.raises(BundleRejected) as info:
        tau2(tmp_path / "run.json", tmp_path / "out.tar.gz", model="m")
    error = info.value.errors[0]
    assert (error.file, error.field) == ("run.json", field)
    assert message in error.message


def test_a_simulation_over_the_cap_is_named_never_read_whole(tmp_path):
    big = tau2_simulation("fix-git", 1, sim_id="big", padding="x" * 300_000)
    path = write_tau2(tmp_path, tau2_results([tau2_simulation("fix-git", 0), big]))
    with pytest.raises(BundleRejected, match="simulation 1 is larger than the limit of 200,000"):
        tau2(path, tmp_path / "out.tar.gz", max_document_bytes=200_000)


def test_many_simulations_under_the_cap_convert(tmp_path):
    simulations = [tau2_simulation("fix-git", t, sim_id=f"s{t}") for t in range(200)]
    path = write_tau2(tmp_path, tau2_results(simulations))
    assert tau2(path, tmp_path / "out.tar.gz", max_document_bytes=200_000).runs == 200


def test_info_after_the_simulations_still_applies(tmp_path):
    results = tau2_results([tau2_simulation("fix-git")])
    reordered = {"simulations": results.pop("simulations"), **results}
    path = tmp_path / "late-info.json"
    path.write_text(json.dumps(reordered))
    tau2(path, tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.model, run.extra["tau2"]["domain"]) == ("claude-sonnet-4-5", "retail")


# ------------------------------------------------------------------ the dir format


def test_it_converts_a_results_folder_of_the_dir_format(tmp_path):
    simulations = [tau2_simulation("fix-git", t, sim_id=f"sim-{t}") for t in range(2)]
    folder = write_tau2_folder(tmp_path, tau2_results([*simulations, tau2_crash("regex-log")]))
    conversion = tau2(folder, tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert [(r.task_id, r.trial, r.outcome) for r in runs] == [
        ("regex-log", 1, "infra_error"), ("fix-git", 1, "pass"), ("fix-git", 2, "pass"),
    ]  # fmt: skip
    assert runs[1].source_id == "tau2-bench:sim-0"
    assert runs[1].model == "claude-sonnet-4-5"
    assert conversion.source_of(2) == "run/simulations/sim-0.json"
    # Its results.json, given with the folder beside it, is the same results.
    assert tau2(folder / "results.json", tmp_path / "again.tar.gz").runs == 3


def test_a_broken_simulation_file_is_named(tmp_path):
    folder = write_tau2_folder(tmp_path, tau2_results([tau2_simulation("fix-git", sim_id="a")]))
    (folder / "simulations" / "b.json").write_text('{"id": "b", "trial": NaN}')
    (folder / "simulations" / "c.json").write_text(json.dumps(tau2_simulation("x", -1, sim_id="c")))
    with pytest.raises(BundleRejected) as info:
        tau2(folder, tmp_path / "out.tar.gz")
    assert {(e.file, e.field) for e in info.value.errors} == {
        ("run/simulations/b.json", ""),
        ("run/simulations/c.json", "trial"),
    }


def test_a_folder_without_results_is_refused_by_name(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleRejected, match=r"holds no τ²-bench results\.json"):
        tau2(tmp_path / "empty", tmp_path / "out.tar.gz")


# ------------------------------------------------------------ run configuration


def test_it_fills_run_config_from_the_results_info(tmp_path):
    results = tau2_results([tau2_simulation("0", 0), tau2_simulation("0", 1)])
    results["info"]["agent_info"]["llm_args"]["reasoning_effort"] = "high"
    tau2(write_tau2(tmp_path, results), tmp_path / "out.tar.gz", run_config={"internet": False})
    manifest, _ = read_back(tmp_path / "out.tar.gz")
    # info: num_trials 4, max_steps 200, seed 300, the user simulator gpt-4.1 at 0.0,
    # the agent's llm_args temperature 0.0 (max_errors has no run_config field).
    assert msgspec.to_builtins(manifest.run_config) == {
        "step_limit": 200, "step_unit": "step", "trials": 4, "temperature": 0.0,
        "reasoning_effort": "high", "internet": False,
        "user_simulator": {"model": "gpt-4.1", "temperature": 0.0}, "seed": 300,
    }  # fmt: skip


def test_without_num_trials_the_trials_per_task_are_counted(tmp_path):
    results = tau2_results([tau2_simulation("0", t) for t in range(3)] + [tau2_simulation("1", 0)])
    del results["info"]["num_trials"]
    tau2(write_tau2(tmp_path, results), tmp_path / "out.tar.gz")
    manifest, _ = read_back(tmp_path / "out.tar.gz")
    assert manifest.run_config.trials == 3


def test_a_given_user_simulator_may_not_contradict_the_results(tmp_path):
    path = write_tau2(tmp_path, tau2_results([tau2_simulation("0", 0)]))
    with pytest.raises(BundleRejected) as rejected:
        tau2(path, tmp_path / "out.tar.gz", run_config={"user_simulator": {"model": "gpt-4o"}})
    assert [str(e) for e in rejected.value.errors] == [
        f'{RESULTS_NAME}: run_config.user_simulator.model: is given as "gpt-4o", but '
        'info.user_info.llm records "gpt-4.1": leave it out, or upload the files it holds for'
    ]


def test_a_recorded_setting_the_format_refuses_is_a_warning_not_an_error(tmp_path):
    results = tau2_results([tau2_simulation("0", 0)])
    results["info"]["max_steps"] = -1
    conversion = tau2(write_tau2(tmp_path, results), tmp_path / "out.tar.gz")
    manifest, _ = read_back(tmp_path / "out.tar.gz")
    assert manifest.run_config.step_limit is None
    assert conversion.report["warnings"] == [
        "info.max_steps records -1, not a valid run_config.step_limit (must be an integer ≥ 1,"
        " got -1): it is not stated"
    ]
