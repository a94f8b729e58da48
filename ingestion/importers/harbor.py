"""Harbor / Terminal-Bench 2 job folders: one `result.json` per trial
(`<job>/<trial_name>/result.json`), next to a job-level `result.json` summary.

What the native files lack (harness name/version/contributors, the suite and suite
version of the tasks, and the model when the trials name none) is given as
parameters. The converted bundle then takes the one normal ingest path.

Each converted run keeps the trial's own identity as `source_id` ("harbor:<id>"), so
the same trial is never stored twice for a harness. Trials of Harbor's reference
agents, or of an agent other than the folder's own, are refused and counted; a
trial's exception is judged by the table of `harbor_exceptions`.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector
from ingestion.importers.checks import checked_spool
from ingestion.importers.common import (
    PASS_REWARD,
    Conversion,
    NativeParams,
    Output,
    Report,
    ReportCounts,
    UniqueIds,
    capped_warnings,
    check_parameters,
    get,
    kind,
    manifest,
    number,
    write_bundle,
)
from ingestion.importers.harbor_config import harbor_recorded_config
from ingestion.importers.harbor_exceptions import (
    INFRA,
    ExceptionEvidence,
    Verdict,
    classify,
    read_exception,
)
from ingestion.importers.harbor_fields import (
    NATIVE_FIELDS,
    agent_name,
    harbor_model,
    harbor_reward,
    harbor_times,
    harbor_tokens,
    trial_id,
    trial_id_key,
)
from ingestion.importers.harbor_folder import check_sources, check_unique_ids, own_agent
from ingestion.importers.native_json import MAX_DOCUMENT_BYTES, load_or_reason
from ingestion.importers.run_config import run_config_resolve, with_warnings

RESULT_FILE = "result.json"
_MESSAGE_CHARS = 1000  # how much of a Harbor exception message is kept

# Keys that only a Harbor TrialResult has, and those of the job-level summary.
_TRIAL_KEYS = frozenset({"task_name", "trial_name", "verifier_result", "agent_result"})
_JOB_KEYS = frozenset({"n_total_trials", "stats"})
# The parts of a TrialResult read for the run: each an object or null. Any other shape
# is not "nothing recorded" (a trial without a verdict is an infra error): it is refused.
_OBJECT_KEYS = ("config", "agent_info", "agent_result", "verifier_result", "agent_execution")


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point."""
    return convert_harbor(
        path, harness=params.harness, suite=params.suite, suite_version=params.suite_version,
        model=params.model, out=out, max_file_bytes=max_document_bytes,
        run_config=params.run_config,
    )  # fmt: skip


def looks_like(path: Path, head: bytes) -> bool:
    """A folder holding a trial result.json, or one trial's result.json."""
    if path.is_dir():
        return next((obj for _, obj in walk_results(path) if is_trial(obj)), None) is not None
    return head.startswith(b"{") and path.name == RESULT_FILE and is_trial(load_or_reason(path))


