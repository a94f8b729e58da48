"""τ-bench result files (ingestion/importers/tau_bench.py) become valid bundles.

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
from ingestion.importers import convert_tau_bench, tau_bench, tau_turns
from ingestion.importers.common import OTHER_KEY, REPORT_KEY_CHARS, REPORT_MAX_KEYS
from tests.ingestion.importers.builders import (
    HARNESS,
    read_back,
    tau,
    tau_result,
    write_tau,
)
from tests.ingestion.importers.realdata import HARBOR_TAU, extracted

# -------------------------------------------------------------------- τ-bench


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
    turns = tau_turns(
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


def crash(task_id: str, trial: int, exception: str, message: str) -> dict:
    """An item as τ-bench's runner records a simulation that raised."""
    traceback = f"Traceback (most recent call last):\n  ...\n{exception}: {message}\n"
    return tau_result(task_id, trial, 0.0, traj=[], info={"error": message, "traceback": traceback})


def test_a_provider_crash_is_an_infra_error(tmp_path):
    items = [
        crash("fix-git", 0, "litellm.exceptions.RateLimitError", "litellm.RateLimitError: 429"),
        crash("fix-git", 1, "openai.APIConnectionError", "Connection error."),
        crash("fix-git", 2, "litellm.exceptions.Timeout", "litellm.Timeout: timed out"),
    ]
    conversion = tau(write_tau(tmp_path, items), tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert [(r.outcome, r.infra_error) for r in runs] == [
        ("infra_error", "provider_crash"),
        ("infra_error", "network"),
        ("infra_error", "timeout"),
    ]
    assert (runs[0].trajectory, runs[0].steps) == (None, None)
    assert runs[0].extra["info"]["error"] == "litellm.RateLimitError: 429"
    assert conversion.report == {}


def test_any_other_crash_stays_the_agents_failure_and_is_listed(tmp_path):
    items = [
        crash("fix-git", 0, "KeyError", "'order_id'"),
        crash("fix-git", 1, "KeyError", "'item_ids'"),
        crash("fix-git", 2, "litellm.ContextWindowExceededError", "prompt is too long"),
        tau_result("regex-log", 0, 0.0, info={"error": "a reward 0 with a trajectory"}),
    ]
    conversion = tau(write_tau(tmp_path, items), tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert {(r.outcome, r.infra_error) for r in runs} == {("fail", None)}
    assert conversion.report == {"unknown_exceptions": {"KeyError": 2}}


def test_a_message_that_sounds_like_the_network_does_not_make_an_infra_error(tmp_path):
    items = [
        crash("fix-git", 0, "RuntimeError", "Command timed out after 300 seconds"),
        crash("fix-git", 1, "KeyError", "'connection_id'"),
        crash("fix-git", 2, "myagent.RateLimitError", "rate limit, connection reset"),
    ]
    conversion = tau(write_tau(tmp_path, items), tmp_path / "out.tar.gz")
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert {(r.outcome, r.infra_error) for r in runs} == {("fail", None)}
    assert conversion.report == {
        "unknown_exceptions": {"KeyError": 1, "RuntimeError": 1, "myagent.RateLimitError": 1}
    }


def test_the_unknown_exceptions_listed_are_bounded(tmp_path):
    names = [f"agent.errors.E{n:03d}{'x' * 250}" for n in range(REPORT_MAX_KEYS + 10)]
    items = [crash("fix-git", n, name, "boom") for n, name in enumerate(names)]
    conversion = tau(write_tau(tmp_path, items), tmp_path / "out.tar.gz")
    unknown = conversion.report["unknown_exceptions"]
    assert len(unknown) == REPORT_MAX_KEYS + 1
    assert unknown[OTHER_KEY] == 10
    assert max(len(key) for key in unknown) <= REPORT_KEY_CHARS


def test_numbered_tau_bench_tasks_become_task_ids(tmp_path):
    tau(write_tau(tmp_path, [tau_result(7, 2)]), tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.task_id, run.trial) == ("7", 3)


def test_a_long_trajectory_goes_to_its_own_file(tmp_path, monkeypatch):
    monkeypatch.setattr(tau_bench, "INLINE_TRAJECTORY_BYTES", 100)
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
        ("results.json", 2, "info"),
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
        ('{"info": {}, "simulations": []}', "not an object .τ²-bench results are an object"),
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


# ------------------------------------------------------------------ identity


def source_ids(path, out, **options) -> list[str]:
    tau(path, out, **options)
    return [r.source_id for r in read_back(out)[1]]


def test_each_run_is_identified_by_its_own_content(tmp_path):
    item = tau_result("fix-git", 0, 0.5)  # no whole-number floats to respell
    [source_id] = source_ids(write_tau(tmp_path, [item]), tmp_path / "out.tar.gz")
    canonical = json.dumps(
        {k: item[k] for k in ("task_id", "trial", "reward", "info", "traj")},
        sort_keys=True, separators=(",", ":"),
    )  # fmt: skip
    assert source_id == "tau-bench:" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


def test_a_partial_file_and_the_final_one_give_the_same_ids(tmp_path):
    # τ-bench rewrites its file after every finished trial: first two, then all four.
    items = [tau_result("fix-git", 0, 1.0), tau_result(7, 0, 0.0), tau_result("fix-git", 1, 0.0)]
    items.append(
        tau_result(7, 1, 1.0, traj=[*tau_result()["traj"], {"role": "user", "content": "ok"}])
    )
    partial = write_tau(tmp_path, items[:2], name="partial.json")
    final = write_tau(tmp_path, [items[1], items[0], *items[2:]], name="final.json")
    first = source_ids(partial, tmp_path / "a.tar.gz")
    second = source_ids(final, tmp_path / "b.tar.gz")
    assert set(first) < set(second)
    assert len(set(second)) == 4


def test_a_reformatted_copy_gives_the_same_ids(tmp_path):
    items = [tau_result("fix-git", t, float(t % 2)) for t in range(3)]
    original = write_tau(tmp_path, items, name="a.json")
    reordered = [dict(reversed(item.items())) for item in items]
    compact = tmp_path / "b.json"
    compact.write_text(json.dumps(reordered, separators=(",", ":"), ensure_ascii=False))
    # A tool rewriting the file may spell a whole-number reward 1.0 as 1.
    respelled = tmp_path / "c.json"
    respelled.write_text(json.dumps(items).replace('"reward": 1.0', '"reward": 1'))
    assert '"reward": 1,' in respelled.read_text()
    ids = [source_ids(p, tmp_path / f"{p.stem}.tar.gz") for p in (original, compact, respelled)]
    assert ids[0] == ids[1] == ids[2]


def test_any_unicode_text_a_json_string_can_hold_gets_an_identity(tmp_path):
    # A lone surrogate is no Unicode text: refused (test_hostile_native_inputs.py).
    odd = [{"role": "user", "content": "caf\u00e9 \ud83d\ude00 and \u2028"}]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps([tau_result("fix-git", 0, traj=odd)]))
    assert "\\ud83d\\ude00" in path.read_text()
    [source_id] = source_ids(path, tmp_path / "out.tar.gz")
    assert source_id.startswith("tau-bench:")


def test_two_trials_differing_only_in_their_trajectory_are_two_runs(tmp_path):
    other_traj = [*tau_result()["traj"][:-1], {"role": "user", "content": "thanks"}]
    a = write_tau(tmp_path, [tau_result("fix-git", 0)], name="a.json")
    b = write_tau(tmp_path, [tau_result("fix-git", 0, traj=other_traj)], name="b.json")
    assert source_ids(a, tmp_path / "a.tar.gz") != source_ids(b, tmp_path / "b.tar.gz")


def test_alike_crashes_of_two_models_are_two_runs_but_one_for_one_model(tmp_path):
    path = write_tau(tmp_path, [crash("fix-git", 0, "KeyError", "'api_key'")])
    first = source_ids(path, tmp_path / "a.tar.gz", model="model-a")
    again = source_ids(path, tmp_path / "b.tar.gz", model="model-a")
    other = source_ids(path, tmp_path / "c.tar.gz", model="model-b")
    assert first == again != other


def test_the_same_items_renamed_or_with_another_model_keep_their_identity(tmp_path):
    items = [tau_result("fix-git", t) for t in range(3)]
    first = write_tau(tmp_path, items, name="gpt-4o-retail.json")
    renamed = write_tau(tmp_path, items, name="copy-of-results.json")
    tau(first, tmp_path / "a.tar.gz")
    tau(renamed, tmp_path / "b.tar.gz", model="another-model")
    sources = [
        [r.source_id for r in read_back(tmp_path / name)[1]] for name in ("a.tar.gz", "b.tar.gz")
    ]
    assert sources[0] == sources[1]
    assert len(set(sources[0])) == 3


def test_other_results_are_other_runs(tmp_path):
    tau(write_tau(tmp_path, [tau_result("fix-git", 0, 1.0)], name="a.json"), tmp_path / "a.tar.gz")
    tau(write_tau(tmp_path, [tau_result("fix-git", 0, 0.0)], name="b.json"), tmp_path / "b.tar.gz")
    [a] = read_back(tmp_path / "a.tar.gz")[1]
    [b] = read_back(tmp_path / "b.tar.gz")[1]
    assert a.source_id != b.source_id


# ------------------------------------------------------------ run configuration


def test_it_states_the_trials_per_task_the_file_holds(tmp_path):
    results = [tau_result("fix-git", trial, 1.0) for trial in range(3)]
    results.append(tau_result("regex-log", 0, 1.0))
    tau(write_tau(tmp_path, results), tmp_path / "out.tar.gz")
    manifest, _ = read_back(tmp_path / "out.tar.gz")
    assert msgspec.to_builtins(manifest.run_config) == {"trials": 3}


def test_the_options_give_what_the_file_does_not_record(tmp_path):
    given = {"user_simulator": {"model": "gpt-4o", "temperature": 0.0}, "temperature": 0.0}
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0)])
    tau(path, tmp_path / "out.tar.gz", run_config=given)
    manifest, _ = read_back(tmp_path / "out.tar.gz")
    assert msgspec.to_builtins(manifest.run_config) == {**given, "trials": 1}
    with pytest.raises(BundleRejected) as rejected:
        tau(path, tmp_path / "again.tar.gz", run_config={"trials": 4})
    assert [str(e) for e in rejected.value.errors] == [
        f"{path.name}: run_config.trials: is given as 4, but the trials per task of the file "
        "records 1: leave it out, or upload the files it holds for"
    ]


def test_it_fills_run_config_from_the_real_tau_bench_airline_runs(tmp_path):
    # τ-bench's gpt-4o airline results: 50 tasks × trials 0-3, the user simulator's
    # model not recorded anywhere in the file (each item's info has task, source,
    # user_cost and reward_info only): it is given.
    folder = extracted(HARBOR_TAU, ("tau/",), tmp_path)
    conversion = convert_tau_bench(
        folder / "tau" / "gpt-4o-airline.json", harness=HARNESS, suite="tau-bench-airline",
        suite_version="1.0", model="gpt-4o", out=tmp_path / "out.tar.gz",
        run_config={"user_simulator": {"model": "gpt-4o"}},
    )  # fmt: skip
    manifest, runs = read_back(tmp_path / "out.tar.gz")
    assert conversion.runs == len(runs) == 200
    assert msgspec.to_builtins(manifest.run_config) == {
        "trials": 4,
        "user_simulator": {"model": "gpt-4o"},
    }
