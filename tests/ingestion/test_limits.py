"""The one table of limits (ingestion/bundles/limits.py): what the validator accepts
always fits its column.

The first half walks the table and proves, entry by entry, that the model column and
the validator (the msgspec schema) carry the same bound. The second half sends each
value that used to slip past the validator and break at PostgreSQL ("internal error
while ingesting") through the real ingest path, and expects a named rejection with
nothing stored.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json

import msgspec
import pytest
from django.apps import apps
from django.db import DataError, IntegrityError, connection, transaction

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
from tests.builders import harness_manifest, run_line, submit, tar_gz_bundle

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
    """The column storing a bundle field; for a set (an array column), its elements'."""
    model, name = FIELDS[field].column.split(".")
    column = apps.get_model("ingestion", model)._meta.get_field(name)
    return getattr(column, "base_field", column)


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


RUN_NUMBERS = sorted(
    field
    for field, bound in FIELDS.items()
    if bound.column.startswith("Run.") and not bound.max_length
)


def test_it_bounds_every_number_of_a_run_from_above():
    numbers = [
        field.name
        for field in Run._meta.get_fields()
        if field.get_internal_type() in ("IntegerField", "BigIntegerField", "PositiveIntegerField", "FloatField")
    ]  # fmt: skip
    bounded = {FIELDS[field].column.removeprefix("Run.") for field in RUN_NUMBERS}
    assert set(numbers) == bounded
    assert all(FIELDS[field].le is not None for field in RUN_NUMBERS)


@pytest.mark.parametrize("field", RUN_NUMBERS)
def test_it_gives_each_bound_its_check_constraint(field):
    bound = FIELDS[field]
    column = bound.column.removeprefix("Run.")
    constraints = {c.name: c.condition for c in Run._meta.constraints if hasattr(c, "condition")}
    (nullable, in_range) = constraints[f"run_{column}_range"].children
    assert nullable == (f"{column}__isnull", True)
    assert set(in_range.children) == {(f"{column}__gte", bound.ge), (f"{column}__lte", bound.le)}


@pytest.mark.django_db
@pytest.mark.parametrize("field", RUN_NUMBERS)
def test_it_has_the_database_refuse_what_the_validator_refuses(field, registry, staff):
    """Each bound holds in PostgreSQL too: the value at the bound is stored, one past
    it is refused by the check constraint (a run written around the validator), or by
    the column itself when the bound is the column's own (the trial)."""
    submit(staff, [run_line(checkpoints={"passed": 1, "total": 2})])
    column = FIELDS[field].column.removeprefix("Run.")
    high = FIELDS[field].le
    runs = Run.objects.all()
    assert runs.update(**{column: high}) == 1
    refusal = DataError if high == limits.INT32_MAX else IntegrityError  # `integer` column
    with pytest.raises(refusal), transaction.atomic():
        runs.update(**{column: high + 1})


