"""The trace spec (ingestion/traces/spec.py): argument rules, defaults, reference calls,
and errors that name the field."""

from __future__ import annotations

import pytest

from ingestion.traces import ArgumentRule, TraceSpecError, reference_calls_parse, trace_spec_parse


def _error(trajectory=None, rules=None) -> TraceSpecError:
    with pytest.raises(TraceSpecError) as caught:
        trace_spec_parse(trajectory, rules)
    return caught.value


def test_it_defaults_to_exact_arguments_and_no_write_or_ignored_tools():
    spec = trace_spec_parse(None, None)
    assert spec.write_tools == frozenset() and spec.ignored_tools == frozenset()
    assert spec.rule_for("any", "x") == ArgumentRule("exact")
    assert spec.extra_arguments == "ignored"
    assert spec.rules == ()
    assert trace_spec_parse({}, []) == spec


def test_it_prefers_the_tools_own_rule_then_the_names_then_the_default():
    spec = trace_spec_parse(
        {
            "write_tools": ["send_email"],
            "arguments": {
                "default": "normalised",
                "by_name": {"amount": {"tolerance": 0.01}, "body": "ignored"},
                "by_tool": {"send_email": {"body": "exact"}},
            },
        },
        None,
    )
    assert spec.rule_for("send_email", "body") == ArgumentRule("exact")
    assert spec.rule_for("draft", "body") == ArgumentRule("ignored")
    assert spec.rule_for("refund", "amount") == ArgumentRule("tolerance", 0.01)
    assert spec.rule_for("refund", "reason") == ArgumentRule("normalised")
    assert spec.is_write("send_email") and not spec.is_write("draft")


def test_it_compares_exact_as_json_numbers_as_numbers_bools_apart():
    exact = ArgumentRule("exact")
    assert exact.matches(250, 250.0)
    assert not exact.matches(True, 1)
    assert not exact.matches(1, True)
    assert exact.matches({"a": 1, "b": [1, 2]}, {"b": [1.0, 2], "a": 1})
    assert not exact.matches([1, 2], [2, 1])
    assert not exact.matches("1", 1)
    assert exact.matches(None, None)


def test_it_normalises_case_whitespace_and_trailing_punctuation_of_strings_only():
    rule = ArgumentRule("normalised")
    assert rule.matches("Flight  to\tParis.", "flight to paris")
    assert rule.matches("STRASSE!", "straße")  # casefold, not lower
    assert rule.matches("  why?  ", "Why")
    assert not rule.matches("to Paris", "to Rome")
    assert rule.matches(3, 3.0)
    assert not rule.matches("3", 3)


def test_it_allows_an_absolute_tolerance_for_numbers_and_exact_for_the_rest():
    rule = ArgumentRule("tolerance", 0.5)
    assert rule.matches(10, 10.5)
    assert not rule.matches(10, 10.6)
    assert rule.matches("a", "a") and not rule.matches("a", "A")
    assert not rule.matches(True, 1)


def test_it_names_the_field_of_a_bad_argument_rule():
    error = _error({"arguments": {"by_tool": {"send_email": {"body": "fuzzy"}}}})
    assert error.field == "trajectory.arguments.by_tool.send_email.body"
    assert "trajectory.arguments.by_tool.send_email.body" in str(error)
    assert "fuzzy" in str(error)


@pytest.mark.parametrize(
    ("trajectory", "field"),
    [
        ({"write_tool": ["a"]}, "trajectory.write_tool"),
        ({"write_tools": "a"}, "trajectory.write_tools"),
        ({"ignored_tools": [1]}, "trajectory.ignored_tools[0]"),
        ({"write_tools": ["x" * 201]}, "trajectory.write_tools[0]"),
        ({"write_tools": [f"t{i}" for i in range(501)]}, "trajectory.write_tools"),
        ({"extra_arguments": "some"}, "trajectory.extra_arguments"),
        ({"arguments": {"default": {"tolerance": -1}}}, "trajectory.arguments.default.tolerance"),
        (
            {"arguments": {"default": {"tolerance": float("inf")}}},
            "trajectory.arguments.default.tolerance",
        ),
        ({"arguments": {"default": {"tolerance": True}}}, "trajectory.arguments.default.tolerance"),
        ({"arguments": {"by_name": []}}, "trajectory.arguments.by_name"),
        ({"arguments": {"strict": True}}, "trajectory.arguments.strict"),
        ([], "trajectory"),
    ],
)
def test_it_refuses_a_malformed_trajectory_field_naming_it(trajectory, field):
    assert _error(trajectory).field == field


def test_it_reads_reference_calls_with_write_from_the_spec():
    spec = trace_spec_parse({"write_tools": ["book"]}, None)
    calls = reference_calls_parse(
        [
            {"tool": "book", "arguments": {"id": 1}},
            {"tool": "look"},
            {"tool": "book", "write": True},
        ],
        spec,
    )
    assert [(c.tool, c.arguments, c.write) for c in calls] == [
        ("book", {"id": 1}, True),
        ("look", {}, False),
        ("book", {}, True),
    ]


