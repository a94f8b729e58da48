"""The tool calls of one run's trajectory, in order, each with whether it failed.

A trajectory is a list of turns `{role, text, tool_calls: [{tool, arguments, exit_code}]}`;
the tool turns (`role: "tool"`) that follow an assistant turn, up to the next assistant
turn, answer its calls in order: the k-th answers the k-th call.

The failed-call rule: a call failed when its `exit_code` is an integer other than 0,
or when the tool turn answering it has text that, after leading whitespace, starts
with "Error" (τ-bench's tools answer "Error: ..." and change nothing). A call with no
answering tool turn has not failed: nothing says it did.

Junk is read, not refused (the bundle reader already judged the trajectory): a turn
that is not an object is skipped, a call without a tool name is skipped but still
takes its answer, and arguments that are not an object are read as `{}`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    position: int  # among all the trajectory's tool calls, in order, from 0
    turn: int  # the index of its turn in the trajectory
    tool: str
    arguments: dict[str, Any]
    failed: bool
    # Its index in its turn's `tool_calls`, so a reader can find it there; where it
    # sits says nothing of the call itself, so it takes no part in equality.
    slot: int = field(default=0, compare=False)


def trajectory_calls(turns: list) -> list[Call]:
    calls: list[Call] = []
    items = turns if isinstance(turns, list) else []
    for index, turn in enumerate(items):
        if not isinstance(turn, dict) or turn.get("role") == "tool":
            continue
        raw_calls = turn.get("tool_calls")
        if not isinstance(raw_calls, list) or not raw_calls:
            continue
        answers = _answers(items, index)
        for slot, raw in enumerate(raw_calls):
            answer = answers[slot] if slot < len(answers) else None
            call = _call(raw, len(calls), index, slot, answer)
            if call is not None:
                calls.append(call)
    return calls


def _answers(turns: list, index: int) -> list[dict]:
    """The tool turns after turn `index`, up to the next assistant turn."""
    answers = []
    for turn in turns[index + 1 :]:
        if not isinstance(turn, dict):
            continue
        if turn.get("role") == "assistant":
            break
        if turn.get("role") == "tool":
            answers.append(turn)
    return answers


def _call(raw: Any, position: int, turn: int, slot: int, answer: dict | None) -> Call | None:
    if not isinstance(raw, dict):
        return None
    tool = raw.get("tool")
    if not isinstance(tool, str) or not tool:
        return None
    arguments = raw.get("arguments")
    failed = _failed_exit(raw.get("exit_code")) or _error_answer(answer)
    arguments = arguments if isinstance(arguments, dict) else {}
    return Call(position, turn, tool, arguments, failed, slot)


def _failed_exit(code: Any) -> bool:
    return isinstance(code, int) and not isinstance(code, bool) and code != 0


def _error_answer(answer: dict | None) -> bool:
    text = answer.get("text") if answer is not None else None
    return isinstance(text, str) and text.lstrip().startswith("Error")
