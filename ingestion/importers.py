"""Native result formats, converted into an `arena-bundle/1` tar.gz on the way in.

Pure Python: no Django, no database. An importer only translates: the archive it
writes then takes the one normal ingest path (validation, limits, atomicity and
idempotency unchanged). Its output is deterministic (sorted members, fixed mtimes,
gzip mtime 0, no file name in the gzip header), so the same native files always give
the same bytes and importing them again finds the existing submission.

Formats:
* Harbor / Terminal-Bench 2 job folders: one `result.json` per trial
  (`<job>/<trial_name>/result.json`), next to a job-level `result.json` summary.
* τ-bench result files: a JSON list of `{task_id, trial, reward, info, traj}`.

What the native files lack (harness name/version/contributors, the suite and suite
version of the tasks, and for τ-bench the model) is given as parameters.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import tarfile
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from ingestion.records import FORMAT, BundleError, BundleRejected, ErrorCollector, rejected

__all__ = [
    "FORMATS",
    "BundleError",
    "BundleRejected",
    "Conversion",
    "convert_harbor",
    "convert_native",
    "convert_tau_bench",
    "detect_format",
    "extract_job_archive",
    "harbor_outcome",
]

FORMATS = ("arena", "harbor", "tau-bench")
RESULT_FILE = "result.json"
MAX_RUN_ID = 200
# A trajectory bigger than this goes to its own file instead of inline: a runs.jsonl
# line is capped (10 MB by default) and one long conversation must not hit the cap.
INLINE_TRAJECTORY_BYTES = 1024 * 1024
PASS_REWARD = 1 - 1e-9  # rewards are floats; 0.9999999999 is a pass
_MESSAGE_CHARS = 1000  # how much of a Harbor exception message is kept
_DETECT_BYTES = 64 * 1024
_RUN_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._:/-]")

# Harbor exception types that say the trial never measured the agent: the sandbox,
# the agent's installation or the verifier failed. Matched as substrings of the type
# name, so provider-specific variants (DaytonaError, ModalSandboxError,
# DockerComposeError, AddTestsDirError, RewardFileNotFoundError, …) are covered
# without listing each one. RuntimeError is what Harbor's environments raise when a
# container command fails.
_INFRA_MARKERS = (
    "Environment",
    "Sandbox",
    "Daytona",
    "Modal",
    "Docker",
    "E2B",
    "Runloop",
    "Container",
    "Setup",
    "Verifier",
    "Reward",
    "TestsDir",
)
_INFRA_TYPES = frozenset({"RuntimeError", "CancelledError"})

# Keys that only a Harbor TrialResult has, and those of the job-level summary.
_TRIAL_KEYS = frozenset({"task_name", "trial_name", "verifier_result", "agent_result"})
_JOB_KEYS = frozenset({"n_total_trials", "stats"})


@dataclass(frozen=True)
class Conversion:
    """What an importer wrote. `sources[n - 1]` is where line n of runs.jsonl came
    from (a file, or `file:item`), to point rejection errors back at native files."""

    format: str
    runs: int
    sources: tuple[str, ...]

    def source_of(self, line: int | None) -> str | None:
        if line is None or not 1 <= line <= len(self.sources):
            return None
        return self.sources[line - 1]


Output = Path | str | BinaryIO


class _NotJson(ValueError):
    pass


# ------------------------------------------------------------------ detection


def detect_format(path: Path | str) -> str:
    """Which format `path` holds ("arena", "harbor" or "tau-bench"), for `--format auto`.

    Anything not recognisably native is "arena", so the normal path rejects it with
    its own, precise errors.
    """
    path = Path(path)
    if path.is_dir():
        if (path / "manifest.json").is_file():
            return "arena"
        trials = (obj for _, obj in _walk_results(path) if _is_trial(obj))
        return "harbor" if next(trials, None) is not None else "arena"
    head = _head(path)
    if head.startswith(b"["):  # an arena JSON document is an object, never a list
        return "tau-bench"
    if head.startswith(b"{") and path.name == RESULT_FILE and _is_trial(_load_or_reason(path)):
        return "harbor"
    return "arena"


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(_DETECT_BYTES).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return b""


# --------------------------------------------------------------------- harbor


def convert_harbor(
    folder: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str | None = None,
    out: Output,
) -> Conversion:
    """Convert a Harbor job folder (or one trial's result.json) into a bundle at `out`.

    `model` names the model of every trial when given; otherwise each trial's
    result.json must name it. Raises BundleRejected naming the native file of each
    problem.
    """
    _check_parameters(harness, suite, suite_version)
    root = Path(folder)
    errors = ErrorCollector()
    trials = [
        trial
        for label, obj in _read_harbor_results(root, errors)
        if (trial := _harbor_trial(label, obj, suite, model, errors)) is not None
    ]
    if not trials and not errors:
        errors.add(root.name, None, "", f"no Harbor trial {RESULT_FILE} found under this folder")
    errors.raise_if_any()
    runs, sources = _number_harbor_trials(trials, suite, suite_version)
    note = f"Imported from a Harbor job folder ({len(runs)} trials)."
    _write_bundle(out, _manifest(harness, "harbor", note), runs, {})
    return Conversion("harbor", len(runs), tuple(sources))


@dataclass
class _HarborTrial:
    label: str  # the result.json, relative to the folder's parent (for messages)
    name: str  # the trial folder, relative to the converted folder (for run_id)
    task_id: str
    model: str
    fields: dict[str, Any]  # the run's fields after task_id/model/trial


def _read_harbor_results(root: Path, errors: ErrorCollector) -> Iterator[tuple[str, Any]]:
    """(label, parsed object) of every trial result.json, in path order; unreadable
    ones are reported (rather than silently dropping a trial)."""
    for path, obj in _walk_results(root):
        label = _label(root, path)
        if isinstance(obj, Exception):
            errors.add(label, None, "", str(obj))
        elif not isinstance(obj, dict):
            errors.add(label, None, "", f"must be a JSON object, not {_kind(obj)}")
        else:
            yield label, obj


def _walk_results(root: Path) -> Iterator[tuple[Path, Any]]:
    """(path, parsed object or the reason it is unreadable) of each trial result.json
    under `root` (or `root` itself when it is a file), in sorted path order.

    The job-level result.json (a summary with `stats`) is skipped, and a trial
    folder's own subfolders are not searched: its artifacts may hold any file,
    including one named result.json.
    """
    if root.is_file():
        yield root, _load_or_reason(root)
        return
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        if RESULT_FILE not in files:
            continue
        path = Path(directory) / RESULT_FILE
        obj = _load_or_reason(path)
        if _is_trial(obj):
            subdirs.clear()
            yield path, obj
        elif isinstance(obj, Exception):
            yield path, obj  # reported, rather than silently dropping a trial


def _load_or_reason(path: Path) -> Any:
    try:
        return _load_json(path)
    except (OSError, _NotJson) as exc:
        return _NotJson(exc.strerror or str(exc)) if isinstance(exc, OSError) else exc


def _is_trial(obj: Any) -> bool:
    """A Harbor TrialResult (the job-level summary also has started_at, never these)."""
    if not isinstance(obj, dict) or (_JOB_KEYS & obj.keys() and "task_name" not in obj):
        return False
    return bool(_TRIAL_KEYS & obj.keys())


def _label(root: Path, path: Path) -> str:
    """The file as errors name it: relative to the converted folder's parent."""
    if root.is_file():
        return f"{root.resolve().parent.name}/{root.name}"
    return (Path(root.resolve().name) / path.relative_to(root)).as_posix()


def _harbor_trial(
    label: str, obj: dict[str, Any], suite: str, model: str | None, errors: ErrorCollector
) -> _HarborTrial | None:
    def report(field: str, message: str) -> None:
        errors.add(label, None, field, message)

    before = errors.total
    task_name = obj.get("task_name")
    if not isinstance(task_name, str) or not task_name.strip():
        report("task_name", "is required (a non-empty string)")
    model = (model or "").strip() or _harbor_model(obj)
    if model is None:
        report(
            "agent_info.model_info",
            "names no model (nor does config.agent.model_name); give the model as a parameter",
        )
    reward = _harbor_reward(obj, report)
    exception_type = _exception_type(obj, report)
    outcome, infra_error = harbor_outcome(reward, exception_type)
    fields: dict[str, Any] = {
        "outcome": outcome,
        "infra_error": infra_error,
        "cost_usd": _number(obj, ("agent_result", "cost_usd"), report),
        "tokens": _harbor_tokens(obj, report),
        **_harbor_times(obj, report),
    }
    if errors.total > before:
        return None
    assert isinstance(task_name, str) and model is not None
    name = _trial_folder(label)
    fields["harbor"] = _harbor_extra(obj, f"{name}/{RESULT_FILE}", reward, exception_type)
    return _HarborTrial(label, name, _task_id(task_name.strip(), suite), model, fields)


def harbor_outcome(reward: float | None, exception_type: str | None) -> tuple[str, str | None]:
    """(outcome, infra_error kind) of one Harbor trial.

    A reward means the verifier judged the final state, so it decides, whatever
    happened before: Harbor still verifies after an AgentTimeoutError or a non-zero
    agent exit, and scores that reward itself. Without a reward, an environment,
    setup or verifier failure is an infra_error (the agent was never measured); any
    other exception (AgentTimeoutError, a context-length error, a harness crash) is
    the agent's own failure. No reward and no exception means the trial was never
    scored at all: infra_error too, rather than a failure the agent did not earn.
    """
    if reward is not None:
        return ("pass" if reward >= PASS_REWARD else "fail"), None
    if exception_type is None:
        return "infra_error", "other"
    if _is_infra(exception_type):
        return "infra_error", "timeout" if "timeout" in exception_type.lower() else "other"
    return "fail", None


def _is_infra(exception_type: str) -> bool:
    return exception_type in _INFRA_TYPES or any(m in exception_type for m in _INFRA_MARKERS)


def _harbor_model(obj: dict[str, Any]) -> str | None:
    """The model as the job config spelt it ("anthropic/claude-…"), else agent_info's."""
    configured = _get(obj, ("config", "agent", "model_name"))
    if isinstance(configured, str) and configured.strip():
        return configured.strip()
    info = _get(obj, ("agent_info", "model_info"))
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return None
    name, provider = info["name"].strip(), info.get("provider")
    if not name:
        return None
    if isinstance(provider, str) and provider.strip() and not name.startswith(f"{provider}/"):
        return f"{provider.strip()}/{name}"
    return name


def _harbor_reward(obj: dict[str, Any], report: Callable[[str, str], None]) -> float | None:
    """`verifier_result.rewards.reward`; None when the verifier produced nothing."""
    rewards = _get(obj, ("verifier_result", "rewards"))
    if rewards is None:
        return None
    if not isinstance(rewards, dict):
        report("verifier_result.rewards", f"must be an object, not {_kind(rewards)}")
        return None
    if "reward" in rewards:
        key = "reward"
    elif len(rewards) == 1:  # a reward.json with one differently named value
        key = next(iter(rewards))
    elif not rewards:
        return None
    else:
        report("verifier_result.rewards", "has several rewards and none is named `reward`")
        return None
    value = rewards[key]
    if not _is_number(value):
        report(f"verifier_result.rewards.{key}", f"must be a number, not {_kind(value)}")
        return None
    return float(value)


def _exception_type(obj: dict[str, Any], report: Callable[[str, str], None]) -> str | None:
    info = obj.get("exception_info")
    if info is None:
        return None
    name = info.get("exception_type") if isinstance(info, dict) else None
    if not isinstance(name, str) or not name.strip():
        report("exception_info.exception_type", "is required when exception_info is present")
        return None
    return name.strip().rsplit(".", 1)[-1]  # "modal.exception.X" -> "X"


def _harbor_tokens(obj: dict[str, Any], report: Callable[[str, str], None]) -> dict | None:
    counts = {
        key: _count(obj, ("agent_result", field), report)
        for key, field in (
            ("input", "n_input_tokens"),
            ("output", "n_output_tokens"),
            ("cached", "n_cache_tokens"),
        )
    }
    if counts["input"] is None or counts["output"] is None:
        return None  # the format needs both; half a count would mislead
    if counts["cached"] is None:
        del counts["cached"]
    return counts


def _harbor_times(obj: dict[str, Any], report: Callable[[str, str], None]) -> dict[str, Any]:
    """started_at/finished_at: the agent's own execution when Harbor timed it (trial
    totals include building the sandbox), else the whole trial's."""
    for path in (("agent_execution",), ()):
        started = _timestamp(obj, (*path, "started_at"), report)
        finished = _timestamp(obj, (*path, "finished_at"), report)
        if started is not None and finished is not None:
            if finished < started:
                report(".".join((*path, "finished_at")), "is before started_at")
                break
            return {"started_at": started.isoformat(), "finished_at": finished.isoformat()}
    return {"started_at": None, "finished_at": None}


def _timestamp(
    obj: dict[str, Any], path: tuple[str, ...], report: Callable[[str, str], None]
) -> datetime | None:
    value = _get(obj, path)
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if parsed is None:
        report(".".join(path), f"must be an ISO 8601 date-time, got {_show(value)}")
        return None
    # Older Harbor versions wrote local times without an offset. Reading both ends
    # of a span the same way keeps its duration, which is what the boards use.
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _harbor_extra(
    obj: dict[str, Any], source: str, reward: float | None, exception_type: str | None
) -> dict[str, Any]:
    """What the board does not use but a reader of the run page may want. `source`
    leaves out the converted folder's name, so renaming it keeps the same bytes."""
    message = _get(obj, ("exception_info", "exception_message"))
    agent = obj.get("agent_info") if isinstance(obj.get("agent_info"), dict) else {}
    extra = {
        "source": source,
        "trial_name": obj.get("trial_name"),
        "task_checksum": obj.get("task_checksum"),
        "agent": {k: agent.get(k) for k in ("name", "version") if agent.get(k) is not None},
        "rewards": _get(obj, ("verifier_result", "rewards")),
        "reward": reward,
        "exception_type": exception_type,
        "exception_message": message[:_MESSAGE_CHARS] if isinstance(message, str) else None,
    }
    return {k: v for k, v in extra.items() if v not in (None, {})}


def _trial_folder(label: str) -> str:
    """The trial folder of a result.json label, relative to the converted folder
    (so that renaming a job folder keeps the run ids); the folder's own name when
    the converted folder is the trial."""
    parts = label.split("/")
    return "/".join(parts[1:-1]) if len(parts) >= 3 else parts[0]


def _task_id(task_name: str, suite: str) -> str:
    # Harbor registry tasks may be named "<dataset>/<task>"; the registry's ids are
    # the suite's own, so a leading "<suite>/" is dropped.
    return task_name.removeprefix(f"{suite}/")


def _number_harbor_trials(
    trials: list[_HarborTrial], suite: str, suite_version: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """Runs in a stable order, trials numbered 1..n per (task, model) by trial name."""
    groups: dict[tuple[str, str], list[_HarborTrial]] = defaultdict(list)
    for trial in trials:
        groups[(trial.task_id, trial.model)].append(trial)
    run_ids = _UniqueIds()
    runs, sources = [], []
    for key in sorted(groups):
        ordered = sorted(groups[key], key=lambda t: (t.name, t.label))
        for number, trial in enumerate(ordered, 1):
            runs.append(
                {
                    "run_id": run_ids.take(trial.name),
                    "suite": suite,
                    "suite_version": suite_version,
                    "task_id": trial.task_id,
                    "model": trial.model,
                    "trial": number,
                    **trial.fields,
                }
            )
            sources.append(trial.label)
    return runs, sources


# ------------------------------------------------------------------ τ-bench


def convert_tau_bench(
    path: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str,
    out: Output,
) -> Conversion:
    """Convert a τ-bench results file into a bundle at `out`.

    Raises BundleRejected naming the file (and the item, as its line) of each problem.
    """
    _check_parameters(harness, suite, suite_version)
    if not isinstance(model, str) or not model.strip():
        raise ValueError("a τ-bench conversion needs the model")
    path = Path(path)
    label = path.name
    errors = ErrorCollector()
    items = _tau_items(path, label)
    runs, sources, files = [], [], {}
    seen: dict[tuple[str, int], int] = {}
    run_ids = _UniqueIds()
    for number, item in enumerate(items, 1):
        run = _tau_run(item, number, label, errors, seen)
        if run is None:
            continue
        task_id, trial = run.pop("task_id"), run.pop("trial")
        run_id = run_ids.take(f"{path.stem}/{task_id}/{trial}")
        trajectory = run.pop("trajectory")
        if trajectory is not None:
            trajectory = _place_trajectory(trajectory, len(runs) + 1, files)
        runs.append(
            {
                "run_id": run_id,
                "suite": suite,
                "suite_version": suite_version,
                "task_id": task_id,
                "model": model.strip(),
                "trial": trial,
                **run,
                "trajectory": trajectory,
            }
        )
        sources.append(f"{label}:{number}")
    if not runs and not errors:
        errors.add(label, None, "", "holds no results")
    errors.raise_if_any()
    note = f"Imported from a τ-bench results file ({len(runs)} runs)."
    _write_bundle(out, _manifest(harness, "tau-bench", note), runs, files)
    return Conversion("tau-bench", len(runs), tuple(sources))


def _tau_items(path: Path, label: str) -> list[Any]:
    items = _load_or_reason(path)
    if isinstance(items, Exception):
        raise rejected(label, str(items))
    if not isinstance(items, list):
        raise rejected(label, f"must be a JSON list of results, not {_kind(items)}")
    return items


def _tau_run(
    item: Any, number: int, label: str, errors: ErrorCollector, seen: dict[tuple[str, int], int]
) -> dict[str, Any] | None:
    """One result as run fields (with task_id and trial), or None after reporting."""

    def report(field: str, message: str) -> None:
        errors.add(label, number, field, message)

    if not isinstance(item, dict):
        report("", f"must be an object, not {_kind(item)}")
        return None
    before = errors.total
    task_id = _tau_task_id(item.get("task_id"), report)
    trial = item.get("trial")
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        report("trial", f"must be an integer ≥ 0 (τ-bench counts from 0), got {_show(trial)}")
    reward = item.get("reward")
    if not _is_number(reward):
        report("reward", f"must be a number, got {_show(reward)}")
    traj = item.get("traj")
    if traj is not None and not isinstance(traj, list):
        report("traj", f"must be a list of messages, not {_kind(traj)}")
    if errors.total > before:
        return None
    assert task_id is not None and isinstance(trial, int)
    first = seen.setdefault((task_id, trial), number)
    if first != number:
        report("trial", f"task {task_id!r} trial {trial} already appears as item {first}")
        return None
    turns = tau_turns(traj or [])
    return {
        "task_id": task_id,
        "trial": trial + 1,
        "outcome": "pass" if reward >= PASS_REWARD else "fail",
        "infra_error": None,
        "steps": sum(t["role"] == "assistant" for t in turns) if turns else None,
        "tool_calls": sum(len(t.get("tool_calls", ())) for t in turns) if turns else None,
        "trajectory": turns or None,
        "reward": reward,
        "info": item.get("info"),
    }


def _tau_task_id(value: Any, report: Callable[[str, str], None]) -> str | None:
    # τ-bench numbers its tasks; the registry names them, so 7 becomes "7".
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    report("task_id", f"must be a task number or name, got {_show(value)}")
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
    turn: dict[str, Any] = {"role": role, "text": _text(message.get("content"))}
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
    return {"tool": name, "arguments": _arguments(function.get("arguments")), "exit_code": None}


def _arguments(value: Any) -> dict[str, Any]:
    """Tool arguments as an object; OpenAI sends them as a JSON string."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value, parse_constant=_reject_constant)
        except ValueError:  # _NotJson (NaN) included
            return {"raw": value}
    return value if isinstance(value, dict) else {"value": value}


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return json.dumps(content, ensure_ascii=False)


def _place_trajectory(turns: list[dict[str, Any]], number: int, files: dict[str, bytes]) -> Any:
    """Inline, or for a long one a `trajectories/` file (the path goes in the run)."""
    data = _dumps(turns).encode()
    if len(data) <= INLINE_TRAJECTORY_BYTES:
        return turns
    path = f"trajectories/run-{number:06d}.json"
    files[path] = data
    return path


# ------------------------------------------------------------------- shared


class _UniqueIds:
    """run_ids made of the allowed characters, at most MAX_RUN_ID long, unique."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def take(self, name: str) -> str:
        base = _RUN_ID_UNSAFE.sub("-", name)[:MAX_RUN_ID] or "run"
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            suffix = f"-{n}"
            candidate = base[: MAX_RUN_ID - len(suffix)] + suffix
        self.taken.add(candidate)
        return candidate


def _check_parameters(harness: dict[str, Any], suite: str, suite_version: str) -> None:
    if not isinstance(harness, dict) or not harness.get("name") or not harness.get("version"):
        raise ValueError("the harness name and version are required")
    if not suite or not suite_version:
        raise ValueError("the suite and its version are required")


def _manifest(harness: dict[str, Any], native: str, notes: str) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "harness": {"contributors": [], **harness},
        "notes": notes,
        "source": {"name": native, "kind": "runs"},
    }


def _write_bundle(
    out: Output, manifest: dict[str, Any], runs: list[dict[str, Any]], files: dict[str, bytes]
) -> None:
    members = {
        "manifest.json": _dumps(manifest).encode() + b"\n",
        "runs.jsonl": b"".join(_dumps(run).encode() + b"\n" for run in runs),
        **files,
    }
    if isinstance(out, str | Path):
        with open(out, "wb") as target:
            _write_tar(target, members)
    else:
        _write_tar(out, members)


def _write_tar(target: BinaryIO, members: dict[str, bytes]) -> None:
    # filename="" keeps the output's name out of the gzip header: same input, same bytes.
    with (
        gzip.GzipFile(filename="", fileobj=target, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for name in sorted(members):
            data = members[name]
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid, info.gid, info.uname, info.gname = 0, 0, "", ""
            archive.addfile(info, io.BytesIO(data))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _reject_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not allowed in JSON")


def _load_json(path: Path) -> Any:
    """Parse a JSON file; _NotJson says why it is not valid (NaN and Infinity too)."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        raise _NotJson("is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise _NotJson(f"is not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    except _NotJson as exc:
        raise _NotJson(f"is not valid JSON: {exc}") from exc


def _get(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _number(obj: Any, path: tuple[str, ...], report: Callable[[str, str], None]) -> float | None:
    value = _get(obj, path)
    if value is None:
        return None
    if not _is_number(value) or value < 0:
        report(".".join(path), f"must be a number ≥ 0, got {_show(value)}")
        return None
    return value


def _count(obj: Any, path: tuple[str, ...], report: Callable[[str, str], None]) -> int | None:
    value = _number(obj, path, report)
    if value is None:
        return None
    if value != int(value):
        report(".".join(path), f"must be a whole number, got {_show(value)}")
        return None
    return int(value)


def _kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    return "null" if value is None else kinds.get(type(value), "a number")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "…"


def extract_job_archive(archive: Path, target: Path, *, max_members: int, max_bytes: int) -> None:
    """Unpack an uploaded .tar.gz/.tgz/.zip of a Harbor job folder into `target`.

    Refuses, before writing anything, what bundles refuse too: links, devices, absolute
    or `..` paths, more than `max_members` members or `max_bytes` declared bytes.
    """
    label = archive.name
    if zipfile.is_zipfile(archive):
        _extract_zip(archive, target, max_members, max_bytes, label)
    elif tarfile.is_tarfile(archive):
        _extract_tar(archive, target, max_members, max_bytes, label)
    else:
        raise BundleRejected(
            [BundleError(label, None, "", "not a valid archive (.tar.gz or .zip)")]
        )


def _check_member(name: str, label: str) -> None:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        raise BundleRejected(
            [BundleError(label, None, "", f"member {name!r}: absolute or '..' path")]
        )


def _check_totals(count: int, size: int, max_members: int, max_bytes: int, label: str) -> None:
    if count > max_members:
        raise BundleRejected([BundleError(label, None, "", f"more than {max_members:,} members")])
    if size > max_bytes:
        raise BundleRejected(
            [BundleError(label, None, "", f"more than {max_bytes:,} bytes unpacked")]
        )


def _extract_tar(archive: Path, target: Path, max_members: int, max_bytes: int, label: str) -> None:
    with tarfile.open(archive) as tar:
        members, size = [], 0
        while (member := tar.next()) is not None:
            _check_member(member.name, label)
            if not (member.isfile() or member.isdir()):
                raise BundleRejected(
                    [
                        BundleError(
                            label,
                            None,
                            "",
                            f"member {member.name!r}: links and devices are refused",
                        )
                    ]
                )
            members.append(member)
            size += member.size
            _check_totals(len(members), size, max_members, max_bytes, label)
        tar.extractall(target, members=members, filter="data")


def _extract_zip(archive: Path, target: Path, max_members: int, max_bytes: int, label: str) -> None:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            _check_member(info.filename, label)
        _check_totals(len(infos), sum(i.file_size for i in infos), max_members, max_bytes, label)
        zf.extractall(target)


def convert_native(
    fmt: str,
    path: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str | None,
    out: Output,
) -> Conversion:
    """Convert a Harbor job folder or a τ-bench results file, by `fmt`, into a bundle."""
    common = {"harness": harness, "suite": suite, "suite_version": suite_version, "out": out}
    if fmt == "harbor":
        return convert_harbor(path, model=model, **common)
    if fmt == "tau-bench":
        return convert_tau_bench(path, model=model or "", **common)
    raise ValueError(f"not a native format: {fmt!r}")
