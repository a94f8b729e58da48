"""How a time horizon reads: minutes, board cells, degenerate notes, the CSV cells and
the two Plotly figures."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from leaderboard.presentation.horizon_charts import horizon_curve, horizon_forest
from leaderboard.presentation.horizons import (
    HORIZON_CSV_COLUMNS,
    bound_text,
    degenerate_note,
    horizon_cell,
    horizon_csv_cells,
    horizon_value,
    minutes_text,
)

FITTED = {
    "mode": "cross_domain", "p50": 37.8, "p80": 9.1, "p50_low": 25.0, "p50_high": 55.5,
    "p80_low": 5.0, "p80_high": None, "slope": -0.5, "intercept": 2.62, "tasks": 500,
    "runs": 500, "degenerate": None, "shortest": 7.5, "longest": 480.0,
    "points": [[7.5, 1.0, 150, 150], [7.5, 0.0, 44, 44], [30.0, 1.0, 100, 100], [480.0, 0.0, 3, 3]],
}  # fmt: skip
ALL_PASS = {**FITTED, "p50": None, "p80": None, "p50_high": None, "slope": None,
            "intercept": None, "degenerate": "all_success"}  # fmt: skip


@pytest.mark.parametrize(
    ("minutes", "text"),
    [(None, "—"), (0.5, "30 s"), (7.5, "7.5 min"), (37.818, "37.8 min"), (150, "2.5 h"),
     (6000, "4.17 days")],
)  # fmt: skip
def test_it_writes_minutes_in_a_readable_unit(minutes, text):
    assert minutes_text(minutes) == text


def test_it_writes_the_board_cell_with_its_interval_and_p80():
    cell = horizon_cell(FITTED)
    assert (cell.p50, cell.p50_bounds, cell.p80) == ("37.8 min", "[25 min–55.5 min]", "9.1 min")
    assert "cross-domain (unweighted) fit over 500 tasks" in cell.title
    assert "p80 9.1 min [5 min–> longest]" in cell.title
    assert horizon_cell({}) is None


def test_it_reads_degenerate_horizons_as_beyond_the_tasks():
    assert horizon_value(ALL_PASS) == "> longest task"
    assert horizon_cell(ALL_PASS).p50_bounds == ""
    assert degenerate_note(ALL_PASS) == (
        "No finite fit: every counted run passed, so the horizon is beyond the longest task (8 h)"
    )
    failing = {**ALL_PASS, "degenerate": "all_failure"}
    assert horizon_value(failing, "p80") == "< shortest task"
    assert "below the shortest task (7.5 min)" in degenerate_note(failing)
    assert degenerate_note(FITTED) == ""
    assert bound_text(0.0, None) == "[< shortest–> longest]"


def test_it_writes_the_csv_cells_in_their_order():
    cells = horizon_csv_cells(FITTED)
    assert list(cells) == list(HORIZON_CSV_COLUMNS)
    assert (cells["horizon_mode"], cells["horizon_p50"], cells["horizon_tasks"]) == (
        "cross_domain", 37.8, 500,
    )  # fmt: skip
    assert cells["horizon_p80_high"] is None
    assert set(horizon_csv_cells({}).values()) == {None}


def test_it_draws_the_success_curve_with_its_points_and_horizons():
    fig = horizon_curve(FITTED)
    json.dumps(fig, allow_nan=False)
    points, curve, p50, p80 = fig["data"]
    assert points["x"] == [7.5, 7.5, 30.0, 480.0] and points["y"] == [1.0, 0.0, 1.0, 0.0]
    # Areas by trials: the largest point is the widest.
    assert max(points["marker"]["size"]) == points["marker"]["size"][0]
    assert curve["y"][0] > 0.5 > curve["y"][-1]
    assert (p50["x"], p50["y"], p80["x"], p80["y"]) == ([37.8], [0.5], [9.1], [0.8])
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert horizon_curve({}) is None
    # No finite fit: the points only, no curve nor marks.
    assert len(horizon_curve(ALL_PASS)["data"]) == 1


def entry(position, horizon, rank=1):
    return SimpleNamespace(
        position=position, rank=rank, harness_name=f"H{position}", harness_version="1",
        model_name="m", horizon=horizon,
    )  # fmt: skip


def test_it_draws_every_entrys_p50_with_its_interval_and_lists_the_rest():
    forest = horizon_forest([entry(1, ALL_PASS), entry(0, FITTED), entry(2, {}, rank=None)])
    json.dumps(forest.figure, allow_nan=False)
    ranked = forest.figure["data"][0]
    assert ranked["x"] == [37.8] and ranked["error_x"]["array"] == [pytest.approx(55.5 - 37.8)]
    assert forest.shown == 1
    assert [(n.label, n.reason[:14]) for n in forest.not_plotted] == [
        ("H1 1 · m", "No finite fit:")
    ]
    # An upper bound beyond the tasks is drawn to the longest task.
    open_ended = horizon_forest([entry(0, {**FITTED, "p50_high": None})]).figure["data"][0]
    assert open_ended["error_x"]["array"] == [pytest.approx(480.0 - 37.8)]
