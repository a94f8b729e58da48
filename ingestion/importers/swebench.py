"""SWE-bench results: the leaderboard's per-instance figures, or the harness's id lists.

Shapes read (one JSON file, read whole):

* the site's leaderboard file, `{"leaderboards": [{"name", "results": [entry, …]}]}`,
  whose entries carry `per_instance_details` `{instance id: {resolved, cost,
  api_calls}}` and the published figures `resolved` (%), `cost` (total),
  `instance_cost` and `instance_calls` (means);
* the same per-instance details keyed by entry, `{entry: {instance id: {…}}}`, or one
  entry's alone, `{instance id: {…}}`;
* a results file of id lists: the harness's run report (`resolved_ids`,
  `unresolved_ids`, `empty_patch_ids`, `error_ids`, `incomplete_ids`, with counts such
  as `resolved_instances` and `total_instances`) or the older `results.json`
  (`resolved`, `no_generation`, `no_logs`, `generated`, `applied`, …).

A bundle is one harness, so one entry is converted at a time, chosen by the `entry`
parameter (an entry's `name` or `folder`, or `board/name`); without it a file of several
entries is refused with their names listed. The model is the `model` parameter, else
the entry's name (said in the report).

Outcome: `resolved` true (or the id listed as resolved) is a pass; an id the harness
lists under `error_ids` / `error` (its evaluation raised: the patch was never tested) is
`infra_error` ("other"); every other listed id (unresolved, empty patch, no
generation, no logs, incomplete, only generated or applied) is a fail, as SWE-bench
counts it. An id listed both as resolved and as anything else is an error.
`api_calls` (mini-swe-agent makes one bash call per model call) is `tool_calls`;
`cost` is `cost_usd`; every run is trial 1.

Identity: `source_id` is `swebench:` and 32 hex digits of the SHA-256 of the record's
canonical JSON (instance id, resolved, cost, api_calls): the same record read from
either per-instance file gives the same id. A record with neither cost nor calls (every
id-list record) adds the model and the digest of the file's outcome lists, so one run's
report converts the same however it is indented or named, and another run's does not.

Report: where the file disagrees with itself or with the figures it publishes (a
stated % resolved other than its flags give, a rate over another number of instances,
a total or mean cost or mean of calls that its instances do not give, counts that its
lists do not give, an instance id given twice), the conversion's `warnings` say so,
and `totals` holds what the converted runs give. One file cannot show that its flags
were given to the wrong instances when its totals are right: that takes another file.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector, rejected
from ingestion.importers.checks import checked_spool
from ingestion.importers.common import (
    Conversion,
    NativeParams,
    Output,
    UniqueIds,
    check_parameters,
    count,
    is_number,
    kind,
    manifest,
    number,
    show,
    write_bundle,
)
from ingestion.importers.native_json import NotJson, load_json
from ingestion.importers.run_config import RecordedConfig, run_config_resolve, with_warnings
from ingestion.importers.swebench_entries import Entry, entries_of, entry_pick
from ingestion.importers.swebench_figures import figure_notes

FORMAT_NAME = "swebench"
SOURCE_PREFIX = "swebench:"
_DIGEST_CHARS = 32
# The instance field each converted run field comes from (checks.ConvertedRecords).
NATIVE_FIELDS = {"cost_usd": "cost", "tool_calls": "api_calls"}
PASS_LISTS = ("resolved", "resolved_ids")
INFRA_LISTS = ("error", "error_ids")
# Every other id list names instances that were attempted and not resolved.
_COUNTS = {
    "resolved_instances": PASS_LISTS,
    "unresolved_instances": ("unresolved_ids",),
    "empty_patch_instances": ("empty_patch_ids",),
    "error_instances": INFRA_LISTS,
}


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point."""
    return convert_swebench(path, params=params, out=out, max_document_bytes=max_document_bytes)


def looks_like(path: Path, head: bytes) -> bool:
    """A JSON object naming SWE-bench's per-instance details or its id lists."""
    if not path.is_file() or not head.startswith(b"{"):
        return False
    if b'"per_instance_details"' in head or b'"resolved_ids"' in head:
        return True
    per_instance = b'"resolved"' in head and b'"api_calls"' in head
    return per_instance or (b'"resolved"' in head and b'"no_generation"' in head)


