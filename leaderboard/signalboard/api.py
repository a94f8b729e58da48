"""Public read API of the signal boards: GET /api/v1/signals/ (api.md `SignalEntry`)."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import renderers, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.http_cache import versioned_response
from leaderboard.exports import spreadsheet_text
from leaderboard.page_cache import current_snapshot_id
from leaderboard.signalboard.selectors import current_signal_entries
from leaderboard.signalboard.slices import (
    CAPABILITIES,
    CAPABILITY_PREFIX,
    COMPOSITE_SCOPE,
    SCENARIOS,
    SIGNALS,
    SliceKind,
)
from leaderboard.terms import DataTermsFields, DataTermsLinkMixin

# --- serializers (api.md field names; figures are read from SignalEntry.data) -----------


class IntervalSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)


class ProportionSerializer(IntervalSerializer):
    n = serializers.IntegerField()


class SteerabilitySerializer(IntervalSerializer):
    mean_effort = serializers.FloatField(allow_null=True)
    turns = serializers.IntegerField(help_text="assistant turns the mean effort is over")


class BashRecoverySerializer(IntervalSerializer):
    episodes = serializers.IntegerField()
    recovery_rate = serializers.FloatField(allow_null=True)
    # Null in snapshots computed before the interval existed.
    recovery_rate_low = serializers.FloatField(
        allow_null=True, default=None, help_text="95% cluster-robust interval of recovery_rate"
    )
    recovery_rate_high = serializers.FloatField(allow_null=True, default=None)
    median_attempts = serializers.FloatField(allow_null=True)


class ToolHallucinationSerializer(IntervalSerializer):
    calls = serializers.IntegerField()


class ShellSuccessSerializer(IntervalSerializer):
    calls = serializers.IntegerField(help_text="shell calls with a known exit code")


class NetImprovementSerializer(IntervalSerializer):
    p_value = serializers.FloatField(allow_null=True)
    observed_gap = serializers.FloatField(allow_null=True)
    null_mean = serializers.FloatField(allow_null=True)
    null_sd = serializers.FloatField(allow_null=True)


class SignalEntrySerializer(serializers.Serializer):
    """api.md `SignalEntry`, plus its rank, slice and whether it is greyed."""

    rank = serializers.IntegerField(allow_null=True)
    scope = serializers.CharField(help_text="'all', a scenario, or 'capability:<signal>'")
    model = serializers.CharField(source="model_name")
    sessions = serializers.IntegerField()
    greyed = serializers.BooleanField(
        help_text="fewer than 30 sessions: shown greyed, never ranked"
    )
    confirmed_success = ProportionSerializer(source="data.confirmed_success")
    praise_complaint = ProportionSerializer(source="data.praise_complaint")
    steerability = SteerabilitySerializer(source="data.steerability")
    bash_recovery = BashRecoverySerializer(source="data.bash_recovery")
    tool_hallucination = ToolHallucinationSerializer(source="data.tool_hallucination")
    # Beyond api.md: the share of shell calls exiting 0 (methodology §3.2). Null in
    # boards computed before this signal existed.
    shell_success = ShellSuccessSerializer(
        source="data.shell_success",
        allow_null=True,
        help_text="share of shell calls that exit 0 (Wilson interval); not in api.md",
    )
    net_improvement = NetImprovementSerializer(source="data.net_improvement")


class SignalListSerializer(DataTermsFields):
    """api.md `{computed_at, entries}`, after the data terms (`attribution`, `terms`)."""

    computed_at = serializers.DateTimeField(allow_null=True)
    entries = SignalEntrySerializer(many=True)


class SignalQuerySerializer(serializers.Serializer):
    scenario = serializers.ChoiceField(
        choices=SCENARIOS, required=False, help_text="restrict to one scenario slice"
    )
    capability = serializers.ChoiceField(
        choices=CAPABILITIES,
        required=False,
        help_text="one capability slice: NIR on that signal (the cross view)",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "scenario" in attrs and "capability" in attrs:
            raise serializers.ValidationError("give scenario or capability, not both")
        return attrs


# --- CSV ----------------------------------------------------------------------------------

BASH_RECOVERY_CSV = (
    *("value", "low", "high", "episodes"),
    *("recovery_rate", "recovery_rate_low", "recovery_rate_high"),
)
CSV_FIELDS = ["rank", "scope", "model", "sessions", "greyed"] + [
    f"{signal}.{part}"
    for signal, parts in (
        ("confirmed_success", ("value", "low", "high", "n")),
        ("praise_complaint", ("value", "low", "high", "n")),
        ("steerability", ("value", "low", "high", "mean_effort")),
        ("bash_recovery", BASH_RECOVERY_CSV),
        ("shell_success", ("value", "low", "high", "calls")),
        ("tool_hallucination", ("value", "low", "high", "calls")),
        ("net_improvement", ("value", "low", "high", "p_value")),
    )
    for part in parts
]


class SignalCsvRenderer(renderers.BaseRenderer):
    """`?format=csv`: one line per entry, nested figures as `signal.part` columns."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: dict[str, Any] | None = None,
    ) -> str:
        buffer = io.StringIO()
        if not isinstance(data, dict) or "entries" not in data:  # an error body
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(["error"])
            writer.writerow([str(data)])
            return buffer.getvalue()
        buffer.write(f"# computed_at {data['computed_at']}\n")
        # Then "#" lines with the terms, as in the board downloads.
        buffer.write(f"# {data['attribution']}\n# {data['terms']}\n")
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for entry in data["entries"]:
            writer.writerow(_csv_row(entry))
        return buffer.getvalue()


