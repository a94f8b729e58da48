"""Run validation (ingestion/bundles/validators.py, schema.py): every rule of
bundle-format.md for runs.jsonl, one by one.

Pure: no Django, no database. Each test builds the records it needs.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from ingestion.bundles import ErrorCollector, RunRecord
from ingestion.bundles.validators import RunValidator
from tests.ingestion.bundles.records import (
    DROP,
    a_run,
    assert_one_error,
    check_runs,
    encode,
    lookup,
    run_errors,
)

# ---------------------------------------------------------------------- valid runs


def test_it_accepts_the_example_run_of_the_format():
    (record,), errors = check_runs(a_run())
    assert errors == []
    assert isinstance(record, RunRecord)
    assert record.run_id == "oh-tb-fix-git-1"
    assert (
        record.tokens.input == 48211
        and record.tokens.output == 5120
        and record.tokens.cached is None
    )
    assert record.started_at == datetime(2026, 11, 1, 10, tzinfo=UTC)
    assert record.checkpoints.passed == 3 and record.checkpoints.total == 5
    assert record.verifier == {"name": "tb-verifier", "version": "4.0.0", "log_sha256": "ab12"}
    assert (record.line, record.task_pk, record.extra) == (1, 7, {})


def test_it_accepts_a_run_with_only_the_required_fields():
    required = {
        k: a_run()[k]
        for k in ("run_id", "suite", "suite_version", "task_id", "model", "trial", "outcome")
    }
    (record,), errors = check_runs(required)
    assert errors == []
    assert record.cost_usd is None and record.tokens is None and record.trajectory is None


def test_it_keeps_unknown_fields_in_extra_and_never_complains():
    (record,), errors = check_runs(a_run(harness_url="https://x", nested={"a": [1, 2]}))
    assert errors == []
    assert record.extra == {"harness_url": "https://x", "nested": {"a": [1, 2]}}
    assert type(record) is RunRecord
    assert not hasattr(record, "harness_url")


def test_it_keeps_extras_exactly_whatever_the_mix_of_lines():
    # Lines with and without extras, the same names again, odd names, and more
    # distinct names than the decoder learns (then it decodes those lines twice).
    extras = [{}, {"a": 1}, {"a": 2, "b": [1]}, {}, {"b": {"c": None}}, {"we`ird key": "x"}]
    extras += [{f"k{i}": i} for i in range(80)] + [{"a": 3}, {}]
    lines = [a_run(run_id=f"r{i}", trial=i + 1, **extra) for i, extra in enumerate(extras)]
    records, errors = check_runs(*lines)
    assert errors == []
    assert [r.extra for r in records] == extras
    assert {type(r) for r in records} == {RunRecord}
    plain = [
        msgspec.structs.asdict(r)
        for r in check_runs(*[a_run(run_id=f"r{i}", trial=i + 1) for i in range(len(extras))])[0]
    ]
    assert [msgspec.structs.asdict(r) for r in records] == plain


def test_it_still_diagnoses_a_bad_line_that_also_has_extras():
    records, errors = check_runs(
        a_run(note="x"), a_run(run_id="r2", trial=2, note="y", cost_usd=-1)
    )
    assert records[0].extra == {"note": "x"} and records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "cost_usd")]


def test_it_does_not_let_a_json_key_set_the_record_attributes():
    (record,), errors = check_runs(a_run(line=99, task_pk=1, extra="x"))
    assert errors == []
    assert (record.line, record.task_pk) == (1, 7)
    assert record.extra == {"line": 99, "task_pk": 1, "extra": "x"}


# ------------------------------------------------------------------------- run_id


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (DROP, ["is required"]),
        ("", ["must not be empty"]),
        ("x" * 201, ["at most 200 characters", "got 201"]),
        ("has space", ["letters, digits and . _ : / -"]),
        ("café", ["letters, digits"]),
        ("a#b", ["letters, digits"]),
        ("r1\n", ["letters, digits"]),
        (12, ["must be a string", "not an integer"]),
    ],
)
def test_it_rejects_a_bad_run_id(value, words):
    assert_one_error(run_errors(run_id=value), "run_id", *words)


def test_it_accepts_a_run_id_of_200_chars_from_the_whole_charset():
    run_id = ("Az09._:/-" * 30)[:200]
    assert run_errors(run_id=run_id) == []


def test_it_rejects_a_duplicate_run_id():
    records, errors = check_runs(a_run(), a_run(trial=2))
    assert records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "run_id")]
    assert "duplicate run_id 'oh-tb-fix-git-1'" in errors[0].message


# ------------------------------------------------------------------ task and model


@pytest.mark.parametrize("field", ["suite", "suite_version", "task_id", "model"])
def test_it_requires_the_task_fields_and_the_model(field):
    assert_one_error(run_errors(**{field: DROP}), field, "is required")


def test_it_rejects_a_task_not_in_the_registry():
    assert_one_error(
        run_errors(task_id="foo"),
        "task_id",
        "task terminal-bench 4.0.0/foo is not in the registry or not approved",
    )


def test_it_asks_the_registry_once_per_distinct_task():
    calls = []

    def counting(*key):
        calls.append(key)
        return lookup(*key)

    validator = RunValidator(ErrorCollector(), counting)
    for trial in range(1, 6):
        validator.from_json(trial, encode(a_run(run_id=f"a{trial}", trial=trial)))
        validator.from_json(
            trial, encode(a_run(run_id=f"b{trial}", trial=trial, task_id="regex-log"))
        )
        validator.from_json(trial, encode(a_run(run_id=f"c{trial}", trial=trial, task_id="nope")))
    assert sorted(calls) == sorted({c for c in calls}) and len(calls) == 3


def test_it_rejects_a_model_over_200_chars():
    assert_one_error(run_errors(model="m" * 201), "model", "at most 200 characters")


@pytest.mark.parametrize(
    "model",
    ["  ", "frontier\nlarge", "frontier-large\r", "\t", "\u200b", "large\u202e1-reitnorf",
     " frontier-large", "acme/../large", ".."],
)  # fmt: skip
def test_it_rejects_a_model_name_no_page_could_show_as_itself(model):
    # Blank, split over lines, invisible or reversed on screen, or a path that climbs.
    assert_one_error(run_errors(model=model), "model", "must be printable text, not blank")


@pytest.mark.parametrize(
    "model", ["frontier-large", "Qwen/Qwen3-Coder", "gpt 4o (2024-08)", "模型-1"]
)
def test_it_accepts_a_model_name_of_any_script_with_inner_spaces(model):
    assert run_errors(model=model) == []


# -------------------------------------------------------------------------- trial


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0, ["integer ≥ 1", "got 0"]),
        (-1, ["integer ≥ 1"]),
        ("1", ["must be an integer", "not a string"]),
        (True, ["must be an integer", "not a boolean"]),
        (1.5, ["must be an integer", "not a number"]),
        (DROP, ["is required"]),
    ],
)
def test_it_rejects_a_bad_trial(value, words):
    assert_one_error(run_errors(trial=value), "trial", *words)


def test_it_bounds_the_trial_number_by_its_integer_column():
    # Never summed; older releases took any trial the `integer` column holds.
    assert run_errors(trial=2**31 - 1) == []
    assert_one_error(run_errors(trial=2**31), "trial", "integer ≤ 2147483647")


def test_it_rejects_the_same_task_model_and_trial_twice():
    records, errors = check_runs(a_run(run_id="a"), a_run(run_id="b"))
    assert records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "trial")]
    assert "terminal-bench 4.0.0/fix-git" in errors[0].message


def test_it_accepts_the_same_task_with_another_trial_or_model():
    records, errors = check_runs(
        a_run(run_id="a"), a_run(run_id="b", trial=2), a_run(run_id="c", model="other")
    )
    assert errors == [] and all(records)


# ------------------------------------------------------------ outcome, infra_error


@pytest.mark.parametrize("outcome", ["pass", "fail"])
def test_it_accepts_pass_and_fail(outcome):
    assert run_errors(outcome=outcome) == []


@pytest.mark.parametrize("value", ["passed", "PASS", "", None, 1])
def test_it_rejects_an_outcome_outside_the_enum(value):
    errors = run_errors(outcome=value)
    assert len(errors) == 1 and errors[0][0] == "outcome"


def test_it_names_the_allowed_outcomes():
    assert_one_error(run_errors(outcome="passed"), "outcome", "pass, fail, infra_error", '"passed"')


@pytest.mark.parametrize("kind", ["timeout", "network", "provider_crash", "other"])
def test_it_accepts_each_infra_error_kind(kind):
    assert run_errors(outcome="infra_error", infra_error=kind) == []


def test_it_requires_the_infra_error_kind_when_outcome_is_infra_error():
    assert_one_error(
        run_errors(outcome="infra_error", infra_error=None), "infra_error", "is required"
    )
    assert_one_error(
        run_errors(outcome="infra_error", infra_error=DROP), "infra_error", "is required"
    )


def test_it_rejects_an_infra_error_kind_on_a_pass_or_fail():
    assert_one_error(
        run_errors(infra_error="timeout"), "infra_error", "must be null when outcome is pass"
    )
    assert_one_error(
        run_errors(outcome="fail", infra_error="other"), "infra_error", "outcome is fail"
    )


def test_it_rejects_an_unknown_infra_error_kind():
    assert_one_error(
        run_errors(outcome="infra_error", infra_error="oom"), "infra_error", "timeout, network"
    )


# ------------------------------------------------------------------------ cost_usd


@pytest.mark.parametrize("value", [None, 0, 0.0, 12, 1e-9, DROP])
def test_it_accepts_a_null_or_finite_non_negative_cost(value):
    assert run_errors(cost_usd=value) == []


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (-1, ["number ≥ 0", "got -1"]),
        (-0.01, ["number ≥ 0"]),
        (math.nan, ["must be a finite number"]),
        (math.inf, ["must be a finite number"]),
        (-math.inf, ["must be a finite number"]),
        ("0.1", ["must be a number or null", 'not a string ("0.1")']),
        (True, ["not a boolean"]),
    ],
)
def test_it_rejects_a_bad_cost(value, words):
    assert_one_error(run_errors(cost_usd=value), "cost_usd", *words)


@pytest.mark.parametrize("value", [1e6 + 0.01, 1e308])
def test_it_refuses_a_cost_no_run_can_have(value):
    """Two runs at 1e308 used to sum to infinity and break the board API."""
    assert run_errors(cost_usd=10**6) == []
    assert_one_error(run_errors(cost_usd=value), "cost_usd", "number ≤ 1000000")


def test_it_names_the_field_of_a_number_too_large_for_a_float():
    line = encode(a_run()).replace(b'"cost_usd": 0.0123', b'"cost_usd": 1e400')
    _, errors = check_runs(line)
    assert [(e.field, e.message) for e in errors] == [("cost_usd", "must be a finite number")]


@pytest.mark.parametrize("text", [b"1e-400", b"-2.5E-0400", b"0." + b"0" * 400 + b"1"])
def test_it_refuses_a_cost_too_small_for_a_float_rather_than_store_zero(text):
    line = encode(a_run()).replace(b'"cost_usd": 0.0123', b'"cost_usd": ' + text)
    records, errors = check_runs(line)
    assert records == [None]
    assert [(e.field, e.message) for e in errors] == [
        ("cost_usd", "is too small to be stored as a number (it would be rounded to 0)")
    ]


@pytest.mark.parametrize(("text", "cost"), [(b"1e-300", 1e-300), (b"0e-400", 0.0), (b"0.0", 0.0)])
def test_it_keeps_a_small_cost_a_float_holds_and_a_written_zero(text, cost):
    line = encode(a_run()).replace(b'"cost_usd": 0.0123', b'"cost_usd": ' + text)
    (record,), errors = check_runs(line)
    assert errors == [] and record.cost_usd == cost


def test_it_names_a_nan_hidden_in_a_nested_or_unknown_field():
    _, errors = check_runs(a_run(tokens={"input": math.nan, "output": 1}, score=math.inf))
    assert sorted(e.field for e in errors) == ["score", "tokens.input"]
    assert {e.message for e in errors} == {"must be a finite number"}


# -------------------------------------------------------------------------- tokens


@pytest.mark.parametrize(
    "value", [None, DROP, {"input": 0, "output": 0}, {"input": 1, "output": 2, "cached": 3}]
)
def test_it_accepts_null_or_well_formed_tokens(value):
    assert run_errors(tokens=value) == []


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        ({"input": "10", "output": 5}, "tokens.input", ["must be an integer", "not a string"]),
        ({"input": 10, "output": -5}, "tokens.output", ["integer ≥ 0"]),
        ({"input": 10, "output": 5, "cached": -1}, "tokens.cached", ["integer ≥ 0"]),
        ({"input": 10, "output": 5, "cached": "1"}, "tokens.cached", ["not a string"]),
        ({"input": True, "output": 5}, "tokens.input", ["not a boolean"]),
        ({"input": 1.5, "output": 5}, "tokens.input", ["not a number"]),
        ({"input": 10}, "tokens.output", ["is required"]),
        ([10, 5], "tokens", ["must be an object or null", "not an array"]),
        (15, "tokens", ["must be an object or null"]),
        ({"input": 10**12 + 1, "output": 5}, "tokens.input", ["integer ≤ 1000000000000"]),
        ({"input": 5, "output": 2**63}, "tokens.output", ["integer ≤ 1000000000000"]),
        (
            {"input": 5, "output": 2, "cache": 1},
            "tokens.cache",
            ["not a field of tokens", "cached"],
        ),
        (
            {"input": 5, "output": 2, "reasoning": 9},
            "tokens.reasoning",
            ["known: input, output, cached"],
        ),
    ],
)
def test_it_rejects_bad_tokens(value, field, words):
    assert_one_error(run_errors(tokens=value), field, *words)


# ----------------------------------------------------------- steps, tool_calls, ttft


@pytest.mark.parametrize("field", ["steps", "tool_calls", "ttft_ms"])
@pytest.mark.parametrize("value", [None, DROP, 0, 10_000])
def test_it_accepts_null_or_non_negative_counts(field, value):
    assert run_errors(**{field: value}) == []


@pytest.mark.parametrize("field", ["steps", "tool_calls", "ttft_ms"])
@pytest.mark.parametrize(
    ("value", "words"),
    [
        (-1, ["integer ≥ 0"]),
        (1.5, ["not a number"]),
        ("3", ["not a string"]),
        (False, ["not a boolean"]),
        (2**31, ["got 2147483648"]),
    ],
)
def test_it_rejects_bad_counts(field, value, words):
    assert_one_error(run_errors(**{field: value}), field, *words)


@pytest.mark.parametrize(
    ("field", "limit"), [("steps", 10**7), ("tool_calls", 10**7), ("ttft_ms", 864_000_000)]
)
def test_it_takes_counts_up_to_their_bound_and_not_one_more(field, limit):
    assert run_errors(**{field: limit}) == []
    assert_one_error(run_errors(**{field: limit + 1}), field, f"integer ≤ {limit}")


# ----------------------------------------------------------------------- timestamps


@pytest.mark.parametrize(
    ("started", "finished"),
    [
        (None, None),
        (DROP, DROP),
        ("2026-11-01T10:00:00Z", "2026-11-01T10:00:00Z"),
        ("2026-11-01T10:00:00+02:00", "2026-11-01T08:30:00.5+00:00"),  # same instant order
        ("2026-11-01T10:00:00+00:00", None),
    ],
)
def test_it_accepts_timestamps_with_offsets_in_order(started, finished):
    assert run_errors(started_at=started, finished_at=finished) == []


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("started_at", "2026-11-01T10:00:00", ["must include a UTC offset"]),
        ("finished_at", "2026-11-01 10:04", ["ISO 8601"]),
        ("started_at", "yesterday", ["ISO 8601", '"yesterday"']),
        ("finished_at", 1767225600, ["date-time string or null", "not an integer"]),
    ],
)
def test_it_rejects_timestamps_without_offset_or_not_iso(field, value, words):
    assert_one_error(run_errors(**{field: value}), field, *words)


def test_it_rejects_finished_before_started_even_across_offsets():
    errors = run_errors(
        started_at="2026-11-01T10:00:00+00:00", finished_at="2026-11-01T11:59:00+02:00"
    )
    assert_one_error(errors, "finished_at", "is before started_at")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("started_at", "1999-12-31T23:59:59Z"),
        ("started_at", "0001-01-01T00:00:00+14:00"),  # UTC would be before year 1
        ("finished_at", "2100-01-01T00:00:00Z"),
        ("finished_at", "9999-12-31T23:59:59-14:00"),
    ],
)
def test_it_refuses_a_timestamp_outside_this_century(field, value):
    other = "finished_at" if field == "started_at" else "started_at"
    errors = run_errors(**{field: value, other: None})
    assert_one_error(errors, field, "must be between 2000-01-01 and 2100-01-01")


def test_it_refuses_a_run_longer_than_ten_days():
    started = "2026-11-01T10:00:00Z"
    assert run_errors(started_at=started, finished_at="2026-11-11T10:00:00Z") == []
    errors = run_errors(started_at=started, finished_at="2026-11-11T10:00:01Z")
    assert_one_error(errors, "finished_at", "more than 10 days after started_at")


# ---------------------------------------------------------------------- checkpoints


@pytest.mark.parametrize(
    "value", [None, DROP, {"passed": 0, "total": 1}, {"passed": 5, "total": 5}]
)
def test_it_accepts_null_or_consistent_checkpoints(value):
    assert run_errors(checkpoints=value) == []


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        ({"passed": 6, "total": 5}, "checkpoints.passed", ["≤ checkpoints.total", "6 > 5"]),
        ({"passed": 0, "total": 0}, "checkpoints.total", ["integer ≥ 1"]),
        ({"passed": -1, "total": 5}, "checkpoints.passed", ["integer ≥ 0"]),
        ({"passed": 1}, "checkpoints.total", ["is required"]),
        ({"passed": "1", "total": 2}, "checkpoints.passed", ["not a string"]),
        ({"passed": 1, "total": 10**6 + 1}, "checkpoints.total", ["integer ≤ 1000000"]),
    ],
)
def test_it_rejects_bad_checkpoints(value, field, words):
    assert_one_error(run_errors(checkpoints=value), field, *words)


# ------------------------------------------------------------------ verifier, trajectory


def test_it_rejects_a_verifier_that_is_not_an_object():
    assert_one_error(run_errors(verifier="tb"), "verifier", "null or an object")


def test_it_accepts_a_trajectory_path_present_in_the_bundle():
    path = "trajectories/oh-tb-fix-git-1.json"
    (record,), errors = check_runs(a_run(trajectory=path), exists=frozenset({path}))
    assert errors == [] and record.trajectory == path


def test_it_rejects_a_trajectory_path_missing_from_the_bundle():
    assert_one_error(
        run_errors(trajectory="trajectories/nope.json"),
        "trajectory",
        "trajectories/nope.json is not in the bundle",
    )


@pytest.mark.parametrize(
    "path",
    [
        "runs.jsonl",
        "manifest.json",
        "trajectories/../runs.jsonl",
        "/etc/passwd",
        "trajectories/x.txt",
    ],
)
def test_it_rejects_a_trajectory_path_outside_the_trajectories_folder(path):
    _, errors = check_runs(a_run(trajectory=path), exists=frozenset({path, "runs.jsonl"}))
    assert [(e.field, "trajectories/<name>.json" in e.message) for e in errors] == [
        ("trajectory", True)
    ]


def test_it_accepts_an_inline_trajectory_and_keeps_its_unknown_keys():
    steps = [
        {"role": "user", "text": "fix it", "timestamp": 1},
        {
            "role": "assistant",
            "text": "ok",
            "tool_calls": [{"tool": "bash", "arguments": {"c": "ls"}}],
        },
        {"role": "tool", "text": "a b"},
    ]
    (record,), errors = check_runs(a_run(trajectory=steps))
    assert errors == [] and record.trajectory == steps


@pytest.mark.parametrize(
    ("steps", "field", "words"),
    [
        ([{"role": "bot"}], "trajectory[0].role", ["user, assistant, tool"]),
        ([{"text": "x"}], "trajectory[0].role", ["is required"]),
        ([{"role": "assistant", "label": "praise"}], "trajectory[0].label", ["only user turns"]),
        ([1], "trajectory[0]", ["must be an object"]),
        ({"role": "user"}, "trajectory", ["a path inside the bundle or a list of turns"]),
    ],
)
def test_it_rejects_a_malformed_inline_trajectory(steps, field, words):
    assert_one_error(run_errors(trajectory=steps), field, *words)


# --------------------------------------------------------- lines that are not records


def test_it_reports_a_line_that_is_not_json_with_its_line_number():
    records, errors = check_runs(a_run(), b"{oops")
    assert records[0] is not None and records[1] is None
    assert (errors[0].file, errors[0].line, errors[0].field) == ("runs.jsonl", 2, "")
    assert errors[0].message.startswith("is not valid JSON")


def test_it_reports_a_line_that_is_not_utf8():
    _, errors = check_runs(b'{"run_id": "r\xff"}')
    assert [(e.line, e.message) for e in errors] == [
        (1, "is not valid UTF-8 (byte 0xff at column 14)")
    ]


def test_it_reports_invalid_utf8_hidden_in_an_unknown_field():
    line = encode(a_run()).replace(b'"trajectory": null', b'"note": "\xc3\x28"')
    _, errors = check_runs(line)
    assert [e.message.startswith("is not valid UTF-8") for e in errors] == [True]


@pytest.mark.parametrize(
    ("line", "kind"), [(b"[1, 2]", "an array"), (b'"x"', "a string"), (b"null", "null")]
)
def test_it_reports_a_line_that_is_not_an_object(line, kind):
    _, errors = check_runs(line)
    assert [e.message for e in errors] == [f"must be a JSON object, not {kind}"]


@pytest.mark.parametrize("line", [b"", b"   ", b"\r", b"\t \r"])
def test_it_ignores_blank_lines(line):
    records, errors = check_runs(line)
    assert records == [None] and errors == []


def test_it_reports_every_problem_of_a_line_not_just_the_first():
    errors = run_errors(
        run_id="bad id", trial=0, outcome="infra_error", cost_usd=-1, tokens={"input": "1", "output": 1},
        started_at="2026-11-01T10:00:00+00:00", finished_at="2026-11-01T09:00:00+00:00", task_id="nope",
    )  # fmt: skip
    assert sorted(field for field, _ in errors) == sorted(
        ["run_id", "trial", "infra_error", "cost_usd", "tokens.input", "finished_at", "task_id"]
    )


def test_it_gives_each_error_the_file_line_and_dotted_field():
    validator = RunValidator(errors := ErrorCollector(), lookup, file="runs.jsonl")
    validator.from_json(41, encode(a_run(tokens={"input": -1, "output": 0})))
    (error,) = errors.errors
    assert (error.file, error.line, error.field) == ("runs.jsonl", 41, "tokens.input")
    assert str(error) == "runs.jsonl:41: tokens.input: must be an integer ≥ 0, got -1"


MUTATIONS: list[dict[str, Any]] = [
    {},
    {"extra_key": {"x": 1}},
    {"run_id": "a b"},
    {"trial": "2"},
    {"outcome": "infra_error"},
    {"infra_error": "network"},
    {"cost_usd": math.nan},
    {"tokens": {"input": 1}},
    {"started_at": "2026-11-01T10:00:00"},
    {"checkpoints": {"passed": 9, "total": 1}},
    {"task_id": "nope"},
    {"trajectory": [{"role": "assistant", "label": "praise"}]},
    {"trajectory": "trajectories/x.json"},
    {"verifier": [1]},
    {"model": DROP},
    {"model": "m\x00"},
    {"verifier": {"log\x00": "x"}},
    {"note": ["a", "b\x00"]},
    {"note": "a \\u0000 escape, not a NUL"},
    {"steps": 2**31},
    {"checkpoints": {"passed": 1, "total": 2**31}},
]


@pytest.mark.parametrize("change", MUTATIONS)
def test_it_gives_the_same_verdict_on_the_fast_and_the_slow_path(change):
    """from_json (a typed decode, then diagnosis) and from_object (a document parsed
    by the stdlib) must agree on what is valid and on every message."""
    run = a_run(**change)
    fast_errors, slow_errors = ErrorCollector(), ErrorCollector()
    fast = RunValidator(fast_errors, lookup).from_json(1, encode(run))
    slow = RunValidator(slow_errors, lookup).from_object(1, json.loads(encode(run)))
    assert [str(e) for e in fast_errors] == [str(e) for e in slow_errors]
    assert (fast is None) == (slow is None)
    if fast is not None:
        assert fast == slow and fast.extra == slow.extra and fast.task_pk == slow.task_pk


def test_it_keeps_collecting_past_invalid_lines():
    lines = [
        encode(a_run(run_id=f"r{i}", trial=i, cost_usd=-1 if i % 3 == 0 else 1))
        for i in range(1, 10)
    ]
    records, errors = check_runs(*lines)
    assert [r.run_id for r in records if r] == ["r1", "r2", "r4", "r5", "r7", "r8"]
    assert [e.line for e in errors] == [3, 6, 9]


def test_it_decodes_records_that_msgspec_can_encode_back():
    (record,), _ = check_runs(a_run(trajectory=[{"role": "user", "text": "x"}]))
    again = msgspec.json.decode(msgspec.json.encode(record))
    assert again["tokens"] == {"input": 48211, "output": 5120, "cached": None}
    assert again["trajectory"] == [{"role": "user", "text": "x"}]


# --------------------------------------------------------------- NUL characters


def test_it_names_each_nul_character_postgresql_would_refuse():
    errors = run_errors(
        model="frontier\x00large",
        verifier={"log": ["ok", "a\x00b"]},
        trajectory=[{"role": "user", "text": "\x00", "x\x00": 1}],
        **{"note\x00": "x"},
    )
    assert sorted(errors) == [
        ("model", "must not contain a NUL character"),
        ("note\\u0000", "must not contain a NUL character in its name"),
        ("trajectory[0].text", "must not contain a NUL character"),
        ("trajectory[0].x\\u0000", "must not contain a NUL character in its name"),
        ("verifier.log[1]", "must not contain a NUL character"),
    ]


def test_it_skips_the_registry_for_a_task_holding_a_nul_character():
    # The registry message would quote the task, NUL and all, into the stored errors.
    assert run_errors(task_id="fix\x00git") == [("task_id", "must not contain a NUL character")]


def test_it_accepts_the_escaped_text_of_a_nul_on_the_fast_path():
    (record,), errors = check_runs(a_run(note="C:\\u0000"))
    assert errors == [] and record.extra == {"note": "C:\\u0000"}


# ------------------------------------------------------------------------ source_id


def test_it_keeps_the_source_id_of_a_run():
    (record,), errors = check_runs(a_run(source_id="harbor:5f0c0a7e"))
    assert errors == [] and record.source_id == "harbor:5f0c0a7e"


def test_it_refuses_a_source_id_used_twice_in_one_bundle():
    records, errors = check_runs(
        a_run(source_id="harbor:t-1"), a_run(run_id="other", trial=2, source_id="harbor:t-1")
    )
    assert records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "source_id")]
    assert "duplicate source_id 'harbor:t-1'" in errors[0].message


@pytest.mark.parametrize("value", ["", "x" * 301, 7])
def test_it_refuses_a_source_id_that_is_empty_too_long_or_not_text(value):
    assert [field for field, _ in run_errors(source_id=value)] == ["source_id"]


def test_it_refuses_one_trial_named_through_two_routes_to_one_model():
    records, errors = check_runs(
        a_run(model="anthropic/claude-opus-4-6"),
        a_run(run_id="again", model="vertex_ai/claude-opus-4-6"),
    )
    assert records[1] is None
    assert [(e.line, e.field) for e in errors] == [(2, "trial")]
