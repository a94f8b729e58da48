"""Plotly figures as plain dicts, built from board entries.

Pure functions: entries in, JSON-ready dicts out. The page embeds a figure with
`json_script` and static/js/charts.js draws it, so nothing here imports plotly (the
Python package is only where the vendored JS bundle came from).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from leaderboard.presentation.board import pass_k_rows, rank_label
from leaderboard.presentation.figures import money, percent

RANKED_COLOUR = "#3b7dd8"
UNRANKED_COLOUR = "#8a939e"
FRONTIER_COLOUR = "#d9822b"
# A forest plot taller than this many rows stops being readable on a page; the table
# below it has every row anyway.
FOREST_MAX_ROWS = 40
ROW_HEIGHT_PX = 22
# The cost chart names its frontier's agents beside their points (nothing needs a
# hover), the best pass rates first, at most this many so the labels stay legible.
LABELLED_POINTS = 5

CONFIG = {"displayModeBar": False, "responsive": True}
# Translucent grey reads on the light and the dark theme alike (Plotly's default
# white grid glares on a dark page).
GRID = "rgba(128,128,128,0.25)"


def axis(**extra: Any) -> dict:
    return {"gridcolor": GRID, "zerolinecolor": GRID, "linecolor": GRID, **extra}


class EntryLike(Protocol):
    position: int
    rank: int | None
    harness_name: str
    harness_version: str
    model_name: str
    n: int
    pass_rate: float | None
    wilson_low: float | None
    wilson_high: float | None
    cost_per_success: float | None
    cost_per_success_status: str


def agent_label(entry: EntryLike) -> str:
    return f"{entry.harness_name} {entry.harness_version} · {entry.model_name}"


def base_layout(**extra: Any) -> dict:
    layout = {
        "margin": {"l": 10, "r": 24, "t": 10, "b": 40},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"size": 12},
        "showlegend": False,
        "hoverlabel": {"align": "left"},
    }
    layout.update(extra)
    return layout


def figure(data: list[dict], layout: dict) -> dict:
    return {"data": data, "layout": layout, "config": CONFIG}


@dataclass(frozen=True)
class ForestPlot:
    figure: dict
    shown: int
    omitted: int


def forest_plot(entries: Iterable[EntryLike], max_rows: int = FOREST_MAX_ROWS) -> ForestPlot:
    """Pass rate with its Wilson interval, one row per entry in rank (display) order.

    Ranked entries come first, then unranked ones with an interval in grey; entries
    without counted runs have nothing to draw and are left out.
    """
    drawable = [e for e in sorted(entries, key=lambda e: e.position) if e.pass_rate is not None]
    shown = drawable[:max_rows]
    labels = [f"{rank_label(e)}  {agent_label(e)}" for e in shown]
    data = [
        _forest_trace(
            [e for e in shown if e.rank is not None], labels, shown, RANKED_COLOUR, "ranked"
        ),
        _forest_trace(
            [e for e in shown if e.rank is None], labels, shown, UNRANKED_COLOUR, "not ranked"
        ),
    ]
    layout = base_layout(
        height=max(160, 60 + ROW_HEIGHT_PX * len(shown)),
        # A hair past both ends so the 0% and 100% ticks are drawn.
        xaxis=axis(range=[-0.01, 1.01], tickformat=".0%", dtick=0.2, zeroline=False,
                    title={"text": "Pass rate, 95% interval"}),
        yaxis=axis(autorange="reversed", automargin=True, type="category",
                    categoryorder="array", categoryarray=labels),
    )  # fmt: skip
    return ForestPlot(figure(data, layout), shown=len(shown), omitted=len(drawable) - len(shown))


def _forest_trace(
    entries: Sequence[EntryLike], labels: list[str], shown: list[EntryLike], colour: str, name: str
) -> dict:
    label_of = {id(e): label for e, label in zip(shown, labels, strict=True)}
    return interval_trace(
        name=name,
        points=[(e.pass_rate, e.wilson_low, e.wilson_high) for e in entries],
        labels=[label_of[id(e)] for e in entries],
        hover=[_interval_hover(e) for e in entries],
        colour=colour,
    )


def interval_trace(
    *,
    name: str,
    points: Sequence[tuple[float, float, float]],
    labels: Sequence[str],
    hover: Sequence[str],
    colour: str,
) -> dict:
    """A forest plot's trace: each (value, low, high) a dot on its row with its interval."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": [value for value, _, _ in points],
        "y": list(labels),
        "error_x": {
            "type": "data",
            "symmetric": False,
            "array": [high - value for value, _, high in points],
            "arrayminus": [value - low for value, low, _ in points],
            "color": colour,
            "thickness": 2,
            "width": 0,
        },
        "marker": {"color": colour, "size": 7},
        "hovertext": list(hover),
        "hoverinfo": "text",
    }


