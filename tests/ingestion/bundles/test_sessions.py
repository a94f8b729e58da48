"""Session validation (ingestion/bundles/validators.py, schema.py): every rule of
bundle-format.md for sessions.jsonl.

Pure: no Django, no database.
"""

from __future__ import annotations

import pytest
from msgspec import UNSET

from ingestion.bundles import SessionRecord
from tests.ingestion.bundles.records import (
    DROP,
    a_session,
    assert_one_error,
    check_sessions,
    session_errors,
)

# ------------------------------------------------------------------------ sessions


def test_it_accepts_the_example_session_of_the_format():
    (record,), errors = check_sessions(a_session(origin="web"))
    assert errors == []
    assert isinstance(record, SessionRecord)
    assert (record.session_id, record.scenario, record.user, record.confirmation) == (
        "s-000123", "software_development", "u0042", "yes",
    )  # fmt: skip
    assert record.toolset[0].name == "bash" and record.toolset[0].kind == "shell"
    assert record.turns[1].tool_calls[0].arguments == {"command": "pytest -q"}
    assert record.turns[1].tool_calls[0].exit_code == 1
    assert (record.line, record.extra) == (1, {"origin": "web"})


def test_it_keeps_unknown_session_fields_in_extra():
    records, errors = check_sessions(
        a_session(session_id="a", origin="web"),
        a_session(session_id="b"),
        a_session(session_id="c", origin=1),
    )
    assert errors == []
    assert [s.extra for s in records] == [{"origin": "web"}, {}, {"origin": 1}]


def test_it_tells_an_absent_label_from_a_null_one():
    (record,), _ = check_sessions(a_session())
    first, _, corrected, _, thanked = record.turns
    assert first.label is UNSET and not first.label_present  # the extractor labels it
    assert corrected.label == "correction" and corrected.label_present
    assert thanked.label is None and thanked.label_present  # labelled: none of them


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"session_id": DROP}, "session_id", ["is required"]),
        ({"session_id": ""}, "session_id", ["must not be empty"]),
        ({"model": DROP}, "model", ["is required"]),
        ({"scenario": "gaming"}, "scenario", ["software_development, workflow_automation, general_assistant"]),
        ({"user": 42}, "user", ["must be a string or null"]),
        ({"confirmation": "maybe"}, "confirmation", ["yes, no or null"]),
        ({"confirmation": True}, "confirmation", ["not a boolean"]),
        ({"toolset": "bash"}, "toolset", ["list of tool names"]),
        ({"toolset": [{"kind": "shell"}]}, "toolset[0].name", ["is required"]),
        ({"toolset": [3]}, "toolset[0]", ["not an integer"]),
        ({"turns": DROP}, "turns", ["is required"]),
        ({"turns": [{"role": "system", "text": "x"}]}, "turns[0].role", ["user, assistant, tool"]),
        ({"turns": [{"role": "user", "label": "happy"}]}, "turns[0].label", ["praise, complaint, correction, urging, iteration or null"]),
        ({"turns": [{"role": "assistant", "label": "praise"}]}, "turns[0].label", ["only user turns"]),
        ({"turns": [{"role": "assistant", "tool_calls": [{"arguments": {}}]}]}, "turns[0].tool_calls[0].tool", ["is required"]),
        ({"turns": [{"role": "assistant", "tool_calls": [{"tool": "bash", "arguments": "ls"}]}]}, "turns[0].tool_calls[0].arguments", ["must be an object"]),
        ({"turns": [{"role": "assistant", "tool_calls": [{"tool": "bash", "exit_code": "0"}]}]}, "turns[0].tool_calls[0].exit_code", ["not a string"]),
        ({"turns": [{"role": "assistant", "tool_calls": [{"tool": "bash", "exit_code": True}]}]}, "turns[0].tool_calls[0].exit_code", ["not a boolean"]),
        ({"turns": [{"role": "assistant", "tool_calls": [{"tool": "bash", "exit_code": -(2**31) - 1}]}]}, "turns[0].tool_calls[0].exit_code", ["integer ≥ -2147483648"]),
        ({"turns": [{"role": "assistant", "tool_calls": [{"tool": "t" * 201}]}]}, "turns[0].tool_calls[0].tool", ["at most 200 characters (got 201)"]),
        ({"session_id": "s" * 201}, "session_id", ["at most 200 characters (got 201)"]),
        ({"model": "m" * 201}, "model", ["at most 200 characters (got 201)"]),
        ({"session_id": "s\x001"}, "session_id", ["must not contain a NUL character"]),
        ({"turns": [{"role": "user", "text": "hi"}, {"role": "user", "text": "a\x00"}]}, "turns[1].text", ["must not contain a NUL character"]),
        ({"toolset": [{"name": "bash", "parameters": {"\x00": 1}}]}, "toolset[0].parameters.\\u0000", ["NUL character in its name"]),
        ({"user": "u\x00"}, "user", ["must not contain a NUL character"]),
        ({"toolset": ["t" * 201]}, "toolset[0]", ["at most 200 characters (got 201)"]),
        ({"toolset": [{"name": "t" * 201}]}, "toolset[0].name", ["at most 200 characters (got 201)"]),
        ({"agent": {"harness": "H", "version": ".."}}, "agent.version", ["'..' part"]),
        ({"agent": {"harness": "H\nH", "version": "1"}}, "agent.harness", ["printable text"]),
    ],
)  # fmt: skip
def test_it_rejects_each_bad_session_field(fields, field, words):
    assert_one_error(session_errors(**fields), field, *words)


@pytest.mark.parametrize(
    "fields",
    [
        {"scenario": None, "confirmation": None, "toolset": None, "user": DROP},
        {"toolset": ["bash", {"name": "read_file"}]},
        {"turns": []},
        {
            "turns": [{"role": "assistant", "label": None}]
        },  # a null label on a non-user turn is harmless
    ],
)
def test_it_accepts_optional_session_fields_absent_or_null(fields):
    assert session_errors(**fields) == []


def test_it_rejects_a_duplicate_session_id():
    records, errors = check_sessions(a_session(), a_session())
    assert records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "session_id")]


def test_it_still_reports_a_duplicate_session_id_on_a_line_with_a_nul():
    records, errors = check_sessions(
        a_session(), a_session(turns=[{"role": "user", "text": "\x00"}])
    )
    assert records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "turns[0].text"), (2, "session_id")]