def _csv_row(entry: dict[str, Any]) -> dict[str, Any]:
    row = {key: entry[key] for key in ("rank", "scope", "sessions", "greyed")}
    # Model names come from bundles: one starting like a formula is written inert.
    row["model"] = spreadsheet_text(entry["model"])
    for signal in (*SIGNALS, "net_improvement"):
        for part, value in (entry[signal] or {}).items():
            row[f"{signal}.{part}"] = value
    return {key: value for key, value in row.items() if key in CSV_FIELDS}


# --- view -----------------------------------------------------------------------------------


# Formats whose bytes are cached per snapshot; the browsable API renders each time.
CACHED_FORMATS = frozenset({"json", "csv"})


class SignalListApi(DataTermsLinkMixin, APIView):
    """The current snapshot's signal board: composite, one scenario, or one capability."""

    authentication_classes: list = []
    permission_classes: list = []
    renderer_classes = [renderers.JSONRenderer, renderers.BrowsableAPIRenderer, SignalCsvRenderer]

    @extend_schema(
        parameters=[SignalQuerySerializer],
        responses={200: SignalListSerializer, 400: OpenApiResponse(description="unknown slice")},
    )
    def get(self, request: Request) -> Response | HttpResponse:
        query = SignalQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        kind, scope = _slice(query.validated_data)
        renderer = request.accepted_renderer
        if renderer.format not in CACHED_FORMATS:  # the browsable API
            return Response(_signal_list(kind, scope))
        content_type = renderer.media_type
        if renderer.charset:
            content_type += f"; charset={renderer.charset}"
        # The same for everyone until the next snapshot: keyed on the slice the
        # validated query names and the format, never on the raw query string.
        return versioned_response(
            request,
            version=current_snapshot_id(),
            key=f"api signals {renderer.format} {kind} {scope}",
            content_type=content_type,
            build=lambda: HttpResponse(
                renderer.render(_signal_list(kind, scope), renderer.media_type, {}),
                content_type=content_type,
            ),
            public=True,
            vary=("Accept",),
        )


def _signal_list(kind: str, scope: str) -> dict[str, Any]:
    selection = current_signal_entries(kinds=[kind], scope=scope)
    body = {"computed_at": selection.computed_at, "entries": selection.entries}
    return SignalListSerializer(body).data


def _slice(query: dict[str, str]) -> tuple[str, str]:
    if "scenario" in query:
        return SliceKind.SCENARIO, query["scenario"]
    if "capability" in query:
        return SliceKind.CAPABILITY, CAPABILITY_PREFIX + query["capability"]
    return SliceKind.COMPOSITE, COMPOSITE_SCOPE