def test_it_bounds_the_trial_by_its_column_as_older_releases_did():
    """Trials are never summed; a bound below the column's would make the migration
    fail on a trial an older release stored (the column is NOT NULL: not clearable)."""
    assert FIELDS["runs.trial"].le == limits.INT32_MAX == 2**31 - 1
    assert schema_rule("runs.trial").le == 2**31 - 1
    migration = importlib.import_module("ingestion.migrations.0002_run_number_bounds")
    (trial_range,) = [
        operation.constraint.condition
        for operation in migration.Migration.operations
        if getattr(operation, "constraint", None) is not None
        and operation.constraint.name == "run_trial_range"
    ]
    constraints = {c.name: c.condition for c in Run._meta.constraints if hasattr(c, "condition")}
    assert trial_range == constraints["run_trial_range"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("started", "finished"),
    [
        (dt.datetime(1999, 12, 31, tzinfo=dt.UTC), None),
        (None, dt.datetime(2100, 1, 1, tzinfo=dt.UTC)),
        (dt.datetime(2026, 1, 1, tzinfo=dt.UTC), dt.datetime(2026, 1, 11, 0, 0, 1, tzinfo=dt.UTC)),
        (dt.datetime(2026, 1, 2, tzinfo=dt.UTC), dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
    ],
)
def test_it_has_the_database_refuse_times_the_validator_refuses(started, finished, registry, staff):
    submit(staff, [run_line()])
    with pytest.raises(IntegrityError), transaction.atomic():
        Run.objects.update(started_at=started, finished_at=finished)


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
        ("runs.jsonl", 1, "steps", "must be an integer ≤ 10000000, got 2147483648"),
    ),
    "tokens-over-a-postgresql-bigint": (
        lambda: tar_gz_bundle(
            harness_manifest("Drift"), [run_line(tokens={"input": 2**63, "output": 1})]
        ),
        ("runs.jsonl", 1, "tokens.input", f"must be an integer ≤ 1000000000000, got {2**63}"),
    ),
    "tokens-whose-sum-overflows-a-bigint": (
        lambda: tar_gz_bundle(
            harness_manifest("Drift"), [run_line(tokens={"input": 2**63 - 1, "output": 1})]
        ),
        ("runs.jsonl", 1, "tokens.input", f"must be an integer ≤ 1000000000000, got {2**63 - 1}"),
    ),
    "cost-whose-sum-is-infinite": (
        lambda: tar_gz_bundle(harness_manifest("Drift"), [run_line(cost_usd=1e308)]),
        ("runs.jsonl", 1, "cost_usd", "must be a number ≤ 1000000, got 1e+308"),
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
            "r" * 200, model="m" * 200, steps=limits.COUNT_MAX, trial=limits.TRIAL_MAX,
            tokens={"input": limits.TOKENS_MAX, "output": limits.TOKENS_MAX},
            cost_usd=limits.COST_MAX, ttft_ms=limits.TTFT_MS_MAX,
            started_at="2000-01-01T00:00:00Z", finished_at="2000-01-11T00:00:00Z",
        )
    ]  # fmt: skip
    sessions = [
        a_session(
            session_id="s" * 200,
            turns=with_turn(1, text="a \\u0000 escape is text", tool_calls=[{"tool": "t" * 200, "exit_code": -(2**31)}]),
        )
    ]  # fmt: skip
    submission, _ = submission_ingest(upload=tar_gz_bundle(manifest, runs, sessions), user=staff)

    assert submission.status == Submission.Status.INGESTED, submission.errors
    assert Person.objects.filter(handle="h" * 100).exists()
    assert Run.objects.get().tokens_input == limits.TOKENS_MAX
    assert ToolCall.objects.get().tool == "t" * 200
    assert Turn.objects.get(position=1).text == "a \\u0000 escape is text"


@pytest.mark.django_db
def test_it_clears_poison_an_older_release_stored_before_adding_the_constraints(registry, staff):
    """The migration that adds the bounds cannot fail on rows stored before them: values
    past a bound are cleared to null ("not reported"), the others are kept."""
    migration = importlib.import_module("ingestion.migrations.0002_run_number_bounds")
    submit(staff, [run_line("ok", trial=2**31 - 1), run_line("poison", trial=2)])
    ranges = [c for c in Run._meta.constraints if c.name.startswith("run_") and "range" in c.name]
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending foreign key checks
    with connection.schema_editor() as editor:
        for constraint in ranges:
            editor.remove_constraint(Run, constraint)
    Run.objects.filter(run_id="poison").update(
        tokens_input=2**63 - 1, cost_usd=1e308, steps=2**31 - 1, tool_calls=2**31 - 1,
        ttft_ms=2**31 - 1, checkpoints_passed=1, checkpoints_total=2**31 - 1,
        started_at=dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
    )  # fmt: skip

    with connection.cursor() as cursor:
        cursor.execute(migration.CLEAR_OUT_OF_RANGE)
    with connection.schema_editor() as editor:
        for constraint in ranges:
            editor.add_constraint(Run, constraint)

    poison = Run.objects.values().get(run_id="poison")
    cleared = ("tokens_input", "tokens_output", "cost_usd", "steps", "tool_calls", "ttft_ms")
    cleared += ("checkpoints_total", "started_at", "finished_at")
    assert all(poison[column] is None for column in cleared)
    assert Run.objects.values("tokens_input", "cost_usd", "trial").get(run_id="ok") == {
        "tokens_input": 1000,
        "cost_usd": 0.01,
        "trial": 2**31 - 1,  # not clearable (NOT NULL), and within the bound
    }
