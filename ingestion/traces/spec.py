"""A suite's trace spec: how its runs' calls are compared with reference calls, and the
written rules every run is checked against.

Parsed from the suite's registry fields (`trajectory`, `rules`) and from a task's
reference calls. Everything is checked strictly (unknown keys, wrong types, sizes):
a misspelt key must not pass for a default. Errors name the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from ingestion.traces.rule_spec import Rule, rules_parse
from ingestion.traces.validate import (
    MAX_ITEMS,
    TraceSpecError,
    check_keys,
    check_list,
    check_name,
    describe,
)
from ingestion.traces.values import is_number, json_equal, normalised_equal, within

__all__ = [
    "ArgumentRule",
    "ReferenceCall",
    "Rule",
    "TraceSpec",
    "TraceSpecError",
    "reference_calls_parse",
    "trace_spec_parse",
]

RuleKind = Literal["exact", "ignored", "normalised", "tolerance"]
ExtraArguments = Literal["ignored", "counted"]
_NAMED_KINDS = ("exact", "ignored", "normalised")


@dataclass(frozen=True)
class ArgumentRule:
    """How one argument's value is compared; `tolerance` only for kind "tolerance"."""

    kind: RuleKind = "exact"
    tolerance: float = 0.0

    @property
    def compared(self) -> bool:
        """An ignored argument is never compared, so it counts neither way."""
        return self.kind != "ignored"

    def matches(self, expected: Any, actual: Any) -> bool:
        if self.kind == "ignored":
            return True
        if self.kind == "normalised":
            return normalised_equal(expected, actual)
        if self.kind == "tolerance":
            return within(expected, actual, self.tolerance)
        return json_equal(expected, actual)


EXACT = ArgumentRule("exact")


@dataclass(frozen=True)
class TraceSpec:
    write_tools: frozenset[str] = frozenset()
    ignored_tools: frozenset[str] = frozenset()
    default: ArgumentRule = EXACT
    by_name: dict[str, ArgumentRule] = field(default_factory=dict)
    by_tool: dict[str, dict[str, ArgumentRule]] = field(default_factory=dict)
    extra_arguments: ExtraArguments = "ignored"
    rules: tuple[Rule, ...] = ()

    def rule_for(self, tool: str, argument: str) -> ArgumentRule:
        """The most specific rule: the tool's own, then the argument name's, then the default."""
        own = self.by_tool.get(tool, {})
        if argument in own:
            return own[argument]
        return self.by_name.get(argument, self.default)

    def is_write(self, tool: str) -> bool:
        return tool in self.write_tools


@dataclass(frozen=True)
class ReferenceCall:
    tool: str
    arguments: dict[str, Any]
    write: bool


_TRAJECTORY_KEYS = ("write_tools", "ignored_tools", "arguments", "extra_arguments")
_ARGUMENTS_KEYS = ("default", "by_name", "by_tool")


def trace_spec_parse(trajectory: dict | None, rules: list | None) -> TraceSpec:
    """The suite's `trajectory` and `rules` registry fields as a TraceSpec."""
    data = {} if trajectory is None else trajectory
    if not isinstance(data, dict):
        raise TraceSpecError("trajectory", f"must be an object, got {describe(data)}")
    check_keys(data, _TRAJECTORY_KEYS, "trajectory")
    arguments = _arguments_parse(data.get("arguments"), "trajectory.arguments")
    return TraceSpec(
        write_tools=_names(data.get("write_tools"), "trajectory.write_tools"),
        ignored_tools=_names(data.get("ignored_tools"), "trajectory.ignored_tools"),
        default=arguments[0],
        by_name=arguments[1],
        by_tool=arguments[2],
        extra_arguments=_extra_arguments(data.get("extra_arguments", "ignored")),
        rules=rules_parse([] if rules is None else rules, "rules"),
    )


