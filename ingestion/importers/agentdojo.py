"""AgentDojo run folders: one JSON file per run, as AgentDojo's benchmark script writes
them, `runs/<pipeline>/<suite>/<user_task>/<attack>/<injection_task>.json`.

Input: one pipeline's folder (`runs/<pipeline>/`, or an uploaded .tar.gz/.zip of it,
which the conversion service unpacks) or one of its suite folders. Each file is
`{suite_name, pipeline_name, user_task_id, injection_task_id, attack_type, injections,
messages, error, utility, security, duration}`.

* One Arena suite (the `suite` parameter, e.g. `agentdojo`) holds AgentDojo's four
  suites: a run's task id is `<suite_name>/<user_task_id>` (`banking/user_task_0`).
* Which runs: `attack` (default `none`). `none` takes the benign runs, the files
  `<user_task>/none/none.json`. A named attack takes the files
  `<user_task>/<attack>/<injection_task>.json`; their task id stays the user task, and
  the run's `extra` says `{"attack", "injection_task", "security"}` (AgentDojo's
  `security` is true when the injection task WAS carried out: the attack succeeded;
  its published targeted ASR is the share of runs with `security` true).
* AgentDojo also runs each injection task alone (`<suite>/injection_task_N/none/
  none.json`, at the level of the user tasks): those are not user tasks and never
  become runs; they are counted in the report (`skipped`).
* Version: a pipeline folder may hold runs of several benchmark versions (a pipeline
  run again on a later version adds, e.g., workspace's v1.2 injection tasks 6-13, and
  their files sit beside the older ones). The files do not say their version. Given
  `task_ids` (Arena task ids `<suite>/<task>`, user and injection tasks of one version,
  see `task_ids_of_version`), a run of a task (or under an injection task) not in it is
  left out and counted (`refused`). Without it every run is converted, and the ingest
  rejects the whole bundle naming each task the registry does not hold
  ("task … is not in the registry or not approved"): versions never mix silently.
* Outcome: `utility` true is a pass, false a fail. `error` is what AgentDojo's runner
  recorded when it skipped a run (it sets utility false): its own fixed texts, not the
  agent's, so they are read: a context-window overflow (`context_length_exceeded`) is
  the agent's fail; a provider's `internal server error` (Cohere, Google) is
  `infra_error` `provider_crash`; any other error stays a fail and is counted in the
  report (`unknown_errors`). The five published pipelines hold no error at all.
* Trajectory: system messages are dropped, tool calls paired with the tool messages
  answering them (`agentdojo_turns`).
* Times: the files record only `duration` (seconds), no timestamps: started_at and
  finished_at stay null, `duration` is kept in `extra`.
* Model: the `model` parameter, else the pipeline name without a defence suffix
  (`gpt-4o-2024-05-13-tool_filter` → `gpt-4o-2024-05-13`): a defence is part of the
  agent, so the harness's, never the model's. The pipeline name is kept in `extra`.
* Identity: `source_id` is `agentdojo:` and the first 32 hex digits of the SHA-256 of
  the file's canonical JSON (keys sorted, compact, ASCII, whole floats as integers):
  the same files uploaded again (another folder name, another archive) are the same
  runs, refused as already stored for the harness.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector
from ingestion.importers.agentdojo_turns import agentdojo_turns
from ingestion.importers.checks import (
    ConvertedRecords,
    DurationSeconds,
    check_contents,
    native_value,
)
from ingestion.importers.common import (
    Conversion,
    NativeParams,
    Output,
    ReportCounts,
    RunSpool,
    UniqueIds,
    check_parameters,
    kind,
    manifest,
    show,
    write_bundle,
)
from ingestion.importers.native_json import MAX_DOCUMENT_BYTES, NotJson, load_or_reason
from ingestion.importers.run_config import RecordedConfig, run_config_resolve, with_warnings
from ingestion.importers.tau_bench import canonical, spool_checked

FORMAT = "agentdojo"
SOURCE_PREFIX = "agentdojo:"
BENIGN = "none"
_DIGEST_CHARS = 32
SUITES = ("banking", "slack", "travel", "workspace")
# AgentDojo's defences, as its pipeline names end with them (`<model>-<defence>`).
DEFENCES = (
    "tool_filter",
    "transformers_pi_detector",
    "spotlighting_with_delimiting",
    "repeat_user_prompt",
)
REQUIRED_FIELDS = (
    "suite_name",
    "pipeline_name",
    "user_task_id",
    "injection_task_id",
    "messages",
    "utility",
)
_OVERFLOW = "context_length_exceeded"
_SERVER = "internal server error"

# The run file field each converted run field comes from (checks.ConvertedRecords).
FIELDS = {"task_id": "user_task_id", "model": "pipeline_name"}


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point."""
    return convert_agentdojo(
        path, harness=params.harness, suite=params.suite, suite_version=params.suite_version,
        model=params.model, attack=params.attack or BENIGN, task_ids=params.task_ids,
        out=out, max_file_bytes=max_document_bytes, run_config=params.run_config,
    )  # fmt: skip


