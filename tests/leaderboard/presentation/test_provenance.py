"""How a signal entry's provenance reads (leaderboard.presentation.provenance) and how
stable a figure is said to be (leaderboard.presentation.stability)."""

from __future__ import annotations

from leaderboard.presentation.provenance import provenance_view
from leaderboard.presentation.stability import SETTLED, UNRANKED, UNSETTLED, stability


def figures(**overrides) -> dict:
    without = {
        "sessions": 1,
        "confirmed_success": {"value": 1.0},
        "net_improvement": {"value": 0.6},
    }
    provenance = {
        "accounts": 2, "largest_share": 0.75, "largest_sessions": 3, "concentrated": True,
        "threshold": 0.5, "without_largest": without, "conflict_excluded": 0,
    }  # fmt: skip
    return {"provenance": {**provenance, **overrides}}


def test_it_reads_a_concentrated_entry_with_its_figures_without_the_account():
    view = provenance_view(figures())
    assert (view.accounts, view.largest_share, view.concentrated) == (2, "75.0%", True)
    assert (view.nir_without, view.confirmed_without) == ("+60.0 pp", "100.0%")
    assert view.chip_title.startswith("75.0% of its sessions come from one account (above 50.0%)")
    assert view.summary == "Sessions from 2 accounts; the largest contributed 75.0%."


def test_it_shows_nothing_beside_the_figure_when_no_session_is_left():
    view = provenance_view(figures(accounts=1, largest_share=1.0, without_largest={"sessions": 0}))
    assert (view.nir_without, view.confirmed_without) == ("", "")
    assert "no session is left without that account" in view.chip_title


def test_it_reads_no_provenance_on_a_row_without_it():
    assert provenance_view({"net_improvement": {}}) is None
    assert provenance_view(None) is None
    # A model whose every session is excluded has counts only: no row reads them.
    assert provenance_view({"provenance": {"conflict_excluded": 3}}) is None


def test_it_words_how_stable_a_figure_is_by_its_sessions():
    assert stability(29, -0.1, 0.2).level == UNRANKED
    assert "not ranked; the 95% interval is 30.0 percentage points wide" in (
        stability(29, -0.1, 0.2).text
    )
    assert stability(30, 0.0, 0.1).level == UNSETTLED
    assert stability(99, 0.0, 0.1).text.endswith("the rank may move as sessions arrive.")
    assert stability(100, 0.0, 0.1).level == SETTLED
    assert "no interval yet" in stability(100, None, None).text
