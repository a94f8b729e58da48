"""The hostile cases of test_hostile_native_inputs.py for the other native formats:
AgentDojo run folders, SWE-bench results and task matrices. Each value is refused whole
by a named error at the native file, record and field, before any bundle is written."""

from __future__ import annotations

import json

import pytest

from tests.ingestion.importers.agentdojo_builders import agentdojo, run_file, write_run
from tests.ingestion.importers.builders import read_back
from tests.ingestion.importers.swebench_builders import (
    detail,
    entry,
    leaderboards,
    run_report,
    swebench,
    write_json,
)
from tests.ingestion.importers.test_task_matrix import matrix, write_csv, write_rows
from tests.test_hostile_native_inputs import LONG_ID, SURROGATE, refusal

pytestmark = pytest.mark.pure

# ---------------------------------------------------------------------- AgentDojo

RUN_FILE = "banking/user_task_0/none/none.json"
ATTACK = "important_instructions"
ATTACK_FILE = f"banking/user_task_0/{ATTACK}/injection_task_0.json"


def _set(name, value):
    return lambda run: run.update({name: value})


AGENTDOJO = {
    "utility 1e308": (_set("utility", 1e308), "utility", "must be true or false"),
    "duration 1e308": (_set("duration", 1e308), "duration", "must be a number ≤ 864000"),
    "duration -1": (_set("duration", -1), "duration", "must be a number ≥ 0"),
    "pipeline of 400 characters": (
        _set("pipeline_name", LONG_ID), "pipeline_name", "must be at most 200 characters",
    ),
    "integer pipeline": (_set("pipeline_name", 12345), "pipeline_name", "must be a non-empty"),
    "integer user task": (_set("user_task_id", 12345), "user_task_id", "must be a non-empty"),
    "content an integer": (
        lambda run: run["messages"][1].update(content=5), "messages[1].content",
        "must be a string, a list of content parts or null, not a number",
    ),
    "message an integer": (
        lambda run: run["messages"].__setitem__(1, 5), "messages[1]",
        "must be a message (an object), not a number",
    ),
    "tool name of 300 characters": (
        lambda run: run["messages"][2]["tool_calls"][0].update(function="t" * 300),
        "trajectory[1].tool_calls[0].tool", "must be at most 200 characters",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(AGENTDOJO))
def test_it_refuses_each_hostile_agentdojo_value_at_its_file_and_field(case, tmp_path):
    mutate, field, message = AGENTDOJO[case]
    write_run(tmp_path / "p", run_file("slack", "user_task_0"))
    run = run_file()
    path = write_run(tmp_path / "p", run)
    mutate(run)
    path.write_text(json.dumps(run))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: agentdojo(tmp_path / "p", out), out)

    assert [e[:3] for e in errors] == [(RUN_FILE, None, field)], errors
    assert message in errors[0][3]


@pytest.mark.parametrize("security", ["yes", 1e308, None])
def test_it_refuses_an_attack_run_whose_security_is_not_true_or_false(security, tmp_path):
    # The safety boards count the runs whose `security` is true: "yes" would pass for
    # an attack that failed.
    run = run_file(attack=ATTACK, injection_task="injection_task_0")
    run["security"] = security
    write_run(tmp_path / "p", run, attack=ATTACK)
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: agentdojo(tmp_path / "p", out, attack=ATTACK), out)

    assert [e[:3] for e in errors] == [(ATTACK_FILE, None, "security")]
    assert "must be true or false in an attack run" in errors[0][3]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (json.dumps([run_file()]), "must be an AgentDojo run object, not a list"),
        (json.dumps(run_file()).replace("How much", "\\ud83d How much"), SURROGATE),
        (json.dumps(run_file()).replace("3.25", "1e-400"), "too small to be stored"),
    ],
    ids=["a-list", "lone-surrogate", "tiny-number"],
)
def test_it_names_an_agentdojo_file_no_run_is_written_as(text, message, tmp_path):
    path = write_run(tmp_path / "p", run_file())
    path.write_text(text)
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: agentdojo(tmp_path / "p", out), out)

    assert [e[:3] for e in errors] == [(RUN_FILE, None, "")] and message in errors[0][3]


# ---------------------------------------------------------------------- SWE-bench

INSTANCE = "django__django-1000"
DETAILS = f'leaderboards[0].results[0].per_instance_details["{INSTANCE}"]'


def _entry_with(**values) -> dict:
    # Published figures given: the builder would compute them from the hostile values.
    return leaderboards(
        entry("Model A", None, resolved=100.0) | {"per_instance_details": {INSTANCE: detail() | values}}
    )  # fmt: skip


