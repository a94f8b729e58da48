"""The values of one Harbor TrialResult the runs use: its identity and agent, model,
reward, tokens and times.

Pure: no Django. Each parser reports what is wrong through `report(field, message)`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ingestion.importers.checks import native_reward
from ingestion.importers.common import Report, count, get, kind, timestamp

# The result.json field each converted run field comes from (checks.ConvertedRecords).
NATIVE_FIELDS = {
    "task_id": "task_name",
    "model": "config.agent.model_name",
    "cost_usd": "agent_result.cost_usd",
    "tokens.input": "agent_result.n_input_tokens",
    "tokens.output": "agent_result.n_output_tokens",
    "tokens.cached": "agent_result.n_cache_tokens",
    "run_id": "trial_name",
}


def trial_id(obj: dict[str, Any]) -> str:
    """The trial's own identity: TrialResult.id (a UUID Harbor gives every trial).
    Harbor versions before `id` existed wrote none; their trial_name (the trial
    folder's name, a task prefix and a random suffix) is the identity then. An id
    that is not a string is no identity (`trial_id_key` names the field to report)."""
    key = trial_id_key(obj)
    value = obj.get(key) if key else None
    return value.strip() if isinstance(value, str) else ""


def trial_id_key(obj: dict[str, Any]) -> str | None:
    """The field holding the trial's identity: `id`, else `trial_name`; None if neither."""
    for key in ("id", "trial_name"):
        value = obj.get(key)
        if value is not None and not (isinstance(value, str) and not value.strip()):
            return key
    return None


def agent_name(obj: dict[str, Any]) -> str:
    """The agent as the trial config names it (`oracle`, `terminus-2`, …); an agent
    given by import path has no name there, only in agent_info."""
    for path in (
        ("config", "agent", "name"),
        ("agent_info", "name"),
        ("config", "agent", "import_path"),
    ):
        value = get(obj, path)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "unnamed agent"


def harbor_model(obj: dict[str, Any]) -> str | None:
    """The model as the job config spelt it ("anthropic/claude-…"), else agent_info's."""
    configured = get(obj, ("config", "agent", "model_name"))
    if isinstance(configured, str) and configured.strip():
        return configured.strip()
    info = get(obj, ("agent_info", "model_info"))
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return None
    name, provider = info["name"].strip(), info.get("provider")
    if not name:
        return None
    if isinstance(provider, str) and provider.strip() and not name.startswith(f"{provider}/"):
        return f"{provider.strip()}/{name}"
    return name


def harbor_reward(obj: dict[str, Any], report: Report) -> float | None:
    """`verifier_result.rewards.reward`; None when the verifier produced nothing."""
    rewards = get(obj, ("verifier_result", "rewards"))
    if rewards is None:
        return None
    if not isinstance(rewards, dict):
        report("verifier_result.rewards", f"must be an object, not {kind(rewards)}")
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
    return native_reward(rewards[key], f"verifier_result.rewards.{key}", report)


def harbor_tokens(obj: dict[str, Any], report: Report) -> dict | None:
    counts = {
        key: count(obj, ("agent_result", field), report)
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


def harbor_times(obj: dict[str, Any], report: Report) -> tuple[dict[str, Any], str]:
    """started_at/finished_at: the agent's own execution when Harbor timed it (trial
    totals include building the sandbox), else the whole trial's; and the native
    object they came from ("agent_execution", or "" for the trial's own). Their
    bounds and order are the bundle validator's (checks.ConvertedRecords)."""
    for path in (("agent_execution",), ()):
        started = _timestamp(obj, (*path, "started_at"), report)
        finished = _timestamp(obj, (*path, "finished_at"), report)
        if started is not None and finished is not None:
            times = {"started_at": started.isoformat(), "finished_at": finished.isoformat()}
            return times, ".".join(path)
    return {"started_at": None, "finished_at": None}, ""


def _timestamp(obj: dict[str, Any], path: tuple[str, ...], report: Report) -> datetime | None:
    return timestamp(get(obj, path), ".".join(path), report)
