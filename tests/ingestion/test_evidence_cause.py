"""The cause an announcement carries (ingestion.evidence.EvidenceCause), and how the
recompute's outbox scope gathers causes (leaderboard.recompute.outbox)."""

from __future__ import annotations

from ingestion.evidence import CAUSE_KIND_NAMES, CAUSE_LABEL_LENGTH, EvidenceCause
from leaderboard.models import RecomputeRequest
from leaderboard.recompute.outbox import RecomputeScope


def test_it_files_an_unknown_or_missing_kind_as_other():
    assert EvidenceCause().kind == "other"
    assert EvidenceCause("gremlins", 3, "x") == EvidenceCause("other", 3, "x")
    assert {"submission", "withdrawal", "conflict_decision", "registry"} <= CAUSE_KIND_NAMES


def test_it_cuts_a_long_label_to_the_stored_length():
    assert len(EvidenceCause("admin", label="x" * 500).label) == CAUSE_LABEL_LENGTH


def test_it_gathers_each_distinct_cause_once_in_arrival_order():
    scope = RecomputeScope()
    requests = [
        RecomputeRequest(pk=1, harness_ids=[1], cause_kind="submission", cause_record_id=7),
        RecomputeRequest(pk=2, harness_ids=[2], cause_kind="withdrawal", cause_record_id=3),
        RecomputeRequest(pk=3, harness_ids=[1], cause_kind="submission", cause_record_id=7),
        RecomputeRequest(pk=4, harness_ids=[1]),  # written before causes were recorded
    ]
    for request in requests:
        scope.add(request)
    assert scope.causes == [
        EvidenceCause("submission", 7),
        EvidenceCause("withdrawal", 3),
        EvidenceCause("other"),
    ]
    assert (scope.request_ids, scope.harness_ids) == ([1, 2, 3, 4], [1, 2])
