"""The Signals page: models ranked by what happens in real user sessions.

Three views of the current snapshot's SignalEntry rows: the composite table, and two
small-multiples grids (model × scenario, model × capability). Switching views and
sorting answer htmx requests with the `signals-table` partial only; every link is a
real URL too, so the page works without JavaScript.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from leaderboard.alerts.services import followed_signal_models
from leaderboard.methodology import stats
from leaderboard.models import SignalEntry
from leaderboard.presentation.signals import SIGNAL_LABELS
from leaderboard.signalboard.agents import AGENT, BY_VIEWS, MODEL
from leaderboard.signalboard.selectors import SignalSelection, current_signal_entries
from leaderboard.signalboard.slices import COMPOSITE_SCOPE, SliceKind
from leaderboard.signalboard.uploaders import conflict_summary
from leaderboard.web.follows import signal_follow_urls
from leaderboard.web.pages import cached_page, htmx_template
from leaderboard.web.signals.params import (
    GRID_SIGNALS,
    VIEW_KINDS,
    VIEWS,
    SignalParams,
    sort_headers,
)
from leaderboard.web.signals.tables import composite_table, grid_columns, grid_rows
from leaderboard.web.terms import ATTRIBUTION, DATA_TERMS

TEMPLATE = "leaderboard/signals.html"
PARTIAL = "signals-table"


@require_safe
def signals(request: HttpRequest) -> HttpResponse:
    params = SignalParams.from_query(request.GET)
    return cached_page(
        request,
        template=htmx_template(request, TEMPLATE, {PARTIAL}, PARTIAL),
        key=params.querystring(),
        context=lambda: _with_follows(request, params, _page_context(params)),
    )


def _with_follows(
    request: HttpRequest, params: SignalParams, context: dict[str, Any]
) -> dict[str, Any]:
    """The model view's follow buttons, for a signed-in visitor (whose page is never
    cached); every other visitor's rows link to the log-in page."""
    if not request.user.is_authenticated or params.by != MODEL:
        return context
    table = context.get("table")  # the composite view's; the grids have no buttons
    names = [e.model_name for e in (*table.ranked, *table.unranked)] if table else []
    context["follows"] = {
        "urls": signal_follow_urls(names),
        "following": followed_signal_models(request.user),
        "next": request.get_full_path(),
    }
    return context


def _page_context(params: SignalParams) -> dict[str, Any]:
    kinds = [SliceKind.COMPOSITE, VIEW_KINDS[params.view]]
    selection = current_signal_entries(kinds=kinds, by=params.by)
    return {
        "params": params,
        "computed_at": selection.computed_at,
        "sessions_total": selection.sessions_total,
        "signals_url": reverse("signals"),
        "views": _view_links(params),
        "by_links": _by_links(params),
        **_agent_context(selection, params),
        "min_sessions": stats.MIN_RANKED_SESSIONS,
        "conflicts": conflict_summary(),
        "data_terms": DATA_TERMS,
        "attribution": ATTRIBUTION,
        **_view_context(selection.entries, params),
    }


def _by_links(params: SignalParams) -> list[dict[str, Any]]:
    return [
        {"label": label, "href": params.querystring(by=by, sort=""), "current": by == params.by}
        for by, label in BY_VIEWS.items()
    ]


def _agent_context(selection: SignalSelection, params: SignalParams) -> dict[str, Any]:
    """The agent view says how many sessions name no agent (they are not on it)."""
    if params.by != AGENT:
        return {"agent_view": False, "row_label": "Model"}
    on_view = sum(e.sessions for e in selection.entries if e.scope == COMPOSITE_SCOPE)
    return {
        "agent_view": True,
        "row_label": "Agent version",
        "left_out": max(selection.sessions_total - on_view, 0),
        # An empty agent view points to the same view per model, where its sessions are.
        "model_view_href": params.querystring(by=MODEL, sort=""),
    }


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
            # Each row links to a comparison with the leader (the leader's, with the
            # runner-up): the first rows in board order, whatever the visitor's sort.
            "compare_url": reverse("compare"),
            # The agent view links each row to its release comparison instead.
            "leader": composite[0].model_name if composite and params.by == MODEL else None,
            "runner_up": composite[1].model_name if len(composite) > 1 else None,
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
