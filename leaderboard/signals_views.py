"""The Signals page: models ranked by what happens in real user sessions.

Three views of the current snapshot's SignalEntry rows: the composite table, and two
small-multiples grids (model × scenario, model × capability). Switching views and
sorting answer htmx requests with the `signals-table` partial only; every link is a
real URL too, so the page works without JavaScript.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from leaderboard import stats
from leaderboard.models import SignalEntry
from leaderboard.queries import SortHeader
from leaderboard.signal_board import (
    CAPABILITIES,
    CAPABILITY_PREFIX,
    COMPOSITE_SCOPE,
    SCENARIOS,
    SIGNALS,
    SliceKind,
    current_signal_entries,
)
from leaderboard.templatetags.arena import SIGNAL_LABELS
from leaderboard.terms import ATTRIBUTION, DATA_TERMS

TEMPLATE = "leaderboard/signals.html"
VIEWS = {
    "composite": "Composite",
    "scenario": "By scenario",
    "capability": "By capability",
}
VIEW_KINDS = {
    "composite": SliceKind.COMPOSITE,
    "scenario": SliceKind.SCENARIO,
    "capability": SliceKind.CAPABILITY,
}
NIR = "net_improvement"
# Every figure the scenario grid can show in its cells.
GRID_SIGNALS = (NIR, *SIGNALS)
# Lower is better only for tool hallucinations: its first click sorts ascending.
LOWER_IS_BETTER = frozenset({"tool_hallucination"})
SCENARIO_LABELS = {scenario: scenario.replace("_", " ").capitalize() for scenario in SCENARIOS}
CAPABILITY_LABELS = {
    "confirmed_success": "Result confirmation",
    "praise_complaint": "Praise vs complaint",
    "steerability": "Steerability",
    "bash_recovery": "Command execution (bash recovery)",
    "shell_success": "Command execution (shell success)",
    "tool_validity": "Tool-call validity",
}
# The signal column each capability's own figure comes from.
CAPABILITY_SIGNALS = {
    "confirmed_success": "confirmed_success",
    "praise_complaint": "praise_complaint",
    "steerability": "steerability",
    "bash_recovery": "bash_recovery",
    "shell_success": "shell_success",
    "tool_validity": "tool_hallucination",
}


# --- parameters ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignalParams:
    """What a visitor asked of the page, parsed from the query string and made safe."""

    view: str = "composite"
    sort: str = ""
    signal: str = NIR

    @classmethod
    def from_query(cls, query: QueryDict) -> SignalParams:
        view = query.get("view", "")
        view = view if view in VIEWS else "composite"
        signal = query.get("signal", "")
        signal = signal if signal in GRID_SIGNALS else NIR
        sort = query.get("sort", "")
        sort = sort if sort.removeprefix("-") in sort_keys(view) else ""
        return cls(view=view, sort=sort, signal=signal)

    @property
    def sort_key(self) -> str:
        return self.sort.removeprefix("-")

    @property
    def descending(self) -> bool:
        return self.sort.startswith("-")

    def querystring(self, **changes: str) -> str:
        params = replace(self, **changes)
        pairs = [("view", params.view)] if params.view != "composite" else []
        if params.view == "scenario" and params.signal != NIR:
            pairs.append(("signal", params.signal))
        if params.sort:
            pairs.append(("sort", params.sort))
        return "?" + urlencode(pairs) if pairs else ""


def sort_keys(view: str) -> dict[str, bool]:
    """Sortable keys of a view -> whether a first click sorts descending (best first)."""
    keys = {"rank": False, "model": False, "sessions": True}
    if view == "composite":
        keys.update({signal: signal not in LOWER_IS_BETTER for signal in GRID_SIGNALS})
    elif view == "scenario":
        keys.update({scope: True for scope in (COMPOSITE_SCOPE, *SCENARIOS)})
    else:
        keys.update({capability: True for capability in CAPABILITIES})
    return keys


def sort_headers(params: SignalParams, labels: dict[str, str]) -> dict[str, SortHeader]:
    """Each sortable header's link: the other direction when already sorted by it."""
    return {
        key: _sort_header(params, key, first_descending, labels.get(key, key))
        for key, first_descending in sort_keys(params.view).items()
    }


def _sort_header(params: SignalParams, key: str, first_descending: bool, label: str) -> SortHeader:
    active = params.sort_key == key
    descending = not params.descending if active else first_descending
    aria, indicator = "none", ""
    if active:
        aria, indicator = ("descending", "▼") if params.descending else ("ascending", "▲")
    direction = "descending" if descending else "ascending"
    return SortHeader(
        key=key,
        href_query=params.querystring(sort=("-" if descending else "") + key),
        aria_sort=aria,
        indicator=indicator,
        next_label=f"Sort by {label.lower()}, {direction}",
    )


# --- sorting ---------------------------------------------------------------------------------


def _sorted(items: list, key: Callable[[Any], Any], descending: bool) -> list:
    """Sort by key, missing (None or NaN) values last whichever the direction."""
    present = [item for item in items if _present(key(item))]
    missing = [item for item in items if not _present(key(item))]
    return sorted(present, key=key, reverse=descending) + missing


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _figure(entry: SignalEntry | None, signal: str) -> float | None:
    if entry is None:
        return None
    return (entry.data.get(signal) or {}).get("value")


# --- composite table -------------------------------------------------------------------------


@dataclass
class CompositeTable:
    ranked: list[SignalEntry]
    unranked: list[SignalEntry]


