"""Messages for people: msgspec's validation errors reworded, naming allowed values."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import msgspec

from ingestion.bundles.limits import (
    CHOICES,
    HANDLE_PATTERN,
    HARNESS_NAME_PATTERN,
    HARNESS_URL_PATTERN,
    HARNESS_VERSION_PATTERN,
    NULLABLE_CHOICES,
    RUN_ID_PATTERN,
)
from ingestion.bundles.schema import Tokens

# A field that failed validation, in the slow path; also "no value to show".
BAD: Any = object()

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
    HARNESS_NAME_PATTERN: (
        "must be printable text, not blank, without spaces at either end or an empty,"
        " '.' or '..' part between '/'"
    ),
    HARNESS_VERSION_PATTERN: (
        "may only contain letters, digits and . _ + : ~ @ / -, without an empty, '.' or"
        " '..' part between '/'"
    ),
    HARNESS_URL_PATTERN: "must be an http:// or https:// address (or empty)",
}
# Objects whose unknown keys are errors, with the keys they take.
_KNOWN_KEYS = {"tokens": tuple(f.encode_name for f in msgspec.structs.fields(Tokens))}
_AT = re.compile(r"^(?P<msg>.*) - at `\$(?P<path>.*)`$", re.S)
_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def show(value: Any) -> str:
    """A value as JSON, cut to 60 characters (control characters escaped)."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, datetime) else str(value)
    return text if len(text) <= 60 else text[:57] + "…"


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in words: "an object", "an array", "null", …"""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return kinds.get(type(value), "a number")


def locate(field: str, exc: msgspec.ValidationError, value: Any) -> tuple[str, str]:
    """(dotted field path, message) for a msgspec error raised while checking `field`."""
    message, path = str(exc), ""
    if m := _AT.match(message):
        message, path = m["msg"], m["path"]
    where = field + path if field else path.lstrip(".")
    if m := re.fullmatch(r"Object missing required field `([^`]+)`", message):
        return f"{where}.{m[1]}" if where else m[1], "is required"
    if m := re.fullmatch(r"Object contains unknown field `([^`]+)`", message, re.S):
        known = f" (known: {', '.join(_KNOWN_KEYS[where])})" if where in _KNOWN_KEYS else ""
        return f"{where}.{m[1]}" if where else m[1], f"is not a field of {where}{known}"
    return where, humanize(message, where, _value_at(value, path))


def humanize(message: str, field: str, value: Any) -> str:
    """Turn a msgspec message into one for people, naming the allowed values."""
    leaf = _leaf(field)
    if m := re.fullmatch(r"Expected `([^`]+)`, got `([^`]+)`", message):
        wanted = _TYPE_HINTS.get(field) or _words(m[1], _TYPE_WORDS)
        got = _words(m[2], _GOT_WORDS)
        if m[2] == "str" and value is not BAD:
            got = f"{got} ({show(value)})"
        return f"must be {wanted}, not {got}"
    if m := re.fullmatch(r"Expected `(int|float)` (>=|<=|>|<) (\S+)", message):
        bound = m[3].removesuffix(".0")
        relation = {">=": "≥", "<=": "≤", ">": ">", "<": "<"}[m[2]]
        return f"must be {_TYPE_WORDS[m[1]]} {relation} {bound}" + _got(value)
    if message == "Expected `str` of length >= 1":
        return "must not be empty"
    if m := re.fullmatch(r"Expected `str` of length <= (\d+)", message):
        length = f" (got {len(value)})" if isinstance(value, str) else ""
        return f"must be at most {m[1]} characters{length}"
    if m := re.fullmatch(r"Expected `array` of length <= (\d+)", message):
        count = f" (got {len(value)})" if isinstance(value, list) else ""
        return f"must have at most {m[1]} items{count}"
    if m := re.fullmatch(r"Expected `str` matching regex '(.*)'", message, re.S):
        # msgspec shows the pattern as a Python repr (backslashes doubled)
        hint = next((h for p, h in _PATTERN_HINTS.items() if m[1] in (p, repr(p)[1:-1])), None)
        return (hint or f"must match {m[1]}") + _got(value)
    if message.startswith("Invalid enum value") and leaf in CHOICES:
        choices = ", ".join(CHOICES[leaf])
        nullable = " or null" if leaf in NULLABLE_CHOICES else ""
        return f"must be one of {choices}{nullable}" + _got(value)
    if message == "Expected `datetime` with a timezone component":
        return f"must include a UTC offset ({_TIME_EXAMPLE})" + _got(value)
    if message.startswith("Invalid RFC3339 encoded datetime"):
        return f"must be an ISO 8601 date-time with a UTC offset ({_TIME_EXAMPLE})" + _got(value)
    if message == "Number out of range":
        return "must be a finite number"
    return message


def _words(types: str, table: dict[str, str]) -> str:
    return " or ".join(table.get(t.strip(), f"`{t.strip()}`") for t in types.split("|"))


def _leaf(field: str) -> str:
    return re.sub(r"\[\d+\]", "", field).rsplit(".", 1)[-1]


def _got(value: Any) -> str:
    return f", got {show(value)}" if value is not BAD else ""


def _value_at(value: Any, path: str) -> Any:
    for m in _PATH_PART.finditer(path):
        try:
            value = value[m[1]] if m[1] is not None else value[int(m[2])]
        except (KeyError, IndexError, TypeError, ValueError):
            return BAD
    return value
