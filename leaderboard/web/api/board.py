"""Public read API: the current snapshot's boards, as api.md names them."""

from __future__ import annotations

from dataclasses import replace

from django.http import Http404, HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.http_cache import versioned_response
from leaderboard.boards.params import DEFAULT_COLUMNS, BoardParams
from leaderboard.boards.selectors import (
    board_table,
    current_boards,
    intervals_state,
    pick_board,
    run_for_page,
)
from leaderboard.models import Board
from leaderboard.web.api.board_serializers import (
    BoardDetailSerializer,
    BoardSummarySerializer,
    RunSerializer,
)
from leaderboard.web.csv_api import (
    TABLE_RENDERERS,
    CsvTable,
    csv_response,
    download_name,
    wants_csv,
)
from leaderboard.web.downloads import board_csv_table, export_row
from leaderboard.web.pages import NO_SNAPSHOT
from leaderboard.web.terms import DataTermsLinkMixin

JSON = "application/json"


# The columns of the board list as CSV: api.md's fields, one line per board.
BOARD_LIST_COLUMNS = ("slug", "title", "kind", "computed_at", "entries")


class BoardListApi(DataTermsLinkMixin, APIView):
    authentication_classes: list = []
    renderer_classes = TABLE_RENDERERS

    @extend_schema(responses=BoardSummarySerializer(many=True))
    def get(self, request: Request) -> Response | HttpResponse:
        boards = current_boards()
        if wants_csv(request):
            return csv_response(
                request,
                filename=download_name(
                    "boards", computed_at=boards[0].snapshot.computed_at if boards else None
                ),
                table=lambda: CsvTable(
                    BOARD_LIST_COLUMNS, BoardSummarySerializer(boards, many=True).data
                ),
                version=boards[0].snapshot_id if boards else NO_SNAPSHOT,
                key="api boards",
            )
        if request.accepted_renderer.format != "json":  # the browsable API
            return Response(BoardSummarySerializer(boards, many=True).data)
        return versioned_response(
            request,
            version=boards[0].snapshot_id if boards else NO_SNAPSHOT,
            key="api boards",
            content_type=JSON,
            build=lambda: _json(BoardSummarySerializer(boards, many=True).data),
            public=True,
            vary=("Accept",),
        )


class BoardDetailApi(DataTermsLinkMixin, APIView):
    authentication_classes: list = []
    renderer_classes = TABLE_RENDERERS

    @extend_schema(
        responses=BoardDetailSerializer,
        parameters=[
            OpenApiParameter(
                "verified",
                bool,
                description="1: only entries whose every run is Verified, as on the board page",
            ),
            OpenApiParameter(
                "versions",
                str,
                enum=["latest", "all"],
                description="latest (default): each harness's highest version per model only; "
                "all: every version.",
            ),
            OpenApiParameter("complete", bool, description="1: only complete entries"),
            OpenApiParameter(
                "standard",
                bool,
                description="1: only entries not known to differ from their suites' "
                "standard configurations",
            ),
        ],
        description="Every row filter ranks among the rows it keeps (`rank`, `rank_range`, "
        "`tied_with_leader`); `rank_all` is the published rank. The model and harness "
        "searches keep the ranks of the rows they search. "
        "`?format=csv`: the entries as the board page's CSV download, one "
        "line per entry (that CSV also takes the page's sort and filter parameters).",
    )
    def get(self, request: Request, slug: str) -> Response | HttpResponse:
        board = pick_board(current_boards(), slug)
        if board is None:
            raise Http404(f"no board {slug!r}")
        if wants_csv(request):
            return _board_csv_response(request, board)
        params = _row_params(request)
        if request.accepted_renderer.format != "json":  # the browsable API
            return Response(_board_detail(board, params))
        # The JSON of a board is the same for everyone until the next snapshot; the key
        # is what the endpoint understands (the board, its row filters), nothing else.
        return versioned_response(
            request,
            version=board.snapshot_id,
            key=f"api board {slug} {params.querystring()} {intervals_state(board)}",
            content_type=JSON,
            build=lambda: _json(_board_detail(board, params)),
            public=True,
            vary=("Accept",),
        )


def _row_params(request: Request) -> BoardParams:
    """The board page's row filters (the JSON has no sort or columns): ?verified,
    ?complete, ?standard, ?versions and the model and harness searches."""
    params = BoardParams.from_query(request.query_params)
    return replace(params, sort="", columns=DEFAULT_COLUMNS)


def _board_detail(board: Board, params: BoardParams) -> dict:
    return BoardDetailSerializer(board, context={"params": params}).data


def _board_csv_response(request: Request, board: Board) -> HttpResponse:
    # The page's download: the same rows (the page's parameters, so ?verified=1 too)
    # under the same columns, through the same writer.
    params = BoardParams.from_query(request.query_params)
    return csv_response(
        request,
        filename=download_name(board.slug, computed_at=board.snapshot.computed_at),
        table=lambda: _board_table(board, params),
        version=board.snapshot_id,
        key=f"api board {board.slug} {params.querystring()} {intervals_state(board)}",
    )


def _board_table(board: Board, params: BoardParams) -> CsvTable:
    return board_csv_table([export_row(entry) for entry in board_table(board, params).entries])


def _json(data: object) -> HttpResponse:
    # Compact JSON whatever `indent` an Accept header asks for: one body per key.
    return HttpResponse(JSONRenderer().render(data), content_type=JSON)


class RunDetailApi(DataTermsLinkMixin, APIView):
    authentication_classes: list = []

    @extend_schema(responses=RunSerializer)
    def get(self, request: Request, pk: int) -> Response:
        run = run_for_page(pk)
        if run is None:
            raise Http404("no such run")
        return Response(RunSerializer(run).data)
