"""How two argument values compare: JSON equality and the looser forms built on it.

Numbers are compared as numbers (250 equals 250.0), because a JSON writer may put
either; a bool is never a number (True is not 1), because JSON keeps them apart.
"""

from __future__ import annotations

import math
import re
from typing import Any

_WHITESPACE = re.compile(r"\s+")
_TRAILING_PUNCTUATION = ".!?"


def is_number(value: Any) -> bool:
    """An int or float that is not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers as numbers, object keys in any order, lists in order."""
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def normalised_text(text: str) -> str:
    """Casefolded, whitespace runs as one space, stripped, without trailing `.!?`: a
    sentence worded the same but typed differently is the same sentence."""
    collapsed = _WHITESPACE.sub(" ", text.casefold()).strip()
    return collapsed.rstrip(_TRAILING_PUNCTUATION).rstrip()


def normalised_equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return normalised_text(a) == normalised_text(b)
    return json_equal(a, b)


def within(a: Any, b: Any, tolerance: float) -> bool:
    """Numbers within an absolute tolerance; anything else compared exact."""
    if is_number(a) and is_number(b):
        if not (math.isfinite(a) and math.isfinite(b)):
            return a == b
        return abs(a - b) <= tolerance
    return json_equal(a, b)
