"""The one table of limits (ingestion/bundles/limits.py): what the validator accepts
always fits its column.

The first half walks the table and proves, entry by entry, that the model column and
the validator (the msgspec schema) carry the same bound. The second half sends each
value that used to slip past the validator and break at PostgreSQL ("internal error
while ingesting") through the real ingest path, and expects a named rejection with
nothing stored.
"""

from __future__ import annotations

import json

import msgspec
import pytest
from django.apps import apps
from django.db import connection

from ingestion.bundles import limits
from ingestion.bundles.limits import FIELDS
from ingestion.bundles.schema import Manifest, RunRecord, SessionRecord
from ingestion.models import (
    Harness,
    LanguageModel,
    Person,
    Run,
    Session,
    Submission,
    ToolCall,
    Turn,
)
from ingestion.services.intake import submission_ingest
from tests.builders import harness_manifest, run_line, tar_gz_bundle

# ------------------------------------------------------------------ the table

_ROOTS = {"manifest": Manifest, "runs": RunRecord, "sessions": SessionRecord}


def _unwrap(info: msgspec.inspect.Type) -> msgspec.inspect.Type:
    """The one non-null member of an optional type."""
    if isinstance(info, msgspec.inspect.UnionType):
        (info,) = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
    return info


def schema_rule(field: str) -> msgspec.inspect.Type:
    """What the validator's schema says of a bundle field named as in FIELDS."""
    root, *parts = field.split(".")
    info: msgspec.inspect.Type = msgspec.inspect.type_info(_ROOTS[root])
    for part in parts:
        name = part.removesuffix("[]")
        struct = _unwrap(info)
        assert isinstance(struct, msgspec.inspect.StructType), field
        info = next(f.type for f in struct.fields if f.encode_name == name)
        if part.endswith("[]"):
            info = _unwrap(info).item_type
    return _unwrap(info)


def column_of(field: str):
    model, name = FIELDS[field].column.split(".")
    return apps.get_model("ingestion", model)._meta.get_field(name)


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_it_gives_the_validator_and_the_column_the_same_bound(field):
    bound, rule, column = FIELDS[field], schema_rule(field), column_of(field)
    if bound.max_length is not None:
        assert column.max_length == bound.max_length
    if bound.choices:
        assert isinstance(rule, msgspec.inspect.LiteralType)
        assert set(rule.values) == set(bound.choices)
        assert [value for value, _ in column.choices] == list(bound.choices)
        assert max(map(len, bound.choices)) <= column.max_length
    elif isinstance(rule, msgspec.inspect.StrType):
        assert rule.max_length == bound.max_length is not None
    else:
        assert isinstance(rule, msgspec.inspect.IntType | msgspec.inspect.FloatType)
        assert (rule.ge, getattr(rule, "le", None)) == (bound.ge, bound.le)
        if isinstance(rule, msgspec.inspect.IntType):
            low, high = connection.ops.integer_field_range(column.get_internal_type())
            assert low <= bound.ge and bound.le <= high, "the column cannot hold the range"


def test_it_lists_every_bounded_string_column_a_bundle_reaches():
    """A CharField of Run, Session, Turn or ToolCall that a bundle fills is in the table
    (the others are set by the service: user_hash, label_source)."""
    filled_by_service = {"Session.user_hash", "Turn.label_source"}
    columns = {
        f"{model.__name__}.{field.name}"
        for model in (Run, Session, Turn, ToolCall)
        for field in model._meta.get_fields()
        if getattr(field, "max_length", None) and field.get_internal_type() == "CharField"
    }
    assert columns - filled_by_service <= {bound.column for bound in FIELDS.values()}


def test_it_builds_the_check_constraints_from_the_table():
    constraints = {c.name: c.condition for c in Run._meta.constraints if hasattr(c, "condition")}
    assert ("outcome__in", list(limits.OUTCOMES)) in constraints["run_outcome_valid"].children
    assert ("cost_usd__gte", limits.COST_MIN) in constraints["run_cost_non_negative"].children


