"""The run configuration a Harbor job folder records (importers' run_config module).

Where Harbor writes it:
* each trial's TrialConfig: the `config` of its result.json (as every real trial has
  it), else the trial folder's own config.json: `timeout_multiplier` (or
  `agent_timeout_multiplier`, which overrides it for the agent), the agent's
  `override_timeout_sec` (a fixed limit in place of the task's own) and its `kwargs`;
* each job folder's config.json (the JobConfig): `n_attempts`, the same multipliers,
  and its `agents` (used when it lists one agent under test).

Agent kwargs are the agent's own, so only these well-known names are read:
`temperature`, `reasoning_effort`, and a step budget as `max_turns` or
`max_episodes` (turns) or `max_steps` or `max_iterations` (steps).

Trials per task: the job folders' `n_attempts`, summed over the folders (each job
runs every task that many times), when every folder records it; otherwise the most
trials any task has in the upload.

Pure: no Django.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ingestion.importers.common import is_number
from ingestion.importers.harbor_folder import REFERENCE_AGENTS
from ingestion.importers.native_json import MAX_DOCUMENT_BYTES, load_or_reason
from ingestion.importers.run_config import RecordedConfig

CONFIG_FILE = "config.json"
# Agent kwargs → (run_config field, step unit for a step budget).
_KWARGS = {
    "temperature": ("temperature", None),
    "reasoning_effort": ("reasoning_effort", None),
    "max_turns": ("step_limit", "turn"),
    "max_episodes": ("step_limit", "turn"),
    "max_steps": ("step_limit", "step"),
    "max_iterations": ("step_limit", "step"),
}


def harbor_recorded_config(
    root: Path, trials: list[tuple[str, dict[str, Any]]], max_bytes: int = MAX_DOCUMENT_BYTES
) -> RecordedConfig:
    """What the trials (label, result.json object) of the folder `root` and their job
    folders' config.json record. `labels` are relative to the folder's parent."""
    recorded = RecordedConfig()
    folders = [_trial_folder(root, label) for label, _ in trials]
    for folder, (_, obj) in zip(folders, trials, strict=True):
        config = obj.get("config")
        where = "config"
        if not isinstance(config, dict):
            config, where = _read(folder / CONFIG_FILE, max_bytes), f"{folder.name}/{CONFIG_FILE}"
        if isinstance(config, dict):
            _add_trial_config(recorded, config, where)
    jobs = [_read(job / CONFIG_FILE, max_bytes) for job in sorted({f.parent for f in folders})]
    jobs = [job for job in jobs if _is_job_config(job)]
    for job in jobs:
        _add_trial_config(recorded, job, CONFIG_FILE, agent=_job_agent(job))
    attempts = [job.get("n_attempts") for job in jobs]
    # The configuration, even where trials are missing (the boards' coverage shows those).
    if jobs and len(jobs) == len({f.parent for f in folders}) and all(map(_count, attempts)):
        recorded.add("trials", sum(attempts), "the job folders' config.json n_attempts")
    else:
        counted = Counter(obj.get("task_name") for _, obj in trials)
        most = max(counted.values(), default=None)
        recorded.add("trials", most, "the trials per task of the upload")
    return recorded


def _add_trial_config(
    recorded: RecordedConfig, config: dict[str, Any], where: str, agent: Any = None
) -> None:
    """The fields of a TrialConfig (or, with the JobConfig's one `agent`, a JobConfig)."""
    multiplier, name = config.get("agent_timeout_multiplier"), "agent_timeout_multiplier"
    if multiplier is None:
        multiplier, name = config.get("timeout_multiplier"), "timeout_multiplier"
    recorded.add("timeout_multiplier", multiplier, f"{where}.{name}")
    agent = config.get("agent") if agent is None else agent
    if not isinstance(agent, dict):
        return
    agent_where = f"{where}.agent" if agent is config.get("agent") else f"{where}.agents[]"
    recorded.add(
        "time_limit_s", agent.get("override_timeout_sec"), f"{agent_where}.override_timeout_sec"
    )
    kwargs = agent.get("kwargs")
    if not isinstance(kwargs, dict):
        return
    for key, (field, unit) in _KWARGS.items():
        if key in kwargs:
            recorded.add(field, kwargs[key], f"{agent_where}.kwargs.{key}")
            if unit is not None:
                recorded.add("step_unit", unit, f"{agent_where}.kwargs.{key}")


def _job_agent(job: dict[str, Any]) -> dict[str, Any] | None:
    """The JobConfig's one agent under test (Harbor's reference agents aside), else None."""
    agents = job.get("agents")
    if not isinstance(agents, list):
        return None
    tested = [a for a in agents if isinstance(a, dict) and a.get("name") not in REFERENCE_AGENTS]
    return tested[0] if len(tested) == 1 else None


def _is_job_config(value: Any) -> bool:
    """A JobConfig (a TrialConfig names its trial; a job config its attempts or agents)."""
    return (
        isinstance(value, dict)
        and "trial_name" not in value
        and ("n_attempts" in value or "agents" in value)
    )


def _count(value: Any) -> bool:
    return is_number(value) and value == int(value) and value >= 1


def _read(path: Path, max_bytes: int) -> Any:
    """The parsed file, or None when it is absent or unreadable (a config file only
    adds what it states; the trials themselves were read already)."""
    if not path.is_file():
        return None
    value = load_or_reason(path, max_bytes)
    return None if isinstance(value, Exception) else value


def _trial_folder(root: Path, label: str) -> Path:
    """The folder of a trial's result.json, from its label (relative to the parent of
    the converted folder, or `<its folder>/result.json` for a lone file)."""
    if root.is_file():
        return root.resolve().parent
    return (root.resolve().parent / label).parent