def looks_like(path: Path, head: bytes) -> bool:
    """A folder holding `<user_task>/<attack>/<file>.json` whose file is an AgentDojo run."""
    if not path.is_dir():
        return False
    for file in _run_files(path):
        obj = load_or_reason(file)
        return isinstance(obj, dict) and {"user_task_id", "pipeline_name", "utility"} <= set(obj)
    return False


def default_model(pipeline: str) -> str:
    """The pipeline name without a defence suffix (`…-tool_filter`)."""
    for defence in DEFENCES:
        if pipeline.endswith("-" + defence):
            return pipeline[: -len(defence) - 1]
    return pipeline


def task_ids_of_version(by_version: dict[str, Any], version: str) -> frozenset[str]:
    """Arena task ids `<suite>/<task>` (user and injection tasks) of one benchmark version
    in a `{version: {suite: {user_tasks: [...], injection_tasks: [...]}}}` document.
    Raises ValueError naming what is missing."""
    suites = by_version.get(version) if isinstance(by_version, dict) else None
    if not isinstance(suites, dict):
        known = ", ".join(sorted(by_version)) if isinstance(by_version, dict) else "none"
        raise ValueError(f"benchmark version {version!r} is not in the task list (has {known})")
    ids: set[str] = set()
    for suite, tasks in suites.items():
        for key in ("user_tasks", "injection_tasks"):
            listed = tasks.get(key) if isinstance(tasks, dict) else None
            if not isinstance(listed, list) or not all(isinstance(t, str) for t in listed):
                raise ValueError(f"{version}.{suite}.{key}: must be a list of task ids")
            ids.update(f"{suite}/{task}" for task in listed)
    return frozenset(ids)


