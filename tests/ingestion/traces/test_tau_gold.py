"""The published relation, on τ-bench's own gpt-4o airline trajectories: a run whose
write calls are the gold write calls (exact arguments, extra keys ignored, any order)
got reward 1, on the tasks whose reward is the database state alone (no required
outputs). Read from ../shared/realdata, extracted into a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingestion.importers.tau_bench import tau_turns
from ingestion.traces import TraceSpec, reference_calls_parse, run_trace, trace_spec_parse
from tests.ingestion.importers.realdata import HARBOR_TAU, extracted

AIRLINE_WRITES = [
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
]
RESULTS = "tau/gpt-4o-airline.json"


def _spec() -> TraceSpec:
    return trace_spec_parse({"write_tools": AIRLINE_WRITES, "ignored_tools": ["think"]}, None)


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> list[tuple[dict, dict[str, float | None]]]:
    """Each item of the file with its run's figures (extracted once for the module)."""
    return _scored(tmp_path_factory.mktemp("tau"))


def _scored(folder: Path) -> list[tuple[dict, dict[str, float | None]]]:
    folder = extracted(HARBOR_TAU, ("tau/",), folder)
    items = json.loads((folder / RESULTS).read_text(encoding="utf-8"))
    spec = _spec()
    scored = []
    for item in items:
        gold = item["info"]["task"]["actions"]
        reference = reference_calls_parse(
            [{"tool": a["name"], "arguments": a["kwargs"]} for a in gold], spec
        )
        trace = run_trace(tau_turns(item.get("traj") or []), reference, spec)
        assert trace.score is not None
        scored.append((item, trace.score.figures))
    return scored


def test_it_finds_every_run_with_the_gold_write_calls_rewarded(scored):
    premise = [
        item
        for item, figures in scored
        if not item["info"]["task"]["outputs"]
        and item["info"].get("reward_info")
        and figures["write_same_calls_args"] == 1.0
    ]
    assert premise, "no run made the gold write calls: the relation was not tested"
    assert [item["task_id"] for item in premise if item["reward"] != 1] == []


def test_it_scores_every_run_of_the_file(scored):
    assert len(scored) == 200
    for _, figures in scored:
        assert 0.0 <= figures["tool_f1"] <= 1.0
        accuracy = figures["argument_accuracy"]
        assert accuracy is None or 0.0 <= accuracy <= 1.0