def _interval_hover(entry: EntryLike) -> str:
    return (
        f"{agent_label(entry)}<br>{percent(entry.pass_rate)} "
        f"[{percent(entry.wilson_low)}, {percent(entry.wilson_high)}] · n = {entry.n}"
    )


def pareto_frontier(points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The (cost, pass rate) points no other point beats: cheaper or equal cost with a
    higher pass rate. Returned by increasing cost, so pass rate strictly increases."""
    frontier: list[tuple[float, float]] = []
    for cost, rate in sorted(points, key=lambda p: (p[0], -p[1])):
        if not frontier or rate > frontier[-1][1]:
            frontier.append((cost, rate))
    return frontier


@dataclass(frozen=True)
class NotPlotted:
    label: str
    reason: str


@dataclass(frozen=True)
class CostPlot:
    figure: dict
    not_plotted: list[NotPlotted]
    # Entries drawn; with none the page shows a sentence instead of empty axes.
    plotted: int = 0
    # Points on the Pareto frontier: the caption names the steps only when they are drawn.
    frontier: int = 0

    @property
    def caption(self) -> str:
        """What the chart draws, in words true to this board's figure."""
        head = "Cost per success (log scale) against pass rate"
        if self.frontier >= 2:
            return (
                f"{head}; the orange steps join the Pareto frontier (no agent is both "
                f"cheaper and better), its agents named"
            )
        if self.frontier == 1:
            return f"{head}; the named agent is the cheapest of the best: no agent beats it on both"
        return head


COST_NOT_PLOTTED = {
    "missing_price": "n/a: no list price for some runs",
    "missing_tokens": "n/a: no token counts for some runs",
    "no_successes": "n/a: no successes",
}


def cost_vs_pass_rate(entries: Iterable[EntryLike]) -> CostPlot:
    """Cost per success (log x) against pass rate, with the Pareto frontier as steps.

    Entries without a cost per success cannot be placed on a log axis; they are
    returned with their reason so the page lists them beside the chart. Unranked
    entries are drawn in grey but do not shape the frontier: their figures are the
    ones under review or without counted runs.
    """
    ordered = sorted(entries, key=lambda e: e.position)
    plotted = [e for e in ordered if _has_cost(e)]
    not_plotted = [
        NotPlotted(agent_label(e), _not_plotted_reason(e)) for e in ordered if not _has_cost(e)
    ]
    frontier = pareto_frontier(
        (e.cost_per_success, e.pass_rate) for e in plotted if e.rank is not None
    )
    on_frontier = set(frontier)
    leading = [
        e
        for e in plotted
        if e.rank is not None and (e.cost_per_success, e.pass_rate) in on_frontier
    ]
    leading = sorted(leading, key=lambda e: -e.pass_rate)[:LABELLED_POINTS]
    # A one-point frontier draws no step; the caption says so (CostPlot.caption).
    span = [e.cost_per_success for e in plotted]
    data = [_frontier_trace(frontier), _cost_trace(plotted), _labels_trace(leading, span)]
    layout = base_layout(
        height=320,
        # Ticks at 1, 2 and 5 of each decade, in dollars: "$0.05", "$2".
        xaxis=axis(type="log", dtick="D2", tickformat="$.2~g",
                    title={"text": "Cost per success (USD, log scale)"}),
        yaxis=axis(range=[0, 1.02], tickformat=".0%", title={"text": "Pass rate"}),
    )  # fmt: skip
    layout["margin"]["l"] = 50
    return CostPlot(figure(data, layout), not_plotted, plotted=len(plotted), frontier=len(frontier))


def _frontier_trace(frontier: Sequence[tuple[float, float]]) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "name": "Pareto frontier",
        "x": [cost for cost, _ in frontier],
        "y": [rate for _, rate in frontier],
        "line": {"shape": "hv", "color": FRONTIER_COLOUR, "width": 2},
        "hoverinfo": "skip",
    }