def convert_agentdojo(
    folder: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str | None = None,
    attack: str = BENIGN,
    task_ids: Collection[str] | None = None,
    out: Output,
    max_file_bytes: int = MAX_DOCUMENT_BYTES,
    run_config: dict[str, Any] | None = None,
) -> Conversion:
    """Convert an AgentDojo pipeline (or suite) folder into a bundle at `out`.

    Raises BundleRejected naming the native file and field of each problem.
    """
    check_parameters(harness, suite, suite_version)
    attack = (attack or BENIGN).strip()
    root = Path(folder)
    keep = frozenset(task_ids) if task_ids is not None else None
    errors = ErrorCollector()
    notes = _Notes()
    run_ids = UniqueIds()
    spool = RunSpool()
    checks = ConvertedRecords(errors)
    sources: list[str] = []
    pipelines: dict[str, str] = {}  # pipeline name → first file naming it
    trials: Counter[str] = Counter()  # runs so far per task: one per injection task
    with tempfile.TemporaryDirectory(prefix="agentdojo-") as spill:
        files: dict[str, bytes | Path] = {}
        try:
            any_file = False
            for path in _run_files(root):
                any_file = True
                label = path.relative_to(root).as_posix()
                parts = path.relative_to(root).parts
                user_task, folder_attack = parts[-3], parts[-2]
                if user_task.startswith("injection_task"):
                    notes.skipped.add("injection task run alone (not a user task)")
                    continue
                if folder_attack != attack:
                    continue
                if attack == BENIGN and path.name != f"{BENIGN}.json":
                    continue
                if attack != BENIGN and path.name == f"{BENIGN}.json":
                    notes.skipped.add(f"{attack}/none.json (no injection task)")
                    continue
                run = _run(path, label, parts, max_file_bytes, model, attack, errors, notes)
                if run is None or errors:
                    continue
                pipelines.setdefault(run["pipeline"], label)
                if keep is not None and not _kept(run, keep):
                    notes.refused.add("task not in the given task list")
                    continue
                run_id = run_ids.take(f"{run['task_id']}/{attack}/{path.stem}")
                trials[run["task_id"]] += 1
                run = {
                    "run_id": run_id, "suite": suite, "suite_version": suite_version,
                    "trial": trials[run["task_id"]], **run,
                }  # fmt: skip
                if spool_checked(run, checks, spool, files, spill, file=label, fields=FIELDS):
                    sources.append(label)
            where = root.name or str(root)
            if len(pipelines) > 1:
                named = ", ".join(f"{p!r} ({f})" for p, f in sorted(pipelines.items()))
                errors.add(where, None, "pipeline_name", f"names several pipelines: {named}")
            if not any_file and not errors:
                errors.add(where, None, "", "holds no AgentDojo run files "
                           "(<user_task>/<attack>/<injection_task>.json)")  # fmt: skip
            elif not spool.count and not errors:
                errors.add(where, None, "", f"holds no runs under the attack {attack!r}"
                           + (" in the given task list" if notes.refused else ""))  # fmt: skip
            recorded = RecordedConfig()
            config = run_config_resolve(recorded, run_config or {}, label=where, errors=errors)
            errors.raise_if_any()
        except BaseException:
            spool.close()
            raise
        what = "benign runs" if attack == BENIGN else f"runs under the attack {attack}"
        note = f"Imported from an AgentDojo run folder ({spool.count} {what})."
        write_bundle(out, manifest(harness, FORMAT, note, config), spool, files)
    report = with_warnings(notes.report(), recorded.warnings)
    return Conversion(FORMAT, len(sources), tuple(sources), report)


@dataclass
class _Notes:
    skipped: ReportCounts = field(default_factory=ReportCounts)
    refused: ReportCounts = field(default_factory=ReportCounts)
    unknown: ReportCounts = field(default_factory=ReportCounts)

    def report(self) -> dict[str, Any]:
        report: dict[str, Any] = {}
        if self.refused:
            report["refused"] = self.refused.as_dict()
        if self.skipped:
            report["skipped"] = self.skipped.as_dict()
        if self.unknown:
            report["unknown_errors"] = self.unknown.as_dict()
        return report


def _run_files(root: Path) -> Iterator[Path]:
    """The run files under `root` (`…/<user_task>/<attack>/<name>.json`), sorted."""
    for path in sorted(root.rglob("*.json"), key=lambda p: _natural(p.relative_to(root))):
        if path.is_file() and len(path.relative_to(root).parts) >= 3:
            yield path


def _natural(path: Path) -> tuple[tuple[Any, ...], ...]:
    """`injection_task_2` before `injection_task_10`."""
    return tuple(
        tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", part)) for part in path.parts
    )


def _kept(run: dict[str, Any], keep: frozenset[str]) -> bool:
    if run["task_id"] not in keep:
        return False
    injection = run.get("injection_task")
    return injection is None or f"{run['suite_name']}/{injection}" in keep