# ------------------------------------------------------- the drift, end to end

needs_db = pytest.mark.django_db(transaction=True)

TURNS = [
    {"role": "user", "text": "Run the tests."},
    {"role": "assistant", "text": "Running.", "tool_calls": [{"tool": "bash", "exit_code": 0}]},
    {"role": "tool", "text": "ok"},
    {"role": "user", "text": "Thanks!", "label": "praise"},
]


def a_session(**fields) -> dict:
    return {"session_id": "s-1", "model": "frontier-large", "turns": TURNS, **fields}


def with_turn(index: int, **fields) -> list[dict]:
    turns = [dict(turn) for turn in TURNS]
    turns[index].update(fields)
    return turns


SESSIONS_MANIFEST = {"format": "arena-bundle/1", "source": {"name": "t", "kind": "sessions"}}
NUL = "\x00"

# case → (bundle, (file, line, field, message)); the bundles are built lazily so that
# collecting the tests costs nothing.
DRIFT = {
    "contributor-handle-over-100": (
        lambda: tar_gz_bundle(harness_manifest("Drift", contributors=["h" * 120]), [run_line()]),
        ("manifest.json", None, "harness.contributors[0]", "must be at most 100 characters (got 120)"),
    ),
    "tool-name-over-200": (
        lambda: tar_gz_bundle(
            SESSIONS_MANIFEST,
            sessions=[a_session(turns=with_turn(1, tool_calls=[{"tool": "t" * 201}]))],
        ),
        ("sessions.jsonl", 1, "turns[1].tool_calls[0].tool", "must be at most 200 characters (got 201)"),
    ),
    "harness-url-over-500": (
        lambda: tar_gz_bundle(
            harness_manifest("Drift", url="https://example.org/" + "u" * 481), [run_line()]
        ),
        ("manifest.json", None, "harness.url", "must be at most 500 characters (got 501)"),
    ),
    "nul-in-turn-text": (
        lambda: tar_gz_bundle(
            SESSIONS_MANIFEST, sessions=[a_session(turns=with_turn(3, text=f"Thanks{NUL}!"))]
        ),
        ("sessions.jsonl", 1, "turns[3].text", "must not contain a NUL character"),
    ),
    "nul-in-tool-arguments": (
        lambda: tar_gz_bundle(
            SESSIONS_MANIFEST,
            sessions=[a_session(turns=with_turn(1, tool_calls=[{"tool": "bash", "arguments": {"cmd": NUL}}]))],
        ),
        ("sessions.jsonl", 1, "turns[1].tool_calls[0].arguments.cmd", "must not contain a NUL character"),
    ),
    "nul-in-session-id": (
        lambda: tar_gz_bundle(SESSIONS_MANIFEST, sessions=[a_session(session_id=f"s{NUL}1")]),
        ("sessions.jsonl", 1, "session_id", "must not contain a NUL character"),
    ),
    "nul-in-model-name": (
        lambda: tar_gz_bundle(harness_manifest("Drift"), [run_line(model=f"m{NUL}")]),
        ("runs.jsonl", 1, "model", "must not contain a NUL character"),
    ),
    "nul-in-an-unknown-run-field-name": (
        lambda: tar_gz_bundle(harness_manifest("Drift"), [run_line(**{f"note{NUL}": 1})]),
        ("runs.jsonl", 1, "note\\u0000", "must not contain a NUL character in its name"),
    ),
    "nul-in-an-inline-trajectory": (
        lambda: tar_gz_bundle(
            harness_manifest("Drift"), [run_line(trajectory=[{"role": "user", "text": NUL}])]
        ),
        ("runs.jsonl", 1, "trajectory[0].text", "must not contain a NUL character"),
    ),
    "nul-in-a-trajectory-file": (
        lambda: tar_gz_bundle(
            harness_manifest("Drift"),
            [run_line(trajectory="trajectories/r-1.json")],
            extra_files={
                "trajectories/r-1.json": json.dumps([{"role": "user", "text": NUL}]).encode()
            },
        ),
        ("trajectories/r-1.json", None, "[0].text", "must not contain a NUL character"),
    ),
    "nul-in-harness-name": (
        lambda: tar_gz_bundle(harness_manifest(f"Drift{NUL}"), [run_line()]),
        ("manifest.json", None, "harness.name", "must not contain a NUL character"),
    ),
    "nul-in-manifest-notes": (
        lambda: tar_gz_bundle({**harness_manifest("Drift"), "notes": NUL}, [run_line()]),
        ("manifest.json", None, "notes", "must not contain a NUL character"),
    ),
    "steps-over-a-postgresql-integer": (
        lambda: tar_gz_bundle(harness_manifest("Drift"), [run_line(steps=2**31)]),
        ("runs.jsonl", 1, "steps", "must be an integer ≤ 2147483647, got 2147483648"),
    ),
    "tokens-over-a-postgresql-bigint": (
        lambda: tar_gz_bundle(
            harness_manifest("Drift"), [run_line(tokens={"input": 2**63, "output": 1})]
        ),
        ("runs.jsonl", 1, "tokens.input", f"must be an integer ≤ {2**63 - 1}, got {2**63}"),
    ),
    "exit-code-over-a-postgresql-integer": (
        lambda: tar_gz_bundle(
            SESSIONS_MANIFEST,
            sessions=[a_session(turns=with_turn(1, tool_calls=[{"tool": "bash", "exit_code": 2**31}]))],
        ),
        ("sessions.jsonl", 1, "turns[1].tool_calls[0].exit_code", "must be an integer ≤ 2147483647, got 2147483648"),
    ),
}  # fmt: skip


