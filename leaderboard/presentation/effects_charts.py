"""The forest plot of a board's effects: odds ratios with their 95% intervals on a log
axis, the reference at 1. A plain dict for static/js/charts.js, as boards.charts builds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from leaderboard.presentation.board_charts import (
    FOREST_MAX_ROWS,
    RANKED_COLOUR,
    ROW_HEIGHT_PX,
    UNRANKED_COLOUR,
    axis,
    base_layout,
    figure,
    interval_trace,
)
from leaderboard.presentation.effects import SCALE, effect_interval_text

# More rows than this stop being readable; the table has every one.
MAX_ROWS = FOREST_MAX_ROWS
# The axis spans the table's bars' scale, ±SCALE log-odds (×0.05 … ×20), so the chart
# and the bars read alike; an interval past it runs off the edge as on the bars.
TICKS = (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20)


def odds_axis_range() -> list[float]:
    """±SCALE log-odds in log10 units, as Plotly wants a log axis's range."""
    edge = SCALE / math.log(10)
    return [-edge, edge]


def effects_forest(effects: Sequence[Any], *, title: str) -> dict | None:
    """None when no effect has an interval (a thin design): there is nothing to draw."""
    drawable = [e for e in effects if e.low is not None or e.is_reference][:MAX_ROWS]
    if not any(e.low is not None for e in drawable):
        return None
    labels = [e.name for e in drawable]
    estimated = [e for e in drawable if e.low is not None]
    data = [
        interval_trace(
            name="effect",
            points=[(e.odds_ratio, e.odds_ratio_low, e.odds_ratio_high) for e in estimated],
            labels=[e.name for e in estimated],
            hover=[f"{e.name}<br>{effect_interval_text(e)}" for e in estimated],
            colour=RANKED_COLOUR,
        ),
        {
            "type": "scatter",
            "mode": "markers",
            "name": "reference",
            "x": [1.0 for e in drawable if e.is_reference],
            "y": [e.name for e in drawable if e.is_reference],
            "marker": {"color": UNRANKED_COLOUR, "size": 8, "symbol": "diamond"},
            "hovertext": [f"{e.name}<br>the reference" for e in drawable if e.is_reference],
            "hoverinfo": "text",
        },
    ]
    layout = base_layout(
        height=max(160, 60 + ROW_HEIGHT_PX * len(drawable)),
        xaxis=axis(type="log", title={"text": title}, range=odds_axis_range(),
                   tickvals=list(TICKS), ticktext=[f"×{tick:g}" for tick in TICKS]),
        yaxis=axis(autorange="reversed", automargin=True, type="category",
                   categoryorder="array", categoryarray=labels),
        # The reference line: odds ratio 1, no difference.
        shapes=[{"type": "line", "xref": "x", "yref": "paper", "x0": 1, "x1": 1,
                 "y0": 0, "y1": 1, "line": {"color": UNRANKED_COLOUR, "width": 1, "dash": "dot"}}],
    )  # fmt: skip
    return figure(data, layout)
