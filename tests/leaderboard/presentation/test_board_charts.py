"""Plotly figure builders: pure functions over entry-like objects, no database."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest

from leaderboard.methodology import stats
from leaderboard.presentation import board_charts as charts


def entry(position: int, name: str, *, passes: int = 50, n: int = 100, rank: int | None = None,
          cost: float | None = 1.0, status: str = stats.COST_OK, tied: bool = False) -> SimpleNamespace:  # fmt: skip
    low, high = stats.wilson_interval(passes, n)
    return SimpleNamespace(
        position=position,
        rank=rank,
        tied=tied,
        harness_name=name,
        harness_version="1.0",
        model_name="m",
        n=n,
        pass_rate=passes / n if n else None,
        wilson_low=low,
        wilson_high=high,
        cost_per_success=cost,
        cost_per_success_status=status,
    )


def ranked_board() -> list[SimpleNamespace]:
    return [
        entry(0, "A", passes=90, rank=1),
        entry(1, "B", passes=70, rank=2, tied=True),
        entry(2, "C", passes=70, rank=2, tied=True),
        entry(3, "D", passes=40, rank=4, cost=None, status=stats.COST_MISSING_PRICE),
        entry(4, "E", passes=0, n=0, cost=None, status=stats.COST_NO_SUCCESSES),
        entry(5, "F", passes=30, n=40, cost=0.2),
    ]


def test_it_orders_the_forest_plot_by_rank_whatever_the_input_order():
    entries = ranked_board()
    shuffled = entries[:]
    random.Random(4).shuffle(shuffled)
    plot = charts.forest_plot(shuffled)
    categories = plot.figure["layout"]["yaxis"]["categoryarray"]
    assert [label.split()[1] for label in categories] == ["A", "B", "C", "D", "F"]
    assert categories[1].startswith("=2 ") and categories[0].startswith("1 ")
    # Rank 1 on top.
    assert plot.figure["layout"]["yaxis"]["autorange"] == "reversed"


def test_it_draws_each_interval_around_its_pass_rate():
    plot = charts.forest_plot(ranked_board())
    ranked, _ = plot.figure["data"]
    low, high = stats.wilson_interval(90, 100)
    assert ranked["x"][0] == pytest.approx(0.9)
    assert ranked["error_x"]["array"][0] == pytest.approx(high - 0.9)
    assert ranked["error_x"]["arrayminus"][0] == pytest.approx(0.9 - low)
    assert plot.figure["layout"]["xaxis"]["tickformat"] == ".0%"


def test_it_draws_unranked_entries_in_grey_and_leaves_out_those_without_runs():
    plot = charts.forest_plot(ranked_board())
    ranked, unranked = plot.figure["data"]
    assert len(ranked["x"]) == 4
    assert [y.split()[1] for y in unranked["y"]] == ["F"]
    assert unranked["marker"]["color"] == charts.UNRANKED_COLOUR
    assert plot.shown == 5 and plot.omitted == 0


def test_it_caps_the_forest_plot_and_says_how_many_it_left_out():
    entries = [entry(i, f"H{i}", passes=50 + i % 40, rank=i + 1) for i in range(55)]
    plot = charts.forest_plot(entries, max_rows=40)
    assert plot.shown == 40 and plot.omitted == 15
    assert plot.figure["data"][0]["y"][-1].split()[1] == "H39"


def test_it_finds_the_pareto_frontier_of_a_hand_made_set():
    points = [
        (1.0, 0.5),
        (2.0, 0.4),
        (3.0, 0.7),
        (3.0, 0.6),
        (0.5, 0.2),
        (5.0, 0.7),
        (10.0, 0.9),
        (0.5, 0.1),
    ]
    assert charts.pareto_frontier(points) == [(0.5, 0.2), (1.0, 0.5), (3.0, 0.7), (10.0, 0.9)]


def test_it_keeps_one_point_of_the_frontier_for_equal_points_and_handles_none():
    assert charts.pareto_frontier([(1.0, 0.5), (1.0, 0.5)]) == [(1.0, 0.5)]
    assert charts.pareto_frontier([]) == []


def test_it_draws_the_frontier_as_a_step_line_on_a_log_axis():
    entries = [
        entry(0, "A", passes=90, rank=1, cost=4.0),
        entry(1, "B", passes=70, rank=2, cost=1.0),
        entry(2, "C", passes=60, rank=3, cost=2.0),
        entry(3, "D", passes=20, rank=4, cost=0.1),
    ]
    plot = charts.cost_vs_pass_rate(entries)
    frontier, points, _ = plot.figure["data"]
    assert frontier["line"]["shape"] == "hv"
    assert frontier["x"] == [0.1, 1.0, 4.0]
    assert frontier["y"] == pytest.approx([0.2, 0.7, 0.9])
    assert plot.figure["layout"]["xaxis"]["type"] == "log"
    assert len(points["x"]) == 4
    assert "A 1.0 · m" in points["hovertext"][0]
    assert plot.not_plotted == []


def test_it_lists_entries_without_a_cost_beside_the_chart_with_the_reason():
    plot = charts.cost_vs_pass_rate(ranked_board())
    _, points, _ = plot.figure["data"]
    assert [item.label for item in plot.not_plotted] == ["D 1.0 · m", "E 1.0 · m"]
    assert "no list price" in plot.not_plotted[0].reason
    assert plot.not_plotted[1].reason == "no counted runs"
    assert len(points["x"]) == 4


def test_it_lists_a_no_successes_entry_with_its_reason():
    plot = charts.cost_vs_pass_rate(
        [entry(0, "Z", passes=0, n=10, cost=None, status=stats.COST_NO_SUCCESSES)]
    )
    assert plot.not_plotted[0].reason == "n/a: no successes"


def test_it_draws_pass_k_and_a_lighter_pass_at_k_in_order_of_k():
    table = {
        str(k): {"value": 0.9 / k, "pass_at_k": 1 - 0.1 / k, "tasks": 20 - k} for k in (3, 1, 2, 8)
    }
    figure = charts.pass_k_curve(table)
    pass_at_k, pass_hat_k = figure["data"]
    assert pass_hat_k["x"] == [1, 2, 3, 8]
    assert pass_hat_k["y"] == pytest.approx([0.9, 0.45, 0.3, 0.1125])
    assert pass_at_k["opacity"] < 1
    assert "over 12 tasks" in pass_hat_k["hovertext"][-1]


def test_it_builds_figures_that_serialise_to_json():
    board = ranked_board()
    for figure in (charts.forest_plot(board).figure, charts.cost_vs_pass_rate(board).figure,
                   charts.pass_k_curve({"1": {"value": 0.5, "pass_at_k": 0.5, "tasks": 3}})):  # fmt: skip
        assert json.loads(json.dumps(figure)) == figure
        assert set(figure) == {"data", "layout", "config"}


def test_it_builds_empty_figures_for_an_empty_board():
    assert charts.forest_plot([]).shown == 0
    plot = charts.cost_vs_pass_rate([])
    assert plot.figure["data"][0]["x"] == [] and plot.not_plotted == []


def test_it_leaves_unranked_entries_out_of_the_frontier_but_on_the_chart():
    entries = [entry(0, "A", passes=50, rank=1, cost=1.0), entry(1, "U", passes=90, cost=0.5)]
    plot = charts.cost_vs_pass_rate(entries)
    frontier, points, _ = plot.figure["data"]
    assert frontier["x"] == [1.0]
    assert points["marker"]["color"] == [charts.RANKED_COLOUR, charts.UNRANKED_COLOUR]


def test_it_names_the_frontier_agents_beside_their_points_best_first():
    entries = [
        entry(0, "A", passes=90, rank=1, cost=4.0),
        entry(1, "B", passes=70, rank=2, cost=1.0),
        entry(2, "C", passes=60, rank=3, cost=2.0),
        entry(3, "D", passes=20, rank=4, cost=0.1),
    ]
    _, _, labels = charts.cost_vs_pass_rate(entries).figure["data"]
    assert labels["mode"] == "text"
    assert labels["text"] == ["A 1.0 · m", "B 1.0 · m", "D 1.0 · m"]
    assert labels["x"] == [4.0, 1.0, 0.1]
    # Leaning inwards: the cheapest to the right, the dearest to the left.
    assert labels["textposition"] == ["bottom left", "bottom center", "bottom right"]


def test_it_caps_the_named_points():
    entries = [
        entry(i, f"H{i}", passes=10 + 10 * i, rank=9 - i, cost=0.1 * (i + 1)) for i in range(8)
    ]
    _, _, labels = charts.cost_vs_pass_rate(entries).figure["data"]
    assert len(labels["text"]) == charts.LABELLED_POINTS
    assert labels["text"][0].startswith("H7 ")


@pytest.mark.parametrize(
    ("costs", "steps"), [((4.0, 1.0), True), ((1.0, 4.0), False)], ids=["two", "one"]
)
def test_it_promises_the_orange_steps_only_when_the_frontier_draws_them(costs, steps):
    entries = [
        entry(0, "A", passes=90, rank=1, cost=costs[0]),
        entry(1, "B", passes=70, rank=2, cost=costs[1]),
    ]
    plot = charts.cost_vs_pass_rate(entries)
    assert plot.frontier == (2 if steps else 1)
    assert ("orange steps" in plot.caption) is steps
    assert plot.caption.startswith("Cost per success (log scale) against pass rate")


def test_it_names_no_frontier_in_the_caption_of_an_empty_chart():
    assert charts.cost_vs_pass_rate([]).caption == "Cost per success (log scale) against pass rate"


def test_it_draws_the_pass_k_bootstrap_band_under_both_lines():
    table = {
        "1": {"value": 0.6, "pass_at_k": 0.6, "tasks": 5, "low": 0.4, "high": 0.8},
        "2": {"value": 0.4, "pass_at_k": 0.8, "tasks": 5, "low": 0.2, "high": 0.6},
        "3": {"value": 0.3, "pass_at_k": 0.9, "tasks": 1, "low": None, "high": None},
    }
    lower, upper, _, pass_hat = charts.pass_k_curve(table)["data"]
    assert (lower["x"], lower["y"], upper["y"]) == ([1, 2], [0.4, 0.2], [0.8, 0.6])
    assert upper["fill"] == "tonexty" and pass_hat["x"] == [1, 2, 3]
