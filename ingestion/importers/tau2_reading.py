"""Reading a τ²-bench results object without loading it whole, and its messages.

`read_info` and `simulations` parse the file incrementally (ijson events): `info`
and each simulation are built one at a time, `tasks` is skipped without being
built, and no single value may take more than the cap. `tau2_turns` and
`tau2_tokens` read a simulation's `messages`; `shared_extra`, `error_type` and
`error_message` what `info` says of every simulation and what the runner recorded
of a crash.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ijson

from ingestion.bundles import ErrorCollector, rejected
from ingestion.bundles.lines import strip_bom
from ingestion.importers.common import get, is_number, kind
from ingestion.importers.native_json import (
    PARSE_BUFFER,
    CappedReader,
    NotJson,
    load_or_reason,
    parse_errors_named,
    streamed_events,
)
from ingestion.importers.run_config import RecordedConfig
from ingestion.importers.tau_bench import message_text, tool_arguments


def head_keys(head: bytes) -> tuple[set[str], set[str]]:
    """The top-level keys and `info`'s keys found in the first bytes of a file."""
    top: set[str] = set()
    info: set[str] = set()
    try:
        for prefix, event, value in ijson.parse(head, use_float=True):
            if event == "map_key" and prefix in ("", "info"):
                (top if prefix == "" else info).add(value)
    except (ijson.JSONError, UnicodeDecodeError):
        pass  # the head ends mid-document, or it is not JSON at all
    return top, info


RESULTS_FILE = "results.json"
SIMULATIONS_DIR = "simulations"
_MESSAGE_CHARS = 1000  # how much of an error message is kept
_CLASS_CHARS = 300  # how much of an exception class name is kept
HEAD_BYTES = 64 * 1024  # what formats.detect_format reads of a file


@dataclass(frozen=True)
class Layout:
    """Where a τ² run's results are: one JSON object (`json`, tau2's default for text
    runs), or its metadata in `results.json` and one file per simulation in
    `simulations/` beside it (`dir`, the default for voice runs). `label` is how
    errors name the results file; `prefix` goes before a simulation file's name."""

    results: Path
    label: str
    simulations_dir: Path | None = None
    prefix: str = ""


def layout_of(path: Path) -> Layout | None:
    """The layout of `path`, as tau2's Results.load finds it: a folder, or a file with
    a `simulations/` folder beside it, is the dir format; a folder holding a single
    JSON file (an archived results file) is that file. None when there is none."""
    if path.is_file():
        beside = path.parent / SIMULATIONS_DIR
        if beside.is_dir():
            return Layout(path, path.name, beside, f"{SIMULATIONS_DIR}/")
        return Layout(path, path.name)
    if not path.is_dir():
        return None
    if (path / RESULTS_FILE).is_file():
        folder = path / SIMULATIONS_DIR
        label = f"{path.name}/{RESULTS_FILE}"
        if folder.is_dir():
            return Layout(path / RESULTS_FILE, label, folder, f"{path.name}/{SIMULATIONS_DIR}/")
        return Layout(path / RESULTS_FILE, label)
    files = [f for f in path.iterdir() if f.is_file() and f.suffix == ".json"]
    return Layout(files[0], f"{path.name}/{files[0].name}") if len(files) == 1 else None


def results_head(folder: Path) -> bytes:
    """The first bytes of a dir-format folder's results.json (b"" when the folder is
    not one), as formats.detect_format reads a file."""
    results = folder / RESULTS_FILE
    if not results.is_file() or not (folder / SIMULATIONS_DIR).is_dir():
        return b""
    with results.open("rb") as fh:
        return strip_bom(fh.read(HEAD_BYTES)).lstrip()


def read_info(layout: Layout, cap: int) -> dict[str, Any] | None:
    """The results' `info` object (None when absent), read before the simulations so
    that it applies to them wherever it stands in the file."""
    for name, value in _walk(layout.results, layout.label, cap, stop_at_info=True):
        if name == "info":
            if not isinstance(value, dict):
                raise rejected(layout.label, f"must be an object, not {kind(value)}", "info")
            return value
    return None