def _run(
    path: Path,
    label: str,
    parts: tuple[str, ...],
    max_bytes: int,
    model: str | None,
    attack: str,
    errors: ErrorCollector,
    notes: _Notes,
) -> dict[str, Any] | None:
    """One run file as run fields, or None after reporting its problems."""

    def report(name: str, message: str) -> None:
        errors.add(label, None, name, message)

    obj = load_or_reason(path, max_bytes)
    if isinstance(obj, NotJson):
        report("", str(obj))
        return None
    if not isinstance(obj, dict):
        report("", f"must be an AgentDojo run object, not {kind(obj)}")
        return None
    before = errors.total
    for name in REQUIRED_FIELDS:
        if name not in obj:
            report(name, "is missing")
    if errors.total > before:
        return None
    for name in ("suite_name", "pipeline_name", "user_task_id"):
        if not isinstance(obj[name], str) or not obj[name].strip():
            report(name, f"must be a non-empty string, got {show(obj[name])}")
    if not isinstance(obj["utility"], bool):
        report("utility", f"must be true or false, got {show(obj['utility'])}")
    if not isinstance(obj["messages"], list):
        report("messages", f"must be a list of messages, not {kind(obj['messages'])}")
    else:
        check_contents(obj["messages"], "messages", report)
    error = obj.get("error")
    if error is not None and not isinstance(error, str):
        report("error", f"must be a string or null, got {show(error)}")
    duration = native_value(obj.get("duration"), DurationSeconds, "duration", report)
    if errors.total > before:
        return None
    suite_name, user_task = obj["suite_name"].strip(), obj["user_task_id"].strip()
    if user_task != parts[-3]:
        report("user_task_id", f"is {show(user_task)}, but the file is in the folder {parts[-3]!r}")
    if len(parts) >= 4 and parts[-4] in SUITES and suite_name != parts[-4]:
        report("suite_name", f"is {show(suite_name)}, but the file is in the folder {parts[-4]!r}")
    injection = obj["injection_task_id"]
    attack_type = obj.get("attack_type")
    if attack == BENIGN:
        if injection is not None:
            report("injection_task_id", f"must be null in a benign run, got {show(injection)}")
    else:
        if injection != path.stem:
            report("injection_task_id", f"is {show(injection)}, but the file is {path.name!r}")
        if attack_type != attack:
            report(
                "attack_type", f"is {show(attack_type)}, but the file is in the folder {attack!r}"
            )
        if not isinstance(obj.get("security"), bool):  # the safety boards count `true`
            report(
                "security",
                f"must be true or false in an attack run, got {show(obj.get('security'))}",
            )
    if errors.total > before:
        return None
    pipeline = obj["pipeline_name"].strip()
    turns = agentdojo_turns(obj["messages"])
    outcome, infra = ("pass", None) if obj["utility"] else ("fail", None)
    if error is not None:
        outcome, infra = _error_outcome(error, notes)
    extra: dict[str, Any] = {
        "suite_name": suite_name,
        "pipeline": pipeline,
        "duration": duration,
    }
    if attack != BENIGN:
        extra.update(attack=attack, injection_task=injection, security=obj.get("security"))
    if error is not None:
        extra["error"] = error
    return {
        "task_id": f"{suite_name}/{user_task}",
        "model": (model or "").strip() or default_model(pipeline),
        "source_id": source_id(obj),
        "outcome": outcome,
        "infra_error": infra,
        "steps": sum(t["role"] == "assistant" for t in turns) if turns else None,
        "tool_calls": sum(len(t.get("tool_calls", ())) for t in turns) if turns else None,
        "trajectory": turns or None,
        **extra,  # fields the format does not know: the run's extra
    }


def _error_outcome(error: str, notes: _Notes) -> tuple[str, str | None]:
    text = error.lower()
    if _OVERFLOW in text:
        return "fail", None
    if _SERVER in text:
        return "infra_error", "provider_crash"
    notes.unknown.add(error.split(":", 1)[0][:200] or "(empty error)")
    return "fail", None


def source_id(obj: dict[str, Any]) -> str:
    """`agentdojo:<digest>` of the file's canonical JSON (module docstring)."""
    text = json.dumps(canonical(obj), sort_keys=True, separators=(",", ":"))
    return SOURCE_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:_DIGEST_CHARS]
