"""A board's tasks, the hardest first (/boards/<slug>/tasks/): each task's solve rate
pooled over the board's entries, with its interval and n, linking to its task page."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from leaderboard.boards import selectors, task_selectors
from leaderboard.boards.catalogue import is_aggregate
from leaderboard.web.pages import cached_page

TEMPLATE = "leaderboard/board_tasks.html"


@require_safe
def board_tasks(request: HttpRequest, slug: str) -> HttpResponse:
    boards = selectors.current_boards()
    board = selectors.pick_board(boards, slug)
    if board is None:
        raise Http404(f"no board {slug!r}")

    def context() -> dict:
        return {
            "boards": boards,
            "board": board,
            "tasks": task_selectors.hardest_tasks(board.slug),
            # A board that pools suites names each task's suite.
            "pooled": is_aggregate(board.slug),
            "computed_at": board.snapshot.computed_at,
        }

    return cached_page(
        request, template=TEMPLATE, key=f"tasks {slug}", context=context, version=board.snapshot_id
    )
