"""Reference calls from native files (ingestion/importers/references.py): pure, no
database. Builders write AgentDojo ground truth, its task lists and τ-bench results in
their shapes; the real-data tests read the published files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ingestion.importers.references import (
    ReferenceInputError,
    agentdojo_registry,
    swebench_registry,
    tau_bench_registry,
)
from tests.ingestion.importers.builders import tau_result, write_tau
from tests.ingestion.importers.realdata import HARBOR_TAU, extracted
from tests.ingestion.importers.swebench_builders import (
    detail,
    entry,
    leaderboards,
    run_report,
    write_json,
)

SUITE_FILE = Path(__file__).resolve().parents[3] / "ingestion" / "fixtures" / "agentdojo-suite.json"


def ground_truth() -> dict[str, Any]:
    def task(*calls: tuple[str, dict]) -> dict[str, Any]:
        return {
            "prompt": "Do it.",
            "ground_truth": [
                {"function": f, "args": a, "placeholder_args": {"x": "$y"}} for f, a in calls
            ],
        }

    return {
        "banking": {
            "user_tasks": {
                "user_task_0": task(
                    ("read_file", {"file_path": "bill.txt"}),
                    ("send_money", {"recipient": "GB00", "amount": 10.5}),
                ),
                "user_task_10": task(("get_balance", {})),
                "user_task_2": task(),
            },
            "injection_tasks": {"injection_task_0": task(("send_money", {"amount": 1}))},
        },
        "slack": {
            "user_tasks": {"user_task_0": task(("send_direct_message", {"body": "Hi"}))},
            "injection_tasks": {},
        },
    }


def task_lists() -> dict[str, Any]:
    return {
        "v1.1.2": {
            "banking": {"user_tasks": ["user_task_0", "user_task_2"], "injection_tasks": []},
            "slack": {"user_tasks": ["user_task_0"], "injection_tasks": []},
        },
        "v1.2": {"banking": {"user_tasks": ["user_task_9"], "injection_tasks": []}},
    }


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _agentdojo(tmp_path: Path, truth: Any = None, lists: Any = None, **options: Any) -> dict:
    gt = write(tmp_path, "ground_truth.json", ground_truth() if truth is None else truth)
    ids = write(tmp_path, "task_ids.json", lists) if lists is not None else None
    options.setdefault("benchmark_version", "v1.1.2")
    return agentdojo_registry(gt, ids, suite="agentdojo", version="v1.1.2", **options)


# ------------------------------------------------------------------ AgentDojo


def test_agentdojo_user_tasks_carry_their_ground_truth_calls(tmp_path):
    document = _agentdojo(tmp_path)
    assert document["format"] == "arena-registry/1"
    [suite] = document["suites"]
    assert (suite["slug"], suite["version"]) == ("agentdojo", "v1.1.2")
    tasks = {t["task_id"]: t for t in suite["tasks"]}
    assert list(tasks) == [
        "banking/user_task_0",
        "banking/user_task_2",
        "banking/user_task_10",
        "slack/user_task_0",
    ]  # natural order; injection tasks are no tasks of their own
    assert tasks["banking/user_task_0"] == {
        "task_id": "banking/user_task_0",
        "category": "banking",
        "reference_calls": [
            {"tool": "read_file", "arguments": {"file_path": "bill.txt"}, "write": False},
            {"tool": "send_money", "arguments": {"recipient": "GB00", "amount": 10.5},
             "write": False},
        ],
    }  # fmt: skip
    assert tasks["banking/user_task_2"]["reference_calls"] == []


def test_a_task_list_keeps_one_benchmark_versions_user_tasks(tmp_path):
    document = _agentdojo(tmp_path, lists=task_lists())
    assert [t["task_id"] for t in document["suites"][0]["tasks"]] == [
        "banking/user_task_0",
        "banking/user_task_2",
        "slack/user_task_0",
    ]


def test_the_suite_statement_marks_writes_and_is_copied(tmp_path):
    base = json.loads(SUITE_FILE.read_text())
    [suite] = _agentdojo(tmp_path, base=base)["suites"]
    assert suite["trajectory"] == base["trajectory"]
    assert (suite["name"], suite["official"], suite["joins"]) == ("AgentDojo", True, [])
    calls = {c["tool"]: c["write"] for t in suite["tasks"] for c in t["reference_calls"]}
    assert calls == {
        "read_file": False,
        "send_money": True,
        "get_balance": False,
        "send_direct_message": True,
    }


def test_a_base_of_another_suite_is_refused(tmp_path):
    with pytest.raises(ReferenceInputError, match="base: slug: is \"other\", but 'agentdojo'"):
        _agentdojo(tmp_path, base={"slug": "other"})


@pytest.mark.parametrize(
    ("truth", "lists", "version", "message"),
    [
        (ground_truth(), {"v1": {}}, "v1.1.2",
         "task_ids.json: v1.1.2: is not a benchmark version of the file (has v1)"),
        (ground_truth(), {"v1.2": {"banking": {"user_tasks": ["user_task_9"]}}}, "v1.2",
         "ground_truth.json: banking.user_tasks.user_task_9: is in the v1.2 task list but has "
         "no ground truth"),
        ({"banking": {"user_tasks": {"user_task_0": {"ground_truth": {}}}}}, None, "v1.1.2",
         "ground_truth.json: banking.user_tasks.user_task_0.ground_truth: must be a list of "
         "calls"),
        ({"banking": {"user_tasks": {"user_task_0": {"ground_truth": [{"args": {}}]}}}}, None,
         "v1.1.2",
         "ground_truth.json: banking.user_tasks.user_task_0.ground_truth[0].function: must be "
         "a tool name"),
        ([], None, "v1.1.2", "ground_truth.json: must be an object of AgentDojo suites"),
    ],
)  # fmt: skip
def test_bad_agentdojo_input_is_named(tmp_path, truth, lists, version, message):
    with pytest.raises(ReferenceInputError) as error:
        _agentdojo(tmp_path, truth, lists, benchmark_version=version)
    assert str(error.value) == message


def test_a_file_that_is_not_json_is_named(tmp_path):
    path = tmp_path / "ground_truth.json"
    path.write_text("{")
    with pytest.raises(ReferenceInputError, match=r"^ground_truth.json: is not valid JSON"):
        agentdojo_registry(path, None, suite="a", version="1", benchmark_version="v1")


# ------------------------------------------------------------------ τ-bench


def _with_actions(task_id: Any, trial: int, actions: list[dict]) -> dict[str, Any]:
    item = tau_result(task_id, trial, 1.0)
    item["info"] = {**item["info"], "task": {"user_id": "u1", "actions": actions}}
    return item


ACTIONS = [
    {"name": "get_reservation_details", "kwargs": {"reservation_id": "ABC123"}},
    {"name": "cancel_reservation", "kwargs": {"reservation_id": "ABC123"}},
]


def test_tau_bench_tasks_carry_their_actions(tmp_path):
    items = [_with_actions(10, 0, ACTIONS), _with_actions(2, 0, []), _with_actions(10, 1, ACTIONS)]
    crash = tau_result(2, 1, 0.0, traj=[])
    crash["info"] = {"error": "boom", "traceback": "Traceback …"}
    path = write_tau(tmp_path, [*items, crash])
    base = {"slug": "tau-bench-airline", "trajectory": {"write_tools": ["cancel_reservation"]},
            "tasks": [{"task_id": "2", "category": "customer_service", "authors": ["a.b"]}]}  # fmt: skip
    [suite] = tau_bench_registry(path, suite="tau-bench-airline", version="1.0", base=base)[
        "suites"
    ]
    assert suite["trajectory"] == base["trajectory"]
    assert suite["tasks"] == [
        {"task_id": "2", "category": "customer_service", "authors": ["a.b"],
         "reference_calls": []},
        {"task_id": "10", "category": "customer_service", "reference_calls": [
            {"tool": "get_reservation_details", "arguments": {"reservation_id": "ABC123"},
             "write": False},
            {"tool": "cancel_reservation", "arguments": {"reservation_id": "ABC123"},
             "write": True},
        ]},
    ]  # fmt: skip


def test_trials_of_a_task_that_disagree_are_named(tmp_path):
    path = write_tau(tmp_path, [_with_actions(3, 0, ACTIONS), _with_actions(3, 1, ACTIONS[:1])])
    with pytest.raises(ReferenceInputError) as error:
        tau_bench_registry(path, suite="s", version="1")
    assert str(error.value) == (
        f"{path.name}: item 2.info.task.actions: task '3' states other actions than item 1"
    )


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ({}, "must be a JSON list of τ-bench results"),
        ([], "holds no τ-bench task with actions"),
        ([{"task_id": None}], "item 1.task_id: must be a task number or name, got null"),
        ([{"task_id": 1, "info": {}}], "item 1.info.task.actions: must be a list of actions"),
        ([{"task_id": 1, "info": {"task": {"actions": [{"kwargs": {}}]}}}],
         "item 1.info.task.actions[0].name: must be a tool name"),
    ],
)  # fmt: skip
def test_bad_tau_bench_input_is_named(tmp_path, items, message):
    path = write_tau(tmp_path, items)
    with pytest.raises(ReferenceInputError) as error:
        tau_bench_registry(path, suite="s", version="1")
    assert str(error.value) == f"{path.name}: {message}"


# ------------------------------------------------------------------ real data


def test_the_real_agentdojo_ground_truth_gives_97_user_tasks(tmp_path):
    root = extracted("agentdojo.tar.xz", ("agentdojo/derived/",), tmp_path) / "agentdojo"
    derived = root / "derived"
    document = agentdojo_registry(
        derived / "agentdojo_v1.1.2_ground_truth_calls.json",
        derived / "agentdojo_task_ids_by_version.json",
        suite="agentdojo", version="v1.1.2", benchmark_version="v1.1.2",
        base=json.loads(SUITE_FILE.read_text()),
    )  # fmt: skip
    tasks = document["suites"][0]["tasks"]
    by_category: dict[str, int] = {}
    for task in tasks:
        by_category[task["category"]] = by_category.get(task["category"], 0) + 1
    assert by_category == {"banking": 16, "slack": 21, "travel": 20, "workspace": 40}
    assert len(tasks) == 97
    calls = [c for t in tasks for c in t["reference_calls"]]
    assert len(calls) == 339
    # Every state-changing tool of the ground truth is a write of the suite statement.
    assert {c["tool"] for c in calls if c["write"]} >= {"send_money", "send_email"}
    assert not [c["tool"] for c in calls if c["tool"].startswith(("get_", "search_", "read_"))
                and c["write"]]  # fmt: skip


def test_the_real_tau_bench_results_give_50_tasks_with_their_actions(tmp_path):
    folder = extracted(HARBOR_TAU, ("tau/",), tmp_path)
    results = folder / "tau" / "gpt-4o-airline.json"
    [suite] = tau_bench_registry(results, suite="tau-bench-airline", version="1.0")["suites"]
    assert [t["task_id"] for t in suite["tasks"]] == [str(n) for n in range(50)]
    items = json.loads(results.read_text())
    actions = {str(i["task_id"]): i["info"]["task"]["actions"] for i in items}
    for task in suite["tasks"]:
        assert [(c["tool"], c["arguments"]) for c in task["reference_calls"]] == [
            (a["name"], a["kwargs"]) for a in actions[task["task_id"]]
        ]
        assert not any(c["write"] for c in task["reference_calls"])  # no base: no writes
    assert sum(len(t["reference_calls"]) for t in suite["tasks"]) == 158


def test_it_registers_every_instance_of_a_swebench_file_in_its_repositorys_category(tmp_path):
    details = {"django__django-11099": detail(), "astropy__astropy-12907": detail(False)}
    path = write_json(tmp_path, leaderboards(entry("Model A", details), entry("B", None)))
    document = swebench_registry(path, suite="swe-bench-verified", version="1", base=None)
    assert document["suites"][0]["tasks"] == [
        {"task_id": "astropy__astropy-12907", "category": "astropy__astropy"},
        {"task_id": "django__django-11099", "category": "django__django"},
    ]
    run_lists = write_json(tmp_path, run_report(resolved_ids=["x__y-1"]), name="report.json")
    tasks = swebench_registry(run_lists, suite="s", version="1")["suites"][0]["tasks"]
    assert tasks == [{"task_id": "x__y-1", "category": "x__y"}]


def test_a_file_that_names_no_instance_is_refused_by_name(tmp_path):
    path = write_json(tmp_path, leaderboards(entry("Only totals", None)))
    with pytest.raises(ReferenceInputError, match=r"leaderboards\.json: names no instance"):
        swebench_registry(path, suite="s", version="1")
