"""The agent page: an agent's rows on every board, its pass^k, its history; with an
account, that account's independent run of the harness. The figures are the snapshot's."""

from __future__ import annotations

from datetime import datetime

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.encoding import escape_uri_path
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from leaderboard.boards import selectors
from leaderboard.boards.safety_selectors import agent_safety_rows
from leaderboard.boards.trace_views import agent_rule_breaks
from leaderboard.history import selectors as history_selectors
from leaderboard.models import BoardEntry
from leaderboard.presentation import board_charts as charts
from leaderboard.presentation import history_charts, horizon_charts
from leaderboard.web.follows import agent_follow_context
from leaderboard.web.pages import htmx_page, htmx_template

AGENT_TEMPLATE = "leaderboard/agent.html"
# The htmx target of the pass^k board picker: a partial of AGENT_TEMPLATE.
PASS_K_PARTIAL = "pass-k-section"


@require_safe
def agent(
    request: HttpRequest, harness: str, version: str, model: str, account: str | None = None
) -> HttpResponse:
    """An agent's page; with `account`, that account's independent run of the harness.

    `?board=<slug>` picks the board whose pass^k the page shows (default: the first of
    the agent's boards with one, Overall when it is there). The figures are the
    snapshot's, never computed from runs here.
    """
    found = selectors.find_agent(harness, version, model, independent_by=account)
    if found is None:
        raise Http404("no such agent")
    profile = selectors.agent_profile(*found)
    choices = [row for row in profile.board_rows if row.pass_hat_k]
    picked, notice = _pass_k_pick(choices, request.GET.get("board", ""))
    context = {
        "profile": profile,
        "pass_k_entry": picked,
        # (entry, link) for each board the visitor can pick.
        "pass_k_choices": [(row, _pass_k_url(request, row)) for row in choices],
        "pass_k_notice": notice,
        "pass_k_figure": charts.pass_k_curve(picked.pass_hat_k) if picked else None,
        "computed_at": selectors.current_computed_at(),
        "trace_rows": [row for row in profile.board_rows if row.trajectory],
        "rule_breaks": agent_rule_breaks(*found),
        "safety_rows": agent_safety_rows(found[0].pk, found[1].pk),
        # The row details say why cost or tokens are n/a (both columns are always shown).
        "detail_params": {"columns": ("cost", "tokens")},
    }
    context.update(agent_history_context(found[0].pk, found[1].pk, now=context["computed_at"]))
    context["feed_url"] = _feed_url(harness, version, model, account)
    context["follow"] = agent_follow_context(request, *found)
    context.update(agent_horizon_context(profile.board_rows))
    # The picker's htmx request gets only its section; any other, the page.
    template = htmx_template(request, AGENT_TEMPLATE, {PASS_K_PARTIAL}, None)
    return htmx_page(request, render(request, template, context), push_url=None)


def _feed_url(harness: str, version: str, model: str, account: str | None) -> str:
    if account:
        return reverse("agent-independent-feed", args=[account, harness, version, model])
    return reverse("agent-feed", args=[harness, version, model])


def _pass_k_url(request: HttpRequest, row: BoardEntry) -> str:
    return f"{escape_uri_path(request.path)}?{urlencode({'board': row.board.slug})}"


def _pass_k_pick(choices: list[BoardEntry], slug: str) -> tuple[BoardEntry | None, str]:
    """The entry whose pass^k to show, and a notice when the asked board has none.

    A board the agent is not on (any more: boards change with each snapshot) falls back
    to the default with a notice rather than a 404, so an old link still shows the page.
    """
    default = choices[0] if choices else None
    if not slug:
        return default, ""
    picked = next((row for row in choices if row.board.slug == slug), None)
    if picked is not None:
        return picked, ""
    shown = f"; showing {default.board.title}" if default else ""
    return default, f"This agent has no pass^k on a board {slug!r} in the current snapshot{shown}."


def agent_horizon_context(rows: list[BoardEntry]) -> dict:
    """The Time horizon section: the agent's horizon on every board that has one, and
    the success-against-length chart of the first (Overall when it is there)."""
    horizon_rows = [row for row in rows if row.horizon]
    first = horizon_rows[0] if horizon_rows else None
    return {
        "horizon_rows": horizon_rows,
        "horizon_entry": first,
        "horizon_figure": horizon_charts.horizon_curve(first.horizon) if first else None,
    }


def agent_history_context(harness_id: int, model_id: int, *, now: datetime | None) -> dict:
    """The agent page's History section: its rows, and a chart once there is a trend
    (one recorded state is a dot, shown as such in the table, not as a chart)."""
    history = history_selectors.agent_history(harness_id=harness_id, model_id=model_id)
    figure = history_charts.history_figure(history, now=now) if history.has_trend else None
    return {"history": history, "history_figure": figure}
