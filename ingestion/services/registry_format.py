"""The registry file format (`arena-registry/1`): one table of fields, and its checks.

The tables (registry_fields) check a file (every problem named by suite, task or model and field,
all of them at once), prints the format in `load_registry --help` and renders it on
/methodology/ (leaderboard/templatetags/registry.py), so the three cannot
disagree.
"""

from __future__ import annotations

import datetime
import math
import re
import textwrap
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from ingestion.aggregate_boards import CATEGORY_PREFIX, reserved_suite_slug
from ingestion.bundles.limits import HORIZON_MODES
from ingestion.bundles.run_config import run_config_check
from ingestion.services.registry_fields import (
    FIELD_TABLES,
    FILE_FIELDS,
    GROUP_NAMES,
    GROUPS,
    HORIZON_MODE_DEFAULT,
    HORIZON_MODE_NAMES,
    LEGACY_PRICE_FROM,
    MODEL_FIELDS,
    PRICE_DECIMALS,
    PRICE_DIGITS,
    PRICE_FIELDS,
    PRICE_LIMIT,
    PRICE_STEP,
    REGISTRY_FORMAT,
    RULE_FIELDS,
    RUN_CONFIG_TABLE,
    SLUG_PATTERN,
    SUITE_FIELDS,
    TASK_FIELDS,
    TRAJECTORY_FIELDS,
    Field,
)
from ingestion.traces import TraceSpecError, reference_calls_parse, trace_spec_parse

# Re-exported from registry_fields: the loader, the command and the methodology page
# read the format from here.
__all__ = [
    "EXAMPLE", "FIELD_TABLES", "FILE_FIELDS", "GROUPS", "HORIZON_MODE_DEFAULT",
    "LEGACY_PRICE_FROM", "MODEL_FIELDS", "PRICE_DECIMALS", "PRICE_DIGITS", "PRICE_FIELDS",
    "PRICE_LIMIT", "REGISTRY_FORMAT", "RULE_FIELDS", "RUN_CONFIG_TABLE", "SUITE_FIELDS",
    "TASK_FIELDS", "TRAJECTORY_FIELDS", "Field", "alias_conflicts", "date_parsed",
    "price_stored", "registry_format_text", "registry_problems",
]  # fmt: skip


def registry_problems(data: Any) -> list[str]:
    """Every problem of a parsed registry file, each naming where it is; [] when valid."""
    if not isinstance(data, dict):
        return ["the file must hold a JSON object"]
    problems = _object_problems("the file", data, FILE_FIELDS)
    if "format" in data and data["format"] != REGISTRY_FORMAT:
        problems.append(f'the file: "format" must be "{REGISTRY_FORMAT}"')
    for i, suite in _objects(data, "suites"):
        where = f"suites[{i}]{_label(suite, 'slug', 'version')}"
        problems += _object_problems(where, suite, SUITE_FIELDS)
        if isinstance(suite.get("slug"), str) and reserved_suite_slug(suite["slug"]):
            problems.append(
                f'{where}: "slug" may not be "{CATEGORY_PREFIX.rstrip("-")}" nor begin with'
                f' "{CATEGORY_PREFIX}" (the category boards\' slugs)'
            )
        spec = _trace_spec(where, suite, problems)
        for j, task in _objects(suite, "tasks"):
            task_where = f"{where} tasks[{j}]{_label(task, 'task_id')}"
            problems += _object_problems(task_where, task, TASK_FIELDS)
            if spec is not None and task.get("reference_calls") is not None:
                problems += _references_problem(task_where, task["reference_calls"], spec)
        problems += _duplicates(
            where + " tasks", [t.get("task_id") for _, t in _objects(suite, "tasks")]
        )
    suite_keys = [(s.get("slug"), s.get("version")) for _, s in _objects(data, "suites")]
    problems += _duplicates("suites", [f"{slug} {version}" for slug, version in suite_keys])
    well_formed = []
    for i, model in _objects(data, "models"):
        model_problems = _object_problems(
            f"models[{i}]{_label(model, 'name')}", model, MODEL_FIELDS
        )
        for j, period in _objects(model, "prices"):
            model_problems += _object_problems(
                f"models[{i}]{_label(model, 'name')} prices[{j}]", period, PRICE_FIELDS
            )
        model_problems += _duplicates(
            f"models[{i}]{_label(model, 'name')} prices",
            [p.get("effective_from") for _, p in _objects(model, "prices")],
        )
        problems += model_problems
        well_formed += [] if model_problems else [model]
    return problems + alias_conflicts(well_formed)


def _trace_spec(where: str, suite: dict, problems: list[str]):
    """The suite's trace statement (ingestion.traces), or None with its problem added."""
    found: list = []
    problem = _traces_problem(
        where,
        lambda: found.append(trace_spec_parse(suite.get("trajectory"), suite.get("rules"))),
    )
    problems += problem
    return found[0] if found else None


def _references_problem(where: str, calls: Any, spec) -> list[str]:
    return _traces_problem(where, lambda: reference_calls_parse(calls, spec))


def _traces_problem(where: str, parse) -> list[str]:
    try:
        parse()
    except TraceSpecError as error:
        return [f"{where}: {error}"]
    return []


def alias_conflicts(models: list[dict[str, Any]]) -> list[str]:
    """An alias may be neither another model's name nor another model's alias."""
    problems = _duplicates("models", [m["name"] for m in models])
    owner: dict[str, str] = {m["name"]: m["name"] for m in models}
    for model in models:
        for alias in sorted(set(model.get("aliases", [])) - {model["name"]}):
            other = owner.setdefault(alias, model["name"])
            if other != model["name"]:
                kind = "name" if alias == other else "alias"
                problems.append(
                    f'models ({model["name"]}): alias "{alias}" is already the {kind} of '
                    f'model "{other}"'
                )
    return problems


