"""Records of an `arena-bundle/1` bundle: their types, and their validation.

Pure Python: no Django, no database. `bundle.py` splits the container into lines and
documents; this module turns each of them into a typed record or into errors.

Speed matters (a bundle may hold 200,000 runs), so every line goes through one typed
msgspec decoder that checks types and ranges in C while it parses (the fast path).
Only a line that fails it is parsed again, slowly, field by field, to report *every*
problem of that line with a readable message (the slow path). Both paths take their
rules from the same Struct definitions below, so they cannot disagree.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

FORMAT = "arena-bundle/1"
MAX_REPORTED_ERRORS = 200

# --------------------------------------------------------------------------- errors


@dataclass(frozen=True, slots=True)
class BundleError:
    """One problem, shown to users as `file:line: field: message`."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where = f"{where}:{self.line}"
        head = f"{where}: " if where else ""
        return f"{head}{self.field}: {self.message}" if self.field else head + self.message


class BundleRejected(Exception):
    """The bundle is refused whole. `errors` holds the first MAX_REPORTED_ERRORS."""

    def __init__(self, errors: list[BundleError] | str, total: int | None = None):
        if isinstance(errors, str):
            errors = [BundleError("", None, "", errors)]
        self.errors: list[BundleError] = list(errors[:MAX_REPORTED_ERRORS])
        self.total: int = len(errors) if total is None else total
        super().__init__(self._summary())

    def _summary(self) -> str:
        shown = "\n".join(f"  {e}" for e in self.errors[:10])
        more = self.total - min(len(self.errors), 10)
        tail = f"\n  … and {more} more" if more > 0 else ""
        noun = "error" if self.total == 1 else "errors"
        return f"bundle rejected ({self.total} {noun}):\n{shown}{tail}"


def rejected(file: str, message: str, field: str = "") -> BundleRejected:
    """A rejection with a single error (container-level problems)."""
    return BundleRejected([BundleError(file, None, field, message)])


