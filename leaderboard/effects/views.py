"""The harness × model page of a board: thin view, the figures are the snapshot's."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from arena.http_cache import versioned_response
from leaderboard.boards import selectors as board_selectors
from leaderboard.effects import charts, selectors

TEMPLATE = "leaderboard/harness_effects.html"
HTML = "text/html; charset=utf-8"


@require_safe
def board_harnesses(request: HttpRequest, slug: str) -> HttpResponse:
    boards = board_selectors.current_boards()
    board = board_selectors.pick_board(boards, slug)
    if board is None:
        raise Http404(f"no board {slug!r}")

    def render_page() -> HttpResponse:
        effects = selectors.board_effects(board)
        context = {
            "boards": boards,
            "board": board,
            "computed_at": board.snapshot.computed_at,
            "effects": effects,
            "harness_chart": charts.effects_forest(
                effects.harnesses, title="Odds ratio vs the reference harness, 95% interval"
            ),
            "model_chart": charts.effects_forest(
                effects.models, title="Odds ratio vs the reference model, 95% interval"
            ),
        }
        return render(request, TEMPLATE, context)

    return versioned_response(
        request,
        version=board.snapshot_id,
        key=f"page effects {slug} fitted={selectors.board_fitted(board)}",
        content_type=HTML,
        build=render_page,
        public=not request.user.is_authenticated,
    )
