"""/agents/: every agent of the current snapshot, searchable (issue 16). A thin view:
parse, select (leaderboard.boards.agent_search), render; htmx gets the results only."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from arena.http_cache import versioned_response
from leaderboard.boards.agent_search import AgentQuery, agent_page
from leaderboard.page_cache import current_snapshot_id

AGENTS_TEMPLATE = "leaderboard/agents.html"
RESULTS_PARTIAL = "agent-results"
HTML = "text/html; charset=utf-8"


@require_safe
def agents(request: HttpRequest) -> HttpResponse:
    """The list, filtered by ?q= and paged by ?page=; public, cached per snapshot."""
    query = AgentQuery.from_query(request.GET)
    template = _template(request)
    base = reverse("agents")

    def build() -> HttpResponse:
        page = agent_page(query)
        context = {
            "query": query,
            "page": page,
            "previous_url": _url(base, query, page.number - 1) if page.has_previous() else "",
            "next_url": _url(base, query, page.number + 1) if page.has_next() else "",
        }
        return render(request, template, context)

    # The key holds only the canonical query (whitespace collapsed, page checked), so
    # "?q=+quill++&junk=1" is the cached page of "?q=quill".
    response = versioned_response(
        request,
        version=current_snapshot_id(),
        key=f"page {template} {urlencode(query.pairs())}",
        content_type=HTML,
        build=build,
        public=not request.user.is_authenticated,
    )
    if request.htmx:
        # The box sends whatever was typed; the address bar gets the canonical link.
        response["HX-Push-Url"] = _url(base, query, query.page)
    patch_vary_headers(response, ("HX-Request", "HX-Target", "HX-History-Restore-Request"))
    return response


def _template(request: HttpRequest) -> str:
    # A history restore after a cache miss asks for the whole page.
    if request.htmx and not request.htmx.history_restore_request:
        return f"{AGENTS_TEMPLATE}#{RESULTS_PARTIAL}"
    return AGENTS_TEMPLATE


def _url(base: str, query: AgentQuery, page: int) -> str:
    pairs = query.pairs(page)
    return f"{base}?{urlencode(pairs)}" if pairs else base