SWEBENCH = {
    "cost 1e308": (_entry_with(cost=1e308), f"{DETAILS}.cost", "must be a number ≤ 1000000"),
    "cost -1": (_entry_with(cost=-1), f"{DETAILS}.cost", "must be a number ≥ 0"),
    "api calls past the bound": (
        _entry_with(api_calls=10**15), f"{DETAILS}.api_calls", "must be an integer ≤ 10000000",
    ),
    "resolved 1e308": (_entry_with(resolved=1e308), f"{DETAILS}.resolved", "must be true or false"),
    "instance a list": (
        leaderboards(entry("Model A", None, resolved=1.0) | {"per_instance_details": {INSTANCE: [1]}}),
        DETAILS, "must be an object {resolved, cost, api_calls}, not a list",
    ),
    "file a list": ([_entry_with()], "", "must be a JSON object of SWE-bench results, not a list"),
}  # fmt: skip

REPORTS = {
    "integer instance id": (run_report(resolved_ids=[12345]), "resolved_ids[0]"),
    "instance id a list": (run_report(resolved_ids=[["x"]]), "resolved_ids[0]"),
}


@pytest.mark.parametrize("case", sorted(SWEBENCH))
def test_it_refuses_each_hostile_swebench_value_at_its_instance_and_field(case, tmp_path):
    value, field, message = SWEBENCH[case]
    path = write_json(tmp_path, value)
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: swebench(path, out, model="m"), out)

    assert [(e[0], e[2]) for e in errors] == [("leaderboards.json", field)], errors
    assert message in errors[0][3]


@pytest.mark.parametrize("case", sorted(REPORTS))
def test_it_refuses_each_hostile_id_of_a_swebench_run_report(case, tmp_path):
    value, field = REPORTS[case]
    path = write_json(tmp_path, value, name="report.json")
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: swebench(path, out, model="m"), out)

    assert [(e[0], e[2]) for e in errors] == [("report.json", field)], errors
    assert "must be an instance id" in errors[0][3]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [("Model A", "Model \\ud83d A", SURROGATE), ("0.25", "1e-400", "too small to be stored")],
    ids=["lone-surrogate", "tiny-number"],
)
def test_it_names_a_swebench_file_no_result_is_written_as(old, new, message, tmp_path):
    path = write_json(tmp_path, _entry_with())
    path.write_text(path.read_text().replace(old, new, 1))
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: swebench(path, out, model="m"), out)

    assert [e[:3] for e in errors] == [("leaderboards.json", None, "")] and message in errors[0][3]


# -------------------------------------------------------------------- task matrix

TASK_MATRIX = {
    "model of 400 characters": (f"a,oh,{LONG_ID},pass,,,", "model", "must be at most 200 characters"),
    "cost 1e308": ("a,oh,m,pass,1e308,,", "cost_usd", "must be a number ≤ 1000000"),
    "cost -1": ("a,oh,m,pass,-1,,", "cost_usd", "must be a number ≥ 0"),
    "cost 1e-400": ("a,oh,m,pass,1e-400,,", "cost_usd", "is too small to be stored as a number"),
    "tool calls past the bound": (
        "a,oh,m,pass,,1000000000000000,", "tool_calls", "must be an integer ≤ 10000000",
    ),
    "trial past the bound": ("a,oh,m,pass,,,1099511627776", "trial", "must be an integer ≤ 2147483647"),
    "outcome 1e308": ("a,oh,m,1e308,,,", "outcome", "must be pass, fail, infra_error"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(TASK_MATRIX))
def test_it_refuses_each_hostile_task_matrix_value_at_its_row_and_column(case, tmp_path):
    row, field, message = TASK_MATRIX[case]
    path = write_csv(tmp_path, "b,oh,m,pass,0.5,3,1", row)
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: matrix(path, out), out)

    assert [e[:3] for e in errors] == [("matrix.csv", 3, field)], errors
    assert message in errors[0][3]


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        ([{"task": "a", "agent": "oh", "model": 5, "outcome": "pass"}], "model", "must be a non-empty name"),
        ([["a", "oh", "m", "pass"]], "", "item 1 must be an object, not a list"),
    ],
    ids=["integer-model", "row-a-list"],
)  # fmt: skip
def test_it_refuses_each_hostile_task_matrix_json_row(rows, field, message, tmp_path):
    path = write_rows(tmp_path, rows)
    out = tmp_path / "out.tar.gz"

    errors = refusal(lambda: matrix(path, out), out)

    assert [(e[0], e[2]) for e in errors] == [("matrix.json", field)] and message in errors[0][3]


def test_it_names_a_task_matrix_holding_a_lone_surrogate(tmp_path):
    path = tmp_path / "matrix.json"
    path.write_text('[{"task": "a\\ud83d", "agent": "oh", "model": "m", "outcome": "pass"}]')
    out = tmp_path / "out.tar.gz"

    assert refusal(lambda: matrix(path, out), out) == [("matrix.json", None, "", SURROGATE)]


def test_it_still_converts_a_numbered_task_of_a_json_matrix(tmp_path):
    path = write_rows(tmp_path, [{"task": 5, "agent": "oh", "model": "m", "outcome": "pass"}])
    matrix(path, tmp_path / "out.tar.gz")

    [run] = read_back(tmp_path / "out.tar.gz")[1]
    assert (run.task_id, run.model, run.outcome) == ("5", "m", "pass")
