"""The slow path: a parsed value checked field by field, reporting every problem.

Only a line the fast typed decode refused (or one that may hold a NUL character)
comes here, so speed matters less than naming each bad field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
from msgspec import Struct

from ingestion.bundles.depth import too_deep, too_deep_message
from ingestion.bundles.messages import BAD, json_kind, locate

Report = Callable[[str, str], None]  # (field, message)
FieldSpec = tuple[str, Any, bool, Callable[[], Any]]  # name, type, required, default

NUL_ESCAPE = b"\\u0000"  # how a NUL character must be written inside a JSON string
# A compiled search is the cheapest per-line test, and takes msgspec.Raw slices as is.
find_nul_escape = re.compile(re.escape(NUL_ESCAPE)).search
_NOT_FINITE = "must be a finite number"
# A number written with a decimal exponent this far below zero (or this many leading
# zeros) may be too small for a double: parsers round it to 0.0 without a word, so a
# line holding one takes the slow path, which parses numbers exactly.
find_tiny_number = re.compile(rb"[eE]-0*(?:[3-9]\d\d|[1-9]\d{3,})|\.0{300}").search
UNDERFLOW_MESSAGE = "is too small to be stored as a number (it would be rounded to 0)"


class _Underflow:
    """A number that is not zero yet rounds to 0.0 as a double (`1e-400`)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def rounds_to_zero(text: str, value: float) -> bool:
    """Whether the number written `text` is not zero, yet `value` (its double) is."""
    return value == 0.0 and bool(text.strip().lstrip("+-").split("e")[0].split("E")[0].strip("0."))


def _exact_float(text: str) -> float | _Underflow:
    value = float(text)
    return _Underflow(text) if rounds_to_zero(text, value) else value


_decode_any = msgspec.json.decode


def field_specs(struct: type[Struct]) -> tuple[FieldSpec, ...]:
    """Each field of `struct`, for checking them one by one."""
    specs = []
    for f in msgspec.structs.fields(struct):
        if f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory  # a fresh [] or {} for each record
        else:
            default = lambda value=f.default: value  # noqa: E731
        specs.append((f.encode_name, f.type, f.required, default))
    return tuple(specs)


def parse_json(data: bytes, report: Report) -> Any:
    """Parse one JSON value for diagnosis; returns BAD after reporting why it failed.

    msgspec refuses the bare NaN/Infinity tokens that Python's json module writes; the
    stdlib parser accepts them, so a value that only msgspec refuses is parsed again:
    then `report_unstorable` can name the field instead of saying "not JSON".
    """
    if too_deep(data):
        report("", too_deep_message())
        return BAD
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        report("", f"is not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {exc.start + 1})")
        return BAD
    try:
        value = _decode_any(data)
        if find_tiny_number(data) is None:
            return value
        return json.loads(text, parse_float=_exact_float)  # valid JSON: names the tiny number
    except msgspec.DecodeError as exc:
        strict_error = str(exc).removeprefix("JSON is malformed: ")
    try:
        value = json.loads(text, parse_float=_exact_float)
    except ValueError:
        report("", f"is not valid JSON ({strict_error})")
        return BAD
    if not any(message == _NOT_FINITE for _, message in _unstorable(value, "")):
        # e.g. an unpaired surrogate escape: the stdlib takes it, PostgreSQL would not
        report("", f"is not valid JSON ({strict_error})")
        return BAD
    return value


def report_unstorable(value: Any, report: Report, prefix: str = "") -> set[str]:
    """Report each value PostgreSQL cannot store: a NaN or an infinity (only the stdlib
    parser makes them), a number too small for a double, a NUL character in a string or a key (text and jsonb columns
    refuse it). Returns the top-level keys holding one."""
    roots: set[str] = set()
    for path, message in _unstorable(value, prefix):
        report(path, message)
        roots.add(re.split(r"[.\[]", path, maxsplit=1)[0])
    return roots


def _unstorable(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        if "\0" in value:
            yield path, "must not contain a NUL character"
    elif isinstance(value, float):
        if not math.isfinite(value):
            yield path, _NOT_FINITE
    elif isinstance(value, _Underflow):
        yield path, UNDERFLOW_MESSAGE
    elif isinstance(value, dict):
        for key, item in value.items():
            shown = key.replace("\0", "\\u0000")  # never a raw NUL in a message
            where = f"{path}.{shown}" if path else shown
            if "\0" in key:
                yield where, "must not contain a NUL character in its name"
            yield from _unstorable(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _unstorable(item, f"{path}[{i}]")


def convert_fields(
    obj: Any,
    specs: tuple[FieldSpec, ...],
    report: Report,
    prefix: str = "",
    skip: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Check each field of `obj` on its own, reporting every bad one.

    Returns name → converted value (the default when absent, BAD when invalid).
    Fields in `skip` were already reported (unstorable values) and are just BAD.
    """
    if not isinstance(obj, dict):
        report(prefix, f"must be an object, not {json_kind(obj)}")
        return {name: BAD for name, *_ in specs}
    values: dict[str, Any] = {}
    for name, typ, required, default in specs:
        field = f"{prefix}.{name}" if prefix else name
        if name not in obj:
            if required:
                report(field, "is required")
            values[name] = BAD if required else default()
            continue
        if name in skip:
            values[name] = BAD
            continue
        try:
            values[name] = msgspec.convert(obj[name], typ)
        except msgspec.ValidationError as exc:
            report(*locate(field, exc, obj[name]))
            values[name] = BAD
    return values
