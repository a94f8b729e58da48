"""τ-bench result files: a JSON list of `{task_id, trial, reward, info, traj}`.

What the file lacks (harness, suite and suite version, the model) is given as
parameters. The converted bundle then takes the one normal ingest path.

Identity: a τ-bench item names no run of its own, and the runner rewrites the whole
results file after each finished trial (json.dump of every result so far), so neither
the file's bytes nor an item's place in it is stable. What is stable is the item: once
a trial is written its `task_id`, `trial`, `reward`, `info` and `traj` never change.
Each converted run's `source_id` is `tau-bench:` and the first 32 hex digits of the
SHA-256 of that item's canonical JSON (those five fields, keys sorted, compact
separators, non-ASCII escaped, whole-number floats written as integers): a partial
file and the final one, a re-indented copy, the same items renamed or imported with
another `--model` (crash items aside, below) give the same source ids, and the ingest
refuses those runs as already stored for the harness. Two real trials differ in their
`traj` (the model's sampled words, the providers' random tool-call ids) or, within one
file, in their task and trial. A crash item has no `traj`, only its task, trial and
exception text, which two runs may well share (every task failing on a missing API
key): its identity also holds the model given, so that another model's crash is never
taken for it.

Outcome: reward 1 is a pass, anything less a fail, except for a crash. τ-bench's
runner records a simulation that raised as reward 0 with `info.error` (the message)
and `info.traceback`, and an empty `traj`; that crash is classified as τ²-bench's
are (`crashes.crash_outcome`), by the exception class the traceback's last
exception line names with its module: a model-provider client's API error, an HTTP
client's connection error or timeout is `infra_error` (the agent was never
measured), anything else stays the agent's `fail`, and classes the table does not
know are listed in the conversion's report. The message's words never decide.

The message helpers are shared with the τ²-bench importer.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector, rejected
from ingestion.bundles.depth import too_deep
from ingestion.bundles.lines import strip_bom
from ingestion.importers.checks import (
    ConvertedRecords,
    Cost,
    check_contents,
    native_reward,
    native_value,
)
from ingestion.importers.common import (
    PASS_REWARD,
    Conversion,
    NativeParams,
    Output,
    Report,
    ReportCounts,
    RunSpool,
    UniqueIds,
    check_parameters,
    dumps,
    kind,
    manifest,
    show,
    write_bundle,
)
from ingestion.importers.crashes import crash_outcome, exception_class
from ingestion.importers.native_json import (
    MAX_DOCUMENT_BYTES,
    PARSE_BUFFER,
    SURROGATE_MESSAGE,
    CappedReader,
    parse_errors_named,
    reject_constant,
    streamed_items,
    unpaired_surrogate_in_file,
)
from ingestion.importers.run_config import RecordedConfig, run_config_resolve, with_warnings

# A trajectory bigger than this goes to its own file instead of inline: a runs.jsonl
# line is capped (10 MB by default) and one long conversation must not hit the cap.
INLINE_TRAJECTORY_BYTES = 1024 * 1024
SOURCE_PREFIX = "tau-bench:"
_DIGEST_CHARS = 32  # of an item's SHA-256: 128 bits, no two trials collide
IDENTITY_FIELDS = ("task_id", "trial", "reward", "info", "traj")
# The item field each converted run field comes from (checks.ConvertedRecords); the
# trajectory keeps its own name: its turns leave out the system messages.
NATIVE_FIELDS = {"task_id": "task_id", "trial": "trial", "source_id": "task_id"}


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point."""
    return convert_tau_bench(
        path, harness=params.harness, suite=params.suite, suite_version=params.suite_version,
        model=params.model or "", out=out, max_item_bytes=max_document_bytes,
        run_config=params.run_config,
    )  # fmt: skip


def looks_like(path: Path, head: bytes) -> bool:
    """A JSON list (an arena JSON document is an object, never a list)."""
    return path.is_file() and head.startswith(b"[")