class ErrorCollector:
    """Collects errors without stopping; keeps the first `limit`, counts them all."""

    __slots__ = ("errors", "limit", "total")

    def __init__(self, limit: int = MAX_REPORTED_ERRORS):
        self.errors: list[BundleError] = []
        self.total = 0
        self.limit = limit

    def add(self, file: str, line: int | None, field: str, message: str) -> None:
        self.total += 1
        if len(self.errors) < self.limit:
            self.errors.append(BundleError(file, line, field, message))

    def __bool__(self) -> bool:
        return self.total > 0

    def __len__(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[BundleError]:
        return iter(self.errors)

    def raise_if_any(self) -> None:
        if self.total:
            raise BundleRejected(self.errors, self.total)


# ---------------------------------------------------------------- field types

# \Z, not $: in Python's re, $ also matches before a final newline ("r1\n").
RUN_ID_PATTERN = r"^[A-Za-z0-9._:/-]+\Z"
# Django's own username rule, so that a contributor handle can name an account.
HANDLE_PATTERN = r"^[\w.@+-]+\Z"
TRAJECTORY_DIR = "trajectories/"

RunId = Annotated[str, Meta(min_length=1, max_length=200, pattern=RUN_ID_PATTERN)]
Name200 = Annotated[str, Meta(min_length=1, max_length=200)]
Name100 = Annotated[str, Meta(min_length=1, max_length=100)]
NonEmpty = Annotated[str, Meta(min_length=1)]
Handle = Annotated[str, Meta(min_length=1, max_length=150, pattern=HANDLE_PATTERN)]
Count = Annotated[int, Meta(ge=0)]
Trial = Annotated[int, Meta(ge=1)]
Usd = Annotated[float, Meta(ge=0)]
AwareDatetime = Annotated[datetime, Meta(tz=True)]

Outcome = Literal["pass", "fail", "infra_error"]
InfraError = Literal["timeout", "network", "provider_crash", "other"]
Scenario = Literal["software_development", "workflow_automation", "general_assistant"]
Confirmation = Literal["yes", "no"]
Role = Literal["user", "assistant", "tool"]
Label = Literal["praise", "complaint", "correction"]

# Allowed values by field name, for messages ("must be one of …").
_NULLABLE_CHOICES = frozenset({"infra_error", "scenario", "confirmation", "label"})
CHOICES: dict[str, tuple[str, ...]] = {
    "outcome": get_args(Outcome),
    "infra_error": get_args(InfraError),
    "scenario": get_args(Scenario),
    "confirmation": get_args(Confirmation),
    "role": get_args(Role),
    "label": get_args(Label),
}


# ------------------------------------------------------------------ structures
# Nested objects ignore unknown keys (only top-level unknown fields are kept, in
# `extra`). Structs holding only scalars skip the garbage collector (gc=False).


class Tokens(Struct, frozen=True, gc=False):
    input: Count
    output: Count
    cached: Count | None = None


class Checkpoints(Struct, frozen=True, gc=False):
    passed: Count
    total: Trial


class ToolCall(Struct, frozen=True):
    tool: NonEmpty
    arguments: dict[str, Any] = {}
    exit_code: int | None = None


class Turn(Struct, frozen=True):
    """One turn of a session or trajectory.

    `label` is UNSET when the key is absent (the signal extractor labels the turn
    later), None when the submitter labelled it "none of them".
    """

    role: Role
    text: str | None = None
    label: Label | None | UnsetType = UNSET
    tool_calls: list[ToolCall] = []

    @property
    def label_present(self) -> bool:
        return self.label is not UNSET


class ToolSpec(Struct, frozen=True):
    name: NonEmpty
    kind: str | None = None
    parameters: dict[str, Any] | None = None


class RunRecord(Struct, forbid_unknown_fields=True, dict=True):
    """One line of runs.jsonl, validated.

    Besides the fields of the format, each record carries (as plain attributes, not
    Struct fields, so a JSON key of the same name can never set them):
      line:    1-based line number (item number for a JSON document)
      extra:   unknown top-level fields, kept as they were
      task_pk: what `task_lookup` returned for (suite, suite_version, task_id)

    `trajectory` is None, a path inside the bundle (str), or an inline list of turns
    as plain JSON objects (validated, unknown keys kept).
    """

    run_id: RunId
    suite: NonEmpty
    suite_version: NonEmpty
    task_id: NonEmpty
    model: Name200
    trial: Trial
    outcome: Outcome
    infra_error: InfraError | None = None
    cost_usd: Usd | None = None
    tokens: Tokens | None = None
    steps: Count | None = None
    tool_calls: Count | None = None
    ttft_ms: Count | None = None
    started_at: AwareDatetime | None = None
    finished_at: AwareDatetime | None = None
    checkpoints: Checkpoints | None = None
    verifier: dict[str, Any] | None = None
    trajectory: str | list[dict[str, Any]] | None = None

    if TYPE_CHECKING:  # set after decoding (see above); not Struct fields
        line: int
        extra: dict[str, Any]
        task_pk: int


class SessionRecord(Struct, forbid_unknown_fields=True, dict=True):
    """One line of sessions.jsonl, validated. Also carries `line` and `extra`."""

    session_id: Name200
    model: Name200
    turns: list[Turn]
    scenario: Scenario | None = None
    user: str | None = None
    confirmation: Confirmation | None = None
    toolset: list[str | ToolSpec] | None = None

    if TYPE_CHECKING:  # set after decoding; not Struct fields
        line: int
        extra: dict[str, Any]


# The same fields, tolerant of unknown keys: used only for lines that have some.
class _RunWithExtra(RunRecord, forbid_unknown_fields=False):
    pass


class _SessionWithExtra(SessionRecord, forbid_unknown_fields=False):
    pass


class _HarnessFields(Struct):
    name: Name100
    version: Name100
    contributors: list[Handle] = []
    minimal_baseline: bool = False
    url: str | None = None


class Harness(_HarnessFields, frozen=True):
    extra: dict[str, Any] = {}


class _ManifestFields(Struct):
    format: str
    created_at: AwareDatetime | None = None
    notes: str | None = None
    source: dict[str, Any] | None = None


class Manifest(Struct, frozen=True):
    format: str
    harness: Harness | None = None
    created_at: datetime | None = None
    notes: str | None = None
    source: dict[str, Any] | None = None
    extra: dict[str, Any] = {}


_decode_any = msgspec.json.decode
_decode_raw_object = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_UNKNOWN_FIELD = "Object contains unknown field"

_BAD: Any = object()  # a field that failed validation, in the slow path


FieldSpec = tuple[str, Any, bool, Callable[[], Any]]  # name, type, required, default


def _field_specs(struct: type[Struct]) -> tuple[FieldSpec, ...]:
    """Each field of `struct`, for the slow path (which checks them one by one)."""
    specs = []
    for f in msgspec.structs.fields(struct):
        if f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory  # a fresh [] or {} for each record
        else:
            default = lambda value=f.default: value  # noqa: E731
        specs.append((f.encode_name, f.type, f.required, default))
    return tuple(specs)


_RUN_FIELDS = _field_specs(RunRecord)
_SESSION_FIELDS = _field_specs(SessionRecord)
_RUN_FIELD_NAMES = frozenset(name for name, *_ in _RUN_FIELDS)
_SESSION_FIELD_NAMES = frozenset(name for name, *_ in _SESSION_FIELDS)


# ------------------------------------------------------------------- messages

_TYPE_WORDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "null": "null",
    "object": "an object",
    "array": "an array",
    "datetime": "a date-time string",
}
_GOT_WORDS = {**_TYPE_WORDS, "bool": "a boolean"}
_TIME_EXAMPLE = "e.g. 2026-11-01T10:00:00+00:00"
# Better words for a few fields whose type alone says little.
_TYPE_HINTS = {
    "trajectory": "null, a path inside the bundle or a list of turns",
    "toolset": "null or a list of tool names or {name, kind, parameters} objects",
    "verifier": "null or an object",
}
_PATTERN_HINTS = {
    RUN_ID_PATTERN: "may only contain letters, digits and . _ : / -",
    HANDLE_PATTERN: "must be a person's handle (letters, digits and . _ @ + -)",
}
_AT = re.compile(r"^(?P<msg>.*) - at `\$(?P<path>.*)`$", re.S)
_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def _words(types: str, table: dict[str, str]) -> str:
    return " or ".join(table.get(t.strip(), f"`{t.strip()}`") for t in types.split("|"))


