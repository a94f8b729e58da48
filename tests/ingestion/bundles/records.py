"""Builders of runs and sessions as JSON lines, and helpers that validate them with the
real validators (ingestion/bundles/validators.py)."""

from __future__ import annotations

import json
from typing import Any

from ingestion.bundles import ErrorCollector
from ingestion.bundles.validators import RunValidator, SessionValidator

TASKS = {("terminal-bench", "4.0.0", "fix-git"): 7, ("terminal-bench", "4.0.0", "regex-log"): 8}


def lookup(suite: str, version: str, task_id: str) -> int | None:
    return TASKS.get((suite, version, task_id))


def a_run(**fields: Any) -> dict[str, Any]:
    run = {
        "run_id": "oh-tb-fix-git-1",
        "suite": "terminal-bench",
        "suite_version": "4.0.0",
        "task_id": "fix-git",
        "model": "frontier-large",
        "trial": 1,
        "outcome": "pass",
        "infra_error": None,
        "cost_usd": 0.0123,
        "tokens": {"input": 48211, "output": 5120},
        "steps": 31,
        "tool_calls": 36,
        "ttft_ms": 640,
        "started_at": "2026-11-01T10:00:00+00:00",
        "finished_at": "2026-11-01T10:04:10+00:00",
        "checkpoints": {"passed": 3, "total": 5},
        "verifier": {"name": "tb-verifier", "version": "4.0.0", "log_sha256": "ab12"},
        "trajectory": None,
    }
    run.update(fields)
    return {k: v for k, v in run.items() if v is not DROP}


def a_session(**fields: Any) -> dict[str, Any]:
    session = {
        "session_id": "s-000123",
        "model": "frontier-large",
        "scenario": "software_development",
        "user": "u0042",
        "confirmation": "yes",
        "toolset": [
            {"name": "bash", "kind": "shell", "parameters": {"type": "object"}},
            {"name": "read_file"},
        ],
        "turns": [
            {"role": "user", "text": "Set up the project and run the tests."},
            {
                "role": "assistant",
                "text": "Running them.",
                "tool_calls": [
                    {"tool": "bash", "arguments": {"command": "pytest -q"}, "exit_code": 1}
                ],
            },
            {"role": "user", "text": "No, use the py311 environment.", "label": "correction"},
            {"role": "tool", "text": "ok"},
            {"role": "user", "text": "Great, thanks!", "label": None},
        ],
    }
    session.update(fields)
    return {k: v for k, v in session.items() if v is not DROP}


DROP: Any = object()  # a_run(field=DROP) leaves the field out


def encode(obj: Any) -> bytes:
    # allow_nan: Python's json writes NaN/Infinity as bare tokens, as submitters' tools do
    return json.dumps(obj, allow_nan=True).encode()


def check_runs(*runs: dict[str, Any] | bytes, exists: frozenset[str] = frozenset()):
    """Validate lines 1..n; returns (records, errors)."""
    errors = ErrorCollector()
    validator = RunValidator(errors, lookup, trajectory_exists=exists.__contains__)
    records = [
        validator.from_json(i, r if isinstance(r, bytes) else encode(r))
        for i, r in enumerate(runs, 1)
    ]
    return records, errors.errors


def run_errors(**fields: Any) -> list[tuple[str, str]]:
    records, errors = check_runs(a_run(**fields))
    assert (records[0] is None) == bool(errors), "a record is yielded exactly when it has no error"
    return [(e.field, e.message) for e in errors]


def assert_one_error(errors: list[tuple[str, str]], field: str, *words: str) -> None:
    assert len(errors) == 1, errors
    assert errors[0][0] == field, errors
    for word in words:
        assert word in errors[0][1], errors


def check_sessions(*sessions: dict[str, Any] | bytes):
    errors = ErrorCollector()
    validator = SessionValidator(errors)
    records = [
        validator.from_json(i, s if isinstance(s, bytes) else encode(s))
        for i, s in enumerate(sessions, 1)
    ]
    return records, errors.errors


def session_errors(**fields: Any) -> list[tuple[str, str]]:
    records, errors = check_sessions(a_session(**fields))
    assert (records[0] is None) == bool(errors)
    return [(e.field, e.message) for e in errors]
