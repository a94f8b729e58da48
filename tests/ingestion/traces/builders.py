"""Hand-made traces: calls and reference calls written in a line each."""

from __future__ import annotations

from typing import Any

from ingestion.traces import Call, ReferenceCall


def call(
    tool: str, position: int = 0, *, turn: int = 0, failed: bool = False, **arguments: Any
) -> Call:
    return Call(position, turn, tool, arguments, failed)


def calls(*items: tuple) -> list[Call]:
    """Calls from (tool, arguments) pairs, one per turn, positions in order."""
    return [Call(i, i, tool, dict(arguments), False) for i, (tool, arguments) in enumerate(items)]


def names(*tools: str) -> list[Call]:
    return calls(*((tool, {}) for tool in tools))


def reference(*items: tuple, write: bool = False) -> tuple[ReferenceCall, ...]:
    return tuple(ReferenceCall(tool, dict(arguments), write) for tool, arguments in items)


def ref_names(*tools: str) -> tuple[ReferenceCall, ...]:
    return reference(*((tool, {}) for tool in tools))
