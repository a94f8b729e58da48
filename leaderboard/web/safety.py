"""The safety board pages (/boards/<suite board>-safety/) and their CSV download. Thin:
select, chart, render (methodology "Safety under attack")."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from leaderboard.boards import selectors
from leaderboard.boards.safety_selectors import (
    safety_board,
    safety_board_listed,
    safety_rows,
    tab_safety_boards,
)
from leaderboard.exports import csv_text
from leaderboard.methodology.safety import ASR_BUDGET
from leaderboard.presentation.safety_charts import utility_vs_asr
from leaderboard.web.api.safety import safety_csv_table
from leaderboard.web.pages import cached_page
from leaderboard.web.terms import link_terms, terms_url

SAFETY_TEMPLATE = "leaderboard/safety.html"


@require_safe
def safety(request: HttpRequest, slug: str) -> HttpResponse:
    listed = safety_board_listed(slug)
    if listed is None:
        raise Http404(f"no safety board {slug!r}")

    def context() -> dict:
        board = safety_rows(listed)  # on a miss only
        boards = selectors.current_boards()
        return {
            "boards": boards,
            "safety_boards": tab_safety_boards(boards),
            "safety": board,
            "asr_budget": ASR_BUDGET,
            "charts": [
                (attack, f"safety-figure-{i}", utility_vs_asr(rows, budget=ASR_BUDGET))
                for i, (attack, rows) in enumerate(board.attacks.items())
            ],
        }

    return cached_page(
        request, template=SAFETY_TEMPLATE, key=slug, context=context, version=listed.snapshot_id
    )


@require_safe
def safety_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The safety board as CSV: the API's `?format=csv` columns."""
    board = safety_board(slug)
    if board is None:
        raise Http404(f"no safety board {slug!r}")
    table = safety_csv_table(board)
    body = csv_text(
        table.columns, table.rows, terms_url=terms_url(request), text_columns=table.text_columns
    )
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    stamp = board.computed_at.strftime("%Y%m%dT%H%M%SZ")
    response["Content-Disposition"] = f'attachment; filename="arena-{board.slug}-{stamp}.csv"'
    return link_terms(request, response)