def convert_tau_bench(
    path: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str,
    out: Output,
    max_item_bytes: int = MAX_DOCUMENT_BYTES,
    run_config: dict[str, Any] | None = None,
) -> Conversion:
    """Convert a τ-bench results file into a bundle at `out`. The file records only
    the trials per task of the run configuration; `run_config` gives the rest.

    The list is parsed one item at a time (never read whole) and each item may take at
    most `max_item_bytes` of the file. Raises BundleRejected naming the file (and the
    item, as its line) of each problem.
    """
    check_parameters(harness, suite, suite_version)
    if not isinstance(model, str) or not model.strip():
        raise ValueError("a τ-bench conversion needs the model")
    path = Path(path)
    label = path.name
    state = _FileState(model.strip())
    errors = ErrorCollector()
    checks = ConvertedRecords(errors)
    sources: list[str] = []
    run_ids = UniqueIds()
    spool = RunSpool()
    with tempfile.TemporaryDirectory(prefix="tau-") as spill:
        files: dict[str, bytes | Path] = {}
        try:
            for number, item in enumerate(_tau_items(path, label, max_item_bytes), 1):
                run = _tau_run(item, number, label, errors, state)
                if run is None:
                    continue
                task_id, trial = run.pop("task_id"), run.pop("trial")
                run_id = run_ids.take(f"{path.stem}/{task_id}/{trial}")
                run = {
                    "run_id": run_id, "suite": suite, "suite_version": suite_version,
                    "task_id": task_id, "model": model.strip(), "trial": trial, **run,
                }  # fmt: skip
                where = {"file": label, "line": number, "fields": NATIVE_FIELDS}
                if spool_checked(run, checks, spool, files, spill, **where):
                    sources.append(f"{label}:{number}")
            if not spool.count and not errors:
                errors.add(label, None, "", "holds no results")
            recorded = RecordedConfig()
            trials = Counter(task for task, _ in state.seen).values()
            recorded.add("trials", max(trials, default=None), "the trials per task of the file")
            config = run_config_resolve(recorded, run_config or {}, label=label, errors=errors)
            errors.raise_if_any()
        except BaseException:
            spool.close()
            raise
        note = f"Imported from a τ-bench results file ({spool.count} runs)."
        write_bundle(out, manifest(harness, "tau-bench", note, config), spool, files)
    report = {"unknown_exceptions": state.unknown.as_dict()} if state.unknown else {}
    report = with_warnings(report, recorded.warnings)
    return Conversion("tau-bench", len(sources), tuple(sources), report)


def item_source_id(item: dict[str, Any], model: str) -> str:
    """`tau-bench:<digest>` of the item's identifying content (see the module
    docstring); a crash item without a `traj` adds the model."""
    identity = {name: canonical(item.get(name)) for name in IDENTITY_FIELDS}
    if not item.get("traj"):
        identity["model"] = model
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))  # ASCII: lone surrogates too
    return SOURCE_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:_DIGEST_CHARS]


def canonical(value: Any) -> Any:
    """`value` with whole-number floats as integers: `1.0` and `1` are one number, as a
    tool rewriting the file may spell either. (Depth is bounded by the reader.)"""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    return value


def _tau_items(path: Path, label: str, max_item_bytes: int) -> Iterator[Any]:
    """The items of the results list, one at a time; the whole file is never loaded."""
    with path.open("rb") as fh:
        head = fh.read(PARSE_BUFFER)
        first = strip_bom(head).lstrip()[:1]
        if first != b"[":
            shape = {b"{": "an object", b"": "empty"}.get(first, "something else")
            hint = " (τ²-bench results are an object: import them as tau2-bench)"
            raise rejected(
                label, f"must be a JSON list of results, not {shape}{hint if first == b'{' else ''}"
            )
        if unpaired_surrogate_in_file(path):  # the parser would write "?" instead
            raise rejected(label, SURROGATE_MESSAGE)
        fh.seek(len(head) - len(strip_bom(head)))  # past the BOM, if any
        reader = CappedReader(fh, max_item_bytes)
        number = 0
        with parse_errors_named(label, lambda: f"item {number + 1}", max_item_bytes):
            for item in streamed_items(reader, path, "item"):
                number += 1
                yield item
                reader.mark = reader.read_bytes


@dataclass
class _FileState:
    """What one file's items share: the model given, the (task, trial) pairs seen so
    far (at which item), and the crash classes not in the table, counted."""

    model: str
    seen: dict[tuple[str, int], int] = field(default_factory=dict)
    unknown: ReportCounts = field(default_factory=ReportCounts)


def _tau_run(
    item: Any, number: int, label: str, errors: ErrorCollector, state: _FileState
) -> dict[str, Any] | None:
    """One result as run fields (with task_id and trial), or None after reporting."""

    def report(field: str, message: str) -> None:
        errors.add(label, number, field, message)

    if not isinstance(item, dict):
        report("", f"must be an object, not {kind(item)}")
        return None
    before = errors.total
    task_id = _tau_task_id(item.get("task_id"), report)
    trial = item.get("trial")
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        report("trial", f"must be an integer ≥ 0 (τ-bench counts from 0), got {show(trial)}")
    if item.get("reward") is None:
        report("reward", "is required (a number)")
    reward = native_reward(item.get("reward"), "reward", report)
    info = item.get("info")
    if not isinstance(info, dict):
        report("info", f"must be an object (the run's info), not {kind(info)}")
    else:
        native_value(info.get("user_cost"), Cost, "info.user_cost", report)
    traj = item.get("traj")
    if traj is not None and not isinstance(traj, list):
        report("traj", f"must be a list of messages, not {kind(traj)}")
    elif traj:
        check_contents(traj, "traj", report)
    if errors.total > before:
        return None
    assert task_id is not None and isinstance(trial, int) and reward is not None
    first = state.seen.setdefault((task_id, trial), number)
    if first != number:
        report("trial", f"task {task_id!r} trial {trial} already appears as item {first}")
        return None
    turns = tau_turns(traj or [])
    outcome, infra = ("pass" if reward >= PASS_REWARD else "fail"), None
    crash = _crash(info, traj)
    if crash is not None and outcome == "fail":  # a crash never earns a reward
        outcome, infra, known = crash_outcome(*crash)
        if not known:
            state.unknown.add(crash[0] or "(no exception class)")
    return {
        "task_id": task_id,
        "trial": trial + 1,
        "source_id": item_source_id(item, state.model),
        "outcome": outcome,
        "infra_error": infra,
        "steps": sum(t["role"] == "assistant" for t in turns) if turns else None,
        "tool_calls": sum(len(t.get("tool_calls", ())) for t in turns) if turns else None,
        "trajectory": turns or None,
        "reward": reward,
        "info": item.get("info"),
    }