def _objects(parent: dict, key: str) -> list[tuple[int, dict]]:
    """The well-formed objects of a list field (the others are reported by its check)."""
    items = parent.get(key)
    if not isinstance(items, list):
        return []
    return [(i, item) for i, item in enumerate(items) if isinstance(item, dict)]


def _label(obj: dict, *keys: str) -> str:
    values = [str(obj[k]) for k in keys if isinstance(obj.get(k), str | int | float)]
    return f" ({' '.join(values)})" if values else ""


def _duplicates(where: str, keys: list) -> list[str]:
    counts = Counter(k for k in keys if k is not None)
    return [f"{where}: {key!r} appears {n} times" for key, n in counts.items() if n > 1]


def _object_problems(where: str, obj: Any, fields: tuple[Field, ...]) -> list[str]:
    if not isinstance(obj, dict):
        return [f"{where}: must be an object"]
    problems = []
    for field in fields:
        if field.name not in obj:
            if field.required:
                problems.append(f'{where}: "{field.name}" is missing ({field.kind_text})')
            continue
        if field.kind == "run_config":  # one problem per run configuration field
            problems += [f"{where}: {p}" for p in run_config_check(obj[field.name], field.name)[1]]
            continue
        problem = _value_problem(field, obj[field.name])
        if problem:
            problems.append(f'{where}: "{field.name}" {problem}')
    # Other keys are ignored: a newer file may carry fields this version does not use.
    return problems


def _value_problem(field: Field, value: Any) -> str | None:
    """What is wrong with one value, or None."""
    if field.kind in {"string", "slug"}:
        return _string_problem(field, value)
    if field.kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if field.kind in {"strings", "groups"}:
        if not isinstance(value, list):
            return f"must be a {field.kind_text}"
        for item in value:
            problem = _string_problem(field, item)
            if problem:
                return f"item {item!r} {problem}"
            if field.kind == "groups" and item not in GROUPS:
                return f"item {item!r} must be one of {GROUP_NAMES}"
        return None
    if field.kind == "price":
        return _price_problem(value)
    if field.kind == "date":
        return None if date_parsed(value) else "must be a date, YYYY-MM-DD"
    if field.kind == "minutes":
        return _minutes_problem(value)
    if field.kind == "horizon_mode":
        return None if value in HORIZON_MODES else f"must be one of {HORIZON_MODE_NAMES}"
    if field.kind in {"trajectory", "rules", "references"}:
        return None  # checked whole by ingestion.traces (_trace_spec), naming the field
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        return "must be a list of objects"
    return None


def price_stored(value: int | float) -> Decimal | None:
    """A price as its column stores it (rounded to PRICE_DECIMALS places, half away from
    zero as PostgreSQL rounds), or None when the column cannot hold it. The loader
    stores this very value, so a price the check accepts always fits."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if not 0 <= value < PRICE_LIMIT:  # before Decimal: 1e300 has too many digits
        return None
    stored = Decimal(str(value)).quantize(PRICE_STEP, rounding=ROUND_HALF_UP)
    return stored if stored < PRICE_LIMIT else None  # 999999.99995 rounds to 1000000


def date_parsed(value: Any) -> datetime.date | None:
    """A YYYY-MM-DD string's date, or None."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        return None


def _minutes_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number of minutes"
    if not math.isfinite(value) or value <= 0:
        return "must be a finite number of minutes above 0"
    return None


def _price_problem(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number or null"
    if price_stored(value) is None:
        return (
            f"must be at least 0 and below {PRICE_LIMIT} once rounded to {PRICE_DECIMALS} decimals"
        )
    return None


def _string_problem(field: Field, value: Any) -> str | None:
    if not isinstance(value, str):
        return "must be a string"
    if field.required and not value.strip():
        return "must not be empty"
    if field.max_length and len(value) > field.max_length:
        return f"is longer than {field.max_length} characters"
    if field.kind == "slug" and not SLUG_PATTERN.match(value):
        return "may hold only letters, digits, - and _"
    return None


def registry_format_text() -> str:
    """The format as plain text, for `load_registry --help`."""
    lines = [f"Registry file format ({REGISTRY_FORMAT}), a JSON object:"]
    for title, fields in FIELD_TABLES:
        lines.append("")
        lines.append(f"{title}:")
        for field in fields:
            need = "required" if field.required else "optional"
            head = f"  {field.name} ({field.kind_text}, {need}): "
            lines += textwrap.wrap(
                head + field.meaning, width=88, subsequent_indent="      ", break_on_hyphens=False
            )
    return "\n".join([*lines, "", EXAMPLE])


EXAMPLE = """Example:
  {"format": "arena-registry/1", "coding_categories": ["bugfix"],
   "suites": [{"slug": "my-suite", "version": "1.0.0", "official": true, "joins": [],
               "standard_run_config": {"trials": 5, "timeout_multiplier": 1.0,
                                       "selection": "single", "internet": false},
               "tasks": [{"task_id": "fix-it", "category": "bugfix", "authors": ["a.b"]}]}],
   "models": [{"name": "claude-opus-4-6", "provider": "anthropic",
               "organisation": "Anthropic", "open_weights": false,
               "release_date": "2026-02-05", "knowledge_cutoff": "2025-05-31",
               "aliases": ["anthropic/claude-opus-4-6"],
               "prices": [{"effective_from": "2026-02-05", "input_price_per_mtok": 5,
                           "output_price_per_mtok": 25,
                           "cached_input_price_per_mtok": 0.5}]}]}

A model name in a bundle is matched to a listed model by name, then by alias, then
again without routing-provider prefixes (vertex_ai/, openrouter/, ...); an unknown
name is stored as an unlisted model, which a moderator can merge into a listed one."""
