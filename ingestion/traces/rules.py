"""A run's calls checked against the suite's written rules (kinds in `rule_spec`).

Every call counts, ignored tools' and failed ones included: the attempt is the agent's
act, so a failed call of a forbidden tool is still a violation. Only a successful call
satisfies `required_before` (a failed identity check verified nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing.exceptions import Unresolvable

from ingestion.traces.calls import Call
from ingestion.traces.spec import Rule, TraceSpec

MESSAGE_VALUE_CHARS = 80  # at most this much of a jsonschema message is quoted


@dataclass(frozen=True)
class Violation:
    rule: str  # the rule's id
    position: int  # the offending call's Call.position
    message: str


def rules_check(calls: list[Call], spec: TraceSpec) -> list[Violation]:
    """Every violation, by the offending call's position, then the rules' order."""
    found = [v for rule in spec.rules for v in _CHECKS[rule.kind](rule, calls)]
    return sorted(found, key=lambda violation: violation.position)


def _forbidden_tool(rule: Rule, calls: list[Call]) -> Iterator[Violation]:
    for call in calls:
        if call.tool in rule.tools:
            yield Violation(rule.id, call.position, f"called the forbidden tool {call.tool!r}")


def _required_before(rule: Rule, calls: list[Call]) -> Iterator[Violation]:
    done = False
    for call in calls:
        if call.tool in rule.before and not done:
            yield Violation(
                rule.id,
                call.position,
                f"called {call.tool!r} with no earlier successful call of {rule.tool!r}",
            )
        if call.tool == rule.tool and not call.failed:
            done = True


def _max_calls(rule: Rule, calls: list[Call]) -> Iterator[Violation]:
    count = 0
    for call in calls:
        if call.tool in rule.tools:
            count += 1
            if count > rule.max:
                yield Violation(
                    rule.id,
                    call.position,
                    f"call {count} of {', '.join(sorted(rule.tools))} in the run; at most {rule.max}",
                )


def _max_calls_per_turn(rule: Rule, calls: list[Call]) -> Iterator[Violation]:
    per_turn: dict[int, int] = {}
    for call in calls:
        per_turn[call.turn] = per_turn.get(call.turn, 0) + 1
        if per_turn[call.turn] > rule.max:
            yield Violation(
                rule.id,
                call.position,
                f"call {per_turn[call.turn]} in one turn; at most {rule.max}",
            )


def _argument_schema(rule: Rule, calls: list[Call]) -> Iterator[Violation]:
    for call in calls:
        if call.tool == rule.tool:
            problem = _schema_problem(rule.validator, call.arguments)
            if problem is not None:
                yield Violation(
                    rule.id, call.position, f"arguments of {call.tool!r} fail the schema: {problem}"
                )


def _schema_problem(validator: Draft202012Validator, arguments: dict) -> str | None:
    """The first failing path and why, briefly; None when the arguments pass."""
    try:
        if validator.is_valid(arguments):  # the common case: no error to sort
            return None
        errors = sorted(validator.iter_errors(arguments), key=_error_order)
    except Unresolvable as error:  # a $ref the schema cannot resolve offline
        return f"the schema's reference {str(error.ref)[:MESSAGE_VALUE_CHARS]!r} is unresolvable"
    except RecursionError:  # arguments nested past what the validator can walk
        return "the arguments are nested too deeply to check"
    if not errors:
        return None
    first = errors[0]
    return f"at {first.json_path}: {_short(first.message)}"


def _error_order(error: ValidationError) -> tuple[int, str]:
    return len(error.absolute_path), error.json_path


def _short(text: str) -> str:
    limit = MESSAGE_VALUE_CHARS
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CHECKS: dict[str, Callable[[Rule, list[Call]], Iterator[Violation]]] = {
    "forbidden_tool": _forbidden_tool,
    "required_before": _required_before,
    "max_calls": _max_calls,
    "max_calls_per_turn": _max_calls_per_turn,
    "argument_schema": _argument_schema,
}
