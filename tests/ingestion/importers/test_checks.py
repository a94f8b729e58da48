"""Converted records through the bundle validator's own rules
(ingestion/importers/checks.py): each problem at the native file, record and field."""

from __future__ import annotations

import json

import pytest

from ingestion.bundles import ErrorCollector
from ingestion.importers.checks import ConvertedRecords, native_field, native_reward
from tests.builders import run_line

pytestmark = pytest.mark.pure

FIELDS = {"started_at": "start_time", "finished_at": "end_time", "tokens.input": "usage.in"}


def errors_of(record, **place) -> list[tuple]:
    errors = ErrorCollector()
    line = ConvertedRecords(errors).check(record, fields=FIELDS, **place)
    assert (line is None) == bool(errors)
    return [(e.file, e.line, e.field, e.message) for e in errors]


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("started_at", "start_time"),
        ("tokens.input", "usage.in"),
        ("tokens.output", "tokens.output"),
        ("trajectory[2].tool_calls[0].tool", "trajectory[2].tool_calls[0].tool"),
    ],
)
def test_it_names_a_converted_field_by_its_longest_mapped_prefix(field, expected):
    assert native_field(field, {**FIELDS, "trajectory[2]": "traj[5]"}) == (
        "traj[5].tool_calls[0].tool" if field.startswith("trajectory") else expected
    )


def test_it_returns_the_line_of_a_valid_record():
    errors = ErrorCollector()
    run = run_line("r-1")

    line = ConvertedRecords(errors).check(run, file="a.json", fields=FIELDS)

    assert not errors and json.loads(line) == run


def test_it_reports_the_validators_errors_at_the_native_place():
    run = run_line(
        "r-1", started_at="2025-01-02T00:00:00+00:00", finished_at="2025-01-01T00:00:00+00:00",
        tokens={"input": -1, "output": 3},
    )  # fmt: skip

    errors = errors_of(run, file="results.json", prefix="simulations[4]")

    assert errors == [
        ("results.json", None, "simulations[4].usage.in", "must be an integer ≥ 0, got -1"),
        (
            "results.json", None, "simulations[4].end_time",
            "is before start_time (2025-01-01T00:00:00+00:00 < 2025-01-02T00:00:00+00:00)",
        ),
    ]  # fmt: skip


def test_it_keeps_the_validators_state_across_records():
    errors = ErrorCollector()
    checks = ConvertedRecords(errors)
    for line in (1, 2):
        checks.check(run_line("r-1", trial=line), file="a.json", line=line, fields=FIELDS)

    assert [(e.line, e.field) for e in errors] == [(2, "run_id")]


def test_it_names_a_string_that_cannot_be_written_as_utf8():
    run = run_line("r-1", verifier={"note": "bad \ud800 text"})

    assert errors_of(run, file="a.json", line=3) == [
        ("a.json", 3, "verifier.note", "holds an unpaired surrogate escape (not Unicode text)")
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [(1e308, "must be a number ≤ 1, got 1e+308"), (-1, "must be a number ≥ 0, got -1")],
)
def test_it_holds_a_reward_to_zero_to_one(value, message):
    reported = []
    assert native_reward(value, "reward", lambda *error: reported.append(error)) is None
    assert reported == [("reward", message)]
    assert native_reward(0.5, "reward", lambda *error: reported.append(error)) == 0.5
