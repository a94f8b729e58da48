"""GET /api/v1/signals/releases/<harness>/gate/?before=&after=: may this version ship?

The release gate (methodology "release-gate") over the release view's differences: the
verdict per figure and overall, with the exit status `manage.py release_gate` gives.
Every verdict answers 200 (a failing gate is an answer, not an error); a harness with
no sessions on the agent view answers 404, versions that cannot be compared 400.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.http_cache import versioned_response
from leaderboard.methodology import release_gate as rule
from leaderboard.signalboard import release_gate, releases
from leaderboard.web.pages import current_snapshot_id
from leaderboard.web.release import ReleaseParams
from leaderboard.web.terms import DataTermsLinkMixin

JSON = "application/json"


class _GateVersionSerializer(serializers.Serializer):
    version = serializers.CharField()
    sessions = serializers.IntegerField()


class _GateFigureSerializer(serializers.Serializer):
    figure = serializers.CharField(help_text="net_improvement, or a signal")
    verdict = serializers.ChoiceField(choices=rule.VERDICTS)
    margin = serializers.FloatField(help_text="δ: the regression tolerated, in the figure's unit")
    lower_is_better = serializers.BooleanField()
    reason = serializers.CharField()
    difference = serializers.FloatField(allow_null=True, help_text="after − before")
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    method = serializers.CharField()


class ReleaseGateSerializer(serializers.Serializer):
    harness = serializers.CharField()
    computed_at = serializers.DateTimeField(allow_null=True)
    before = _GateVersionSerializer()
    after = _GateVersionSerializer()
    verdict = serializers.ChoiceField(choices=rule.VERDICTS, help_text="overall")
    exit_status = serializers.IntegerField(
        help_text="manage.py release_gate's: 0 pass, 1 fail, 2 not enough data"
    )
    min_sessions = serializers.IntegerField()
    figures = _GateFigureSerializer(many=True, help_text="the NIR first, then each signal")


class SignalReleaseGateApi(DataTermsLinkMixin, APIView):
    """The release gate: pass, fail or not enough data, per figure and overall."""

    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "before", str, description="version before (default: the one before `after`)"
            ),
            OpenApiParameter("after", str, description="version after (default: the latest)"),
        ],
        responses={
            200: ReleaseGateSerializer,
            400: OpenApiResponse(description="the versions cannot be compared: {detail} says why"),
            404: OpenApiResponse(description="no session names this harness"),
        },
    )
    def get(self, request: Request, harness: str) -> Response | HttpResponse:
        params = ReleaseParams.from_query(request.query_params)
        try:
            result = release_gate.release_gate_check(harness, params.before, params.after)
        except releases.UnknownHarness as error:
            return Response({"detail": str(error)}, status=404)
        except releases.ReleaseError as error:
            return Response({"detail": str(error)}, status=400)
        payload = release_gate.gate_payload(result)
        if request.accepted_renderer.format != "json":  # the browsable API
            return Response(payload)
        return versioned_response(
            request,
            version=current_snapshot_id(),
            key=f"api signal release gate {harness} {params.querystring()}",
            content_type=JSON,
            build=lambda: HttpResponse(JSONRenderer().render(payload), content_type=JSON),
            public=True,
            vary=("Accept",),
        )
