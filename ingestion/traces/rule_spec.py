"""The written rules of a suite: what each kind means and how its registry entry reads.

Kinds (every kind has `id`, `title`, optional `source`, the policy sentence it comes from):
* `forbidden_tool` `{"tools": [...]}`: every call of one of them is a violation;
* `required_before` `{"tool": X, "before": [...]}`: a call of a tool in `before` with
  no earlier successful call of X is a violation;
* `max_calls` `{"tools": [...], "max": N}`: the listed tools' calls beyond the N-th,
  counted together over the run, are violations;
* `max_calls_per_turn` `{"max": N}`: an assistant turn's calls after its N-th are violations;
* `argument_schema` `{"tool": X, "schema": {...}}`: a call of X whose arguments fail
  the JSON Schema (draft 2020-12) is a violation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry

from ingestion.traces.validate import (
    SLUG,
    TraceSpecError,
    check_count,
    check_keys,
    check_list,
    check_name,
    check_text,
    describe,
)

RuleKindName = Literal[
    "forbidden_tool", "required_before", "max_calls", "max_calls_per_turn", "argument_schema"
]
MAX_ID = 100
MAX_TITLE = 200
MAX_SOURCE = 1000
_COMMON = ("id", "title", "kind", "source")
# Each kind's own keys, all required.
KIND_KEYS: dict[str, tuple[str, ...]] = {
    "forbidden_tool": ("tools",),
    "required_before": ("tool", "before"),
    "max_calls": ("tools", "max"),
    "max_calls_per_turn": ("max",),
    "argument_schema": ("tool", "schema"),
}


@dataclass(frozen=True)
class Rule:
    """One written rule; the parameters a kind does not use keep their empty defaults."""

    id: str
    title: str
    kind: RuleKindName
    source: str = ""
    tools: frozenset[str] = frozenset()  # forbidden_tool, max_calls
    tool: str = ""  # required_before, argument_schema
    before: frozenset[str] = frozenset()  # required_before
    max: int = 0  # max_calls, max_calls_per_turn
    schema: dict | None = None  # argument_schema
    # The schema's validator, built once here rather than once per run checked.
    validator: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind == "argument_schema" and self.validator is None:
            # An empty registry: a remote $ref is unresolvable, never fetched at ingest.
            validator = Draft202012Validator(self.schema or {}, registry=Registry())
            object.__setattr__(self, "validator", validator)


def rules_parse(data: Any, where: str) -> tuple[Rule, ...]:
    items = check_list(data, where)
    rules = tuple(_rule(item, f"{where}[{index}]") for index, item in enumerate(items))
    seen: set[str] = set()
    for index, rule in enumerate(rules):
        if rule.id in seen:
            raise TraceSpecError(f"{where}[{index}].id", f"repeats the id {rule.id!r}")
        seen.add(rule.id)
    return rules


def _rule(item: Any, where: str) -> Rule:
    if not isinstance(item, dict):
        raise TraceSpecError(where, f"must be an object, got {describe(item)}")
    kind = item.get("kind")
    if not isinstance(kind, str) or kind not in KIND_KEYS:
        raise TraceSpecError(
            f"{where}.kind", f"must be one of {', '.join(KIND_KEYS)}, got {describe(kind)}"
        )
    check_keys(item, _COMMON + KIND_KEYS[kind], where)
    for key in ("id", "title", *KIND_KEYS[kind]):
        if key not in item:
            raise TraceSpecError(f"{where}.{key}", f"is required for a {kind} rule")
    return Rule(
        id=_slug(item["id"], f"{where}.id"),
        title=check_text(item["title"], f"{where}.title", MAX_TITLE),
        kind=kind,  # type: ignore[arg-type]
        source=check_text(item.get("source", ""), f"{where}.source", MAX_SOURCE),
        **_params(kind, item, where),
    )


def _slug(value: Any, where: str) -> str:
    text = check_text(value, where, MAX_ID)
    if not SLUG.match(text):
        raise TraceSpecError(where, f"must match [-a-z0-9_]+, got {describe(text)}")
    return text


def _params(kind: str, item: dict, where: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if "tools" in item:
        params["tools"] = _tool_set(item["tools"], f"{where}.tools")
    if "before" in item:
        params["before"] = _tool_set(item["before"], f"{where}.before")
    if "tool" in item:
        params["tool"] = check_name(item["tool"], f"{where}.tool")
    if "max" in item:
        params["max"] = check_count(item["max"], f"{where}.max")
    if "schema" in item:
        params["schema"] = _schema(item["schema"], f"{where}.schema")
    return params


def _tool_set(value: Any, where: str) -> frozenset[str]:
    items = check_list(value, where)
    if not items:
        raise TraceSpecError(where, "must name at least one tool")
    return frozenset(check_name(item, f"{where}[{index}]") for index, item in enumerate(items))


# Keywords a rule's schema may not use: references can loop (a RecursionError at the
# first call), and a pattern is run by Python's backtracking engine on uploaded text.
_REFUSED_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# A group that repeats and itself repeats or alternates inside, `(a+)+` or `(a|a)*`: the
# shapes whose backtracking grows exponentially with the text.
_NESTED_REPEAT = re.compile(r"\((?:[^()\\]|\\.)*[*+?}|](?:[^()\\]|\\.)*\)\s*[*+?{]")
PATTERN_CHARACTERS_MAX = 200


def _schema(value: Any, where: str) -> dict:
    """A JSON Schema object valid under draft 2020-12 (checked now, not at the first run),
    with no references and only patterns that cannot backtrack exponentially."""
    if not isinstance(value, dict):
        raise TraceSpecError(where, f"must be a JSON Schema object, got {describe(value)}")
    _schema_hazards(value, where)
    try:
        Draft202012Validator.check_schema(value)
    except SchemaError as error:
        path = "/".join(str(part) for part in error.absolute_path) or "(root)"
        raise TraceSpecError(
            where, f"is not a valid JSON Schema at {path}: {_short(error.message)}"
        ) from None
    return value


def _schema_hazards(value: Any, where: str) -> None:
    """Refuse a reference keyword anywhere, and a pattern that is long or nests repeats."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            _schema_hazards(item, f"{where}[{index}]")
        return
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        if key in _REFUSED_KEYWORDS:
            raise TraceSpecError(
                f"{where}.{key}", "is not allowed: a rule's schema is self-contained"
            )
        patterns = [item] if key == "pattern" else list(item) if key == "patternProperties" else []
        for pattern in patterns:
            if isinstance(pattern, str) and (
                len(pattern) > PATTERN_CHARACTERS_MAX or _NESTED_REPEAT.search(pattern)
            ):
                raise TraceSpecError(
                    f"{where}.{key}",
                    f"{_short(pattern)!r} is refused: at most {PATTERN_CHARACTERS_MAX} "
                    "characters and no repeated group that itself repeats or alternates",
                )
        _schema_hazards(item, f"{where}.{key}")


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
