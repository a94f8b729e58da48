"""AgentDojo's published runs, end to end, against its published results table: the
registry from its v1.1.2 ground truth with Arena's suite statement, the five pipelines'
benign and `important_instructions` runs (and gpt-4o-2024-05-13's other attacks)
uploaded, one recompute, and every published row of those pipelines found on the safety
board at two decimals: Utility, Utility under attack, Targeted ASR. The published
figures are read from the table in the test, never copied into the project. Real data,
extracted into a temporary folder; skipped when the shared folder is absent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ingestion.importers.agentdojo import default_model, task_ids_of_version
from ingestion.importers.references import agentdojo_registry
from ingestion.services.intake import NativeSource, submission_ingest
from ingestion.services.registry import registry_load
from leaderboard.models import BoardEntry, SafetyEntry
from leaderboard.recompute.services import boards_recompute
from tests.ingestion.importers.realdata import extracted

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

BASE = Path(__file__).resolve().parents[3] / "ingestion" / "fixtures" / "agentdojo-suite.json"
PIPELINES = (
    "claude-3-5-sonnet-20241022",
    "claude-3-7-sonnet-20250219",
    "gpt-4o-2024-05-13",
    "gpt-4o-2024-05-13-tool_filter",
    "gpt-4o-mini-2024-07-18",
)
BENIGN = "none"


def _published(table: str) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    """{(model, defence, attack): (Utility, Utility under attack, Targeted ASR)}."""
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, re.S):
        cells = [re.sub(r"<.*?>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        if len(cells) >= 7:
            rows[(cells[1], cells[2], cells[3])] = tuple(c.rstrip("%") for c in cells[4:7])
    return rows


def _harness(pipeline: str) -> str:
    """A defence is part of the agent: the harness's name, never the model's."""
    defence = pipeline.removeprefix(default_model(pipeline)).lstrip("-")
    return "agentdojo" + (f"-{defence}" if defence else "")


def _attacks(folder: Path) -> set[str]:
    return {p.parent.name for p in folder.glob("*/user_task_*/*/*.json")} - {BENIGN}


@pytest.fixture
def boards(tmp_path, submitter):
    members = ("agentdojo/derived/", "agentdojo/docs/", "agentdojo/runs/")
    root = extracted("agentdojo.tar.xz", members, tmp_path) / "agentdojo"
    base = json.loads(BASE.read_text())
    by_version = root / "derived" / "agentdojo_task_ids_by_version.json"
    registry_load(
        data=agentdojo_registry(
            root / "derived" / "agentdojo_v1.1.2_ground_truth_calls.json", by_version,
            suite=base["slug"], version=base["version"], benchmark_version="v1.1.2", base=base,
        )
    )  # fmt: skip
    keep = tuple(task_ids_of_version(json.loads(by_version.read_text()), "v1.1.2"))
    published = _published((root / "docs" / "results-table.html").read_text())
    expected = {}
    for pipeline in PIPELINES:
        model = default_model(pipeline)
        defence = pipeline.removeprefix(model).lstrip("-") or "None"
        folder = root / "runs" / pipeline
        attacks = sorted(a for a in _attacks(folder) if (model, defence, a) in published)
        for attack in (BENIGN, *attacks):
            native = NativeSource(
                format="agentdojo", harness=_harness(pipeline), harness_version="1",
                suite=base["slug"], suite_version=base["version"], task_ids=keep,
                attack=None if attack == BENIGN else attack,
            )  # fmt: skip
            submission, _ = submission_ingest(
                upload=folder, user=submitter, filename=f"{pipeline}-{attack}.agentdojo",
                native=native,
            )  # fmt: skip
            assert submission.status == "ingested", submission.errors[:3]
            if attack != BENIGN:
                expected[(_harness(pipeline), model, attack)] = published[(model, defence, attack)]
    boards_recompute()
    return base["slug"] + "-" + base["version"], expected


def _percent(value: float) -> str:
    return f"{100 * value:.2f}"


def test_it_reproduces_every_published_row_of_the_five_pipelines(boards):
    slug, expected = boards
    # Five pipelines under important_instructions, gpt-4o-2024-05-13 under four more.
    assert len(expected) == 9
    rows = SafetyEntry.objects.filter(snapshot__is_current=True, board_slug=slug)
    found = {
        (r.harness_name, r.model_name, r.attack): (
            _percent(r.benign_utility), _percent(r.utility), _percent(r.asr),
        )
        for r in rows
    }  # fmt: skip
    assert found == expected
    # The pass-rate board stays the benign utility: the runs under attack never count.
    entries = BoardEntry.objects.filter(board__snapshot__is_current=True, board__slug=slug)
    assert {e.n for e in entries} == {97}
    _ranked_by_the_stated_rule(slug)


def _ranked_by_the_stated_rule(slug: str) -> None:
    # One upload of the five pipelines serves both checks (it is the slow part).
    rows = list(
        SafetyEntry.objects.filter(
            snapshot__is_current=True, board_slug=slug, attack="important_instructions"
        ).order_by("position")
    )
    assert len(rows) == 5
    ranked = [r for r in rows if r.rank is not None]
    assert all(r.asr_high <= 0.10 for r in ranked)
    assert all(r.asr_high > 0.10 for r in rows if r.rank is None)
    lows = [r.utility_low for r in ranked]
    assert lows == sorted(lows, reverse=True)
    assert [r.rank for r in ranked] == list(range(1, len(ranked) + 1))