def _leaf(field: str) -> str:
    return re.sub(r"\[\d+\]", "", field).rsplit(".", 1)[-1]


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, datetime) else str(value)
    return text if len(text) <= 60 else text[:57] + "…"


def _humanize(message: str, field: str, value: Any) -> str:
    """Turn a msgspec message into one for people, naming the allowed values."""
    leaf = _leaf(field)
    if m := re.fullmatch(r"Expected `([^`]+)`, got `([^`]+)`", message):
        wanted = _TYPE_HINTS.get(field) or _words(m[1], _TYPE_WORDS)
        got = _words(m[2], _GOT_WORDS)
        if m[2] == "str" and value is not _BAD:
            got = f"{got} ({_show(value)})"
        return f"must be {wanted}, not {got}"
    if m := re.fullmatch(r"Expected `(int|float)` >= (\S+)", message):
        bound = m[2].removesuffix(".0")
        return f"must be {_TYPE_WORDS[m[1]]} ≥ {bound}" + _got(value)
    if message == "Expected `str` of length >= 1":
        return "must not be empty"
    if m := re.fullmatch(r"Expected `str` of length <= (\d+)", message):
        length = f" (got {len(value)})" if isinstance(value, str) else ""
        return f"must be at most {m[1]} characters{length}"
    if m := re.fullmatch(r"Expected `str` matching regex '(.*)'", message, re.S):
        # msgspec shows the pattern as a Python repr (backslashes doubled)
        hint = next((h for p, h in _PATTERN_HINTS.items() if m[1] in (p, repr(p)[1:-1])), None)
        return (hint or f"must match {m[1]}") + _got(value)
    if message.startswith("Invalid enum value") and leaf in CHOICES:
        choices = ", ".join(CHOICES[leaf])
        nullable = " or null" if leaf in _NULLABLE_CHOICES else ""
        return f"must be one of {choices}{nullable}" + _got(value)
    if message == "Expected `datetime` with a timezone component":
        return f"must include a UTC offset ({_TIME_EXAMPLE})" + _got(value)
    if message.startswith("Invalid RFC3339 encoded datetime"):
        return f"must be an ISO 8601 date-time with a UTC offset ({_TIME_EXAMPLE})" + _got(value)
    if message == "Number out of range":
        return "must be a finite number"
    return message


def _got(value: Any) -> str:
    return f", got {_show(value)}" if value is not _BAD else ""


