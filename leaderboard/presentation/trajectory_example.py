"""The methodology page's worked trajectory example: a small hand-made trace scored by
ingestion.traces itself, so the numbers the page prints are the code's.

Pure: the trace, its reference and its spec are built here; nothing is read from the
database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from ingestion.traces import (
    FIGURES,
    Figure,
    ReferenceCall,
    RunTrace,
    reference_calls_parse,
    run_trace,
    trace_spec_parse,
)
from leaderboard.presentation.traces import ALIGNMENT_LABELS

SPEC = {
    "write_tools": ["book_reservation", "send_certificate"],
    "ignored_tools": ["think"],
    "arguments": {"default": "exact"},
    "extra_arguments": "ignored",
}
REFERENCE = [
    {"tool": "get_user_details", "arguments": {"user_id": "u1"}},
    {"tool": "book_reservation", "arguments": {"user_id": "u1", "amount": 250}},
    {"tool": "send_certificate", "arguments": {"user_id": "u1", "amount": 100}},
]
# (tool, arguments, the tool turn's answer): one assistant turn per call.
AGENT_CALLS: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("get_user_details", {"user_id": "u1"}, '{"user_id": "u1", "membership": "gold"}'),
    ("think", {"thought": "Gold member: a certificate is allowed."}, ""),
    ("search_direct_flight", {"origin": "JFK", "destination": "SEA"}, "[...]"),
    ("book_reservation", {"user_id": "u1", "amount": 250.0, "extra": "x"}, '{"id": "R1"}'),
    ("get_user_details", {"user_id": "u1"}, "Error: too many requests"),
    ("send_certificate", {"user_id": "u1", "amount": 50}, "Certificate sent"),
)


def example_turns() -> list[dict]:
    """The agent's trajectory in the bundle's turn format."""
    turns: list[dict] = []
    for tool, arguments, answer in AGENT_CALLS:
        call = {"tool": tool, "arguments": arguments}
        turns.append({"role": "assistant", "text": "", "tool_calls": [call]})
        turns.append({"role": "tool", "text": answer})
    return turns


def example_trace() -> RunTrace:
    spec = trace_spec_parse(SPEC, [])
    return run_trace(example_turns(), reference_calls_parse(REFERENCE, spec), spec)


def _reference_calls() -> tuple[ReferenceCall, ...]:
    return reference_calls_parse(REFERENCE, trace_spec_parse(SPEC, []))


@dataclass(frozen=True)
class CallRow:
    tool: str
    arguments: str  # compact JSON
    note: str  # the reference call's write mark, or the agent call's answer
    status: str = ""  # the agent call's line in the alignment


@dataclass(frozen=True)
class FigureValue:
    figure: Figure
    value: float | None
    text: str  # as the page prints it


@dataclass(frozen=True)
class TrajectoryExample:
    reference: list[CallRow]
    calls: list[CallRow]
    figures: list[FigureValue]
    counts: dict[str, int]


def value_text(figure: Figure, value: float | None) -> str:
    """A pass/fail as "pass (1)" or "fail (0)", a fraction to three decimals."""
    if value is None:
        return "undefined"
    if figure.kind == "rate":
        return "pass (1)" if value == 1.0 else "fail (0)"
    return f"{value:.3f}"


def _arguments(arguments: dict) -> str:
    return json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))


@cache
def trajectory_example() -> TrajectoryExample:
    """The example's calls, their alignment and every figure (computed once)."""
    score = example_trace().score
    if score is None:  # cannot happen: the example's task has reference calls
        raise ValueError("the worked example has no reference calls")
    reference = [
        CallRow(call.tool, _arguments(call.arguments), "write" if call.write else "read")
        for call in _reference_calls()
    ]
    status = {line.position: line for line in score.alignment if line.position is not None}
    calls = []
    for position, (tool, arguments, answer) in enumerate(AGENT_CALLS):
        line = status[position]
        label = ALIGNMENT_LABELS[line.status]
        if line.differing:
            label += f" ({', '.join(line.differing)})"
        calls.append(CallRow(tool, _arguments(arguments), answer, label))
    figures = [
        FigureValue(
            figure, score.figures[figure.key], value_text(figure, score.figures[figure.key])
        )
        for figure in FIGURES
    ]
    counts = {
        "calls": score.calls,
        "failed": score.failed_calls,
        "ignored": score.ignored_calls,
        "reference": score.reference_calls,
    }
    return TrajectoryExample(reference, calls, figures, counts)
