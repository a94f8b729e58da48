"""Public read API: the current snapshot's boards, as api.md names them."""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.models import Board, BoardEntry
from leaderboard.serializers import BoardDetailSerializer, BoardSummarySerializer


class BoardListApi(APIView):
    authentication_classes: list = []

    @extend_schema(responses=BoardSummarySerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(BoardSummarySerializer(Board.objects.current(), many=True).data)


class BoardDetailApi(APIView):
    authentication_classes: list = []

    @extend_schema(responses=BoardDetailSerializer)
    def get(self, request: Request, slug: str) -> Response:
        entries = Prefetch("entries", queryset=BoardEntry.objects.order_by("position"))
        board = Board.objects.current().filter(slug=slug).prefetch_related(entries).first()
        if board is None:
            raise Http404(f"no board {slug!r}")
        return Response(BoardDetailSerializer(board).data)