@needs_db
@pytest.mark.parametrize("case", sorted(DRIFT))
def test_it_rejects_what_its_column_cannot_hold_with_a_named_error(case, registry, staff):
    build, (file, line, field, message) = DRIFT[case]
    harnesses = set(Harness.objects.values_list("pk", flat=True))
    people = set(Person.objects.values_list("pk", flat=True))
    models = set(LanguageModel.objects.values_list("pk", flat=True))

    submission, created = submission_ingest(upload=build(), user=staff, filename=f"{case}.tar.gz")

    assert created and submission.status == Submission.Status.REJECTED
    assert submission.errors == [{"file": file, "line": line, "field": field, "message": message}]
    assert submission.error_count == 1
    assert not Run.objects.exists() and not Session.objects.exists()
    assert not Turn.objects.exists() and not ToolCall.objects.exists()
    assert set(Harness.objects.values_list("pk", flat=True)) == harnesses
    assert set(Person.objects.values_list("pk", flat=True)) == people
    assert set(LanguageModel.objects.values_list("pk", flat=True)) == models


@needs_db
def test_it_still_ingests_values_at_each_limit(registry, staff):
    manifest = harness_manifest(
        "Edge", contributors=["h" * 100], url="https://example.org/" + "u" * 480
    )
    runs = [
        run_line(
            "r" * 200, model="m" * 200, steps=2**31 - 1, tokens={"input": 2**63 - 1, "output": 0}
        )
    ]
    sessions = [
        a_session(
            session_id="s" * 200,
            turns=with_turn(1, text="a \\u0000 escape is text", tool_calls=[{"tool": "t" * 200, "exit_code": -(2**31)}]),
        )
    ]  # fmt: skip
    submission, _ = submission_ingest(upload=tar_gz_bundle(manifest, runs, sessions), user=staff)

    assert submission.status == Submission.Status.INGESTED, submission.errors
    assert Person.objects.filter(handle="h" * 100).exists()
    assert Run.objects.get().tokens_input == 2**63 - 1
    assert ToolCall.objects.get().tool == "t" * 200
    assert Turn.objects.get(position=1).text == "a \\u0000 escape is text"