def _crash(info: Any, traj: Any) -> tuple[str | None, str] | None:
    """(exception class with its module, message) of an item the runner recorded as a
    crash; the class is None when no traceback names it."""
    if traj or not isinstance(info, dict) or not isinstance(info.get("error"), str):
        return None
    traceback = info.get("traceback")
    name = exception_class(traceback) if isinstance(traceback, str) else None
    return name, info["error"]


def _tau_task_id(value: Any, report: Report) -> str | None:
    # τ-bench numbers its tasks; the registry names them, so 7 becomes "7".
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    report("task_id", f"must be a task number or name, got {show(value)}")
    return None


def tau_turns(messages: list[Any]) -> list[dict[str, Any]]:
    """OpenAI-style chat messages as arena turns `{role, text, tool_calls}`.

    System prompts are left out (they are the harness's, not the conversation's);
    messages that are not objects or have a role the format lacks are skipped.
    """
    turns = []
    for message in messages:
        turn = _tau_turn(message) if isinstance(message, dict) else None
        if turn is not None:
            turns.append(turn)
    return turns


def _tau_turn(message: dict[str, Any]) -> dict[str, Any] | None:
    role = {"function": "tool"}.get(message.get("role"), message.get("role"))
    if role not in ("user", "assistant", "tool"):
        return None
    turn: dict[str, Any] = {"role": role, "text": message_text(message.get("content"))}
    if role == "assistant":
        raw_calls = list(message.get("tool_calls") or [])
        if isinstance(message.get("function_call"), dict):  # the legacy single call
            raw_calls.append({"function": message["function_call"]})
        calls = [call for raw in raw_calls if (call := _tool_call(raw)) is not None]
        if calls:
            turn["tool_calls"] = calls
    elif isinstance(message.get("name"), str) and message["name"]:
        turn["name"] = message["name"]  # which tool answered (kept, unknown to the format)
    return turn


def _tool_call(raw: Any) -> dict[str, Any] | None:
    function = raw.get("function", raw) if isinstance(raw, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str) or not name:
        return None
    # τ-bench records tool results as text, so whether a call failed is unknown.
    return {"tool": name, "arguments": tool_arguments(function.get("arguments")), "exit_code": None}


def tool_arguments(value: Any) -> dict[str, Any]:
    """Tool arguments as an object; OpenAI sends them as a JSON string."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        if too_deep(value):
            return {"raw": value}
        try:
            value = json.loads(value, parse_constant=reject_constant)
        except ValueError:  # NotJson (NaN) included
            return {"raw": value}
    return value if isinstance(value, dict) else {"value": value}


def message_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return json.dumps(content, ensure_ascii=False)


def spool_checked(
    run: dict[str, Any],
    checks: ConvertedRecords,
    spool: RunSpool,
    files: dict[str, bytes | Path],
    spill: str,
    **where: Any,
) -> bool:
    """Check `run` (its trajectory inline) by the bundle's rules, reporting at `where`
    (ConvertedRecords.check's place); then, unless an error was met so far, spool it,
    a long trajectory in a file of its own. True if it was spooled."""
    line = checks.check(run, **where)
    if line is None or checks.errors:
        return False  # after the first error, only keep validating
    trajectory = run.get("trajectory")
    placed = (
        None if trajectory is None else place_trajectory(trajectory, spool.count + 1, files, spill)
    )
    if placed is trajectory:
        spool.add_line(line)
    else:
        spool.add({**run, "trajectory": placed})
    return True


def place_trajectory(
    turns: list[dict[str, Any]], number: int, files: dict[str, bytes | Path], spill: str
) -> Any:
    """Inline, or for a long one a `trajectories/` file (the path goes in the run),
    written to `spill` on disk until the bundle is packed."""
    data = dumps(turns).encode()
    if len(data) <= INLINE_TRAJECTORY_BYTES:
        return turns
    path = f"trajectories/run-{number:06d}.json"
    on_disk = Path(spill) / f"run-{number:06d}.json"
    on_disk.write_bytes(data)
    files[path] = on_disk
    return path
