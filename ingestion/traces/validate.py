"""The small checks the spec parsers share, each raising a TraceSpecError naming the field."""

from __future__ import annotations

import re
from typing import Any

MAX_ITEMS = 500  # tools, rules or reference calls in one list
MAX_NAME = 200  # characters of a tool or argument name
SLUG = re.compile(r"^[-a-z0-9_]+$")


class TraceSpecError(ValueError):
    """A suite's trace spec or a task's reference calls are malformed; `field` says where."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def describe(value: Any) -> str:
    """A value for an error message: its type, and a short repr of a short scalar."""
    if isinstance(value, bool) or value is None:
        return "null" if value is None else str(value).lower()
    if isinstance(value, int | float | str):
        text = repr(value)
        return text if len(text) <= 40 else f"{type(value).__name__} of {len(str(value))} chars"
    return {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


def check_keys(data: dict, allowed: tuple[str, ...], where: str) -> None:
    for key in data:
        if key not in allowed:
            shown = key if isinstance(key, str) and len(key) <= 40 else "(long key)"
            raise TraceSpecError(f"{where}.{shown}", f"unknown key (known: {', '.join(allowed)})")


def check_list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise TraceSpecError(where, f"must be a list, got {describe(value)}")
    if len(value) > MAX_ITEMS:
        raise TraceSpecError(where, f"has {len(value)} items, at most {MAX_ITEMS}")
    return value


def check_name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise TraceSpecError(where, f"must be a non-empty string, got {describe(value)}")
    if len(value) > MAX_NAME:
        raise TraceSpecError(where, f"is {len(value)} chars long, at most {MAX_NAME}")
    return value


def check_text(value: Any, where: str, limit: int) -> str:
    if not isinstance(value, str):
        raise TraceSpecError(where, f"must be a string, got {describe(value)}")
    if len(value) > limit:
        raise TraceSpecError(where, f"is {len(value)} chars long, at most {limit}")
    return value


def check_count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TraceSpecError(where, f"must be an integer ≥ 0, got {describe(value)}")
    return value
