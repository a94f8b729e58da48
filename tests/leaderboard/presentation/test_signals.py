"""How a signal figure reads (leaderboard.presentation.signals)."""

from __future__ import annotations

from leaderboard.presentation.signals import signal_cell
from tests.leaderboard.signalboard.helpers import model_scores


def test_it_reads_every_figure_of_a_cell_from_the_entry():
    cell = signal_cell(model_scores(96, success=0.57), "confirmed_success")
    assert cell.text == "57.3%"
    assert "n = 96 sessions" in cell.title and "Wilson" in cell.title
    assert 0 <= cell.bar.low <= cell.bar.point <= cell.bar.low + cell.bar.width <= 100
    nir_cell = signal_cell(model_scores(nir=-0.6, sd=0.01), "net_improvement")
    assert nir_cell.text == "-60.0 pp" and nir_cell.bar.low == 0.0  # clamped to the scale
    assert signal_cell({}, "steerability") is None
    missing = signal_cell(
        {"bash_recovery": {"value": None, "low": None, "high": None}}, "bash_recovery"
    )
    assert missing.text == "—" and missing.bar is None


def test_it_reads_the_turns_to_recover_beside_the_effort():
    figure = {
        "value": 0.8, "low": 0.7, "high": 0.9, "mean_effort": 0.6, "turns": 40,
        "turns_to_recover": 1.4, "turns_to_recover_low": 1.0, "turns_to_recover_high": 1.85,
        "corrections": 10, "corrections_open": 2,
    }  # fmt: skip
    cell = signal_cell({"steerability": figure}, "steerability")
    assert cell.detail == "1.40 turns to recover"
    assert "mean steering effort 0.60 over n = 40 assistant turns" in cell.title
    assert "turns to recover 1.40 (95% CI 1.00–1.85, cluster-robust)" in cell.title
    assert "over n = 10 corrections, 2 open at the end" in cell.title


def test_it_reads_the_bash_recovery_before_and_after_the_users_words():
    figure = {
        "value": 0.5, "low": 0.4, "high": 0.6, "episodes": 8, "recovery_rate": 0.75,
        "median_attempts": 1, "autonomous": 4, "autonomous_rate": 0.5,
        "autonomous_rate_low": 0.2, "autonomous_rate_high": 0.8, "after_user": 2,
        "after_user_rate": 0.25, "after_user_rate_low": None, "after_user_rate_high": None,
    }  # fmt: skip
    cell = signal_cell({"bash_recovery": figure}, "bash_recovery")
    assert cell.detail == "50.0% on its own"
    assert "50.0% fixed before the user's next words (95% CI 20.0%–80.0%, Wilson)" in cell.title
    assert cell.title.endswith("25.0% fixed after")


def test_it_reads_snapshots_from_before_the_finer_steering_as_they_were():
    steer = {"value": 0.8, "low": 0.7, "high": 0.9, "mean_effort": 0.6, "turns": 40}
    cell = signal_cell({"steerability": steer}, "steerability")
    assert (cell.detail, cell.title.endswith("over n = 40 assistant turns")) == ("", True)
    bash = {"value": 0.5, "low": 0.4, "high": 0.6, "episodes": 8, "recovery_rate": 0.75}
    assert signal_cell({"bash_recovery": bash}, "bash_recovery").detail == ""