def _cost_trace(plotted: Sequence[EntryLike]) -> dict[str, Any]:
    """The agents; unranked ones in grey."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "agents",
        "x": [e.cost_per_success for e in plotted],
        "y": [e.pass_rate for e in plotted],
        "marker": {
            "color": [RANKED_COLOUR if e.rank is not None else UNRANKED_COLOUR for e in plotted],
            "size": 8,
        },
        "hovertext": [
            f"{agent_label(e)}<br>{money(e.cost_per_success)} per success · "
            f"{percent(e.pass_rate)} pass rate"
            for e in plotted
        ],
        "hoverinfo": "text",
    }


def _labels_trace(leading: Sequence[EntryLike], costs: Sequence[float]) -> dict[str, Any]:
    """The leading agents' names written beside their points (text only, no marker),
    leaning inwards from the chart's edges so that none runs off it."""
    return {
        "type": "scatter",
        "mode": "text",
        "name": "leading agents",
        "x": [e.cost_per_success for e in leading],
        "y": [e.pass_rate for e in leading],
        "text": [agent_label(e) for e in leading],
        "textposition": [_label_side(e.cost_per_success, costs) for e in leading],
        "textfont": {"size": 10},
        "cliponaxis": False,
        "hoverinfo": "skip",
    }


def _label_side(cost: float, costs: Sequence[float]) -> str:
    low, high = math.log(min(costs)), math.log(max(costs))
    where = (math.log(cost) - low) / (high - low) if high > low else 0.5
    if where < 1 / 3:
        return "bottom right"
    return "bottom left" if where > 2 / 3 else "bottom center"


def _has_cost(entry: EntryLike) -> bool:
    return (
        entry.cost_per_success is not None
        and entry.cost_per_success > 0
        and entry.pass_rate is not None
    )


def _not_plotted_reason(entry: EntryLike) -> str:
    if entry.pass_rate is None:
        return "no counted runs"
    if entry.cost_per_success == 0:
        return "cost $0 cannot sit on a log axis"
    return COST_NOT_PLOTTED.get(entry.cost_per_success_status, "n/a")


def pass_k_curve(pass_hat_k: dict | None) -> dict:
    """pass^k for k = 1 … 8 with pass@k as a lighter line; hover names the tasks used."""
    rows = pass_k_rows(pass_hat_k)
    ks = [row.k for row in rows]
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "pass@k (at least one of k)",
            "x": ks,
            "y": [row.pass_at_k for row in rows],
            "line": {"color": RANKED_COLOUR, "width": 1.5, "dash": "dot"},
            "opacity": 0.45,
            "hovertext": [
                f"pass@{r.k} = {percent(r.pass_at_k)} over {r.tasks} tasks" for r in rows
            ],
            "hoverinfo": "text",
        },
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "pass^k (all k)",
            "x": ks,
            "y": [row.value for row in rows],
            "line": {"color": RANKED_COLOUR, "width": 2.5},
            "hovertext": [f"pass^{r.k} = {percent(r.value)} over {r.tasks} tasks" for r in rows],
            "hoverinfo": "text",
        },
    ]
    # The bootstrap band of pass^k under both lines, where it was computed.
    data = _pass_k_band([row for row in rows if row.low is not None]) + data
    layout = base_layout(
        height=280,
        showlegend=True,
        legend={"orientation": "h", "y": -0.3},
        xaxis=axis(title={"text": "k (trials)"}, dtick=1, range=[0.7, 8.3]),
        yaxis=axis(range=[0, 1.02], tickformat=".0%"),
    )
    layout["margin"].update({"l": 50, "b": 80})
    return figure(data, layout)


def _pass_k_band(rows: list) -> list[dict]:
    """Two traces: the lower bounds (no line), then the upper ones filled down to them."""
    if not rows:
        return []
    ks = [row.k for row in rows]
    edge = {"type": "scatter", "mode": "lines", "x": ks, "hoverinfo": "skip"}
    return [
        {**edge, "y": [row.low for row in rows], "line": {"width": 0}, "showlegend": False},
        {
            **edge,
            "name": "pass^k 95% interval (bootstrap over tasks)",
            "y": [row.high for row in rows],
            "line": {"width": 0},
            "fill": "tonexty",
            "fillcolor": "rgba(59, 125, 216, 0.18)",  # RANKED_COLOUR, light
        },
    ]