def simulations(layout: Layout, cap: int, errors: ErrorCollector) -> Iterator[tuple[str, str, Any]]:
    """(file, JSON path, simulation) of each simulation, one at a time: the file that
    holds it and where in that file (`simulations[i]`, or "" for a file of its own)."""
    if layout.simulations_dir is not None:
        yield from _simulation_files(layout, cap, errors)
        return
    index = -1
    shape = None
    for name, value in _walk(layout.results, layout.label, cap):
        if name == "simulations":
            shape = value
        elif name == "simulation":
            index += 1
            yield layout.label, f"simulations[{index}]", value
    if shape is None:
        errors.add(layout.label, None, "simulations", "is missing: not a τ²-bench results object")
    elif shape != "a list":
        errors.add(layout.label, None, "simulations", f"must be a list, not {shape}")


def _simulation_files(
    layout: Layout, cap: int, errors: ErrorCollector
) -> Iterator[tuple[str, str, Any]]:
    """The dir format's simulations, one file each, in name order as tau2 reads them."""
    assert layout.simulations_dir is not None
    for path in sorted(layout.simulations_dir.glob("*.json")):
        label = layout.prefix + path.name
        simulation = load_or_reason(path, cap)
        if isinstance(simulation, NotJson):
            errors.add(label, None, "", str(simulation))
            continue
        yield label, "", simulation


def _walk(path: Path, label: str, cap: int, stop_at_info: bool = False) -> Iterator[tuple]:
    """Parse events turned into ("info", object), ("simulations", its JSON kind) and
    ("simulation", object) for each simulation; everything else (`tasks`) is skipped
    without being built."""
    with path.open("rb") as fh:
        head = fh.read(PARSE_BUFFER)
        first = strip_bom(head).lstrip()[:1]
        if first != b"{":
            shape = {b"[": "a list", b"": "empty"}.get(first, "something else")
            raise rejected(label, f"must be a JSON object of τ²-bench results, not {shape}")
        fh.seek(len(head) - len(strip_bom(head)))  # past the BOM, if any
        # The object and `simulations` are two levels above each simulation.
        reader = CappedReader(fh, cap, levels=2)
        walker = _EventWalker(reader)
        with parse_errors_named(label, walker.where, cap):
            for item in walker.walk(streamed_events(reader, path)):
                yield item
                if stop_at_info and item[0] == "info":
                    return


class _EventWalker:
    """Builds the objects worth building from ijson's (prefix, event, value) stream."""

    _BUILT = {"info": "info", "simulations.item": "simulation"}
    _JSON_KINDS = {
        "start_map": "an object", "start_array": "a list", "string": "a string",
        "boolean": "a boolean", "null": "null", "number": "a number",
    }  # fmt: skip

    def __init__(self, reader: CappedReader) -> None:
        self.reader = reader
        self.key = ""  # the top-level key being read
        self.index = -1  # the simulation being read

    def where(self) -> str:
        return f"simulation {self.index}" if self.key == "simulations" else f"`{self.key}`"

    def walk(self, events: Iterator[tuple[str, str, Any]]) -> Iterator[tuple[str, Any]]:
        builder, built, shape_pending = None, "", False
        for prefix, event, value in events:
            if builder is not None:
                builder.event(event, value)
                if prefix == built and event in ("end_map", "end_array"):
                    yield self._BUILT[built], builder.value
                    builder = None
                    self.reader.mark = self.reader.read_bytes
                continue
            if prefix == "" and event == "map_key":
                self.key, shape_pending = value, value == "simulations"
            elif shape_pending and prefix == "simulations":
                shape_pending = False
                yield "simulations", self._JSON_KINDS.get(event, event)
            if prefix in self._BUILT and event != "map_key":
                self.index += prefix == "simulations.item"
                if event in ("start_map", "start_array"):
                    builder, built = ijson.ObjectBuilder(), prefix
                    builder.event(event, value)
                    continue
                yield self._BUILT[prefix], value  # a scalar where an object belongs
            if prefix.count(".") <= 1:  # between tasks, simulations and top-level keys
                self.reader.mark = self.reader.read_bytes


# ------------------------------------------------------------------ messages


