"""GET /api/v1/boards/<slug>/changes/: a board's change log, newest snapshot first."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.history import selectors
from leaderboard.history.serializers import ChangeLogSerializer
from leaderboard.terms import DataTermsLinkMixin


class BoardChangesApi(DataTermsLinkMixin, APIView):
    authentication_classes: list = []

    @extend_schema(
        responses=ChangeLogSerializer,
        parameters=[OpenApiParameter("page", int, description="1 (newest) and up")],
        description="What each recompute changed on the board (entries new, removed or "
        "with changed figures) and why (the causes of the recompute).",
    )
    def get(self, request: Request, slug: str) -> Response:
        title = selectors.board_title(slug)
        if title is None:
            raise Http404(f"no board {slug!r}")
        page = request.query_params.get("page")
        log = selectors.board_change_log(slug=slug, title=title, page_number=page)
        return Response(ChangeLogSerializer(log).data)
