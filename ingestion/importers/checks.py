"""Converted records checked by the bundle validator's own rules, errors named natively.

An importer only translates, but what it writes must meet every rule a hand-made
bundle meets: bounds, types, lengths, real and ordered dates. Rather than a second
copy of those rules, each converted run (or session) goes through the validator of
`runs.jsonl` (`sessions.jsonl`) as it is written, and each problem is reported at the
native file, record and field it came from (`NativeFields` maps the converted
fields to the native ones). The ingest validates the bundle again; by then nothing
it could refuse is left.

Native values the bundle does not carry as a field (a reward, a simulator's cost, a
duration) are checked with the same annotated types (`native_value`), so their
messages read like the validator's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from ingestion.bundles import ErrorCollector
from ingestion.bundles.limits import REWARD_MAX, REWARD_MIN, RUN_DURATION_MAX_S
from ingestion.bundles.messages import locate
from ingestion.bundles.schema import Usd
from ingestion.bundles.validators import RunValidator, SessionValidator
from ingestion.importers.common import Report, RunSpool, kind

Reward = Annotated[float, Meta(ge=REWARD_MIN, le=REWARD_MAX)]
Cost = Usd  # a cost the run does not count (a user simulator's) has the run's own bound
DurationSeconds = Annotated[float, Meta(ge=0, le=RUN_DURATION_MAX_S)]
NativeFields = Mapping[str, str]  # converted field (or prefix) → native field
_PATH_START = re.compile(r"[.\[]")
_NAMED_IN_MESSAGES = ("started_at", "finished_at")  # the validator's messages name them


def native_value(value: Any, typ: Any, field: str, report: Report) -> Any:
    """`value` converted to `typ` (one of the annotated types above), or None after
    reporting why it does not fit. None stays None (absent)."""
    if value is None:
        return None
    try:
        return msgspec.convert(value, typ)
    except msgspec.ValidationError as exc:
        report(*locate(field, exc, value))
        return None


def native_reward(value: Any, field: str, report: Report) -> float | None:
    """A reward within [REWARD_MIN, REWARD_MAX], the scale a pass is judged on."""
    return native_value(value, Reward, field, report)


def check_contents(messages: list[Any], field: str, report: Report) -> None:
    """Each message is an object whose `content` is text, a list of content parts or
    null (OpenAI's shapes): anything else is not a message the conversation could have
    held, and leaving it out would change the conversation without a word."""
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            report(f"{field}[{index}]", f"must be a message (an object), not {kind(message)}")
            continue
        content = message.get("content")
        if content is not None and not isinstance(content, str | list):
            report(
                f"{field}[{index}].content",
                f"must be a string, a list of content parts or null, not {kind(content)}",
            )


class _Place:
    """Where the record being checked came from, and the native fields already named
    (a converted field derived from another, such as source_id from an id, would
    name its native field twice)."""

    __slots__ = ("fields", "file", "line", "named", "prefix", "source_id")

    def __init__(self) -> None:
        self.file, self.line, self.prefix, self.source_id = "", None, "", ""
        self.fields: NativeFields = {}
        self.named: set[str] = set()


class _Renaming(ErrorCollector):
    """Takes the validator's errors (converted file, line, field) and adds them to the
    importer's collector where the record came from."""

    def __init__(self, target: ErrorCollector, place: _Place) -> None:
        super().__init__()
        self._target, self._place = target, place

    def add(self, file: str, line: int | None, field: str, message: str) -> None:
        place = self._place
        native = native_field(field, place.fields)
        if place.prefix:
            native = f"{place.prefix}.{native}" if native else place.prefix
        if native in place.named:
            return
        place.named.add(native)
        if field == "source_id" and place.source_id:  # the limit counts the prefix
            prefix = place.source_id.partition(":")[0]
            message = f"{message}, as the source_id {prefix}:<{place.fields.get(field, field)}>"
        for name in _NAMED_IN_MESSAGES:  # "is before started_at": the native name
            if name in place.fields and name in message:
                message = message.replace(name, place.fields[name])
        self._target.add(place.file, place.line, native, message)


def native_field(field: str, fields: NativeFields) -> str:
    """The native name of a converted field: the longest mapped prefix, renamed
    (`tokens.input` → `agent_result.n_input_tokens`, `finished_at` → `end_time`); an
    unmapped field keeps its converted name (`trajectory[3].text`)."""
    head = field
    while head:
        if head in fields:
            return fields[head] + field[len(head) :]
        cut = [m.start() for m in _PATH_START.finditer(head)]
        head = head[: cut[-1]] if cut else ""
    return field


class ConvertedRecords:
    """The runs (or sessions) of one conversion, each checked as the bundle validator
    checks a line, with the validator's state across records (duplicate run ids,
    source ids, trials). Tasks are not looked up: the registry is the ingest's."""

    def __init__(self, errors: ErrorCollector, *, sessions: bool = False) -> None:
        self.errors = errors
        self._place = _Place()
        renaming = _Renaming(errors, self._place)
        if sessions:
            self._validator: Any = SessionValidator(renaming)
        else:
            self._validator = RunValidator(renaming, lambda suite, version, task: 0)
        self._count = 0

    def check(
        self,
        record: dict[str, Any],
        *,
        file: str,
        line: int | None = None,
        prefix: str = "",
        fields: NativeFields,
    ) -> bytes | None:
        """The record's runs.jsonl line (JSON, UTF-8), or None after reporting each
        problem at `file`, `line`, and the native field (`prefix` goes before it:
        `simulations[3]`)."""
        place = self._place
        place.file, place.line, place.prefix, place.fields = file, line, prefix, fields
        place.named = set()
        source_id = record.get("source_id")
        place.source_id = source_id if isinstance(source_id, str) else ""
        self._count += 1
        try:
            data = json.dumps(
                record, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode()
        except (UnicodeEncodeError, ValueError):  # a parser let either through
            where, message = _unwritable(record)
            self._validator.errors.add("", None, where, message)
            return None
        return data if self._validator.from_json(self._count, data) is not None else None


def _unwritable(value: Any, path: str = "") -> tuple[str, str]:
    """(where, why) a value in `value` cannot be written as JSON in UTF-8: an
    unpaired surrogate, a number that is not finite."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return path, "holds an unpaired surrogate escape (not Unicode text)"
    elif isinstance(value, float) and not math.isfinite(value):
        return path, "must be a finite number"
    items: Any = ()
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    for where, item in items:
        found = _unwritable(item, where)
        if found[1]:
            return found
    return path, "" if path else "cannot be written as JSON text"


def checked_spool(
    runs: Iterable[dict[str, Any]], places: Iterable[dict[str, Any]], errors: ErrorCollector
) -> RunSpool:
    """`runs` as runs.jsonl lines, each checked at its place (ConvertedRecords.check's
    keywords); after checking them all, BundleRejected if any was refused."""
    checks, spool = ConvertedRecords(errors), RunSpool()
    for run, place in zip(runs, places, strict=True):
        line = checks.check(run, **place)
        if line is not None and not errors:
            spool.add_line(line)
    if errors:
        spool.close()
        errors.raise_if_any()
    return spool
