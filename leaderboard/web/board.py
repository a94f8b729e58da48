"""The board pages (/boards/<slug>/) and their downloads. Thin: parse, select, render.

Board pages answer htmx requests with only the region that changed (a partial of the
same template), so sorting and filtering work in place with JavaScript and as plain
links and forms without it.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from leaderboard.boards import selectors
from leaderboard.boards.catalogue import OVERALL
from leaderboard.boards.params import COLUMNS, SORT_KEYS, BoardParams
from leaderboard.boards.safety_selectors import tab_safety_boards
from leaderboard.methodology.stats import PASS_K_MAX
from leaderboard.models import Board
from leaderboard.presentation import board_charts as charts
from leaderboard.presentation import horizon_charts
from leaderboard.sorting import SortHeader, sort_header
from leaderboard.web.downloads import EXPORTERS, export_row
from leaderboard.web.pages import NO_SNAPSHOT, cached_page, htmx_template
from leaderboard.web.terms import link_terms, terms_url

BOARD_TEMPLATE = "leaderboard/board.html"
# The htmx targets a board page can ask for, each a partial of BOARD_TEMPLATE.
BOARD_PARTIALS = {"board-page", "board-table"}


@require_safe
def board(request: HttpRequest, slug: str) -> HttpResponse:
    return _board_page(request, slug=slug)


def _board_page(request: HttpRequest, slug: str) -> HttpResponse:
    params = BoardParams.from_query(request.GET)
    boards = selectors.current_boards()
    current = selectors.pick_board(boards, slug)
    # Before any snapshot, Overall's address shows the empty state.
    if current is None and (boards or slug != OVERALL.slug):
        raise Http404(f"no board {slug!r}")

    def context() -> dict:
        page = {"boards": boards, "board": current, "params": params}
        page["safety_boards"] = tab_safety_boards(boards)  # their tabs follow the boards'
        if current is not None:
            page.update(_board_context(current, params))
        return page

    return cached_page(
        request,
        template=htmx_template(request, BOARD_TEMPLATE, BOARD_PARTIALS, "board-table"),
        key=f"{slug} {params.querystring()} {selectors.intervals_state(current)}",
        context=context,
        version=current.snapshot_id if current is not None else NO_SNAPSHOT,
        push_url=(
            reverse("board", args=[current.slug]) + params.querystring()
            if current is not None
            else None
        ),
    )


def _board_context(current: Board, params: BoardParams) -> dict:
    table = selectors.board_table(current, params)
    forest = charts.forest_plot(table.entries)
    cost = charts.cost_vs_pass_rate(table.entries)
    return {
        "table": table,
        "computed_at": current.snapshot.computed_at,
        "board_url": reverse("board", args=[current.slug]),
        "sort": sort_headers(params),
        "columns": COLUMNS,
        "pass_k_choices": range(1, PASS_K_MAX + 1),
        "column_count": _column_count(params),
        "forest": forest,
        "cost_chart": cost,
        # The cross-entry horizon chart, with the column set on only.
        "horizon_forest": horizon_charts.horizon_forest(table.entries)
        if params.shows("horizon")
        else None,
    }


def sort_headers(params: BoardParams) -> dict[str, SortHeader]:
    """Each sortable header's link: the other direction when already sorted by it."""
    return {
        key: sort_header(
            key,
            current=params.sort,
            first_descending=sort.descending_first,
            label=sort.label,
            href_query=lambda next_sort: params.with_sort(next_sort).querystring(),
        )
        for key, sort in SORT_KEYS.items()
    }


def _column_count(params: BoardParams) -> int:
    # #, agent, pass rate, n and badges always; latency is two columns, trajectory four.
    widths = {"cost": 1, "tokens": 1, "passk": 1, "latency": 2, "trajectory": 4, "horizon": 1}
    return 5 + sum(width for column, width in widths.items() if params.shows(column))


# ---------------------------------------------------------------------------------
# Downloads


@require_safe
def board_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The board as CSV or JSON, with the same filters and order as the page."""
    if fmt not in EXPORTERS:
        raise Http404(f"no export format {fmt!r}")
    current = selectors.pick_board(selectors.current_boards(), slug)
    if current is None:
        raise Http404(f"no board {slug!r}")
    table = selectors.board_table(current, BoardParams.from_query(request.GET))
    rows = [export_row(entry) for entry in table.entries]
    write, content_type = EXPORTERS[fmt]
    body = write(current, rows, terms_url(request))
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    stamp = current.snapshot.computed_at.strftime("%Y%m%dT%H%M%SZ")
    response["Content-Disposition"] = f'attachment; filename="arena-{current.slug}-{stamp}.{fmt}"'
    return link_terms(request, response)