def _locate(field: str, exc: msgspec.ValidationError, value: Any) -> tuple[str, str]:
    """(dotted field path, message) for a msgspec error raised while checking `field`."""
    message, path = str(exc), ""
    if m := _AT.match(message):
        message, path = m["msg"], m["path"]
    where = field + path if field else path.lstrip(".")
    if m := re.fullmatch(r"Object missing required field `([^`]+)`", message):
        return f"{where}.{m[1]}" if where else m[1], "is required"
    return where, _humanize(message, where, _value_at(value, path))


def _value_at(value: Any, path: str) -> Any:
    for m in _PATH_PART.finditer(path):
        try:
            value = value[m[1]] if m[1] is not None else value[int(m[2])]
        except (KeyError, IndexError, TypeError, ValueError):
            return _BAD
    return value


# -------------------------------------------------------------- slow-path parsing


def _nonfinite_paths(value: Any, path: str = "") -> Iterator[str]:
    """Where a NaN or an infinity hides in a parsed value (only the stdlib makes them)."""
    if isinstance(value, float):
        if not math.isfinite(value):
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _nonfinite_paths(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _nonfinite_paths(item, f"{path}[{i}]")


def parse_json(data: bytes, report: Callable[[str, str], None]) -> Any:
    """Parse one JSON value for diagnosis; returns _BAD after reporting why it failed.

    msgspec refuses the bare NaN/Infinity tokens that Python's json module writes; the
    stdlib parser accepts them, so a value that only msgspec refuses is parsed again:
    then `report_nonfinite` can name the field instead of saying "not JSON".
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        report("", f"is not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {exc.start + 1})")
        return _BAD
    try:
        return _decode_any(data)
    except msgspec.DecodeError as exc:
        strict_error = str(exc).removeprefix("JSON is malformed: ")
    try:
        value = json.loads(text)
    except ValueError:
        report("", f"is not valid JSON ({strict_error})")
        return _BAD
    if next(_nonfinite_paths(value), None) is None:
        # e.g. an unpaired surrogate escape: the stdlib takes it, PostgreSQL would not
        report("", f"is not valid JSON ({strict_error})")
        return _BAD
    return value


def report_nonfinite(value: Any, report: Callable[[str, str], None], prefix: str = "") -> set[str]:
    """Report each NaN/infinity inside `value`; return the top-level keys holding one."""
    roots: set[str] = set()
    for path in _nonfinite_paths(value, prefix):
        report(path, "must be a finite number")
        roots.add(re.split(r"[.\[]", path, maxsplit=1)[0])
    return roots


def convert_fields(
    obj: Any,
    specs: tuple[FieldSpec, ...],
    report: Callable[[str, str], None],
    prefix: str = "",
    skip: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Check each field of `obj` on its own, reporting every bad one.

    Returns name → converted value (the default when absent, _BAD when invalid).
    Fields in `skip` were already reported (non-finite numbers) and are just _BAD.
    """
    if not isinstance(obj, dict):
        report(prefix, f"must be an object, not {_json_kind(obj)}")
        return {name: _BAD for name, *_ in specs}
    values: dict[str, Any] = {}
    for name, typ, required, default in specs:
        field = f"{prefix}.{name}" if prefix else name
        if name not in obj:
            if required:
                report(field, "is required")
            values[name] = _BAD if required else default()
            continue
        if name in skip:
            values[name] = _BAD
            continue
        try:
            values[name] = msgspec.convert(obj[name], typ)
        except msgspec.ValidationError as exc:
            report(*_locate(field, exc, obj[name]))
            values[name] = _BAD
    return values


def _json_kind(value: Any) -> str:
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return kinds.get(type(value), "a number")


# ------------------------------------------------------------------ turn checks


def turn_problems(turns: list[Turn], prefix: str) -> list[tuple[str, str]]:
    """Rules a Struct cannot say: only user turns carry a (non-null) label."""
    problems = []
    for i, turn in enumerate(turns):
        if turn.role != "user" and turn.label is not UNSET and turn.label is not None:
            problems.append(
                (
                    f"{prefix}[{i}].label",
                    f"only user turns carry a label (this is a {turn.role} turn)",
                )
            )
    return problems


def validate_turns(
    value: Any, prefix: str, report: Callable[[str, str], None]
) -> list[Turn] | None:
    """Validate a parsed list of turns (inline or file trajectory); None if invalid."""
    try:
        turns = msgspec.convert(value, list[Turn])
    except msgspec.ValidationError as exc:
        report(*_locate(prefix, exc, value))
        return None
    problems = turn_problems(turns, prefix)
    for field, message in problems:
        report(field, message)
    return None if problems else turns


def validate_trajectory(data: bytes, file: str, errors: ErrorCollector) -> list[Any] | None:
    """A trajectory file: a JSON list of turns. Returns the parsed list (unknown keys
    kept) or None after adding errors."""

    def report(field: str, message: str) -> None:
        errors.add(file, None, field, message)

    data = data.removeprefix(b"\xef\xbb\xbf")
    value = parse_json(data, report)
    if value is _BAD:
        return None
    if not isinstance(value, list):
        report("", f"must be a list of turns, not {_json_kind(value)}")
        return None
    nonfinite = report_nonfinite(value, report)
    if validate_turns(value, "", report) is None or nonfinite:
        return None
    return value


# ----------------------------------------------------------------------- manifest


def parse_manifest(data: bytes, *, has_runs: bool, file: str = "manifest.json") -> Manifest:
    """Validate manifest.json; raises BundleRejected listing every problem."""
    errors = ErrorCollector()

    def report(field: str, message: str) -> None:
        errors.add(file, None, field, message)

    obj = parse_json(data.removeprefix(b"\xef\xbb\xbf"), report)
    if obj is _BAD:
        errors.raise_if_any()
    if not isinstance(obj, dict):
        report("", f"must be a JSON object, not {_json_kind(obj)}")
        errors.raise_if_any()
    nonfinite = report_nonfinite(obj, report)
    values = convert_fields(obj, _MANIFEST_FIELDS, report, skip=nonfinite)
    fmt = obj.get("format")
    if values["format"] is not _BAD and fmt != FORMAT:
        report("format", f"must be {_show(FORMAT)}, got {_show(fmt)}")
    harness = (
        None if "harness" in nonfinite else _parse_harness(obj.get("harness"), has_runs, report)
    )
    errors.raise_if_any()
    known = _MANIFEST_NAMES | {"harness"}
    return Manifest(
        format=FORMAT,
        harness=harness,
        created_at=values["created_at"],
        notes=values["notes"],
        source=values["source"],
        extra={k: v for k, v in obj.items() if k not in known},
    )


def _parse_harness(obj: Any, has_runs: bool, report: Callable[[str, str], None]) -> Harness | None:
    if obj is None:
        if has_runs:
            report("harness", "is required when the bundle has runs")
        return None
    values = convert_fields(obj, _HARNESS_FIELDS, report, prefix="harness")
    if any(v is _BAD for v in values.values()):
        return None
    extra = {k: v for k, v in obj.items() if k not in _HARNESS_NAMES}
    return Harness(**values, extra=extra)


_MANIFEST_FIELDS = _field_specs(_ManifestFields)
_HARNESS_FIELDS = _field_specs(_HarnessFields)
_MANIFEST_NAMES = frozenset(name for name, *_ in _MANIFEST_FIELDS)
_HARNESS_NAMES = frozenset(name for name, *_ in _HARNESS_FIELDS)


# ----------------------------------------------------------------------- runs

TaskLookup = Callable[[str, str, str], "int | None"]
_MISSING: Any = object()
_LOOKUP_CACHE_SIZE = 10_000  # distinct tasks remembered; a registry has far fewer


def _both_valid(a: Any, b: Any) -> bool:
    return a is not None and b is not None and a is not _BAD and b is not _BAD


def run_consistency(rec: Any) -> list[tuple[str, str]]:
    """Rules between fields of one run. Works on a RunRecord, or on the slow path's
    namespace where a field that failed on its own is _BAD (and is then skipped)."""
    problems: list[tuple[str, str]] = []
    outcome, kind = rec.outcome, rec.infra_error
    if outcome is not _BAD and kind is not _BAD:
        if outcome == "infra_error":
            if kind is None:
                choices = ", ".join(CHOICES["infra_error"])
                problems.append(
                    ("infra_error", f"is required when outcome is infra_error (one of {choices})")
                )
        elif kind is not None:
            problems.append(
                ("infra_error", f"must be null when outcome is {outcome} (got {kind!r})")
            )
    started, finished = rec.started_at, rec.finished_at
    if _both_valid(started, finished) and finished < started:
        when = f"{finished.isoformat()} < {started.isoformat()}"
        problems.append(("finished_at", f"is before started_at ({when})"))
    cp = rec.checkpoints
    if cp is not None and cp is not _BAD and cp.passed > cp.total:
        problems.append(
            ("checkpoints.passed", f"must be ≤ checkpoints.total ({cp.passed} > {cp.total})")
        )
    return problems


_UNKNOWN_TOP_FIELD = re.compile(r"Object contains unknown field `(.*)`", re.S)


class _RecordDecoder:
    """Decodes one JSON line into (record, unknown top-level fields) in one pass.

    The strict decoder of `record` refuses an unknown field and names it. Each name
    learnt that way becomes an optional field of an extended Struct (a subclass of
    `record`, renamed to the JSON key), so a producer that adds, say, `harness_url`
    to every line still costs one decode per line. After _MAX_LEARNED names (a
    hostile bundle), lines with yet other names are decoded twice instead: leniently
    for the typed part, and as raw slices for the extras.

    `decode` raises msgspec.DecodeError (or ValidationError, UnicodeDecodeError)
    for an invalid line: the caller then diagnoses it slowly.
    """

    _MAX_LEARNED = 64

    def __init__(self, record: type[Struct], lenient: type[Struct]):
        self._record = record
        self._plain = msgspec.json.Decoder(record).decode
        self._lenient = msgspec.json.Decoder(lenient).decode
        self._names = frozenset(f.encode_name for f in msgspec.structs.fields(record))
        self._learned: dict[str, str] = {}  # Struct field name → JSON key
        self._extended = self._plain
        self._prefer_extended = False  # the last line had extras: try them first

    def decode(self, data: bytes) -> tuple[Any, dict[str, Any]]:
        if not self._prefer_extended:  # the hot path: a line without extras
            try:
                return self._plain(data), {}
            except msgspec.ValidationError as exc:
                if _UNKNOWN_TOP_FIELD.fullmatch(str(exc)) is None:
                    raise
        return self._decode_extended(data)

    def _decode_extended(self, data: bytes) -> tuple[Any, dict[str, Any]]:
        # Each failed attempt learns one more name, so this loop is bounded.
        while True:
            try:
                return self._split(self._extended(data))
            except msgspec.ValidationError as exc:
                unknown = _UNKNOWN_TOP_FIELD.fullmatch(str(exc))
                if unknown is None:
                    raise
                if len(self._learned) >= self._MAX_LEARNED or unknown[1] in self._learned.values():
                    return self._decode_twice(data)
                self._learn(unknown[1])

    def _learn(self, key: str) -> None:
        self._learned[f"_extra{len(self._learned)}"] = key
        extended = msgspec.defstruct(
            f"{self._record.__name__}WithExtra",
            [(field, Any | UnsetType, UNSET) for field in self._learned],
            bases=(self._record,),
            rename=dict(self._learned),
        )
        self._extended = msgspec.json.Decoder(extended).decode

    def _split(self, decoded: Struct) -> tuple[Any, dict[str, Any]]:
        values = msgspec.structs.asdict(decoded)
        extra = {}
        for field, key in self._learned.items():
            value = values.pop(field)
            if value is not UNSET:
                extra[key] = value
        self._prefer_extended = bool(extra)
        return self._record(**values), extra

    def _decode_twice(self, data: bytes) -> tuple[Any, dict[str, Any]]:
        typed = self._lenient(data)
        raw = _decode_raw_object(data)
        extra = {k: _decode_any(v) for k, v in raw.items() if k not in self._names}
        return self._record(**msgspec.structs.asdict(typed)), extra


class _LineValidator:
    """The fast and slow paths shared by runs and sessions.

    Fast: one typed decode (see _RecordDecoder). Slow, only for invalid lines: parse,
    then check field by field (convert_fields) to report every problem with a
    readable message.
    """

    record: type[Struct]
    lenient: type[Struct]
    specs: tuple[FieldSpec, ...]
    names: frozenset[str]

    def __init__(self, errors: ErrorCollector, file: str):
        self.errors = errors
        self.file = file
        self._decode = _RecordDecoder(self.record, self.lenient).decode

    def from_json(self, line_no: int, data: bytes) -> Any:
        """The record of one JSON line, or None after adding its errors."""
        try:
            rec, extra = self._decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError):
            return self._diagnose(line_no, data)
        return self._accept(line_no, rec, extra)

    def from_object(self, line_no: int, obj: Any) -> Any:
        """The record of an already parsed value (a JSON document the stdlib parsed)."""
        return self._check_object(line_no, obj)

    def _diagnose(self, line_no: int, data: bytes) -> Any:
        data = bytes(data)  # a JSON document's items are msgspec.Raw slices
        if not data.strip():
            return None  # blank lines are allowed
        obj = parse_json(data, lambda field, msg: self._error(line_no, field, msg))
        if obj is _BAD:
            return None
        return self._check_object(line_no, obj)

    def _check_object(self, line_no: int, obj: Any) -> Any:
        if not isinstance(obj, dict):
            self._error(line_no, "", f"must be a JSON object, not {_json_kind(obj)}")
            return None
        report = lambda field, message: self._error(line_no, field, message)  # noqa: E731
        nonfinite = report_nonfinite(obj, report)
        values = convert_fields(obj, self.specs, report, skip=nonfinite)
        if nonfinite or any(v is _BAD for v in values.values()):
            self._check_partial_relations(line_no, SimpleNamespace(**values))
            return None
        extra = {k: v for k, v in obj.items() if k not in self.names}
        return self._accept(line_no, self.record(**values), extra)

    def _accept(self, line_no: int, rec: Any, extra: dict[str, Any]) -> Any:
        """Rules between fields and records; the record with its attributes set, or None."""
        raise NotImplementedError

    def _check_partial_relations(self, line_no: int, rec: SimpleNamespace) -> None:
        """The same rules for a line with invalid fields (_BAD), skipping those they
        take part in: so that one pass still reports, say, a duplicate id."""
        raise NotImplementedError

    def _report(self, line_no: int, problems: list[tuple[str, str]]) -> bool:
        """Add each (field, message); True if there were none."""
        for field, message in problems:
            self._error(line_no, field, message)
        return not problems

    def _error(self, line_no: int, field: str, message: str) -> None:
        self.errors.add(self.file, line_no, field, message)


