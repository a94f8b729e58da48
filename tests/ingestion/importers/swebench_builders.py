"""SWE-bench results as the site and the harness write them, built in the tests (the
real files are third-party data: never copied here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ingestion.importers import NativeParams, convert_native

HARNESS = {"name": "mini-swe-agent", "version": "1.0.0", "contributors": []}
SUITE = {"suite": "swe-bench-verified", "suite_version": "1.0"}


def detail(resolved: bool = True, cost: float | None = 0.25, api_calls: int | None = 12) -> dict:
    """One instance of an entry's `per_instance_details`."""
    return {"api_calls": api_calls, "cost": cost, "resolved": resolved}


def instances(flags: list[bool], *, cost: float = 0.5, calls: int = 10) -> dict[str, dict]:
    """Instances `repo__repo-<n>` with these flags; instance n costs `cost` + n/100."""
    return {
        f"django__django-{1000 + n}": detail(flag, round(cost + n / 100, 2), calls + n)
        for n, flag in enumerate(flags)
    }


def entry(name: str, details: dict[str, Any] | None, **published: Any) -> dict[str, Any]:
    """One entry of the site's leaderboard file; the published figures given, else
    those its instances give."""
    figures: dict[str, Any] = {}
    if details:
        n = len(details)
        cost = sum(d["cost"] for d in details.values())
        figures = {
            "resolved": round(100 * sum(d["resolved"] for d in details.values()) / n, 2),
            "cost": cost, "instance_cost": cost / n,
            "instance_calls": sum(d["api_calls"] for d in details.values()) / n,
        }  # fmt: skip
    return {
        "name": name, "folder": f"20250101_mini-v1.0.0_{name.lower().replace(' ', '-')}",
        "mini-swe-agent_version": "1.0.0", "checked": True,
        **figures, **published, "per_instance_details": details,
    }  # fmt: skip


def leaderboards(*entries: dict[str, Any], board: str = "bash-only") -> dict[str, Any]:
    return {"leaderboards": [{"name": board, "results": list(entries)}]}


def write_json(folder: Path, value: Any, name: str = "leaderboards.json", indent=None) -> Path:
    path = folder / name
    path.write_text(json.dumps(value, indent=indent))
    return path


def run_report(**lists: list[str]) -> dict[str, Any]:
    """The harness's run report: these id lists and the counts it writes beside them."""
    report: dict[str, Any] = {f"{key[:-4]}_instances": len(ids) for key, ids in lists.items()}
    return {**report, **lists, "schema_version": 2}


def swebench(path: Path, out: Path, **params: Any):
    given = {"harness": HARNESS, **SUITE, **params}
    return convert_native("swebench", path, params=NativeParams(**given), out=out)
