"""Provenance on the signal boards: accounts, the largest share, the concentrated chip's
figures without that account, and the per-account rows of the snapshot."""

from __future__ import annotations

import math

import pytest

from leaderboard.methodology.stats import wilson_interval
from leaderboard.models import SignalEntry, SignalUploader
from leaderboard.signalboard.snapshot import signals_carry_over
from tests.leaderboard.signalboard.helpers import publish
from tests.leaderboard.signalboard.provenance_builders import two_accounts_board


def composite(snapshot, model: str) -> SignalEntry:
    return SignalEntry.objects.get(snapshot=snapshot, scope="all", by="model", model_name=model)


def test_it_marks_a_model_concentrated_and_shows_it_without_the_largest_account(
    registry, submitter, other_submitter
):
    two_accounts_board(submitter, other_submitter)
    snapshot = publish()

    alpha = composite(snapshot, "alpha").data["provenance"]
    assert (alpha["accounts"], alpha["largest_share"], alpha["largest_sessions"]) == (2, 0.75, 3)
    assert alpha["concentrated"] and alpha["conflict_excluded"] == 0
    # By hand (one stratum): without `submitter`, alpha keeps 1 session (confirmed) and
    # beta 4 (1 confirmed): μ = 0.4, observed 1 − 0.4 = 0.6, null mean 0, NIR = 0.6,
    # sd = sqrt(0.24 · (5 − 1)/(5 − 1)) = sqrt(0.24).
    without = alpha["without_largest"]
    assert without["sessions"] == 1
    assert without["net_improvement"]["value"] == pytest.approx(0.6)
    assert without["net_improvement"]["null_sd"] == pytest.approx(math.sqrt(0.24))
    low, high = wilson_interval(1, 1)
    assert without["confirmed_success"] == {"value": 1.0, "low": low, "high": high, "n": 1}


def test_it_adds_up_to_the_rows_own_sessions_and_confirmed_successes(
    registry, submitter, other_submitter
):
    two_accounts_board(submitter, other_submitter)
    snapshot = publish()
    for model in ("alpha", "beta"):
        entry = composite(snapshot, model)
        uploaders = SignalUploader.objects.filter(snapshot=snapshot, model_name=model)
        assert sum(u.sessions for u in uploaders) == entry.sessions
        confirmed = round(entry.data["confirmed_success"]["value"] * entry.sessions)
        assert sum(u.confirmed for u in uploaders) == confirmed


def test_it_keeps_one_row_per_model_and_account(registry, submitter, other_submitter):
    two_accounts_board(submitter, other_submitter)
    snapshot = publish()
    rows = SignalUploader.objects.filter(snapshot=snapshot).order_by("model_name", "-sessions")
    assert [(r.model_name, r.account_name, r.sessions, r.confirmed) for r in rows] == [
        ("alpha", "submitter", 3, 2),
        ("alpha", "other", 1, 1),
        ("beta", "other", 4, 1),
    ]
    beta = composite(snapshot, "beta").data["provenance"]
    assert (beta["accounts"], beta["largest_share"], beta["concentrated"]) == (1, 1.0, True)
    assert beta["without_largest"]["net_improvement"]["value"] is None


def test_it_carries_the_account_rows_over_with_the_boards(registry, submitter, other_submitter):
    two_accounts_board(submitter, other_submitter)
    current = publish()
    later = publish()
    later.signal_entries.all().delete()
    later.signal_uploaders.all().delete()
    signals_carry_over(current, later)
    keep = ("model_name", "account_id", "sessions", "confirmed", "conflict_excluded")
    assert list(later.signal_uploaders.order_by("pk").values_list(*keep)) == list(
        current.signal_uploaders.order_by("pk").values_list(*keep)
    )
    assert (
        composite(later, "alpha").data["provenance"]
        == composite(current, "alpha").data["provenance"]
    )
