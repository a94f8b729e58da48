"""When a figure or a rank moves past its interval: no database."""

from __future__ import annotations

from leaderboard.methodology.moves import figure_moved, figures_moved, rank_range_moved


def test_a_point_outside_the_previous_interval_moved():
    assert figure_moved(0.40, 0.60, 0.61)
    assert figure_moved(0.40, 0.60, 0.39)


def test_a_point_inside_or_on_a_bound_did_not():
    assert not figure_moved(0.40, 0.60, 0.50)
    assert not figure_moved(0.40, 0.60, 0.60)
    assert not figure_moved(0.40, 0.60, 0.40)


def test_nothing_to_compare_is_no_move():
    assert not figure_moved(None, None, 0.9)
    assert not figure_moved(0.1, 0.2, None)


def test_rank_ranges_that_stop_overlapping_moved():
    assert rank_range_moved((3, 5), (1, 2))
    assert rank_range_moved((1, 2), (3, 4))
    assert not rank_range_moved((1, 3), (3, 4))  # they share rank 3
    assert not rank_range_moved((None, None), (1, 1))  # entered the ranking


def test_figures_moved_names_the_figures_that_left_their_interval_in_order():
    previous = {
        "net_improvement": {"value": 0.0, "low": -0.05, "high": 0.05},
        "confirmed_success": {"value": 0.5, "low": 0.4, "high": 0.6},
        "steerability": {"value": 0.9, "low": 0.8, "high": 1.0},
    }
    current = {
        "net_improvement": {"value": 0.10, "low": 0.05, "high": 0.15},
        "confirmed_success": {"value": 0.55, "low": 0.45, "high": 0.65},
        "steerability": {"value": 0.7, "low": 0.6, "high": 0.8},
        "shell_success": {"value": 0.9, "low": 0.8, "high": 1.0},  # new: nothing before
    }
    assert figures_moved(previous, current) == ["net_improvement", "steerability"]