def convert_harbor(
    folder: Path | str,
    *,
    harness: dict[str, Any],
    suite: str,
    suite_version: str,
    model: str | None = None,
    out: Output,
    max_file_bytes: int = MAX_DOCUMENT_BYTES,
    run_config: dict[str, Any] | None = None,
) -> Conversion:
    """Convert a Harbor job folder (or one trial's result.json) into a bundle at `out`.

    `model` names the model of the trials whose files name none; a trial naming its
    own keeps it; `run_config` the settings the files do not record (harbor_config).
    A result.json over `max_file_bytes` is reported, never read.
    Raises BundleRejected naming the native file of each problem.
    """
    check_parameters(harness, suite, suite_version)
    root = Path(folder)
    errors, notes = ErrorCollector(), _Notes(model=(model or "").strip() or None)
    results = list(_read_harbor_results(root, errors, max_file_bytes))
    if not results and not errors:
        errors.add(_label(root, root), None, "", f"no Harbor trial {RESULT_FILE} found here")
    check_unique_ids(((label, trial_id(obj)) for label, obj in results), errors)
    kept = _own_agents_trials(results, harness["name"], _label(root, root), errors, notes)
    check_sources(
        ((label, _text(obj.get("source"))) for label, obj in kept), suite, suite_version, errors
    )
    trials = [
        trial
        for label, obj in kept
        if (trial := _harbor_trial(label, obj, suite, notes, errors)) is not None
    ]
    recorded = harbor_recorded_config(root, kept, max_file_bytes)
    where = _label(root, root)
    config = run_config_resolve(recorded, run_config or {}, label=where, errors=errors)
    errors.raise_if_any()
    runs, sources = _number_harbor_trials(trials, suite, suite_version)
    natives = {trial.label: trial.native for trial in trials}
    places = [{"file": label, "fields": natives[label]} for label in sources]
    spool = checked_spool(runs, places, errors)
    note = f"Imported from a Harbor job folder ({len(runs)} trials)."
    write_bundle(out, manifest(harness, "harbor", note, config), spool, {})
    report = with_warnings(notes.report(), recorded.warnings)
    return Conversion("harbor", len(runs), tuple(sources), report)


@dataclass
class _Notes:
    """What the conversion noticed without rejecting: Conversion.report."""

    model: str | None  # the --model given
    # Keyed by strings of the files (classes, agent and model names): bounded.
    unknown: ReportCounts = field(default_factory=ReportCounts)
    refused: ReportCounts = field(default_factory=ReportCounts)
    own_models: ReportCounts = field(default_factory=ReportCounts)  # other than --model

    def report(self) -> dict[str, Any]:
        report: dict[str, Any] = {}
        if self.unknown:
            report["unknown_exceptions"] = self.unknown.as_dict()
        if self.refused:
            report["refused"] = self.refused.as_dict()
        if self.own_models:
            models = self.own_models.as_dict()
            named = ", ".join(f"{m} ({n})" for m, n in models.items())
            report["warnings"] = capped_warnings(
                [
                    f"--model {self.model} was given, but {sum(models.values())} trial(s) "
                    f"name their own model ({named}): they keep it; --model only fills in "
                    "trials that name none"
                ]
            )
        return report


@dataclass
class _HarborTrial:
    label: str  # the result.json, relative to the folder's parent (for messages)
    name: str  # the trial folder, relative to the converted folder (for run_id)
    task_id: str
    model: str
    fields: dict[str, Any]  # the run's fields after task_id/model/trial
    native: dict[str, str]  # converted field → the result.json field it came from


def _read_harbor_results(
    root: Path, errors: ErrorCollector, max_bytes: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, parsed object) of every trial result.json, in path order; unreadable
    ones are reported (rather than silently dropping a trial)."""
    for path, obj in walk_results(root, max_bytes):
        label = _label(root, path)
        if isinstance(obj, Exception):
            errors.add(label, None, "", str(obj))
        elif not isinstance(obj, dict):
            errors.add(label, None, "", f"must be a JSON object, not {kind(obj)}")
        else:
            yield label, obj


def walk_results(root: Path, max_bytes: int = MAX_DOCUMENT_BYTES) -> Iterator[tuple[Path, Any]]:
    """(path, parsed object or the reason it is unreadable) of each trial result.json
    under `root` (or `root` itself when it is a file), in sorted path order.

    The job-level result.json (a summary with `stats`) is skipped, and a trial
    folder's own subfolders are not searched: its artifacts may hold any file,
    including one named result.json.
    """
    if root.is_file():
        yield root, load_or_reason(root, max_bytes)
        return
    for directory, subdirs, files in os.walk(root):
        subdirs.sort()
        if RESULT_FILE not in files:
            continue
        path = Path(directory) / RESULT_FILE
        obj = load_or_reason(path, max_bytes)
        if is_trial(obj):
            subdirs.clear()
            yield path, obj
        elif isinstance(obj, Exception) or not isinstance(obj, dict):
            yield path, obj  # reported, rather than silently dropping a trial


def is_trial(obj: Any) -> bool:
    """A Harbor TrialResult (the job-level summary also has started_at, never these)."""
    if not isinstance(obj, dict) or (_JOB_KEYS & obj.keys() and "task_name" not in obj):
        return False
    return bool(_TRIAL_KEYS & obj.keys())


def _label(root: Path, path: Path) -> str:
    """The file as errors name it: relative to the converted folder's parent."""
    if root.is_file():
        return f"{root.resolve().parent.name}/{root.name}"
    return (Path(root.resolve().name) / path.relative_to(root)).as_posix()


