"""AgentDojo run folders (ingestion/importers/agentdojo.py) become valid bundles.

Pure conversion, no database: every converted archive is read back through the real
bundle reader. The real-data tests convert the published pipelines' runs and compare
the benign utility with AgentDojo's published results table.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from ingestion.bundles import BundleRejected
from ingestion.importers import NativeParams, convert_agentdojo, convert_native, detect_format
from ingestion.importers.agentdojo import (
    default_model,
    looks_like,
    source_id,
    task_ids_of_version,
)
from ingestion.importers.agentdojo_turns import agentdojo_turns
from tests.ingestion.importers.agentdojo_builders import (
    AGENTDOJO,
    PIPELINE,
    agentdojo,
    pipeline_folder,
    run_file,
    run_messages,
    write_run,
)
from tests.ingestion.importers.builders import HARNESS, read_back
from tests.ingestion.importers.realdata import extracted

ATTACK = "important_instructions"


def _errors(rejection: pytest.ExceptionInfo[BundleRejected]) -> list[str]:
    return [str(e) for e in rejection.value.errors]


# ------------------------------------------------------------------ benign runs


def test_it_converts_the_benign_runs_of_a_pipeline_folder(tmp_path):
    folder = pipeline_folder(tmp_path)
    conversion = agentdojo(folder, tmp_path / "out.tar.gz")
    manifest, runs = read_back(tmp_path / "out.tar.gz")

    assert manifest.source == {"name": "agentdojo", "kind": "runs"}
    assert conversion.format == "agentdojo"
    assert {r.task_id: r.outcome for r in runs} == {
        "banking/user_task_0": "pass",
        "banking/user_task_1": "fail",
        "slack/user_task_0": "pass",
    }
    run = next(r for r in runs if r.task_id == "banking/user_task_0")
    assert (run.suite, run.suite_version, run.model, run.trial) == (
        "agentdojo", "v1.1.2", PIPELINE, 1,
    )  # fmt: skip
    assert run.run_id == "banking/user_task_0/none/none"
    assert (run.started_at, run.finished_at) == (None, None)
    assert run.extra == {"suite_name": "banking", "pipeline": PIPELINE, "duration": 3.25}
    assert (run.steps, run.tool_calls, run.infra_error) == (2, 1, None)
    assert conversion.source_of(1) == "banking/user_task_0/none/none.json"
    # The injection task run alone is no user task: never a run, counted.
    assert conversion.report == {"skipped": {"injection task run alone (not a user task)": 1}}


def test_one_suite_folder_converts_too(tmp_path):
    folder = pipeline_folder(tmp_path)
    conversion = agentdojo(folder / "banking", tmp_path / "out.tar.gz")
    assert sorted(r.task_id for r in read_back(tmp_path / "out.tar.gz")[1]) == [
        "banking/user_task_0",
        "banking/user_task_1",
    ]
    assert conversion.runs == 2


def test_messages_become_turns_in_both_content_shapes():
    expected = [
        {"role": "user", "text": "How much money do I have?"},
        {
            "role": "assistant",
            "text": None,
            "tool_calls": [
                {"tool": "get_balance", "arguments": {"account": "checking"}, "exit_code": None}
            ],
        },
        {"role": "tool", "text": "1810.0", "name": "get_balance"},
        {"role": "assistant", "text": "You have 1810.0."},
    ]
    assert agentdojo_turns(run_messages()) == expected  # system prompt left out
    assert agentdojo_turns(run_messages(blocks=True)) == expected


def test_a_tool_error_gives_exit_code_1_and_the_error_as_text():
    turns = agentdojo_turns(run_messages(tool_error=True))
    assert turns[1]["tool_calls"][0]["exit_code"] == 1
    assert turns[2] == {
        "role": "tool",
        "text": "ValueError: Account not found",
        "name": "get_balance",
    }


def test_the_trajectory_lands_in_the_bundle(tmp_path):
    write_run(tmp_path / "p", run_file(blocks=True, tool_error=True))
    agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert run.trajectory[1]["tool_calls"][0]["exit_code"] == 1
    assert run.trajectory[-1] == {"role": "assistant", "text": "You have 1810.0."}


# ------------------------------------------------------------------ attacks


def test_a_named_attack_converts_its_runs_with_the_injection_task_in_extra(tmp_path):
    folder = pipeline_folder(tmp_path)
    conversion = agentdojo(folder, tmp_path / "out.tar.gz", attack=ATTACK)
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert conversion.runs == 2
    assert [(r.task_id, r.trial, r.outcome) for r in runs] == [
        ("banking/user_task_0", 1, "pass"),
        ("banking/user_task_0", 2, "fail"),
    ]
    assert [(r.extra["attack"], r.extra["injection_task"], r.extra["security"]) for r in runs] == [
        (ATTACK, "injection_task_0", True),
        (ATTACK, "injection_task_1", False),
    ]
    assert runs[1].run_id == f"banking/user_task_0/{ATTACK}/injection_task_1"


def test_benign_runs_carry_no_attack(tmp_path):
    agentdojo(pipeline_folder(tmp_path), tmp_path / "out.tar.gz")
    assert all("attack" not in r.extra for r in read_back(tmp_path / "out.tar.gz")[1])


def test_an_attack_with_no_runs_is_named(tmp_path):
    folder = pipeline_folder(tmp_path)
    with pytest.raises(BundleRejected) as rejection:
        agentdojo(folder, tmp_path / "out.tar.gz", attack="tool_knowledge")
    assert _errors(rejection) == [f"{PIPELINE}: holds no runs under the attack 'tool_knowledge'"]


def test_attack_and_task_ids_pass_through_the_dispatch(tmp_path):
    folder = pipeline_folder(tmp_path)
    params = NativeParams(
        harness=HARNESS, suite="agentdojo", suite_version="v1.1.2", attack=ATTACK,
        task_ids=("banking/user_task_0", "banking/injection_task_0"),
    )  # fmt: skip
    conversion = convert_native("agentdojo", folder, params=params, out=tmp_path / "o.tar.gz")
    assert conversion.runs == 1
    assert conversion.report["refused"] == {"task not in the given task list": 1}


# ------------------------------------------------------------------ versions


def test_a_task_list_keeps_one_versions_runs_and_counts_the_rest(tmp_path):
    folder = pipeline_folder(tmp_path)
    keep = {"banking/user_task_0", "slack/user_task_0"}
    conversion = agentdojo(folder, tmp_path / "out.tar.gz", task_ids=keep)
    assert sorted(r.task_id for r in read_back(tmp_path / "out.tar.gz")[1]) == sorted(keep)
    assert conversion.report["refused"] == {"task not in the given task list": 1}


def test_task_ids_of_a_version_are_read_from_agentdojos_task_lists():
    lists = {
        "v1": {"banking": {"user_tasks": ["user_task_0"], "injection_tasks": ["injection_task_0"]}},
        "v1.2": {"banking": {"user_tasks": ["user_task_0"], "injection_tasks": []}},
    }
    assert task_ids_of_version(lists, "v1") == {"banking/user_task_0", "banking/injection_task_0"}
    with pytest.raises(ValueError, match=r"'v9' is not in the task list \(has v1, v1.2\)"):
        task_ids_of_version(lists, "v9")
    with pytest.raises(ValueError, match=r"v1.2.banking.injection_tasks: must be a list"):
        task_ids_of_version({"v1.2": {"banking": {"user_tasks": []}}}, "v1.2")


# ------------------------------------------------------------------ outcomes


@pytest.mark.parametrize(
    ("error", "outcome", "infra"),
    [
        (
            "Skipping task 'user_task_0' with 'None' due to context_length_exceeded: "
            "Error code: 400",
            "fail",
            None,
        ),
        ("Skipping task because of internal server error: status 500", "infra_error",
         "provider_crash"),
    ],
)  # fmt: skip
def test_an_error_the_runner_recorded_is_classified(tmp_path, error, outcome, infra):
    write_run(tmp_path / "p", run_file(utility=False, error=error))
    conversion = agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.outcome, run.infra_error) == (outcome, infra)
    assert run.extra["error"] == error
    assert "unknown_errors" not in conversion.report


def test_another_error_is_a_fail_counted_for_a_moderator(tmp_path):
    write_run(tmp_path / "p", run_file(utility=False, error="KeyError: 'x'"))
    conversion = agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert run.outcome == "fail"
    assert conversion.report["unknown_errors"] == {"KeyError": 1}


# ------------------------------------------------------------------ models


def test_the_model_is_the_pipeline_without_its_defence(tmp_path):
    assert default_model("gpt-4o-2024-05-13-tool_filter") == "gpt-4o-2024-05-13"
    assert default_model("gpt-4o-2024-05-13-repeat_user_prompt") == "gpt-4o-2024-05-13"
    assert default_model("claude-3-7-sonnet-20250219") == "claude-3-7-sonnet-20250219"
    write_run(tmp_path / "p", run_file(pipeline="frontier-large-tool_filter"))
    agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.model, run.extra["pipeline"]) == ("frontier-large", "frontier-large-tool_filter")
    agentdojo(tmp_path / "p", tmp_path / "given.tar.gz", model="frontier-xl")
    assert read_back(tmp_path / "given.tar.gz")[1][0].model == "frontier-xl"


# ------------------------------------------------------------------ identity


def test_the_same_files_again_give_the_same_source_ids_and_bytes(tmp_path):
    folder = pipeline_folder(tmp_path / "a")
    copy = tmp_path / "b" / "renamed"
    shutil.copytree(folder, copy)
    for path in copy.rglob("*.json"):  # re-indented: the same content
        path.write_text(json.dumps(json.loads(path.read_text())))
    agentdojo(folder, tmp_path / "one.tar.gz")
    agentdojo(copy, tmp_path / "two.tar.gz")
    one = [r.source_id for r in read_back(tmp_path / "one.tar.gz")[1]]
    two = [r.source_id for r in read_back(tmp_path / "two.tar.gz")[1]]
    assert one == two and len(set(one)) == 3
    assert all(s.startswith("agentdojo:") and len(s) == len("agentdojo:") + 32 for s in one)
    assert (tmp_path / "one.tar.gz").read_bytes() == (tmp_path / "two.tar.gz").read_bytes()


def test_a_different_run_has_a_different_source_id():
    assert source_id(run_file()) != source_id(run_file(duration=3.5))
    assert source_id(run_file(duration=3.0)) == source_id(run_file(duration=3))


# ------------------------------------------------------------------ bad input


def test_a_file_that_is_not_json_is_named(tmp_path):
    path = write_run(tmp_path / "p", run_file())
    path.write_text("{not json")
    with pytest.raises(BundleRejected) as rejection:
        agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    [error] = _errors(rejection)
    assert error.startswith("banking/user_task_0/none/none.json: is not valid JSON")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"utility": None}, "utility: is missing"),
        ({"utility": "yes"}, 'utility: must be true or false, got "yes"'),
        ({"messages": {}}, "messages: must be a list of messages, not an object"),
        ({"user_task_id": "user_task_9"},
         "user_task_id: is \"user_task_9\", but the file is in the folder 'user_task_0'"),
        ({"suite_name": "slack"},
         "suite_name: is \"slack\", but the file is in the folder 'banking'"),
        ({"injection_task_id": "injection_task_0"},
         'injection_task_id: must be null in a benign run, got "injection_task_0"'),
        ({"duration": "3s"}, 'duration: must be a number, not a string ("3s")'),
        ({"duration": -1.5}, "duration: must be a number ≥ 0, got -1.5"),
        ({"error": 7}, "error: must be a string or null, got 7"),
    ],
)  # fmt: skip
def test_a_bad_field_is_named_with_its_file(tmp_path, change, expected):
    path = write_run(tmp_path / "p", run_file())
    run = run_file()
    for name, value in change.items():
        if value is None and name == "utility":
            del run[name]
        else:
            run[name] = value
    path.write_text(json.dumps(run))
    with pytest.raises(BundleRejected) as rejection:
        agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    assert _errors(rejection) == [f"banking/user_task_0/none/none.json: {expected}"]


def test_an_attack_run_must_say_its_attack_and_injection_task(tmp_path):
    run = run_file(attack="direct", injection_task="injection_task_3")
    write_run(tmp_path / "p", run, attack=ATTACK, name="injection_task_0.json")
    with pytest.raises(BundleRejected) as rejection:
        agentdojo(tmp_path / "p", tmp_path / "out.tar.gz", attack=ATTACK)
    where = f"banking/user_task_0/{ATTACK}/injection_task_0.json"
    assert _errors(rejection) == [
        f'{where}: injection_task_id: is "injection_task_3", but the file is '
        "'injection_task_0.json'",
        f"{where}: attack_type: is \"direct\", but the file is in the folder '{ATTACK}'",
    ]


def test_two_pipelines_in_one_upload_are_refused(tmp_path):
    write_run(tmp_path / "p", run_file("banking", "user_task_0", pipeline="model-a"))
    write_run(tmp_path / "p", run_file("banking", "user_task_1", pipeline="model-b"))
    with pytest.raises(BundleRejected) as rejection:
        agentdojo(tmp_path / "p", tmp_path / "out.tar.gz")
    assert _errors(rejection) == [
        "p: pipeline_name: names several pipelines: 'model-a' "
        "(banking/user_task_0/none/none.json), 'model-b' (banking/user_task_1/none/none.json)"
    ]


def test_a_folder_without_run_files_is_named(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleRejected) as rejection:
        agentdojo(tmp_path / "empty", tmp_path / "out.tar.gz")
    assert _errors(rejection) == [
        "empty: holds no AgentDojo run files (<user_task>/<attack>/<injection_task>.json)"
    ]


def test_the_parameters_are_required(tmp_path):
    with pytest.raises(ValueError, match="the suite and its version are required"):
        convert_agentdojo(
            pipeline_folder(tmp_path), harness=HARNESS, suite="", suite_version="v1.1.2",
            out=tmp_path / "o.tar.gz",
        )  # fmt: skip


# ------------------------------------------------------------------ detection


def test_a_pipeline_folder_is_detected_as_agentdojo(tmp_path):
    folder = pipeline_folder(tmp_path)
    assert detect_format(folder) == "agentdojo"
    assert detect_format(folder / "banking") == "agentdojo"
    assert not looks_like(folder / "banking" / "user_task_0" / "none" / "none.json", b"{")
    (tmp_path / "other" / "a" / "b").mkdir(parents=True)
    (tmp_path / "other" / "a" / "b" / "c.json").write_text('{"x": 1}')
    assert not looks_like(tmp_path / "other", b"")


# ------------------------------------------------------------------ real data

REAL_PIPELINES = (
    "claude-3-5-sonnet-20241022",
    "claude-3-7-sonnet-20250219",
    "gpt-4o-2024-05-13",
    "gpt-4o-2024-05-13-tool_filter",
    "gpt-4o-mini-2024-07-18",
)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    target = tmp_path_factory.mktemp("agentdojo")
    return extracted("agentdojo.tar.xz", ("agentdojo/",), target) / "agentdojo"


def _published_utility(table: str) -> dict[tuple[str, str], set[str]]:
    """{(model, defence): {Utility as printed}} of the results table."""
    published: dict[tuple[str, str], set[str]] = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, re.S):
        cells = [re.sub(r"<.*?>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        if len(cells) >= 5:
            published.setdefault((cells[1], cells[2]), set()).add(cells[4])
    return published


@pytest.mark.parametrize("pipeline", REAL_PIPELINES)
def test_the_real_benign_utility_matches_the_published_table(real, tmp_path, pipeline):
    # Passes over the runs of the v1.1.2 user tasks of all four suites, pooled.
    table = _published_utility((real / "docs" / "results-table.html").read_text())
    by_version = json.loads((real / "derived" / "agentdojo_task_ids_by_version.json").read_text())
    keep = task_ids_of_version(by_version, "v1.1.2")
    conversion = agentdojo(real / "runs" / pipeline, tmp_path / "out.tar.gz", task_ids=keep)
    runs = read_back(tmp_path / "out.tar.gz")[1]
    assert conversion.runs == len(runs) == 97
    assert len({r.task_id for r in runs}) == 97
    utility = f"{100 * sum(r.outcome == 'pass' for r in runs) / len(runs):.2f}%"
    defence = pipeline.removeprefix(default_model(pipeline)).lstrip("-") or "None"
    assert table[(default_model(pipeline), defence)] == {utility}


def test_a_later_versions_runs_are_left_out_by_the_task_list(real, tmp_path):
    # claude-3-7-sonnet was also run on v1.2, whose workspace has injection tasks 6-13:
    # under an attack, those runs sit beside the v1.1.2 ones. Without the task list
    # they would count (949 runs); with it the published 629 remain, and the utility
    # under attack is the published 77.27%.
    pipeline = real / "runs" / "claude-3-7-sonnet-20250219"
    by_version = json.loads((real / "derived" / "agentdojo_task_ids_by_version.json").read_text())
    keep = task_ids_of_version(by_version, "v1.1.2")
    everything = agentdojo(pipeline, tmp_path / "all.tar.gz", attack=ATTACK)
    kept = agentdojo(pipeline, tmp_path / "kept.tar.gz", attack=ATTACK, task_ids=keep)
    assert (everything.runs, kept.runs) == (949, 629)
    assert kept.report["refused"] == {"task not in the given task list": 320}
    runs = read_back(tmp_path / "kept.tar.gz")[1]
    assert f"{100 * sum(r.outcome == 'pass' for r in runs) / len(runs):.2f}" == "77.27"
    # The injection tasks run alone are skipped, never runs: 27 in v1.1.2, 35 with v1.2's.
    assert kept.report["skipped"] == {"injection task run alone (not a user task)": 35}
    assert AGENTDOJO["suite"] == "agentdojo"


def test_it_pairs_no_call_by_an_id_that_is_not_text_or_a_number():
    messages = [
        {"role": "assistant", "content": None,
         "tool_calls": [{"function": "send_money", "args": {}, "id": ["not", "hashable"]}]},
        {"role": "tool", "content": "", "tool_call_id": {"an": "object"}, "error": "boom"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"function": "read_file", "args": {}, "id": 7}]},
        {"role": "tool", "content": "", "tool_call_id": "7", "error": "no such file"},
    ]  # fmt: skip
    calls = [c for t in agentdojo_turns(messages) for c in t.get("tool_calls", ())]
    assert [(c["tool"], c["exit_code"]) for c in calls] == [("send_money", None), ("read_file", 1)]
