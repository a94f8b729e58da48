"""Public read API of the signal boards: GET /api/v1/signals/ (api.md `SignalEntry`)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import renderers, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.http_cache import versioned_response
from leaderboard.exports import spreadsheet_text
from leaderboard.models import SignalEntry
from leaderboard.signalboard.agents import BY_VIEWS, MODEL
from leaderboard.signalboard.selectors import current_signal_entries
from leaderboard.signalboard.slices import (
    CAPABILITIES,
    CAPABILITY_PREFIX,
    COMPOSITE_SCOPE,
    SCENARIOS,
    SIGNALS,
    SliceKind,
)
from leaderboard.web.csv_api import CsvRenderer, CsvTable, csv_response, download_name, wants_csv
from leaderboard.web.pages import current_snapshot_id
from leaderboard.web.terms import DataTermsFields, DataTermsLinkMixin

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
    # Null (0) in snapshots computed before turns to recover were counted.
    turns_to_recover = serializers.FloatField(
        allow_null=True,
        default=None,
        help_text="mean assistant turns from a correction to the first turn not corrected",
    )
    turns_to_recover_low = serializers.FloatField(
        allow_null=True, default=None, help_text="95% cluster-robust interval, low end ≥ 1"
    )
    turns_to_recover_high = serializers.FloatField(allow_null=True, default=None)
    corrections = serializers.IntegerField(
        default=0, help_text="corrections recovered from: the n of turns_to_recover"
    )
    corrections_open = serializers.IntegerField(
        default=0, help_text="corrections the session ended before recovering from"
    )


class BashRecoverySerializer(IntervalSerializer):
    episodes = serializers.IntegerField()
    recovery_rate = serializers.FloatField(allow_null=True)
    # Null in snapshots computed before the interval existed.
    recovery_rate_low = serializers.FloatField(
        allow_null=True, default=None, help_text="95% cluster-robust interval of recovery_rate"
    )
    recovery_rate_high = serializers.FloatField(allow_null=True, default=None)
    median_attempts = serializers.FloatField(
        allow_null=True, help_text="median assistant turns of the resolved episodes"
    )
    # Null (0) in snapshots computed before the split existed.
    autonomous = serializers.IntegerField(
        default=0, help_text="episodes resolved before the user's next words"
    )
    autonomous_rate = serializers.FloatField(
        allow_null=True, default=None, help_text="autonomous / episodes (Wilson interval)"
    )
    autonomous_rate_low = serializers.FloatField(allow_null=True, default=None)
    autonomous_rate_high = serializers.FloatField(allow_null=True, default=None)
    after_user = serializers.IntegerField(
        default=0, help_text="episodes resolved only after the user's next words"
    )
    after_user_rate = serializers.FloatField(
        allow_null=True, default=None, help_text="after_user / episodes (Wilson interval)"
    )
    after_user_rate_low = serializers.FloatField(allow_null=True, default=None)
    after_user_rate_high = serializers.FloatField(allow_null=True, default=None)


class ToolHallucinationSerializer(IntervalSerializer):
    calls = serializers.IntegerField()
    # Snapshots written before claims were counted have none: 0.
    claims = serializers.IntegerField(
        default=0, help_text="assistant turns claiming a capability the toolset lacks"
    )


class ShellSuccessSerializer(IntervalSerializer):
    calls = serializers.IntegerField(help_text="shell calls with a known exit code")


class NetImprovementSerializer(IntervalSerializer):
    p_value = serializers.FloatField(allow_null=True)
    observed_gap = serializers.FloatField(allow_null=True)
    null_mean = serializers.FloatField(allow_null=True)
    null_sd = serializers.FloatField(allow_null=True)


class WithoutLargestSerializer(serializers.Serializer):
    sessions = serializers.IntegerField(help_text="the model's sessions left")
    confirmed_success = ProportionSerializer()
    net_improvement = NetImprovementSerializer()


class ProvenanceSerializer(serializers.Serializer):
    """Who the model's figures rest on (methodology §3.3); per model, composite only."""

    accounts = serializers.IntegerField(help_text="accounts that uploaded its counted sessions")
    largest_share = serializers.FloatField(help_text="the largest account's share of them")
    largest_sessions = serializers.IntegerField()
    concentrated = serializers.BooleanField(help_text="largest_share above threshold")
    threshold = serializers.FloatField()
    without_largest = WithoutLargestSerializer(
        allow_null=True,
        help_text="concentrated only: the headline figures without the largest account",
    )
    conflict_excluded = serializers.IntegerField(
        help_text="sessions left out: uploaded by an organisation that makes or serves it"
    )


class AgentSerializer(serializers.Serializer):
    harness = serializers.CharField(source="harness_name")
    version = serializers.CharField(source="harness_version")


