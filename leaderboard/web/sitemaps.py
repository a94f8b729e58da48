"""sitemap.xml and robots.txt: what search engines may read, and where to find it.

The sitemap (django.contrib.sitemaps) lists the public pages of the current snapshot:
the home, methodology, signal and agent-search pages, every board with its hardest
tasks, every safety board, every agent with an entry, every task that counts on a
board. It is cached per snapshot like the pages. robots.txt points at it and keeps
crawlers out of the admin, the accounts, the upload and submission pages and the API's
writes; query-string variants of a page (sorts, filters, comparisons) are the same
content and stay out of the sitemap.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import sitemap
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from arena.http_cache import versioned_response
from leaderboard.boards import selectors
from leaderboard.boards.agent_search import agent_search
from leaderboard.boards.safety_selectors import tab_safety_boards
from leaderboard.boards.task_selectors import board_task_names
from leaderboard.web.links import agent_url_for
from leaderboard.web.pages import NO_SNAPSHOT

# One sitemap file holds at most this many addresses (the protocol's bound is 50,000).
PAGE_SIZE = 10_000


class PagesSitemap(Sitemap):
    """The pages that are not a board's, an agent's or a task's."""

    changefreq = "daily"
    priority = 0.8

    def items(self) -> list[str]:
        return ["home", "methodology", "signals", "agents"]

    def location(self, item: str) -> str:
        return reverse(item)


class BoardsSitemap(Sitemap):
    """Every current board, its hardest tasks, and every safety board."""

    changefreq = "daily"
    priority = 0.9

    def items(self) -> list[str]:
        boards = selectors.current_boards()
        paths = []
        for board in boards:
            paths += [
                reverse("board", args=[board.slug]),
                reverse("board-tasks", args=[board.slug]),
            ]
        return paths + [reverse("safety-board", args=[s.slug]) for s in tab_safety_boards(boards)]

    def location(self, item: str) -> str:
        return item


class AgentsSitemap(Sitemap):
    """Every agent with an entry on a current board."""

    changefreq = "weekly"
    limit = PAGE_SIZE

    def items(self) -> list[str]:
        urls = (
            agent_url_for(
                row["harness_name"],
                row["harness_version"],
                row["model_name"],
                row["independent_by"],
            )
            for row in agent_search("")
        )
        return [url for url in urls if url is not None]

    def location(self, item: str) -> str:
        return item


class TasksSitemap(Sitemap):
    """Every task that counts on a board."""

    changefreq = "weekly"
    priority = 0.4
    limit = PAGE_SIZE

    def items(self) -> list[tuple[str, str, str]]:
        return board_task_names()

    def location(self, item: tuple[str, str, str]) -> str:
        return reverse("task", args=list(item))


SITEMAPS: dict[str, Any] = {
    "pages": PagesSitemap,
    "boards": BoardsSitemap,
    "agents": AgentsSitemap,
    "tasks": TasksSitemap,
}


@require_safe
def sitemap_xml(request: HttpRequest) -> HttpResponse:
    """The sitemap of the current snapshot (`?p=N` for a further page of a long one)."""
    page = request.GET.get("p", "1")
    boards = selectors.current_boards()

    def build() -> HttpResponse:
        response = sitemap(request, SITEMAPS)
        response.render()
        return response

    return versioned_response(
        request,
        version=boards[0].snapshot_id if boards else NO_SNAPSHOT,
        key=f"sitemap {page if page.isdigit() else '1'} {request.get_host()}",
        content_type="application/xml; charset=utf-8",
        build=build,
        public=True,
    )


# Crawlers stay out of what is private, a form, or a write.
ROBOTS_DISALLOWED = (
    "/admin/",
    "/accounts/",
    "/submit/",
    "/submissions/",
    "/api/v1/submissions/",
    "/api/v1/dry-runs/",
)


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in ROBOTS_DISALLOWED)]
    lines.append(f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
