"""The signal boards in a board snapshot (leaderboard.signalboard.snapshot): written,
carried over, or computed when there is nothing to carry over.
"""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from leaderboard.models import BoardSnapshot, SignalEntry
from leaderboard.signalboard.compute import signal_rows
from leaderboard.signalboard.slices import CAPABILITIES, SCENARIOS
from leaderboard.signalboard.snapshot import signals_carry_over
from tests.builders import EXAMPLE_SESSIONS_BUNDLE
from tests.leaderboard.signalboard.helpers import (
    api_entries,
    ingest,
    ingest_sessions,
    publish,
    session,
)

# --- snapshot hooks ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_writes_every_slice_into_the_snapshot(reference):
    scopes = set(SignalEntry.objects.filter(snapshot=reference).values_list("scope", "slice_kind"))
    assert ("all", "composite") in scopes
    assert {(s, "scenario") for s in SCENARIOS} <= scopes
    assert {(f"capability:{c}", "capability") for c in CAPABILITIES} <= scopes
    reference.refresh_from_db()
    assert reference.sessions_total == 300
    for row in SignalEntry.objects.filter(snapshot=reference):
        json.dumps(row.data, allow_nan=False)


@pytest.mark.django_db(transaction=True)
def test_it_carries_the_signal_rows_over_to_a_new_snapshot(reference):
    new = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(reference, new)
    fields = ("scope", "slice_kind", "greyed", "position", "rank", "model_name", "sessions", "data")
    before = list(reference.signal_entries.order_by("scope", "position").values_list(*fields))
    after = list(new.signal_entries.order_by("scope", "position").values_list(*fields))
    assert after == before
    new.refresh_from_db()
    assert new.sessions_total == 300


@pytest.mark.django_db(transaction=True)
def test_it_computes_the_boards_when_there_is_nothing_to_carry_over(registry, staff):
    ingest(staff, EXAMPLE_SESSIONS_BUNDLE)
    empty = BoardSnapshot.objects.create(computed_at=timezone.now())
    SignalEntry.objects.filter(snapshot=empty).delete()
    new = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(empty, new)
    assert new.signal_entries.filter(scope="all").count() == 3
    newer = BoardSnapshot.objects.create(computed_at=timezone.now())
    signals_carry_over(None, newer)
    assert newer.signal_entries.filter(scope="all").count() == 3


@pytest.mark.django_db(transaction=True)
def test_it_publishes_the_shell_success_rate_per_model(registry, staff):
    toolset = [{"name": "sandbox", "kind": "shell"}, "read_file"]
    turns = [
        {"role": "user", "text": "Build it.", "label": None},
        {
            "role": "assistant",
            "text": "Done.",
            "tool_calls": [
                {"tool": "sandbox", "arguments": {"command": "make"}, "exit_code": 2},
                {"tool": "sandbox", "arguments": {"command": "make"}, "exit_code": 0},
                {"tool": "bash", "arguments": {"command": "ls"}, "exit_code": None},
                {"tool": "read_file", "arguments": {"path": "x"}, "exit_code": 1},
            ],
        },
    ]
    ingest_sessions(
        staff,
        [
            session("s-1", toolset=toolset, turns=turns),
            session("s-2"),  # one bash call exiting 0
            session("s-3", toolset=None, turns=turns[:1]),  # no shell calls
        ],
    )
    publish()
    (entry,) = api_entries()
    assert entry["shell_success"]["calls"] == 3
    assert entry["shell_success"]["value"] == pytest.approx(2 / 3)
    (capability,) = api_entries(capability="shell_success")
    assert capability["sessions"] == 2  # the session without shell calls is not scored


@pytest.mark.django_db
def test_it_computes_no_rows_without_sessions():
    assert signal_rows() == []