class SignalEntrySerializer(serializers.Serializer):
    """api.md `SignalEntry`, plus its rank, slice and whether it is greyed."""

    rank = serializers.IntegerField(allow_null=True)
    scope = serializers.CharField(help_text="'all', a scenario, or 'capability:<signal>'")
    model = serializers.CharField(
        source="model_name", help_text="the model; with by=agent, the agent version's name"
    )
    agent = serializers.SerializerMethodField(
        help_text="with by=agent: the harness and version of the row; null per model"
    )
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
    provenance = ProvenanceSerializer(
        source="data.provenance",
        allow_null=True,
        help_text="null on the agent view, on slices, and in boards computed before it",
    )

    @extend_schema_field(AgentSerializer(allow_null=True))
    def get_agent(self, entry: SignalEntry) -> dict[str, str] | None:
        return AgentSerializer(entry).data if entry.harness_name else None


class SignalListSerializer(DataTermsFields):
    """api.md `{computed_at, entries}`, after the data terms (`attribution`, `terms`)."""

    computed_at = serializers.DateTimeField(allow_null=True)
    entries = SignalEntrySerializer(many=True)


class SignalQuerySerializer(serializers.Serializer):
    by = serializers.ChoiceField(
        choices=list(BY_VIEWS),
        default=MODEL,
        help_text="rows per model (default) or per agent version (sessions naming an agent)",
    )
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
    *("autonomous", "autonomous_rate", "autonomous_rate_low", "autonomous_rate_high"),
    *("after_user", "after_user_rate", "after_user_rate_low", "after_user_rate_high"),
)
STEERABILITY_CSV = (
    *("value", "low", "high", "mean_effort"),
    *("turns_to_recover", "turns_to_recover_low", "turns_to_recover_high"),
    *("corrections", "corrections_open"),
)
PROVENANCE_CSV = ("accounts", "largest_share", "concentrated", "conflict_excluded")
CSV_FIELDS = ["rank", "scope", "model", "sessions", "greyed"] + [
    f"{signal}.{part}"
    for signal, parts in (
        ("confirmed_success", ("value", "low", "high", "n")),
        ("praise_complaint", ("value", "low", "high", "n")),
        ("steerability", STEERABILITY_CSV),
        ("bash_recovery", BASH_RECOVERY_CSV),
        ("shell_success", ("value", "low", "high", "calls")),
        ("tool_hallucination", ("value", "low", "high", "calls", "claims")),
        ("net_improvement", ("value", "low", "high", "p_value")),
        ("provenance", PROVENANCE_CSV),
    )
    for part in parts
]


class SignalCsvRenderer(CsvRenderer):
    """`?format=csv`: one line per entry, nested figures as `signal.part` columns, the
    snapshot time in `computed_at` (the shared writer, leaderboard.exports.csv_text)."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: dict[str, Any] | None = None,
    ) -> str:
        if isinstance(data, dict) and "entries" in data:
            data = _csv_table(data)
        return super().render(data, accepted_media_type, renderer_context)


def _csv_table(data: dict[str, Any]) -> CsvTable:
    rows = [{**_csv_row(entry), "computed_at": data["computed_at"]} for entry in data["entries"]]
    return CsvTable([*CSV_FIELDS, "computed_at"], rows)


def _csv_row(entry: dict[str, Any]) -> dict[str, Any]:
    row = {key: entry[key] for key in ("rank", "scope", "sessions", "greyed")}
    # Model names come from bundles: one starting like a formula is written inert.
    row["model"] = spreadsheet_text(entry["model"])
    for signal in (*SIGNALS, "net_improvement", "provenance"):
        for part, value in (entry.get(signal) or {}).items():
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
        by = query.validated_data["by"]
        renderer = request.accepted_renderer
        if renderer.format not in CACHED_FORMATS:  # the browsable API
            return Response(_signal_list(kind, scope, by))
        if wants_csv(request):
            return csv_response(
                request,
                filename=download_name("signals", scope, by, computed_at=None),
                table=lambda: _csv_table(_signal_list(kind, scope, by)),
                version=current_snapshot_id(),
                key=f"api signals {kind} {scope} {by}",
            )
        content_type = renderer.media_type
        if renderer.charset:
            content_type += f"; charset={renderer.charset}"
        # The same for everyone until the next snapshot: keyed on the slice the
        # validated query names and the format, never on the raw query string.
        return versioned_response(
            request,
            version=current_snapshot_id(),
            key=f"api signals {renderer.format} {kind} {scope} {by}",
            content_type=content_type,
            build=lambda: HttpResponse(
                renderer.render(_signal_list(kind, scope, by), renderer.media_type, {}),
                content_type=content_type,
            ),
            public=True,
            vary=("Accept",),
        )


def _signal_list(kind: str, scope: str, by: str) -> dict[str, Any]:
    selection = current_signal_entries(kinds=[kind], scope=scope, by=by)
    body = {"computed_at": selection.computed_at, "entries": selection.entries}
    return SignalListSerializer(body).data


def _slice(query: dict[str, str]) -> tuple[str, str]:
    if "scenario" in query:
        return SliceKind.SCENARIO, query["scenario"]
    if "capability" in query:
        return SliceKind.CAPABILITY, CAPABILITY_PREFIX + query["capability"]
    return SliceKind.COMPOSITE, COMPOSITE_SCOPE
