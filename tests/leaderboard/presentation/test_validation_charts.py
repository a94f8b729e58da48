"""The cross-validation chart: intervals on both axes as asymmetric error bars."""

from __future__ import annotations

import pytest

from leaderboard.presentation.validation_charts import ValidationPoint, validation_chart


def test_it_draws_each_interval_as_error_bars_on_both_axes():
    points = [
        ValidationPoint("a", 0.5, 0.4, 0.7, 0.1, -0.05, 0.2, ranked=True),
        ValidationPoint("b", 0.2, None, None, -0.1, -0.3, 0.0, ranked=False),
    ]
    trace = validation_chart(points, figure_name="net_improvement")["data"][0]
    assert trace["error_x"]["array"] == pytest.approx([0.2, 0])
    assert trace["error_x"]["arrayminus"] == pytest.approx([0.1, 0])
    assert trace["error_y"]["array"] == pytest.approx([0.1, 0.1])
    assert trace["error_y"]["arrayminus"] == pytest.approx([0.15, 0.2])
    assert trace["marker"]["color"][0] != trace["marker"]["color"][1]  # unranked in grey
    assert "NIR +10.0 pp [-5.0 pp, +20.0 pp]" in trace["hovertext"][0]


def test_it_reads_confirmed_success_as_a_share():
    point = ValidationPoint("a", 0.5, 0.4, 0.7, 0.6, 0.5, 0.7, ranked=True)
    chart = validation_chart([point], figure_name="confirmed_success")
    assert chart["layout"]["yaxis"]["tickformat"] == ".0%"
    assert "confirmed success 60.0% [50.0%, 70.0%]" in chart["data"][0]["hovertext"][0]
