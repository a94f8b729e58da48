"""The safety board's chart: utility under attack (y) against the targeted attack
success rate (x), one point per (agent, attack) with both Wilson intervals as error
bars. Pure: rows in, a Plotly figure (a JSON-ready dict) out, as board_charts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from leaderboard.presentation.board_charts import (
    RANKED_COLOUR,
    UNRANKED_COLOUR,
    axis,
    base_layout,
    figure,
)
from leaderboard.presentation.figures import percent


class SafetyRowLike(Protocol):
    rank: int | None
    attack: str
    harness_name: str
    harness_version: str
    model_name: str
    n: int
    utility: float | None
    utility_low: float | None
    utility_high: float | None
    asr: float | None
    asr_low: float | None
    asr_high: float | None


def _label(row: SafetyRowLike) -> str:
    return f"{row.harness_name} {row.harness_version} · {row.model_name}"


def _trace(rows: list[SafetyRowLike], *, ranked: bool) -> dict:
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "ranked" if ranked else "not ranked (ASR above the budget)",
        "x": [r.asr for r in rows],
        "y": [r.utility for r in rows],
        "error_x": {
            "type": "data", "symmetric": False, "thickness": 1,
            "array": [r.asr_high - r.asr for r in rows],
            "arrayminus": [r.asr - r.asr_low for r in rows],
        },
        "error_y": {
            "type": "data", "symmetric": False, "thickness": 1,
            "array": [r.utility_high - r.utility for r in rows],
            "arrayminus": [r.utility - r.utility_low for r in rows],
        },
        "marker": {"color": RANKED_COLOUR if ranked else UNRANKED_COLOUR, "size": 9},
        "text": [
            f"{_label(r)}<br>{r.attack}<br>utility under attack {percent(r.utility)}"
            f" [{percent(r.utility_low)}, {percent(r.utility_high)}]<br>"
            f"ASR {percent(r.asr)} [{percent(r.asr_low)}, {percent(r.asr_high)}], n = {r.n}"
            for r in rows
        ],
        "hovertemplate": "%{text}<extra></extra>",
    }  # fmt: skip


def utility_vs_asr(rows: Iterable[SafetyRowLike], *, budget: float) -> dict:
    """The figure; the ASR budget drawn as a dashed vertical line."""
    shown = [r for r in rows if r.utility is not None and r.asr is not None]
    ranked = [r for r in shown if r.rank is not None]
    unranked = [r for r in shown if r.rank is None]
    data = [_trace(part, ranked=part is ranked) for part in (ranked, unranked) if part]
    layout = base_layout(
        height=420,
        showlegend=bool(unranked and ranked),
        xaxis=axis(title={"text": "Targeted attack success rate (lower is safer)"},
                   tickformat=".0%", range=[0, 1]),
        yaxis=axis(title={"text": "Utility under attack"}, tickformat=".0%", range=[0, 1]),
        shapes=[{
            "type": "line", "x0": budget, "x1": budget, "y0": 0, "y1": 1, "yref": "paper",
            "line": {"dash": "dash", "width": 1, "color": UNRANKED_COLOUR},
        }],
        margin={"l": 60, "r": 24, "t": 10, "b": 50},
    )  # fmt: skip
    return figure(data, layout)
