"""The agent view of the signal boards: rows per agent version instead of per model.

A session may name the agent it ran (ingestion Session.agent: a harness at one
version). The agent view scores exactly as the model view does (the same SessionTable,
the same slices, NIR with the same strata) over the sessions that name an agent, each
keyed by its (harness, version); sessions naming none are left out of it, and the page
says how many. Versions of one harness are ordered naturally (1.4.2 before 1.4.10:
ingestion.natural_order).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ingestion.natural_order import natural_key
from leaderboard.models import SignalEntry

MODEL, AGENT = SignalEntry.By.MODEL, SignalEntry.By.AGENT
BY_VIEWS = {MODEL: "Per model", AGENT: "Per agent version"}
# SignalEntry.model_name's width: an agent row's display name is cut to it.
NAME_WIDTH = SignalEntry._meta.get_field("model_name").max_length


def agent_of(key: str) -> tuple[str, str]:
    """(harness, version) of an agent-view key, the JSON text scored.py selects."""
    harness, version = json.loads(key)
    return harness, version


def agent_label(harness: str, version: str) -> str:
    return f"{harness} {version}"


def agent_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows computed with agent keys in place of model names, as agent-view rows."""
    return [_agent_row(row) for row in rows]


def _agent_row(row: dict[str, Any]) -> dict[str, Any]:
    harness, version = agent_of(row["model_name"])
    data = {k: v for k, v in row["data"].items() if k != "model"}
    data["agent"] = {"harness": harness, "version": version}
    return {
        **row,
        "by": AGENT,
        "model_name": agent_label(harness, version)[:NAME_WIDTH],
        "harness_name": harness,
        "harness_version": version,
        "data": data,
    }


def version_key(version: str) -> tuple[str, str]:
    """How versions of one harness are ordered: natural order (1.4.2 before 1.4.10)."""
    return natural_key(version)
