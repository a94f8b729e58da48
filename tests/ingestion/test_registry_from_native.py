"""`manage.py registry_from_native`: reference calls from native files as a registry
file; a named one-line error and exit status 1 on bad input. No database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.ingestion.importers.builders import tau_result, write_tau
from tests.ingestion.importers.test_references import SUITE_FILE, ground_truth, task_lists

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_agentdojo_ground_truth_becomes_a_registry_file(tmp_path, capsys):
    gt = _write(tmp_path, "gt.json", ground_truth())
    ids = _write(tmp_path, "ids.json", task_lists())
    out = tmp_path / "registry.json"
    call_command(
        "registry_from_native", "agentdojo", str(gt), "--task-ids", str(ids),
        "--benchmark-version", "v1.1.2", "--base", str(SUITE_FILE), "--out", str(out),
    )  # fmt: skip
    text = out.read_text()
    assert text.startswith('{\n "format": "arena-registry/1",\n "suites": [\n  {')
    [suite] = json.loads(text)["suites"]
    assert (suite["slug"], suite["version"], suite["name"]) == ("agentdojo", "v1.1.2", "AgentDojo")
    assert len(suite["tasks"]) == 3
    err = capsys.readouterr().err
    assert f"agentdojo v1.1.2: 3 tasks, 3 reference calls written to {out}" in err


def test_tau_bench_actions_become_a_registry_file(tmp_path, capsys):
    item = tau_result(4, 0, 1.0)
    item["info"]["task"]["actions"] = [{"name": "get_user_details", "kwargs": {"user_id": "u"}}]
    out = tmp_path / "registry.json"
    call_command(
        "registry_from_native", "tau-bench", str(write_tau(tmp_path, [item])),
        "--suite", "tau-bench-airline", "--version", "1.0", "--out", str(out),
    )  # fmt: skip
    [suite] = json.loads(out.read_text())["suites"]
    assert suite["tasks"] == [
        {"task_id": "4", "category": "customer_service", "reference_calls": [
            {"tool": "get_user_details", "arguments": {"user_id": "u"}, "write": False}]}
    ]  # fmt: skip
    assert "tau-bench-airline 1.0: 1 tasks, 1 reference calls" in capsys.readouterr().err


def test_bad_input_is_one_named_error(tmp_path):
    out = tmp_path / "registry.json"
    with pytest.raises(CommandError, match=r"^gt.json: must be an object of AgentDojo suites$"):
        call_command(
            "registry_from_native", "agentdojo", str(_write(tmp_path, "gt.json", [])),
            "--benchmark-version", "v1.1.2", "--out", str(out),
        )  # fmt: skip
    with pytest.raises(CommandError, match="agentdojo needs --benchmark-version"):
        call_command("registry_from_native", "agentdojo", str(tmp_path / "x"), "--out", str(out))
    with pytest.raises(CommandError, match="tau-bench needs --suite and --version"):
        call_command("registry_from_native", "tau-bench", str(tmp_path / "x"), "--out", str(out))
    with pytest.raises(CommandError, match=r"missing.json: no such file"):
        call_command(
            "registry_from_native", "tau-bench", str(tmp_path / "missing.json"),
            "--suite", "s", "--version", "1", "--out", str(out),
        )  # fmt: skip
    assert not out.exists()


def test_it_exits_1_with_one_line_on_stderr(tmp_path):
    bad = _write(tmp_path, "results.json", {})
    done = subprocess.run(
        [sys.executable, "manage.py", "registry_from_native", "tau-bench", str(bad),
         "--suite", "s", "--version", "1", "--out", str(tmp_path / "r.json")],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1] == "CommandError: results.json: must be a JSON list of τ-bench results"