def composite_table(entries: list[SignalEntry], params: SignalParams) -> CompositeTable:
    """Ranked rows, then the greyed ones below a divider, each group sorted as asked."""
    key = _composite_key(params.sort_key)

    def order(group: Iterable[SignalEntry]) -> list[SignalEntry]:
        rows = list(group)
        return _sorted(rows, key, params.descending) if key else rows

    return CompositeTable(
        ranked=order(e for e in entries if e.rank is not None),
        unranked=order(e for e in entries if e.rank is None),
    )


def _composite_key(sort_key: str) -> Callable[[SignalEntry], Any] | None:
    if sort_key in ("", "rank"):
        return (lambda e: e.position) if sort_key else None
    if sort_key == "model":
        return lambda e: e.model_name.lower()
    if sort_key == "sessions":
        return lambda e: e.sessions
    return lambda e: _figure(e, sort_key)


# --- small-multiples grid --------------------------------------------------------------------


@dataclass(frozen=True)
class GridColumn:
    key: str  # sort key
    scope: str
    label: str
    signal: str  # which figure of the entry the cell shows
    own_signal: str | None = None  # a capability's own signal figure, shown beside its NIR


@dataclass(frozen=True)
class GridCell:
    column: GridColumn
    entry: SignalEntry | None  # None: the model has no sessions in this slice


@dataclass
class GridRow:
    model: str
    composite: SignalEntry | None
    cells: list[GridCell] = field(default_factory=list)


def grid_columns(params: SignalParams) -> list[GridColumn]:
    if params.view == "scenario":
        scopes = [(COMPOSITE_SCOPE, "All sessions"), *SCENARIO_LABELS.items()]
        return [GridColumn(scope, scope, label, params.signal) for scope, label in scopes]
    return [
        GridColumn(
            capability, CAPABILITY_PREFIX + capability, label, NIR, CAPABILITY_SIGNALS[capability]
        )
        for capability, label in CAPABILITY_LABELS.items()
    ]


def grid_rows(
    entries: list[SignalEntry], columns: list[GridColumn], params: SignalParams
) -> list[GridRow]:
    """One row per model (composite order), one cell per column."""
    by_slice = {(e.scope, e.model_name): e for e in entries}
    composite = sorted((e for e in entries if e.scope == COMPOSITE_SCOPE), key=lambda e: e.position)
    models = dict.fromkeys([e.model_name for e in composite] + [e.model_name for e in entries])
    rows = [
        GridRow(
            model=model,
            composite=by_slice.get((COMPOSITE_SCOPE, model)),
            cells=[GridCell(column, by_slice.get((column.scope, model))) for column in columns],
        )
        for model in models
    ]
    return _sort_grid(rows, columns, params)


def _sort_grid(
    rows: list[GridRow], columns: list[GridColumn], params: SignalParams
) -> list[GridRow]:
    key = params.sort_key
    if key in ("", "rank"):
        return rows if not params.descending else rows[::-1]
    if key == "model":
        return _sorted(rows, lambda r: r.model.lower(), params.descending)
    if key == "sessions":
        return _sorted(
            rows, lambda r: r.composite.sessions if r.composite else None, params.descending
        )
    index = next(i for i, column in enumerate(columns) if column.key == key)
    signal = columns[index].signal
    return _sorted(rows, lambda r: _figure(r.cells[index].entry, signal), params.descending)


# --- the view --------------------------------------------------------------------------------


@require_safe
def signals(request: HttpRequest) -> HttpResponse:
    params = SignalParams.from_query(request.GET)
    kinds = [SliceKind.COMPOSITE, VIEW_KINDS[params.view]]
    selection = current_signal_entries(kinds=kinds)
    context = {
        "params": params,
        "computed_at": selection.computed_at,
        "sessions_total": selection.sessions_total,
        "signals_url": reverse("signals"),
        "views": _view_links(params),
        "min_sessions": stats.MIN_RANKED_SESSIONS,
        "data_terms": DATA_TERMS,
        "attribution": ATTRIBUTION,
        **_view_context(selection.entries, params),
    }
    template = TEMPLATE
    if request.htmx and not request.htmx.history_restore_request:
        template = f"{TEMPLATE}#signals-table"
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request", "HX-History-Restore-Request"))
    return response


def _view_links(params: SignalParams) -> list[dict[str, Any]]:
    return [
        {
            "label": label,
            "href": params.querystring(view=view, sort=""),
            "current": view == params.view,
        }
        for view, label in VIEWS.items()
    ]


def _view_context(entries: list[SignalEntry], params: SignalParams) -> dict[str, Any]:
    if params.view == "composite":
        composite = [e for e in entries if e.scope == COMPOSITE_SCOPE]
        labels = {"rank": "rank", "model": "model", "sessions": "sessions", **SIGNAL_LABELS}
        return {
            "table": composite_table(composite, params),
            "has_entries": bool(composite),
            "sort": sort_headers(params, labels),
        }
    columns = grid_columns(params)
    labels = {"rank": "composite rank", "model": "model", "sessions": "sessions"}
    labels.update({column.key: column.label for column in columns})
    headers = sort_headers(params, labels)
    return {
        "columns": [(column, headers[column.key]) for column in columns],
        "rows": grid_rows(entries, columns, params),
        "has_entries": bool(entries),
        "sort": headers,
        "signal_links": _signal_links(params) if params.view == "scenario" else [],
    }


def _signal_links(params: SignalParams) -> list[dict[str, Any]]:
    return [
        {
            "label": SIGNAL_LABELS[signal],
            "href": params.querystring(signal=signal),
            "current": signal == params.signal,
        }
        for signal in GRID_SIGNALS
    ]
