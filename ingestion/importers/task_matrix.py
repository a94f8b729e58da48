"""A task matrix: the table a board publishes when it publishes nothing else.

A CSV file with a header row, or a JSON list of objects, with the columns `task`,
`agent`, `model`, `outcome` and optionally `cost_usd`, `tool_calls` and `trial`
(other columns are kept on the runs). A bundle is one harness, so one agent is
converted at a time: with several agents in the table the `entry` parameter names it
(the error lists them); the other agents' rows are counted in the report as refused.

Outcome: `pass`, `fail` or `infra_error` (its kind "other"), `1` / `0`, `true` /
`false` (any case; in JSON also the booleans and the numbers 1 and 0). `trial` is an
integer ≥ 1 (1 when absent); a (task, model, trial) given twice is an error. Every
problem is an error naming the file, the row (its CSV line, the header being line 1,
or its item number in the JSON list) and the column.

Identity: `source_id` is `task-matrix:` and 32 hex digits of the SHA-256 of the row's
canonical content (agent, task, model, trial, outcome, cost, tool calls): the same
row in CSV or in JSON, in any order or file name, gives the same id.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector, rejected
from ingestion.bundles.fields import UNDERFLOW_MESSAGE, rounds_to_zero
from ingestion.bundles.lines import strip_bom
from ingestion.importers.checks import checked_spool
from ingestion.importers.common import (
    Conversion,
    NativeParams,
    Output,
    ReportCounts,
    UniqueIds,
    check_parameters,
    cut,
    is_number,
    kind,
    manifest,
    show,
    write_bundle,
)
from ingestion.importers.native_json import NotJson, load_json
from ingestion.importers.run_config import RecordedConfig, run_config_resolve, with_warnings

FORMAT_NAME = "task-matrix"
SOURCE_PREFIX = "task-matrix:"
_DIGEST_CHARS = 32
# The row's column each converted run field comes from (checks.ConvertedRecords).
NATIVE_FIELDS = {"task_id": "task"}
REQUIRED_COLUMNS = ("task", "agent", "model", "outcome")
OPTIONAL_COLUMNS = ("cost_usd", "tool_calls", "trial")
_OUTCOMES = {
    "pass": "pass", "fail": "fail", "infra_error": "infra_error",
    "1": "pass", "0": "fail", "true": "pass", "false": "fail",
}  # fmt: skip
_LISTED = 40  # agents named at most in an error


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point."""
    return convert_task_matrix(path, params=params, out=out, max_document_bytes=max_document_bytes)


def looks_like(path: Path, head: bytes) -> bool:
    """A .csv whose header names the required columns, or a JSON list whose first
    object has `agent` and `outcome` (and no τ-bench `traj`)."""
    if not path.is_file():
        return False
    if head.startswith(b"["):
        return b'"agent"' in head and b'"outcome"' in head and b'"traj"' not in head
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    header = {c.strip().lower() for c in first.split(",")}
    return path.suffix.lower() == ".csv" and set(REQUIRED_COLUMNS) <= header