class RunValidator(_LineValidator):
    """Validates the runs of one bundle, line by line, keeping the cross-record state.

    `from_json(line_no, data)` returns a RunRecord, or None after adding the line's
    errors to `errors`. Uniqueness is tracked with 64-bit hashes instead of the keys
    themselves, so 200,000 runs cost a few MB; two different keys sharing a hash
    (odds about 1 in 10⁹ at that size) would be reported as a duplicate.
    """

    record = RunRecord
    lenient = _RunWithExtra
    specs = _RUN_FIELDS
    names = _RUN_FIELD_NAMES

    def __init__(
        self,
        errors: ErrorCollector,
        task_lookup: TaskLookup,
        *,
        file: str = "runs.jsonl",
        trajectory_exists: Callable[[str], bool] = lambda path: False,
    ):
        super().__init__(errors, file)
        self._lookup = task_lookup
        self._tasks: dict[tuple[str, str, str], int | None] = {}
        self._trajectory_exists = trajectory_exists
        self._run_ids: set[int] = set()
        self._trials: set[int] = set()

    def _accept(self, line_no: int, rec: RunRecord, extra: dict[str, Any]) -> RunRecord | None:
        task_pk = self._check_relations(line_no, rec)
        if task_pk is None:
            return None
        rec.line = line_no
        rec.extra = extra
        rec.task_pk = task_pk
        return rec

    def _check_relations(self, line_no: int, rec: RunRecord) -> int | None:
        """Cross-field, registry and uniqueness rules of a record whose fields are
        all valid (the hot path: no _BAD guards). Returns the task pk when the record
        passes them all, else None (after adding the errors)."""
        ok = True
        problems = run_consistency(rec)
        if problems:
            ok = self._report(line_no, problems)
        if rec.trajectory is not None:
            ok = self._check_trajectory(line_no, rec.trajectory) and ok
        task = (rec.suite, rec.suite_version, rec.task_id)
        task_pk = self._task_pk(line_no, task)
        ok = self._note_run_id(line_no, rec.run_id) and ok
        ok = self._note_trial(line_no, task, rec.model, rec.trial) and ok
        return task_pk if ok else None

    def _check_partial_relations(self, line_no: int, rec: SimpleNamespace) -> None:
        """The same rules for the slow path, skipping those a _BAD field takes part in."""
        self._report(line_no, run_consistency(rec))
        if rec.trajectory is not None and rec.trajectory is not _BAD:
            self._check_trajectory(line_no, rec.trajectory)
        task = (rec.suite, rec.suite_version, rec.task_id)
        if any(part is _BAD for part in task):
            return
        self._task_pk(line_no, task)
        if rec.run_id is not _BAD:
            self._note_run_id(line_no, rec.run_id)
        if rec.model is not _BAD and rec.trial is not _BAD:
            self._note_trial(line_no, task, rec.model, rec.trial)

    def _task_pk(self, line_no: int, task: tuple[str, str, str]) -> int | None:
        task_pk = self._tasks.get(task, _MISSING)
        if task_pk is _MISSING:
            task_pk = self._lookup(*task)
            if len(self._tasks) < _LOOKUP_CACHE_SIZE:
                self._tasks[task] = task_pk
        if task_pk is None:
            suite, version, task_id = task
            self._error(
                line_no,
                "task_id",
                f"task {suite} {version}/{task_id} is not in the registry or not approved",
            )
        return task_pk

    def _note_run_id(self, line_no: int, run_id: str) -> bool:
        key = hash(run_id)
        if key in self._run_ids:
            self._error(
                line_no, "run_id", f"duplicate run_id {run_id!r} (already used on an earlier line)"
            )
            return False
        self._run_ids.add(key)
        return True

    def _note_trial(self, line_no: int, task: tuple[str, str, str], model: str, trial: int) -> bool:
        key = hash((task, model, trial))
        if key in self._trials:
            suite, version, task_id = task
            self._error(
                line_no,
                "trial",
                f"duplicate run: task {suite} {version}/{task_id}, model {model!r}, trial {trial} "
                "already appears on an earlier line",
            )
            return False
        self._trials.add(key)
        return True

    def _check_trajectory(self, line_no: int, trajectory: str | list[Any]) -> bool:
        report = lambda field, message: self._error(line_no, field, message)  # noqa: E731
        if isinstance(trajectory, list):
            return validate_turns(trajectory, "trajectory", report) is not None
        path = normalize_trajectory_path(trajectory)
        if path is None:
            report(
                "trajectory",
                f"must be a path {TRAJECTORY_DIR}<name>.json inside the bundle, got {_show(trajectory)}",
            )
            return False
        if not self._trajectory_exists(path):
            report("trajectory", f"{path} is not in the bundle")
            return False
        return True


