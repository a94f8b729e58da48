"""The one table of trajectory figures: every key `trajectory_score` can produce, in
display order, with its column header, its definition and its names elsewhere.

Read by the rollups, the board columns and the methodology page; a figure added to
the scoring and not here would be computed and never shown. The Vertex AI and
agentevals names are those libraries' metrics or modes that pass on the same runs;
their precision and recall, like these, are over tool names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Figure:
    key: str
    kind: Literal["rate", "mean"]  # rate: a pass (1) or fail (0) per run; mean: a fraction
    label: str  # the short column header
    definition: str  # one sentence
    vertex: str = ""  # the Vertex AI agent evaluation metric, if it has one
    agentevals: str = ""  # the LangChain agentevals trajectory match mode, if it has one


_SELECTION = (
    Figure(
        "tool_precision",
        "mean",
        "Tool precision",
        "The share of the agent's tool calls whose tool names appear in the reference, counted as multisets.",
        vertex="trajectory_precision",
    ),
    Figure(
        "tool_recall",
        "mean",
        "Tool recall",
        "The share of the reference calls' tool names the agent called, counted as multisets.",
        vertex="trajectory_recall",
    ),
    Figure(
        "tool_f1",
        "mean",
        "Tool F1",
        "The harmonic mean of tool precision and tool recall (0 when both are 0).",
    ),
)

# (variant, label, what passes, Vertex AI metric, agentevals mode)
_VARIANTS = (
    ("exact", "Exact", "the calls are the reference calls, one for one, in the same order",
     "trajectory_exact_match", "strict"),
    ("in_order", "In order", "every reference call appears in the same order, extra calls allowed",
     "trajectory_in_order_match", ""),
    ("any_order", "Any order", "every reference call has its own matching call, in any order, extra calls allowed",
     "trajectory_any_order_match", "superset"),
    ("same_calls", "Same calls", "the calls and the reference calls match one to one, in any order",
     "", "unordered"),
    ("no_extras", "No extras", "every call has its own matching reference call",
     "", "subset"),
)  # fmt: skip

_MATCHED_BY = {
    "names": ("names", "calls matched by tool name"),
    "args": ("args", "calls matched by tool name and arguments under the suite's argument rules"),
}


def _variant_figures() -> tuple[Figure, ...]:
    figures = []
    for key, label, passes, vertex, agentevals in _VARIANTS:
        for suffix, (short, how) in _MATCHED_BY.items():
            figures.append(
                Figure(
                    f"{key}_{suffix}",
                    "rate",
                    f"{label} ({short})",
                    f"Passes when {passes}, {how}.",
                    vertex=vertex,
                    agentevals=agentevals,
                )
            )
    return tuple(figures)


_ACCURACY = Figure(
    "argument_accuracy",
    "mean",
    "Argument accuracy",
    "The share of compared reference arguments the paired agent calls match, each reference "
    "call paired in order with the unpaired same-tool call matching most of its arguments.",
)


def _write_only(figure: Figure) -> Figure:
    return Figure(
        f"write_{figure.key}",
        figure.kind,
        f"Writes: {figure.label}",
        f"{figure.definition.rstrip('.')}, over write calls only.",
        vertex=figure.vertex,
        agentevals=figure.agentevals,
    )


_ALL = (*_SELECTION, *_variant_figures(), _ACCURACY)
FIGURES: tuple[Figure, ...] = (*_ALL, *(_write_only(figure) for figure in _ALL))
FIGURE_KEYS: tuple[str, ...] = tuple(figure.key for figure in FIGURES)
FIGURES_BY_KEY: dict[str, Figure] = {figure.key: figure for figure in FIGURES}
