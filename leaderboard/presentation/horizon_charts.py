"""The time horizon's Plotly figures, as board_charts builds them: plain dicts, pure.

* `horizon_curve`: one entry's success rate against human minutes (log axis), each
  point the counted pass rate of the tasks of one length and one rate (sized by their
  trials), the fitted logistic curve, and its p50 and p80 marked;
* `horizon_forest`: the board's entries' p50 with its 95% interval, log axis.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.presentation.board import rank_label
from leaderboard.presentation.board_charts import (
    FOREST_MAX_ROWS,
    RANKED_COLOUR,
    ROW_HEIGHT_PX,
    UNRANKED_COLOUR,
    EntryLike,
    NotPlotted,
    agent_label,
    axis,
    base_layout,
    figure,
    interval_trace,
)
from leaderboard.presentation.figures import percent
from leaderboard.presentation.horizons import bound_text, degenerate_note, minutes_text

P80_COLOUR = "#d9822b"
CURVE_POINTS = 60
# Point areas scale with trials; the largest point of a chart is this many pixels wide.
MAX_POINT_PX = 28
MIN_POINT_PX = 5


def _expit(value: float) -> float:
    if value >= 0:
        return 1 / (1 + math.exp(-value))
    return math.exp(value) / (1 + math.exp(value))


def horizon_curve(horizon: dict | None) -> dict | None:
    """One entry's chart (see the module); None without a horizon or its points."""
    if not horizon or not horizon.get("points"):
        return None
    points = horizon["points"]
    largest = max(trials for *_, trials in points)
    sizes = [max(MIN_POINT_PX, MAX_POINT_PX * math.sqrt(trials / largest)) for *_, trials in points]
    data = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": "tasks (pass rate)",
            "x": [m for m, *_ in points],
            "y": [rate for _, rate, *_ in points],
            "marker": {"color": RANKED_COLOUR, "size": sizes, "opacity": 0.55},
            "hovertext": [
                f"{tasks} task{'s' if tasks != 1 else ''} of {minutes_text(m)}: "
                f"{percent(rate)} pass rate over {trials} trial{'s' if trials != 1 else ''}"
                for m, rate, tasks, trials in points
            ],
            "hoverinfo": "text",
        }
    ]
    low, high = horizon["shortest"] / 2, horizon["longest"] * 2
    if horizon.get("slope") is not None and horizon.get("intercept") is not None:
        data.append(_curve_trace(horizon["intercept"], horizon["slope"], low, high))
    for key, level, colour in (("p50", 0.5, RANKED_COLOUR), ("p80", 0.8, P80_COLOUR)):
        if horizon.get(key) is not None:
            data.append(_horizon_mark(horizon, key, level, colour))
    layout = base_layout(
        height=320,
        showlegend=True,
        legend={"orientation": "h", "y": -0.3},
        xaxis=axis(type="log", title={"text": "Human minutes (log scale)"},
                   range=[math.log10(low), math.log10(high)]),
        yaxis=axis(range=[-0.03, 1.03], tickformat=".0%", title={"text": "Success rate"}),
    )  # fmt: skip
    layout["margin"].update({"l": 50, "b": 90})
    return figure(data, layout)


def _curve_trace(intercept: float, slope: float, low: float, high: float) -> dict:
    step = (math.log2(high) - math.log2(low)) / (CURVE_POINTS - 1)
    xs = [2 ** (math.log2(low) + i * step) for i in range(CURVE_POINTS)]
    return {
        "type": "scatter",
        "mode": "lines",
        "name": "fitted curve",
        "x": xs,
        "y": [_expit(intercept + slope * math.log2(x)) for x in xs],
        "line": {"color": RANKED_COLOUR, "width": 2.5},
        "hoverinfo": "skip",
    }


def _horizon_mark(horizon: dict, key: str, level: float, colour: str) -> dict:
    value = horizon[key]
    bounds = bound_text(horizon.get(f"{key}_low"), horizon.get(f"{key}_high"))
    return {
        "type": "scatter",
        "mode": "markers+text",
        "name": f"{key} {minutes_text(value)} {bounds}",
        "x": [value],
        "y": [level],
        "text": [key],
        "textposition": "top right",
        "marker": {"color": colour, "size": 11, "symbol": "diamond"},
        "hovertext": [f"{key}: {minutes_text(value)} {bounds}"],
        "hoverinfo": "text",
    }


@dataclass(frozen=True)
class HorizonForest:
    figure: dict
    shown: int
    omitted: int
    not_plotted: list[NotPlotted]


def horizon_forest(entries: Iterable[EntryLike], max_rows: int = FOREST_MAX_ROWS) -> HorizonForest:
    """Each entry's p50 with its interval (log axis), in display order. An interval
    bound beyond the tasks is drawn to the longest (or shortest) task, the hover says
    so; entries whose horizon has no finite value are listed with their reason."""
    ordered = sorted(entries, key=lambda e: e.position)
    with_horizon = [e for e in ordered if getattr(e, "horizon", None)]
    drawable = [e for e in with_horizon if e.horizon.get("p50") is not None]
    not_plotted = [
        NotPlotted(agent_label(e), degenerate_note(e.horizon) or "no finite horizon")
        for e in with_horizon
        if e.horizon.get("p50") is None
    ]
    shown = drawable[:max_rows]
    labels = [f"{rank_label(e)}  {agent_label(e)}" for e in shown]
    data = []
    for ranked, colour, name in (
        (True, RANKED_COLOUR, "ranked"),
        (False, UNRANKED_COLOUR, "not ranked"),
    ):
        chosen = [
            (e, label)
            for e, label in zip(shown, labels, strict=True)
            if (e.rank is not None) == ranked
        ]
        data.append(interval_trace(
            name=name,
            points=[_drawn(e.horizon) for e, _ in chosen],
            labels=[label for _, label in chosen],
            hover=[_hover(e) for e, _ in chosen],
            colour=colour,
        ))  # fmt: skip
    layout = base_layout(
        height=max(160, 60 + ROW_HEIGHT_PX * len(shown)),
        xaxis=axis(type="log", title={"text": "p50 time horizon, human minutes (log scale), 95% interval"}),
        yaxis=axis(autorange="reversed", automargin=True, type="category",
                   categoryorder="array", categoryarray=labels),
    )  # fmt: skip
    return HorizonForest(
        figure(data, layout),
        shown=len(shown),
        omitted=len(drawable) - len(shown),
        not_plotted=not_plotted,
    )


def _drawn(horizon: dict) -> tuple[float, float, float]:
    p50 = horizon["p50"]
    low = horizon.get("p50_low") or min(horizon.get("shortest") or p50, p50)
    high = horizon.get("p50_high")
    high = max(horizon.get("longest") or p50, p50) if high is None else high
    return (p50, min(low, p50), max(high, p50))


def _hover(entry: EntryLike) -> str:
    horizon = entry.horizon
    return (
        f"{agent_label(entry)}<br>p50 {minutes_text(horizon['p50'])} "
        f"{bound_text(horizon.get('p50_low'), horizon.get('p50_high'))} · "
        f"{horizon.get('tasks')} tasks"
    )
