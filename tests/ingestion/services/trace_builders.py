"""A suite that states a trajectory, rules and reference calls, and runs of it with
inline trajectories, for the trace tests (registry, ingest, boards, pages)."""

from __future__ import annotations

import copy
from typing import Any

from ingestion.services.registry import registry_load
from tests.builders import run_line, submit

SUITE = "tool-bench"
VERSION = "1.0.0"
BOARD = f"{SUITE}-{VERSION}"
AUTHOR = "tess.author"  # wrote "cancel": a harness she contributes to is conflict-excluded
TRAJECTORY = {"write_tools": ["book_flight", "cancel"], "ignored_tools": ["think"]}
RULES = [
    {"id": "no-delete", "title": "Never delete an account.", "kind": "forbidden_tool",
     "tools": ["delete_account"]},
    {"id": "lookup-first", "title": "Look the user up before booking.",
     "kind": "required_before", "tool": "get_user", "before": ["book_flight"]},
]  # fmt: skip
REFERENCES = {
    "book": [
        {"tool": "get_user", "arguments": {"user_id": "u1"}},
        {"tool": "book_flight", "arguments": {"flight": "F1", "seats": 1}},
    ],
    "cancel": [{"tool": "cancel", "arguments": {"id": "R1"}}],
}


def tool_task(task_id: str, **fields: Any) -> dict[str, Any]:
    authors = [AUTHOR] if task_id == "cancel" else ["a.author"]
    task = {"task_id": task_id, "category": "bugfix", "authors": authors}
    if task_id in REFERENCES:
        task["reference_calls"] = copy.deepcopy(REFERENCES[task_id])
    return {**task, **fields}


def tool_suite(slug: str = SUITE, **fields: Any) -> dict[str, Any]:
    """The suite: "book" and "cancel" have reference calls, "chat" has none."""
    suite = {
        "slug": slug, "version": VERSION, "name": "Tool Bench", "official": True,
        "trajectory": copy.deepcopy(TRAJECTORY), "rules": copy.deepcopy(RULES),
        "tasks": [tool_task("book"), tool_task("cancel"), tool_task("chat")],
    }  # fmt: skip
    return {**suite, **fields}


def tool_registry(*suites: dict[str, Any]) -> dict[str, Any]:
    return {"format": "arena-registry/1", "suites": list(suites) or [tool_suite()]}


def load(*suites: dict[str, Any]):
    return registry_load(data=tool_registry(*suites))


def turns(*calls: tuple) -> list[dict]:
    """A trajectory: one assistant turn per call, each answered by a tool turn; a call is
    (tool, arguments) or (tool, arguments, "Error: ...") for a failed one."""
    found: list[dict] = [{"role": "user", "text": "Book me a flight."}]
    for tool, arguments, *answer in calls:
        found.append({"role": "assistant", "text": None,
                      "tool_calls": [{"tool": tool, "arguments": arguments}]})  # fmt: skip
        found.append({"role": "tool", "text": answer[0] if answer else "ok"})
    return found


GOOD_BOOK = (("get_user", {"user_id": "u1"}), ("book_flight", {"flight": "F1", "seats": 1}))
# Books the wrong flight without looking the user up, then deletes the account.
BAD_BOOK = (("book_flight", {"flight": "F2", "seats": 1}), ("delete_account", {"id": "u1"}))
GOOD_CANCEL = (("cancel", {"id": "R1"}),)


def tool_run(run_id: str, task_id: str, calls: tuple, trial: int = 1, **fields) -> dict:
    fields = {"suite": SUITE, "suite_version": VERSION, **fields}
    return run_line(run_id, task_id=task_id, trial=trial, trajectory=turns(*calls), **fields)


def tool_runs(model: str = "m", prefix: str = "r") -> list[dict]:
    """Two good and one bad run of "book", one of "cancel", one of "chat" (rules only),
    one infra error of "book" (left out of every count)."""
    return [
        tool_run(f"{prefix}-1", "book", GOOD_BOOK, 1, model=model),
        tool_run(f"{prefix}-2", "book", GOOD_BOOK, 2, model=model),
        tool_run(f"{prefix}-3", "book", BAD_BOOK, 3, model=model, outcome="fail"),
        tool_run(f"{prefix}-4", "cancel", GOOD_CANCEL, 1, model=model),
        tool_run(f"{prefix}-5", "chat", BAD_BOOK[1:], 1, model=model),
        tool_run(f"{prefix}-6", "book", BAD_BOOK, 4, model=model, outcome="infra_error",
                 infra_error="timeout"),
    ]  # fmt: skip


def submit_tools(user, runs: list[dict] | None = None, harness: str = "Toolsmith", **fields):
    return submit(user, tool_runs() if runs is None else runs, harness=harness, **fields)


# Every alignment status on "book": an ignored tool, a match, a failed call (its argument
# is markup), a booking with the wrong seats, and an extra call that breaks "no-delete".
EVERY_STATUS = (
    ("think", {}),
    ("get_user", {"user_id": "u1"}),
    ("cancel", {"id": "<script>alert(9)</script>"}, "Error: no such reservation"),
    ("book_flight", {"flight": "F1", "seats": 2}),
    ("delete_account", {"note": "<script>alert(7)</script>"}),
)
# Toolsmith matches every reference; Other matches one "book" run of two and no "cancel".
COMPARE = {"board": BOARD, "a": "Toolsmith/1.0.0/m", "b": "Other/1.0.0/m"}


def two_agents(user) -> None:
    """Toolsmith and Other on tool-bench, recomputed (COMPARE picks them)."""
    from leaderboard.recompute.services import boards_recompute

    load()
    submit_tools(user, [
        tool_run("a-1", "book", GOOD_BOOK, 1, model="m"),
        tool_run("a-2", "book", GOOD_BOOK, 2, model="m"),
        tool_run("a-3", "cancel", GOOD_CANCEL, 1, model="m"),
    ])  # fmt: skip
    submit_tools(user, [
        tool_run("b-1", "book", GOOD_BOOK, 1, model="m"),
        tool_run("b-2", "book", EVERY_STATUS, 2, model="m", outcome="fail"),
        tool_run("b-3", "cancel", (("cancel", {"id": "R9"}),), 1, model="m", outcome="fail"),
    ], harness="Other")  # fmt: skip
    boards_recompute()
