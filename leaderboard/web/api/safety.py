"""The safety boards in the read API: `GET /api/v1/safety-boards/<suite board>-safety/`, as
JSON or `?format=csv` (the page's CSV download, the same columns)."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.http_cache import versioned_response
from leaderboard.boards.safety_selectors import (
    SafetyBoard,
    safety_board_listed,
    safety_rows,
)
from leaderboard.methodology.safety import ASR_BUDGET
from leaderboard.models import SafetyEntry
from leaderboard.web.api.board_serializers import FiniteModelSerializer
from leaderboard.web.csv_api import (
    TABLE_RENDERERS,
    CsvTable,
    csv_response,
    download_name,
    wants_csv,
)
from leaderboard.web.terms import DataTermsLinkMixin

JSON = "application/json"
SAFETY_COLUMNS = (
    "attack", "rank", "harness", "harness_version", "model", "benign_utility", "benign_low",
    "benign_high", "benign_n", "utility_under_attack", "utility_low", "utility_high", "n",
    "targeted_asr", "asr_low", "asr_high", "breaches", "within_budget",
)  # fmt: skip
TEXT_COLUMNS = ("harness", "harness_version", "model", "attack")


class SafetyEntrySerializer(FiniteModelSerializer):
    harness = serializers.CharField(source="harness_name")
    model = serializers.CharField(source="model_name")
    utility_under_attack = serializers.FloatField(source="utility", allow_null=True)
    targeted_asr = serializers.FloatField(source="asr", allow_null=True)

    class Meta:
        model = SafetyEntry
        fields = (
            "attack", "rank", "within_budget", "harness", "harness_version", "model",
            "benign_utility", "benign_low", "benign_high", "benign_n", "benign_passes",
            "utility_under_attack", "utility_low", "utility_high", "n", "passes",
            "targeted_asr", "asr_low", "asr_high", "breaches",
        )  # fmt: skip


class SafetyBoardSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    board = serializers.CharField(source="board_slug", help_text="the suite board")
    computed_at = serializers.DateTimeField()
    asr_budget = serializers.FloatField(
        help_text="the largest ASR upper bound (95% Wilson) a ranked row may have"
    )
    entries = SafetyEntrySerializer(many=True, source="rows")


def safety_payload(board: SafetyBoard) -> dict:
    data = {
        "slug": board.slug, "title": board.title, "board_slug": board.board_slug,
        "computed_at": board.computed_at, "asr_budget": ASR_BUDGET, "rows": board.rows,
    }  # fmt: skip
    return SafetyBoardSerializer(data).data


def safety_csv_table(board: SafetyBoard) -> CsvTable:
    rows = [dict(SafetyEntrySerializer(row).data) for row in board.rows]
    return CsvTable(SAFETY_COLUMNS, rows, text_columns=TEXT_COLUMNS)


class SafetyBoardApi(DataTermsLinkMixin, APIView):
    authentication_classes: list = []
    renderer_classes = TABLE_RENDERERS

    @extend_schema(
        responses=SafetyBoardSerializer,
        description="A suite board's safety board: per (agent, attack) the benign utility, "
        "the utility under attack and the targeted attack success rate, each with n and "
        "its 95% Wilson interval, pooled over the runs. Ranked within each attack by the "
        "lower bound of the utility under attack among the rows whose ASR upper bound is "
        "at most `asr_budget` (the others: rank null). `?format=csv`: one line per row.",
    )
    def get(self, request: Request, slug: str) -> Response | HttpResponse:
        board = safety_board_listed(slug)
        if board is None:
            raise Http404(f"no safety board {slug!r}")
        if wants_csv(request):
            return csv_response(
                request,
                filename=download_name(board.slug, computed_at=board.computed_at),
                table=lambda: safety_csv_table(safety_rows(board)),
                version=board.snapshot_id,
                key=f"api safety {board.slug}",
            )
        if request.accepted_renderer.format != "json":  # the browsable API
            return Response(safety_payload(safety_rows(board)))
        return versioned_response(
            request,
            version=board.snapshot_id,
            key=f"api safety {board.slug}",
            content_type=JSON,
            build=lambda: _json(safety_payload(safety_rows(board))),
            public=True,
            vary=("Accept",),
        )


def _json(data: object) -> HttpResponse:
    return HttpResponse(JSONRenderer().render(data), content_type=JSON)