def _own_agents_trials(
    results: list[tuple[str, dict[str, Any]]],
    harness_name: str,
    where: str,
    errors: ErrorCollector,
    notes: _Notes,
) -> list[tuple[str, dict[str, Any]]]:
    """The trials of the folder's own agent; the others are refused and counted."""
    agents = Counter(agent_name(obj) for _, obj in results)
    own = own_agent(agents, harness_name, errors, where)
    kept = [(label, obj) for label, obj in results if agent_name(obj) == own]
    for agent, n in agents.items():
        if agent != own:
            notes.refused.add(f"agent {agent}", n)
    if results and not kept and not errors:
        listed = ", ".join(f"{agent} ({n} trials)" for agent, n in sorted(agents.items()))
        errors.add(
            where, None, "config.agent.name",
            f"holds no trial of an agent under test, only Harbor's reference agents: {listed}",
        )  # fmt: skip
    return kept


def _harbor_trial(
    label: str, obj: dict[str, Any], suite: str, notes: _Notes, errors: ErrorCollector
) -> _HarborTrial | None:
    def report(field: str, message: str) -> None:
        errors.add(label, None, field, message)

    before = errors.total
    task_name = obj.get("task_name")
    if not isinstance(task_name, str) or not task_name.strip():
        report("task_name", "is required (a non-empty string)")
    id_key = trial_id_key(obj) or "id"
    if obj.get(id_key) is not None and not isinstance(obj[id_key], str):
        report(id_key, f"must be a string (the trial's own id), not {kind(obj[id_key])}")
    misshapen = [k for k in _OBJECT_KEYS if not isinstance(obj.get(k), dict | None)]
    for key in misshapen:
        report(key, f"must be an object or null, not {kind(obj[key])}")
    if misshapen:
        return None
    model = _trial_model(obj, notes, report)
    reward = harbor_reward(obj, report)
    evidence = _exception_evidence(obj, report)
    verdict = classify(evidence) if evidence is not None else None
    if reward is None and evidence is not None and verdict is not None and not verdict.known:
        notes.unknown.add(evidence.dotted)  # it decided the outcome: a moderator looks
    outcome, infra_error = harbor_outcome(reward, verdict)
    times, timed = harbor_times(obj, report)
    fields: dict[str, Any] = {
        "outcome": outcome,
        "infra_error": infra_error,
        "cost_usd": number(obj, ("agent_result", "cost_usd"), report),
        "tokens": harbor_tokens(obj, report),
        **times,
        # Never cut: two long ids sharing their start would pass for one trial.
        "source_id": f"harbor:{trial_id(obj) or _trial_folder(label)}",
    }
    if errors.total > before:
        return None
    assert isinstance(task_name, str) and model is not None
    name = _trial_folder(label)
    fields["harbor"] = _harbor_extra(obj, f"{name}/{RESULT_FILE}", reward, evidence, verdict)
    native = {
        **NATIVE_FIELDS,
        "source_id": trial_id_key(obj) or "trial_name",
        "started_at": ".".join(part for part in (timed, "started_at") if part),
        "finished_at": ".".join(part for part in (timed, "finished_at") if part),
    }
    return _HarborTrial(label, name, _task_id(task_name.strip(), suite), model, fields, native)


