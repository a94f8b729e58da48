"""The SWE-bench site's bash-only board through Arena: its instances registered from the
file (`swebench_registry`), every entry with per-instance details uploaded, the board
recomputed. Each entry's pass rate, mean cost and mean API calls are its published
figures, and where the published % resolved is not its flags' (a 499 denominator, flags
that contradict it) the submission's report says so. Real data, extracted into a
temporary folder; skipped when the shared folder is absent.

Tolerances: the pass rate equals resolved flags / 500 exactly; the published % resolved
within half a unit of its last decimal; mean cost within a millionth of itself; mean
calls within 0.0005 (published with three decimals).
"""

from __future__ import annotations

import json
import math

import pytest

from ingestion.importers.references import swebench_registry
from ingestion.models import Submission
from ingestion.services.intake import NativeSource, submission_ingest
from ingestion.services.registry import registry_load
from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.importers.realdata import extracted

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

TOP = "swebench-bashonly"
SUITE = {"slug": "swe-bench-verified", "version": "bash-only", "official": True, "joins": []}


def _published_agrees(rate: float, resolved: int, n: int) -> bool:
    decimals = len(repr(rate).split(".")[1]) if isinstance(rate, float) else 0
    return abs(rate - 100 * resolved / n) <= 0.5 * 10**-decimals + 1e-9


@pytest.fixture
def board(tmp_path, submitter):
    folder = extracted(f"{TOP}.tar.xz", (f"{TOP}/data",), tmp_path) / TOP
    source = folder / "data" / "leaderboards.json"
    registry_load(
        data=swebench_registry(source, suite=SUITE["slug"], version=SUITE["version"], base=SUITE)
    )
    boards = json.loads(source.read_text())["leaderboards"]
    [bash_only] = [b for b in boards if b["name"] == "bash-only"]
    entries = [e for e in bash_only["results"] if e.get("per_instance_details")]
    for entry in entries:
        native = NativeSource(
            format="swebench", harness="mini-swe-agent", harness_version="1",
            suite=SUITE["slug"], suite_version=SUITE["version"], model=entry["name"],
            entry=f"bash-only/{entry['name']}",
        )  # fmt: skip
        submission, _ = submission_ingest(
            upload=source, user=submitter, filename=f"{entry['folder']}.json", native=native
        )
        assert submission.status == "ingested", (entry["name"], submission.errors[:3])
    boards_recompute()
    return entries


def test_it_reproduces_every_bash_only_entry_or_reports_why_not(board):
    rows = {
        e.model_name: e
        for e in BoardEntry.objects.filter(
            board__slug="swe-bench-verified-bash-only", board__snapshot__is_current=True
        )
    }
    assert len(rows) == len(board) == 25
    differing = []
    for published in board:
        entry, flags = rows[published["name"]], published["per_instance_details"].values()
        resolved = sum(bool(f["resolved"]) for f in flags)
        assert (entry.n, entry.passes) == (500, resolved)
        mean_cost = entry.reported_cost_per_success * entry.passes / entry.n
        assert math.isclose(mean_cost, published["instance_cost"], rel_tol=1e-6)
        assert abs(entry.mean_tool_calls - published["instance_calls"]) <= 0.0005
        if not _published_agrees(published["resolved"], resolved, 500):
            differing.append(published["name"])
            report = json.dumps(
                Submission.objects.get(original_name=f"{published['folder']}.json").report
            )
            assert "499" in report or "contradict" in report, published["name"]
    assert len(differing) == 3  # two over 499 instances, one its flags contradict