def test_it_refuses_a_write_flag_the_suites_write_tools_contradict():
    # Both sides are classified by write_tools: a reference write of a read tool could
    # never be matched by the agent's call of it.
    spec = trace_spec_parse({"write_tools": ["book"]}, None)
    with pytest.raises(TraceSpecError, match="write_tools does not list 'look'"):
        reference_calls_parse([{"tool": "look", "write": True}], spec)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (
            [{"tool": "a"}, {"tool": "b"}, {"tool": "c"}, {"tool": "d", "arguments": []}],
            "reference_calls[3].arguments",
        ),
        ([{"arguments": {}}], "reference_calls[0].tool"),
        ([{"tool": "a", "write": "yes"}], "reference_calls[0].write"),
        ([{"tool": "a", "kwargs": {}}], "reference_calls[0].kwargs"),
        (["a"], "reference_calls[0]"),
        ({"tool": "a"}, "reference_calls"),
        ([{"tool": "a"}] * 501, "reference_calls"),
    ],
)
def test_it_refuses_malformed_reference_calls_naming_the_field(data, field):
    with pytest.raises(TraceSpecError) as caught:
        reference_calls_parse(data, trace_spec_parse(None, None))
    assert caught.value.field == field


def test_it_reads_every_rule_kind():
    rules = trace_spec_parse(
        None,
        [
            {"id": "no-delete", "title": "No deletes", "kind": "forbidden_tool", "tools": ["delete"]},
            {"id": "verify", "title": "Verify first", "kind": "required_before",
             "tool": "verify", "before": ["refund"], "source": "Verify identity before any refund."},
            {"id": "one-charge", "title": "One charge", "kind": "max_calls", "tools": ["charge"], "max": 1},
            {"id": "per-turn", "title": "Three a turn", "kind": "max_calls_per_turn", "max": 3},
            {"id": "amount", "title": "Amounts", "kind": "argument_schema", "tool": "refund",
             "schema": {"type": "object", "required": ["amount"]}},
        ],
    ).rules  # fmt: skip
    assert [r.kind for r in rules] == [
        "forbidden_tool", "required_before", "max_calls", "max_calls_per_turn", "argument_schema",
    ]  # fmt: skip
    assert rules[1].before == frozenset({"refund"}) and rules[1].tool == "verify"
    assert rules[1].source.startswith("Verify")
    assert rules[2].max == 1 and rules[2].tools == frozenset({"charge"})


_RULE = {"id": "r", "title": "A rule", "kind": "forbidden_tool", "tools": ["x"]}


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ([_RULE, _RULE], "rules[1].id"),
        ([_RULE, {**_RULE, "id": "b"}, {"id": "s", "title": "S", "kind": "argument_schema", "tool": "x",
                                         "schema": {"type": "wrong"}}], "rules[2].schema"),
        ([{**_RULE, "id": "Not A Slug"}], "rules[0].id"),
        ([{**_RULE, "id": "x" * 101}], "rules[0].id"),
        ([{**_RULE, "kind": "never"}], "rules[0].kind"),
        ([{"id": "r", "kind": "forbidden_tool", "tools": ["x"]}], "rules[0].title"),
        ([{**_RULE, "title": "t" * 201}], "rules[0].title"),
        ([{**_RULE, "source": 3}], "rules[0].source"),
        ([{**_RULE, "max": 2}], "rules[0].max"),
        ([{**_RULE, "tools": []}], "rules[0].tools"),
        ([{"id": "m", "title": "M", "kind": "max_calls", "tools": ["x"], "max": -1}], "rules[0].max"),
        ([{"id": "m", "title": "M", "kind": "max_calls_per_turn", "max": True}], "rules[0].max"),
        ([{"id": "m", "title": "M", "kind": "required_before", "tool": "v"}], "rules[0].before"),
        ([{"id": "s", "title": "S", "kind": "argument_schema", "tool": "x", "schema": []}], "rules[0].schema"),
        ([{**_RULE, "id": f"r{i}"} for i in range(501)], "rules"),
        ("rules", "rules"),
    ],
)  # fmt: skip
def test_it_refuses_a_malformed_rule_naming_the_field(rules, field):
    error = _error(None, rules)
    assert error.field == field
    assert str(error).startswith(field + ": ")


def test_it_checks_a_rules_json_schema_when_parsing():
    error = _error(
        None,
        [{"id": "s", "title": "S", "kind": "argument_schema", "tool": "x",
          "schema": {"properties": {"amount": {"minimum": "zero"}}}}],
    )  # fmt: skip
    assert error.field == "rules[0].schema"
    assert "not a valid JSON Schema" in str(error)