def _trial_model(obj: dict[str, Any], notes: _Notes, report: Report) -> str | None:
    """The trial's own model; --model only for a trial naming none (never crediting
    a trial to a model it did not run)."""
    own = harbor_model(obj)
    if own is not None and notes.model is not None and own != notes.model:
        notes.own_models.add(own)
    if own is None and notes.model is None:
        report(
            "agent_info.model_info",
            "names no model (nor does config.agent.model_name); give the model as a parameter",
        )
    return own or notes.model


def harbor_outcome(reward: float | None, verdict: Verdict | None) -> tuple[str, str | None]:
    """(outcome, infra_error kind) of one Harbor trial.

    A passing reward is a pass, whatever happened before: the verifier judged the
    final state good. A failing reward is the agent's fail, unless the trial's
    exception is the environment's (an infra verdict of harbor_exceptions.RULES):
    Harbor still verifies after an AgentTimeoutError or a non-zero agent exit, and
    an installed agent's provider crashes (ApiRateLimitError, ApiInternalServerError,
    …) are kinds of non-zero exit, so the verifier then judged a state the provider
    cut short: infra_error of that kind. Without a reward, the exception's verdict
    decides. No reward and no exception means the trial was never scored at all:
    infra_error too, rather than a failure the agent did not earn.
    """
    if reward is not None:
        if reward >= PASS_REWARD:
            return "pass", None
        if verdict is not None and verdict.outcome == INFRA:
            return INFRA, verdict.kind
        return "fail", None
    if verdict is None:
        return "infra_error", "other"
    return verdict.outcome, verdict.kind


def _exception_evidence(obj: dict[str, Any], report: Report) -> ExceptionEvidence | None:
    info = obj.get("exception_info")
    if info is None:
        return None
    name = info.get("exception_type") if isinstance(info, dict) else None
    if not isinstance(name, str) or not name.strip():
        report("exception_info.exception_type", "is required when exception_info is present")
        return None
    return read_exception(
        name,
        _text(info.get("exception_message")) or "",
        _text(info.get("exception_traceback")) or "",
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _harbor_extra(
    obj: dict[str, Any],
    source: str,
    reward: float | None,
    evidence: ExceptionEvidence | None,
    verdict: Verdict | None,
) -> dict[str, Any]:
    """What the board does not use but a reader of the run page may want. `source`
    leaves out the converted folder's name, so renaming it keeps the same bytes;
    `dataset` is the TrialResult's own `source`."""
    agent = obj.get("agent_info") if isinstance(obj.get("agent_info"), dict) else {}
    extra = {
        "source": source,
        "id": trial_id(obj) or None,
        "trial_name": obj.get("trial_name"),
        "dataset": obj.get("source"),
        "task_checksum": obj.get("task_checksum"),
        "agent": {k: agent.get(k) for k in ("name", "version") if agent.get(k) is not None},
        "rewards": get(obj, ("verifier_result", "rewards")),
        "reward": reward,
    }
    if evidence is not None and verdict is not None:
        extra |= {
            "exception_class": evidence.dotted,
            "exception_type": evidence.bare,
            "exception_message": evidence.message[:_MESSAGE_CHARS] or None,
            "raised_by": verdict.raised_by,
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
    run_ids = UniqueIds()
    runs, sources = [], []
    for key in sorted(groups):
        ordered = sorted(groups[key], key=lambda t: (t.name, t.label))
        for trial_number, trial in enumerate(ordered, 1):
            runs.append(
                {
                    "run_id": run_ids.take(trial.name),
                    "suite": suite,
                    "suite_version": suite_version,
                    "task_id": trial.task_id,
                    "model": trial.model,
                    "trial": trial_number,
                    **trial.fields,
                }
            )
            sources.append(trial.label)
    return runs, sources