def tau2_turns(messages: list[Any]) -> list[dict[str, Any]]:
    """τ² messages as arena turns `{role, text, tool_calls}`. A tool call's exit_code
    is 0 or 1 from its result's `error` flag (None when no result answers it)."""
    errors = {
        m["id"]: m.get("error")
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool" and isinstance(m.get("id"), str)
    }
    turns = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in (
            "user",
            "assistant",
            "tool",
        ):
            continue
        turn: dict[str, Any] = {
            "role": message["role"],
            "text": message_text(message.get("content")),
        }
        raw_calls = message.get("tool_calls")
        if message["role"] == "assistant" and isinstance(raw_calls, list):
            calls = [call for raw in raw_calls if (call := _tool_call(raw, errors)) is not None]
            if calls:
                turn["tool_calls"] = calls
        turns.append(turn)
    return turns


def _tool_call(raw: Any, errors: dict[str, Any]) -> dict[str, Any] | None:
    name = raw.get("name") if isinstance(raw, dict) else None
    if not isinstance(name, str) or not name:
        return None
    error = errors.get(raw.get("id")) if isinstance(raw.get("id"), str) else None
    return {
        "tool": name,
        "arguments": tool_arguments(raw.get("arguments")),
        "exit_code": int(error) if isinstance(error, bool) else None,
    }


def tau2_tokens(messages: list[Any]) -> dict[str, int] | None:
    """The agent's tokens: the sum of its messages' `usage` (None when none has any)."""
    totals = {"input": 0, "output": 0}
    found = False
    for message in messages:
        usage = message.get("usage") if isinstance(message, dict) else None
        if (
            not isinstance(message, dict)
            or message.get("role") != "assistant"
            or not isinstance(usage, dict)
        ):
            continue
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if _whole(prompt) and _whole(completion):
            totals["input"] += int(prompt)
            totals["output"] += int(completion)
            found = True
    return totals if found else None


def _whole(value: Any) -> bool:
    return is_number(value) and value >= 0 and value == int(value)


# ------------------------------------------------------------------ info


def error_type(info: Any) -> str | None:
    """The crash's exception class (no real one is longer than the cut)."""
    value = get(info, ("error_type",))
    return value.strip()[:_CLASS_CHARS] or None if isinstance(value, str) else None


def error_message(info: Any) -> str | None:
    value = get(info, ("error",))
    return value[:_MESSAGE_CHARS] if isinstance(value, str) and value else None


def shared_extra(info: Any) -> dict[str, Any]:
    """What the file's `info` says about every simulation, kept in each run's extra:
    the τ² domain (the registry, not the importer, decides which tasks exist), the
    user simulator's model and the agent's implementation."""
    values = {
        "domain": get(info, ("environment_info", "domain_name")),
        "user_model": get(info, ("user_info", "llm")),
        "agent_implementation": get(info, ("agent_info", "implementation")),
        "num_trials": get(info, ("num_trials",)),
    }
    return {k: v for k, v in values.items() if isinstance(v, str | int) and not isinstance(v, bool)}


def tau2_recorded_config(info: Any, trials: Iterable[tuple[str, int]]) -> RecordedConfig:
    """The run configuration the results' `info` records (`num_trials`, `max_steps`,
    `seed`, the user simulator's `llm` and `llm_args.temperature`, the agent's
    `llm_args` temperature and reasoning_effort); without `num_trials`, the most
    trials any task has in the file (`trials`: its (task, trial) pairs)."""
    recorded = RecordedConfig()
    for field, path in (
        ("trials", ("num_trials",)),
        ("step_limit", ("max_steps",)),
        ("seed", ("seed",)),
        ("user_simulator.model", ("user_info", "llm")),
        ("user_simulator.temperature", ("user_info", "llm_args", "temperature")),
        ("temperature", ("agent_info", "llm_args", "temperature")),
        ("reasoning_effort", ("agent_info", "llm_args", "reasoning_effort")),
    ):
        recorded.add(field, get(info, path), "info." + ".".join(path))
    if get(info, ("max_steps",)) is not None:
        recorded.add("step_unit", "step", "info.max_steps")
    if get(info, ("num_trials",)) is None:
        counts = Counter(task for task, _ in trials).values()
        recorded.add("trials", max(counts, default=None), "the trials per task of the file")
    return recorded