def convert_task_matrix(
    path: Path | str, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """Convert one agent's rows of a task matrix into a bundle at `out`. Raises
    BundleRejected naming the file, the row and the column of each problem."""
    check_parameters(params.harness, params.suite, params.suite_version)
    path = Path(path)
    label = path.name
    rows = list(_rows(path, label, max_document_bytes))
    agent = _agent(rows, params.entry, label)
    errors = ErrorCollector()
    refused = ReportCounts()
    seen: dict[tuple[str, str, int], int] = {}
    runs, sources = [], []
    run_ids = UniqueIds()
    for line, row in rows:
        if str(row.get("agent", "")).strip() != agent:
            refused.add("another agent's row")
            continue
        run = _run(row, line, label, errors)
        if run is None:
            continue
        key = (run["task_id"], run["model"], run["trial"])
        first = seen.setdefault(key, line)
        if first != line:
            errors.add(label, line, "trial", f"task {key[0]!r} model {key[1]!r} trial {key[2]} "
                       f"is already row {first}")  # fmt: skip
            continue
        runs.append({
            "run_id": run_ids.take(f"{agent}/{run['task_id']}/{run['model']}/{run['trial']}"),
            "suite": params.suite, "suite_version": params.suite_version,
            **run, "source_id": _source_id(agent, run),
        })  # fmt: skip
        sources.append(f"{label}:{line}")
    if not runs and not errors:
        errors.add(label, None, "", f"holds no rows of agent {agent!r}")
    recorded = RecordedConfig()
    trials = Counter((r["task_id"], r["model"]) for r in runs).values()
    recorded.add("trials", max(trials, default=None), "the trials per task of the table")
    config = run_config_resolve(recorded, params.run_config, label=label, errors=errors)
    errors.raise_if_any()
    places = [{"file": label, "line": int(source.rpartition(":")[2]), "fields": NATIVE_FIELDS}
              for source in sources]  # fmt: skip
    spool = checked_spool(runs, places, errors)
    note = f"Imported from a task matrix, agent {agent!r} ({len(runs)} runs)."
    write_bundle(out, manifest(params.harness, FORMAT_NAME, note, config), spool, {})
    report = {"refused": refused.as_dict()} if refused else {}
    return Conversion(
        FORMAT_NAME, len(runs), tuple(sources), with_warnings(report, recorded.warnings)
    )


def _rows(path: Path, label: str, max_bytes: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or item number, row) of the table, its header checked."""
    with path.open("rb") as fh:
        head = strip_bom(fh.read(64)).lstrip()
    if head.startswith(b"["):
        try:
            items = load_json(path, max_bytes)
        except (OSError, NotJson) as exc:
            raise rejected(label, getattr(exc, "strerror", None) or str(exc)) from None
        for number, item in enumerate(items, 1):
            if not isinstance(item, dict):
                raise rejected(label, f"item {number} must be an object, not {kind(item)}")
            missing = [c for c in REQUIRED_COLUMNS if c not in item]
            if missing:
                raise rejected(label, f"item {number} has no {', '.join(missing)}", missing[0])
            yield number, item
        return
    if head.startswith(b"{"):
        raise rejected(label, "must be a CSV table or a JSON list of rows, not a JSON object")
    yield from _csv_rows(path, label, max_bytes)


def _csv_rows(path: Path, label: str, max_bytes: int) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.stat().st_size > max_bytes:
        raise rejected(label, f"is larger than the limit of {max_bytes:,} bytes for one table")
    try:
        text = strip_bom(path.read_bytes()).decode("utf-8")
    except UnicodeDecodeError:
        raise rejected(label, "is not UTF-8 text") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [c.strip().lower() for c in next(reader, [])]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise rejected(label, f"the header row has no column {', '.join(missing)}", missing[0])
    duplicated = [c for c, n in Counter(header).items() if n > 1 and c]
    if duplicated:
        raise rejected(label, f"the header row names {duplicated[0]!r} twice", duplicated[0])
    for values in reader:
        line = reader.line_num
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            raise rejected(label, f"line {line} has {len(values)} values for {len(header)} columns")
        yield line, {c: v.strip() for c, v in zip(header, values, strict=True) if c}


def _agent(rows: list[tuple[int, dict[str, Any]]], wanted: str | None, label: str) -> str:
    agents = sorted({str(row.get("agent", "")).strip() for _, row in rows} - {""})
    wanted = (wanted or "").strip()
    if not rows:
        raise rejected(label, "holds no rows")
    if wanted and wanted in agents:
        return wanted
    if not wanted and len(agents) == 1:
        return agents[0]
    if not agents:
        raise rejected(label, "names no agent in its rows", "agent")
    shown = ", ".join(repr(a) for a in agents[:_LISTED])
    more = f" … and {len(agents) - _LISTED} more" if len(agents) > _LISTED else ""
    why = f"has no agent {wanted!r}" if wanted else f"holds {len(agents)} agents"
    raise rejected(label, cut(f"{why}: give entry, one of {shown}{more}", 4000), "entry")


def _run(
    row: dict[str, Any], line: int, label: str, errors: ErrorCollector
) -> dict[str, Any] | None:
    before = errors.total

    def report(field: str, message: str) -> None:
        errors.add(label, line, field, message)

    task, model = _text(row.get("task"), "task", report), _text(row.get("model"), "model", report)
    outcome = _outcome(row.get("outcome"))
    if outcome is None:
        report(
            "outcome",
            f"must be pass, fail, infra_error, 1, 0, true or false, got {show(row.get('outcome'))}",
        )
    cost = _number(row.get("cost_usd"), "cost_usd", report, whole=False)
    calls = _number(row.get("tool_calls"), "tool_calls", report, whole=True)
    trial = _number(row.get("trial"), "trial", report, whole=True)
    if trial == 0:
        report("trial", "must be an integer ≥ 1, got 0")
    if errors.total > before:
        return None
    extra = {k: v for k, v in row.items() if k not in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)}
    return {
        **extra, "task_id": task, "model": model, "trial": int(trial or 1),
        "outcome": outcome, "infra_error": "other" if outcome == "infra_error" else None,
        "cost_usd": cost, "tool_calls": None if calls is None else int(calls),
    }  # fmt: skip


def _text(value: Any, field: str, report) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if is_number(value) and field == "task":  # a numbered task, named as the registry does
        return str(int(value)) if float(value).is_integer() else str(value)
    report(field, f"must be a non-empty name, got {show(value)}")
    return None


def _outcome(value: Any) -> str | None:
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if is_number(value) and value in (0, 1):
        return "pass" if value == 1 else "fail"
    return _OUTCOMES.get(value.strip().lower()) if isinstance(value, str) else None


def _number(value: Any, field: str, report, *, whole: bool) -> float | None:
    """A number ≥ 0 (whole when asked), from JSON or from CSV text; None when empty."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    parsed: Any = value
    if isinstance(value, str):
        try:
            parsed = float(value)
        except ValueError:
            parsed = None
        if parsed is not None and rounds_to_zero(value, parsed):  # as a bundle's 1e-400
            report(field, f"{UNDERFLOW_MESSAGE}, got {show(value)}")
            return None
    if not is_number(parsed) or parsed < 0 or (whole and parsed != int(parsed)):
        what = "a whole number ≥ 0" if whole else "a number ≥ 0"
        report(field, f"must be {what}, got {show(value)}")
        return None
    return int(parsed) if whole else float(parsed)


def _source_id(agent: str, run: dict[str, Any]) -> str:
    cost = run["cost_usd"]
    identity = {
        "agent": agent, "task": run["task_id"], "model": run["model"], "trial": run["trial"],
        "outcome": run["outcome"], "tool_calls": run["tool_calls"],
        "cost_usd": int(cost) if isinstance(cost, float) and cost.is_integer() else cost,
    }  # fmt: skip
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return SOURCE_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:_DIGEST_CHARS]
