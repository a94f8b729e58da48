"""The home page (/): what Arena ranks and how, every board's leaders with their
intervals and freshness, what Overall pools, and the signal boards' leaders. Thin: the
rows are read by leaderboard.boards.overview and the signal board's selectors, a fixed
number of queries whatever the number of rows; the page is cached per snapshot."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import reverse
from django.views.decorators.http import require_safe

from leaderboard.boards import selectors
from leaderboard.boards.catalogue import OVERALL
from leaderboard.boards.overview import overview
from leaderboard.boards.params import BoardParams
from leaderboard.boards.safety_selectors import tab_safety_boards
from leaderboard.signalboard.selectors import signal_leaders
from leaderboard.web.pages import NO_SNAPSHOT, cached_page

TEMPLATE = "leaderboard/home.html"


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    # `/` was the Overall board: an address with a board's parameters (an old bookmark,
    # `/?col=passk`) still opens that view. Unknown parameters are the home page's.
    board_query = BoardParams.from_query(request.GET).querystring()
    if board_query:
        return HttpResponsePermanentRedirect(reverse("board", args=[OVERALL.slug]) + board_query)
    boards = selectors.current_boards()
    snapshot = boards[0].snapshot if boards else None

    def context() -> dict:
        return {
            "boards": boards,
            "overview": overview(boards),
            "safety_boards": tab_safety_boards(boards),
            "signals": signal_leaders(snapshot.pk) if snapshot else {},
            "sessions_total": snapshot.sessions_total if snapshot else 0,
            "runs_total": snapshot.runs_total if snapshot else 0,
            "computed_at": snapshot.computed_at if snapshot else None,
        }

    return cached_page(
        request,
        template=TEMPLATE,
        key="home",
        context=context,
        version=snapshot.pk if snapshot else NO_SNAPSHOT,
    )
