"""Written rules checked against a run's calls (ingestion/traces/rules.py)."""

from __future__ import annotations

import pytest

from ingestion.traces import Call, TraceSpecError, rules_check, trace_spec_parse


def _check(rule: dict, calls: list[Call]) -> list[tuple[str, int]]:
    spec = trace_spec_parse(None, [{"id": "r", "title": "A rule", **rule}])
    return [(v.rule, v.position) for v in rules_check(calls, spec)]


def _calls(*tools: str, failed: tuple[int, ...] = ()) -> list[Call]:
    return [Call(i, i, tool, {}, i in failed) for i, tool in enumerate(tools)]


def test_it_marks_every_call_of_a_forbidden_tool_failed_ones_included():
    calls = _calls("read", "delete", "read", "delete", failed=(3,))
    rule = {"kind": "forbidden_tool", "tools": ["delete", "drop"]}
    assert _check(rule, calls) == [("r", 1), ("r", 3)]
    spec = trace_spec_parse(None, [{"id": "r", "title": "No deletes", **rule}])
    assert rules_check(calls, spec)[0].message == "called the forbidden tool 'delete'"


def test_it_marks_each_write_before_a_successful_verification():
    rule = {"kind": "required_before", "tool": "verify", "before": ["refund", "cancel"]}
    # The first verification failed: it verified nothing, so the refund after it breaks the rule.
    calls = _calls("refund", "verify", "cancel", "verify", "refund", "cancel", failed=(1,))
    assert _check(rule, calls) == [("r", 0), ("r", 2)]
    assert _check(rule, _calls("verify", "refund")) == []
    assert _check(rule, _calls("read")) == []


def test_it_marks_the_calls_beyond_the_maximum_counted_together():
    rule = {"kind": "max_calls", "tools": ["charge", "refund"], "max": 2}
    calls = _calls("charge", "read", "refund", "charge", "refund", failed=(3,))
    assert _check(rule, calls) == [("r", 3), ("r", 4)]
    assert _check({**rule, "max": 0}, _calls("charge")) == [("r", 0)]


def test_it_marks_a_turns_calls_after_its_nth_ignored_tools_included():
    calls = [
        Call(0, 1, "think", {}, False),
        Call(1, 1, "read", {}, False),
        Call(2, 1, "read", {}, True),
        Call(3, 3, "read", {}, False),
        Call(4, 3, "read", {}, False),
    ]
    spec = trace_spec_parse(
        {"ignored_tools": ["think"]},
        [{"id": "two", "title": "Two a turn", "kind": "max_calls_per_turn", "max": 2}],
    )
    violations = rules_check(calls, spec)
    assert [v.position for v in violations] == [2]
    assert violations[0].message == "call 3 in one turn; at most 2"


def test_it_marks_calls_whose_arguments_fail_the_schema_naming_the_path_briefly():
    schema = {
        "type": "object",
        "required": ["amount"],
        "properties": {"amount": {"type": "number", "minimum": 0}, "note": {"maxLength": 5}},
    }
    rule = {"kind": "argument_schema", "tool": "refund", "schema": schema}
    calls = [
        Call(0, 0, "refund", {"amount": 10}, False),
        Call(1, 0, "refund", {"amount": -1}, True),  # failed: still the agent's act
        Call(2, 0, "refund", {}, False),
        Call(3, 0, "other", {}, False),
        Call(4, 0, "refund", {"amount": 1, "note": "x" * 500}, False),
    ]
    spec = trace_spec_parse(None, [{"id": "amounts", "title": "Amounts", **rule}])
    violations = rules_check(calls, spec)
    assert [v.position for v in violations] == [1, 2, 4]
    assert "$.amount" in violations[0].message
    assert "'amount' is a required property" in violations[1].message
    assert "$.note" in violations[2].message
    assert "x" * 81 not in violations[2].message


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "https://example.org/s.json"},  # remote: never fetched at ingest
        {"properties": {"a": {"$ref": "#"}}},  # a loop: a RecursionError at the first call
        {"$defs": {"a": {"$dynamicRef": "#a"}}},
    ],
)
def test_it_refuses_a_schema_reference_when_the_suite_is_read(schema):
    rule = {"id": "ref", "title": "Ref", "kind": "argument_schema", "tool": "x", "schema": schema}
    with pytest.raises(TraceSpecError, match=r"\$(ref|dynamicRef): is not allowed"):
        trace_spec_parse(None, [rule])


@pytest.mark.parametrize("pattern", ["^(a+)+$", "(a|a)*$", "x" * 201])
def test_it_refuses_a_pattern_that_can_backtrack_exponentially(pattern):
    schema = {"properties": {"s": {"type": "string", "pattern": pattern}}}
    rule = {"id": "p", "title": "P", "kind": "argument_schema", "tool": "x", "schema": schema}
    with pytest.raises(TraceSpecError, match=r"pattern: .* is refused"):
        trace_spec_parse(None, [rule])


def test_it_keeps_a_plain_prefix_pattern():
    schema = {"properties": {"id": {"type": "string", "pattern": "^certificate_"}}}
    rule = {"id": "p", "title": "P", "kind": "argument_schema", "tool": "x", "schema": schema}
    spec = trace_spec_parse(None, [rule])
    assert rules_check([Call(0, 0, "x", {"id": "gift_1"}, False)], spec)[0].rule == "p"


def test_it_orders_violations_by_position_then_rule():
    spec = trace_spec_parse(
        None,
        [
            {"id": "b", "title": "B", "kind": "max_calls", "tools": ["x"], "max": 0},
            {"id": "a", "title": "A", "kind": "forbidden_tool", "tools": ["x"]},
        ],
    )
    violations = rules_check(_calls("y", "x", "x"), spec)
    assert [(v.position, v.rule) for v in violations] == [(1, "b"), (1, "a"), (2, "b"), (2, "a")]
    assert rules_check([], spec) == []