def normalize_trajectory_path(path: str) -> str | None:
    """`trajectories/<name>.json` (a leading ./ is dropped), or None if not such a path."""
    path = path.removeprefix("./")
    name = path.removeprefix(TRAJECTORY_DIR)
    if name == path or not name.endswith(".json") or len(name) <= len(".json"):
        return None
    if "\\" in name or "\0" in name or any(part in ("", ".", "..") for part in name.split("/")):
        return None
    return path


# ----------------------------------------------------------------------- sessions


class SessionValidator(_LineValidator):
    """Validates sessions.jsonl line by line (same fast/slow paths as RunValidator)."""

    record = SessionRecord
    lenient = _SessionWithExtra
    specs = _SESSION_FIELDS
    names = _SESSION_FIELD_NAMES

    def __init__(self, errors: ErrorCollector, *, file: str = "sessions.jsonl"):
        super().__init__(errors, file)
        self._session_ids: set[int] = set()

    def _accept(
        self, line_no: int, rec: SessionRecord, extra: dict[str, Any]
    ) -> SessionRecord | None:
        ok = self._report(line_no, turn_problems(rec.turns, "turns"))
        ok = self._note_session_id(line_no, rec.session_id) and ok
        if not ok:
            return None
        rec.line = line_no
        rec.extra = extra
        return rec

    def _check_partial_relations(self, line_no: int, rec: SimpleNamespace) -> None:
        if rec.turns is not _BAD:
            self._report(line_no, turn_problems(rec.turns, "turns"))
        if rec.session_id is not _BAD:
            self._note_session_id(line_no, rec.session_id)

    def _note_session_id(self, line_no: int, session_id: str) -> bool:
        key = hash(session_id)
        if key in self._session_ids:
            message = f"duplicate session_id {session_id!r} (already used on an earlier line)"
            self._error(line_no, "session_id", message)
            return False
        self._session_ids.add(key)
        return True
