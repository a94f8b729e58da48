"""The cross-validation chart: each model's signal figure against its benchmark pass
rate, a 95% interval on both axes (Plotly error bars), as board_charts builds figures.

Pure: it takes plain points, so it knows no snapshot row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.presentation.board_charts import (
    RANKED_COLOUR,
    UNRANKED_COLOUR,
    axis,
    base_layout,
    figure,
)
from leaderboard.presentation.figures import percent
from leaderboard.presentation.signals import points


@dataclass(frozen=True)
class ValidationPoint:
    model: str
    pass_rate: float
    pass_low: float | None
    pass_high: float | None
    value: float
    low: float | None
    high: float | None
    ranked: bool  # ranked on the signal board (greyed otherwise)


def validation_chart(chart_points: Iterable[ValidationPoint], *, figure_name: str) -> dict:
    """Pass rate (x) against the signal figure (y): NIR in points, other figures as shares."""
    shown = list(chart_points)
    nir = figure_name == "net_improvement"
    y_text = points if nir else percent
    trace = {
        "type": "scatter",
        "mode": "markers",
        "name": "models",
        "x": [p.pass_rate for p in shown],
        "y": [p.value for p in shown],
        "error_x": _errors([(p.pass_rate, p.pass_low, p.pass_high) for p in shown]),
        "error_y": _errors([(p.value, p.low, p.high) for p in shown]),
        "marker": {
            "color": [RANKED_COLOUR if p.ranked else UNRANKED_COLOUR for p in shown],
            "size": 9,
        },
        "hovertext": [
            f"{p.model}<br>pass rate {percent(p.pass_rate)} "
            f"[{percent(p.pass_low)}, {percent(p.pass_high)}]<br>"
            f"{'NIR' if nir else 'confirmed success'} {y_text(p.value)} "
            f"[{y_text(p.low)}, {y_text(p.high)}]"
            for p in shown
        ],
        "hoverinfo": "text",
    }
    y_axis = (
        axis(tickformat="+.0%", title={"text": "NIR (difference of rates)"})
        if nir
        else axis(range=[0, 1.02], tickformat=".0%", title={"text": "Confirmed success"})
    )
    layout = base_layout(
        height=340,
        xaxis=axis(range=[0, 1.02], tickformat=".0%", title={"text": "Benchmark pass rate"}),
        yaxis=y_axis,
    )
    layout["margin"]["l"] = 56
    return figure([trace], layout)


def _errors(values: list[tuple[float, float | None, float | None]]) -> dict:
    """Asymmetric error bars from (value, low, high); none where a bound is missing."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [0 if high is None else max(high - value, 0) for value, _, high in values],
        "arrayminus": [0 if low is None else max(value - low, 0) for value, low, _ in values],
        "thickness": 1.2,
        "width": 3,
    }
