"""The SWE-bench site's published bash-only board, converted entry by entry and checked
against the figures the same file publishes (`../shared/realdata`, extracted to a
temporary folder, never copied here; skipped when absent).

Tolerances: a % resolved agrees within half a unit of its last published decimal; a
total and a mean cost within a millionth of themselves; a mean of API calls within
0.0005 (published with three decimals). Where the published rate is over 499 instances
or contradicts the flags, the report must say so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ingestion.bundles import BundleRejected
from tests.ingestion.importers.builders import read_back
from tests.ingestion.importers.realdata import extracted
from tests.ingestion.importers.swebench_builders import swebench

ARCHIVE = "swebench-bashonly.tar.xz"
TOP = "swebench-bashonly"


@pytest.fixture(scope="module")
def realdata(tmp_path_factory) -> Path:
    return extracted(ARCHIVE, (f"{TOP}/data", f"{TOP}/traps"), tmp_path_factory.mktemp("swe")) / TOP


def bash_only(folder: Path) -> list[dict]:
    boards = json.loads((folder / "data" / "leaderboards.json").read_text())["leaderboards"]
    [board] = [b for b in boards if b["name"] == "bash-only"]
    return board["results"]


def published_rate_agrees(rate: float, resolved: int, n: int) -> bool:
    decimals = len(repr(rate).split(".")[1]) if isinstance(rate, float) else 0
    return abs(rate - 100 * resolved / n) <= 0.5 * 10**-decimals + 1e-9


def test_it_reproduces_every_bash_only_entry_or_says_why_not(realdata, tmp_path):
    source = realdata / "data" / "leaderboards.json"
    entries = [e for e in bash_only(realdata) if e.get("per_instance_details")]
    assert len(entries) == 25
    over_499, contradicted = [], []
    for entry in entries:
        out = tmp_path / "out.tar.gz"
        conversion = swebench(source, out, entry=entry["folder"], model="m")
        runs = read_back(out)[1]
        n = len(entry["per_instance_details"])
        assert conversion.runs == len(runs) == n == 500
        totals = conversion.report["totals"]
        resolved = sum(r.outcome == "pass" for r in runs)
        assert totals["resolved"] == resolved
        cost = math.fsum(r.cost_usd for r in runs)
        calls = sum(r.tool_calls for r in runs)
        assert math.isclose(cost, entry["cost"], rel_tol=1e-6)
        assert math.isclose(cost / n, entry["instance_cost"], rel_tol=1e-6)
        assert abs(calls / n - entry["instance_calls"]) <= 0.0005
        notes = [w for w in conversion.report.get("warnings", []) if "% resolved" in w]
        if published_rate_agrees(entry["resolved"], resolved, n):
            assert notes == [], entry["name"]
        elif published_rate_agrees(entry["resolved"], resolved, 499):
            over_499.append(entry["name"])
            assert any(f"is {resolved} of 499 instances, not of the 500" in w for w in notes)
        else:
            contradicted.append(entry["name"])
            assert any("contradicts its per-instance flags" in w for w in notes)
        assert not [w for w in conversion.report.get("warnings", []) if "cost" in w or "calls" in w]
    assert len(over_499) == 2 and len(contradicted) == 1


def test_it_refuses_the_entries_that_publish_only_totals(realdata, tmp_path):
    source = realdata / "data" / "leaderboards.json"
    totals_only = [e for e in bash_only(realdata) if not e.get("per_instance_details")]
    assert len(totals_only) == 6
    for entry in totals_only:
        with pytest.raises(BundleRejected, match="publishes only its totals"):
            swebench(source, tmp_path / "out.tar.gz", entry=entry["folder"], model="m")


def test_it_cannot_tell_scrambled_instance_ids_from_one_file(realdata, tmp_path):
    """The trap file's totals are right and its flags sit on the wrong instances. From
    that file alone nothing disagrees (it publishes no figures, and its totals are
    consistent): the conversion reports its totals, which match the real entry's, and
    only the comparison with the other file (flags, and so source ids) shows it."""
    trap = realdata / "traps" / "info_for_leaderboard.json"
    real = {e["folder"]: e for e in bash_only(realdata) if e.get("per_instance_details")}
    for key, details in json.loads(trap.read_text()).items():
        conversion = swebench(trap, tmp_path / "trap.tar.gz", entry=key, model="m")
        totals = conversion.report["totals"]
        assert "warnings" not in conversion.report
        [match] = [e for e in real.values() if math.isclose(totals["cost_usd"], e["cost"])]
        assert set(details) == set(match["per_instance_details"])
        assert totals["resolved"] == sum(
            d["resolved"] for d in match["per_instance_details"].values()
        )
        assert abs(totals["api_calls"] / 500 - match["instance_calls"]) <= 0.0005

        swebench(realdata / "data" / "leaderboards.json", tmp_path / "real.tar.gz",
                 entry=match["folder"], model="m")  # fmt: skip
        trap_runs = {r.task_id: r for r in read_back(tmp_path / "trap.tar.gz")[1]}
        real_runs = {r.task_id: r for r in read_back(tmp_path / "real.tar.gz")[1]}
        flipped = {t for t in real_runs if real_runs[t].outcome != trap_runs[t].outcome}
        assert len(flipped) > 100  # the same resolved count, on other instances
        differ = {t for t in real_runs if real_runs[t].source_id != trap_runs[t].source_id}
        assert differ == flipped  # same cost and calls: only the verdict tells them apart
