"""The task page (/tasks/<suite>/<version>/<task id>/): which entries of its suite's
board solve it, how often, and at the first try, with links to their runs. Thin: the
figures are read by leaderboard.boards.task_selectors."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from leaderboard.boards import selectors, task_selectors
from leaderboard.boards.catalogue import OVERALL, category_slug
from leaderboard.web.pages import NO_SNAPSHOT, cached_page

TEMPLATE = "leaderboard/task.html"


@require_safe
def task(request: HttpRequest, suite: str, version: str, task_id: str) -> HttpResponse:
    boards = selectors.current_boards()

    def context() -> dict:
        found = task_selectors.task_for_page(suite, version, task_id)
        if found is None:  # raised inside the render: a 404 is never cached
            raise Http404("no such task")
        board = selectors.pick_board(boards, found.suite.board_slug)
        on_boards = [b for b in boards if _counts_on(b.slug, found)] if found.approved else []
        return {
            "task": found,
            "board": board,
            "on_boards": on_boards if board is not None else [],
            "rows": task_selectors.task_entries(found, board),
            "computed_at": boards[0].snapshot.computed_at if boards else None,
        }

    return cached_page(
        request,
        template=TEMPLATE,
        key=f"task {suite}\n{version}\n{task_id}",
        context=context,
        version=boards[0].snapshot_id if boards else NO_SNAPSHOT,
    )


def _counts_on(board_slug: str, task) -> bool:
    """Whether the task counts on the board, as far as the page says: its suite's,
    Overall and its category's (those two when its suite joins Overall)."""
    suite = task.suite
    if board_slug == suite.board_slug:
        return True
    return suite.in_overall and board_slug in {OVERALL.slug, category_slug(task.category.name)}