def convert_swebench(
    path: Path | str, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """Convert one entry of a SWE-bench results file into a bundle at `out`. Raises
    BundleRejected naming the file, the entry and the field of each problem."""
    check_parameters(params.harness, params.suite, params.suite_version)
    path = Path(path)
    label = path.name
    try:
        document = load_json(path, max_document_bytes, object_pairs_hook=_Object.of)
    except (OSError, NotJson) as exc:
        raise rejected(label, getattr(exc, "strerror", None) or str(exc)) from None
    entry = entry_pick(entries_of(document, label, path.stem), params.entry, label)
    warnings: list[str] = []
    model = (params.model or "").strip()
    if not model:
        model = entry.name
        warnings.append(f"the model is the entry's name {entry.name!r} (give model to name it)")
    version = params.harness.get("version")
    if entry.harness_version and entry.harness_version != version:
        warnings.append(
            f"entry {entry.name!r} was run with mini-swe-agent {entry.harness_version}, "
            f"the harness version given is {version}"
        )
    errors = ErrorCollector()
    if entry.instances is not None:
        records = _instance_records(entry, label, errors, warnings)
    else:
        records = _list_records(entry, label, errors, warnings)
    if not records and not errors:
        errors.add(label, None, entry.where, f"entry {entry.name!r} holds no instances")
    recorded = RecordedConfig()
    recorded.add("trials", 1, "one result per instance of the entry")
    config = run_config_resolve(recorded, params.run_config, label=label, errors=errors)
    errors.raise_if_any()
    run_ids = UniqueIds()
    runs, sources, places = [], [], []
    for instance, record in records:
        runs.append({
            "run_id": run_ids.take(f"{entry.slug}/{instance}"),
            "suite": params.suite, "suite_version": params.suite_version,
            "task_id": instance, "model": model, "trial": 1,
            "source_id": _source_id(instance, record, model, entry.digest),
            "outcome": record["outcome"], "infra_error": record["infra_error"],
            "cost_usd": record["cost"], "tool_calls": record["api_calls"],
        })  # fmt: skip
        sources.append(f"{label}:{entry.where}[{json.dumps(instance)}]")
        places.append({"file": label, "prefix": f"{entry.where}[{json.dumps(instance)}]",
                       "fields": NATIVE_FIELDS})  # fmt: skip
    totals = _totals(records)
    for copy in (entry, *entry.copies):
        warnings += figure_notes(copy.title, copy.published, totals)
    if entry.copies:
        boards = ", ".join(c.title for c in entry.copies)
        warnings.append(f"entry {entry.title!r} is published again as {boards}: converted once")
    warnings += recorded.warnings
    note = f"Imported from SWE-bench results, entry {entry.name!r} ({len(runs)} runs)."
    spool = checked_spool(runs, places, errors)
    write_bundle(out, manifest(params.harness, FORMAT_NAME, note, config), spool, {})
    report = with_warnings({"totals": totals}, warnings)
    return Conversion(FORMAT_NAME, len(runs), tuple(sources), report)


class _Object(dict):
    """A JSON object that remembers the keys given more than once, with every value."""

    duplicates: dict[str, list[Any]] = {}  # read-only default

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> _Object:
        obj = cls(pairs)
        if len(obj) != len(pairs):
            values: dict[str, list[Any]] = {}
            for key, value in pairs:
                values.setdefault(key, []).append(value)
            obj.duplicates = {k: v for k, v in values.items() if len(v) > 1}
        return obj


def _instance_records(
    entry: Entry, label: str, errors: ErrorCollector, warnings: list[str]
) -> list[tuple[str, dict[str, Any]]]:
    assert entry.instances is not None
    for instance, values in getattr(entry.instances, "duplicates", {}).items():
        if all(v == values[0] for v in values):
            warnings.append(
                f"entry {entry.name!r}: instance {instance!r} is given {len(values)} times "
                "(the same each time): converted once"
            )
        else:
            errors.add(
                label, None, f"{entry.where}[{json.dumps(instance)}]",
                f"instance {instance!r} is given {len(values)} times, with different values",
            )  # fmt: skip
    records = []
    for instance, detail in entry.instances.items():
        where = f"{entry.where}[{json.dumps(instance)}]"

        def report(field: str, message: str, where: str = where) -> None:
            errors.add(label, None, f"{where}.{field}" if field else where, message)

        if not isinstance(instance, str) or not instance.strip():
            report("", f"an instance id must be a non-empty string, got {show(instance)}")
            continue
        if not isinstance(detail, dict):
            report("", f"must be an object {{resolved, cost, api_calls}}, not {kind(detail)}")
            continue
        resolved = detail.get("resolved")
        if not isinstance(resolved, bool):
            report("resolved", f"must be true or false, got {show(resolved)}")
            continue
        records.append((instance.strip(), {
            "outcome": "pass" if resolved else "fail", "infra_error": None,
            "resolved": resolved, "cost": number(detail, ("cost",), report),
            "api_calls": count(detail, ("api_calls",), report),
        }))  # fmt: skip
    return records


def _list_records(
    entry: Entry, label: str, errors: ErrorCollector, warnings: list[str]
) -> list[tuple[str, dict[str, Any]]]:
    """The id lists as records: every id listed, its outcome by the module's rule."""
    lists = entry.lists or {}
    where: dict[str, list[str]] = {}
    for key, ids in lists.items():
        seen: set[str] = set()
        for n, instance in enumerate(ids):
            if not isinstance(instance, str) or not instance.strip():
                errors.add(
                    label, None, f"{key}[{n}]", f"must be an instance id, got {show(instance)}"
                )
                continue
            if instance in seen:
                warnings.append(f"{key}: instance {instance!r} is listed more than once")
                continue
            seen.add(instance)
            where.setdefault(instance.strip(), []).append(key)
    records = []
    for instance, keys in sorted(where.items()):
        passed = [k for k in keys if k in PASS_LISTS]
        others = [k for k in keys if k not in PASS_LISTS and k in _EXCLUSIVE]
        if passed and others:
            errors.add(
                label, None, others[0],
                f"instance {instance!r} is listed as resolved ({passed[0]}) and in {others[0]}",
            )  # fmt: skip
            continue
        infra = not passed and any(k in INFRA_LISTS for k in keys)
        outcome = "pass" if passed else "infra_error" if infra else "fail"
        records.append((instance, {
            "outcome": outcome, "infra_error": "other" if infra else None,
            "resolved": bool(passed), "cost": None, "api_calls": None,
        }))  # fmt: skip
    warnings += _count_notes(entry, where, len(records))
    return records


# Lists whose ids cannot also be resolved (the others, such as `generated`, hold both).
_EXCLUSIVE = frozenset({
    *INFRA_LISTS, "unresolved", "unresolved_ids", "no_generation", "empty_patch_ids",
    "no_logs", "incomplete_ids",
})  # fmt: skip


def _count_notes(entry: Entry, where: dict[str, list[str]], listed: int) -> list[str]:
    """Where the file's own counts disagree with its lists."""
    notes = []
    for key, lists in _COUNTS.items():
        stated = entry.counts.get(key)
        if not is_number(stated):
            continue
        found = sum(1 for keys in where.values() if any(k in lists for k in keys))
        if stated != found:
            notes.append(f"{key} is {stated}, but the file lists {found} such instance(s)")
    total = entry.counts.get("total_instances")
    resolved = sum(1 for keys in where.values() if any(k in PASS_LISTS for k in keys))
    if is_number(total) and total != listed and total > 0:
        notes.append(
            f"total_instances is {total}, but the file lists outcomes for {listed}: "
            f"{resolved} resolved is {100 * resolved / total:.2f}% of {total}, "
            f"{100 * resolved / max(listed, 1):.2f}% of the {listed} runs converted"
        )
    return notes


def _totals(records: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """What the converted runs give: instances, resolved, cost and calls."""
    n = len(records)
    costs = [r["cost"] for _, r in records if r["cost"] is not None]
    calls = [r["api_calls"] for _, r in records if r["api_calls"] is not None]
    resolved = sum(r["outcome"] == "pass" for _, r in records)
    return {
        "instances": n,
        "resolved": resolved,
        "resolved_pct": round(100 * resolved / n, 4) if n else None,
        "infra_errors": sum(r["outcome"] == "infra_error" for _, r in records),
        "with_cost": len(costs),
        "cost_usd": math.fsum(costs) if costs else None,
        "with_api_calls": len(calls),
        "api_calls": sum(calls) if calls else None,
    }


def _source_id(instance: str, record: dict[str, Any], model: str, digest: str) -> str:
    identity: dict[str, Any] = {
        "instance_id": instance, "resolved": record["resolved"],
        "cost": _canonical(record["cost"]), "api_calls": record["api_calls"],
    }  # fmt: skip
    if record["cost"] is None and record["api_calls"] is None:
        identity |= {"model": model, "file": digest, "outcome": record["outcome"]}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return SOURCE_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:_DIGEST_CHARS]


def _canonical(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value