def _names(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    items = check_list(value, where)
    return frozenset(check_name(item, f"{where}[{index}]") for index, item in enumerate(items))


def _extra_arguments(value: Any) -> ExtraArguments:
    if value not in ("ignored", "counted") or not isinstance(value, str):
        raise TraceSpecError(
            "trajectory.extra_arguments", f'must be "ignored" or "counted", got {describe(value)}'
        )
    return value


def _arguments_parse(
    value: Any, where: str
) -> tuple[ArgumentRule, dict[str, ArgumentRule], dict[str, dict[str, ArgumentRule]]]:
    if value is None:
        return EXACT, {}, {}
    if not isinstance(value, dict):
        raise TraceSpecError(where, f"must be an object, got {describe(value)}")
    check_keys(value, _ARGUMENTS_KEYS, where)
    default = argument_rule_parse(value.get("default", "exact"), f"{where}.default")
    by_name = _rule_map(value.get("by_name"), f"{where}.by_name")
    by_tool_raw = _object(value.get("by_tool"), f"{where}.by_tool")
    by_tool = {
        check_name(tool, f"{where}.by_tool"): _rule_map(rules, f"{where}.by_tool.{tool}")
        for tool, rules in by_tool_raw.items()
    }
    return default, by_name, by_tool


def _object(value: Any, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TraceSpecError(where, f"must be an object, got {describe(value)}")
    if len(value) > MAX_ITEMS:
        raise TraceSpecError(where, f"has {len(value)} entries, at most {MAX_ITEMS}")
    return value


def _rule_map(value: Any, where: str) -> dict[str, ArgumentRule]:
    return {
        check_name(name, where): argument_rule_parse(rule, f"{where}.{name}")
        for name, rule in _object(value, where).items()
    }


def argument_rule_parse(value: Any, where: str) -> ArgumentRule:
    """`"exact"`, `"ignored"`, `"normalised"` or `{"tolerance": x}` with x finite, ≥ 0."""
    if isinstance(value, str) and value in _NAMED_KINDS:
        return ArgumentRule(value)  # type: ignore[arg-type]
    if isinstance(value, dict) and set(value) == {"tolerance"}:
        tolerance = value["tolerance"]
        if is_number(tolerance) and math.isfinite(tolerance) and tolerance >= 0:
            return ArgumentRule("tolerance", float(tolerance))
        raise TraceSpecError(
            f"{where}.tolerance", f"must be a finite number ≥ 0, got {describe(tolerance)}"
        )
    raise TraceSpecError(
        where,
        f'must be "exact", "ignored", "normalised" or {{"tolerance": number}}, '
        f"got {describe(value)}",
    )


_CALL_KEYS = ("tool", "arguments", "write")


def reference_calls_parse(data: list, spec: TraceSpec) -> tuple[ReferenceCall, ...]:
    """A task's reference calls; `write` defaults to whether the spec calls the tool a write."""
    items = check_list(data, "reference_calls")
    return tuple(
        _reference_call(item, spec, f"reference_calls[{index}]") for index, item in enumerate(items)
    )


def _reference_call(item: Any, spec: TraceSpec, where: str) -> ReferenceCall:
    if not isinstance(item, dict):
        raise TraceSpecError(where, f"must be an object, got {describe(item)}")
    check_keys(item, _CALL_KEYS, where)
    if "tool" not in item:
        raise TraceSpecError(f"{where}.tool", "is required")
    tool = check_name(item["tool"], f"{where}.tool")
    arguments = item.get("arguments", {})
    if not isinstance(arguments, dict):
        raise TraceSpecError(f"{where}.arguments", f"must be an object, got {describe(arguments)}")
    write = item.get("write", spec.is_write(tool))
    if not isinstance(write, bool):
        raise TraceSpecError(f"{where}.write", f"must be true or false, got {describe(write)}")
    # One rule classifies both sides: the agent's calls are writes by write_tools, so a
    # reference call saying otherwise could never be matched (or would make a match extra).
    if write != spec.is_write(tool):
        listed = "lists" if spec.is_write(tool) else "does not list"
        raise TraceSpecError(
            f"{where}.write",
            f"is {str(write).lower()}, but the suite's write_tools {listed} {tool!r}",
        )
    return ReferenceCall(tool, dict(arguments), write)
