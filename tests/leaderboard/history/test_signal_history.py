"""Signal history written at each swap (leaderboard.history.services.signal_history_record):
a row per model only when its published figures change, a removal when it leaves."""

from __future__ import annotations

import pytest

from leaderboard.history.services import COMPOSITE_SCOPE, SIGNAL_FIGURES
from leaderboard.models import SignalHistory
from leaderboard.moderation.withdrawals import submission_withdraw
from leaderboard.recompute.services import boards_recompute, boards_recompute_pending
from leaderboard.signalboard import slices
from tests.leaderboard.signalboard.helpers import ingest_sessions, session

pytestmark = pytest.mark.django_db


def rows(model: str) -> list[SignalHistory]:
    return list(SignalHistory.objects.filter(model_name=model).order_by("pk"))


def test_it_names_the_composite_slice_and_every_published_figure():
    assert COMPOSITE_SCOPE == slices.COMPOSITE_SCOPE
    assert set(SIGNAL_FIGURES) == {"net_improvement", *slices.SIGNALS}


def test_it_writes_a_row_only_when_a_models_figures_change(registry, staff):
    ingest_sessions(staff, [session("s1", "m-a"), session("s2", "m-b", confirmation="no")])
    first = boards_recompute_pending()
    (row,) = rows("m-a")
    assert (row.snapshot_id, row.sessions, row.previous_id, row.removed) == (
        first.pk,
        1,
        None,
        False,
    )
    assert set(row.figures) == set(SIGNAL_FIGURES)
    assert row.figures["confirmed_success"]["value"] == 1.0
    assert set(row.figures["net_improvement"]) == {"value", "low", "high"}
    written = SignalHistory.objects.count()

    boards_recompute()  # nothing changed
    assert SignalHistory.objects.count() == written

    ingest_sessions(staff, [session("s3", "m-a", confirmation="no")])
    second = boards_recompute_pending()
    old, new = rows("m-a")
    assert (new.snapshot_id, new.sessions, new.previous_id) == (second.pk, 2, old.pk)
    assert new.figures["confirmed_success"]["value"] == 0.5
    assert [r.is_latest for r in rows("m-a")] == [False, True]


def test_a_model_that_leaves_the_board_gets_a_removal_row(registry, staff, moderator):
    ingest_sessions(staff, [session("s1", "m-a")])
    gone = ingest_sessions(staff, [session("s2", "m-b")])
    boards_recompute_pending()
    submission_withdraw(submission=gone, reason="duplicate", user=moderator)
    snapshot = boards_recompute_pending()
    shown, removed = rows("m-b")
    assert (removed.removed, removed.previous_id, removed.snapshot_id) == (
        True,
        shown.pk,
        snapshot.pk,
    )
    boards_recompute()
    assert len(rows("m-b")) == 2
