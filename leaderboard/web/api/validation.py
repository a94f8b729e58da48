"""GET /api/v1/signals/validation/: signal figures against benchmark pass rates.

Per model on both the signal boards and the Overall board: its signal figures (NIR and
confirmed success, each with its interval) and its pooled Overall pass rate; Spearman's
ρ across models with its bootstrap interval for each figure; the label agreement. The
values are built here from leaderboard.compare.cross_validation; the serializers only
declare the shape for the OpenAPI schema.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.http_cache import versioned_response
from leaderboard.compare.cross_validation import SIGNAL_FIGURES, CrossValidation, cross_validation
from leaderboard.methodology.agreement import Agreement
from leaderboard.presentation.stability import stability
from leaderboard.web.pages import current_snapshot_id
from leaderboard.web.terms import DataTermsLinkMixin

JSON = "application/json"


class _IntervalSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)


class _BenchmarkSerializer(_IntervalSerializer):
    passes = serializers.IntegerField()
    n = serializers.IntegerField(help_text="counted runs pooled")
    entries = serializers.IntegerField(help_text="Overall entries pooled (not under review)")


class _StabilitySerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=["unranked", "unsettled", "settled"])
    text = serializers.CharField()


class _ModelSerializer(serializers.Serializer):
    model = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True, help_text="rank on the signal board")
    sessions = serializers.IntegerField()
    stability = _StabilitySerializer(help_text="how stable the NIR is, in words")
    net_improvement = _IntervalSerializer()
    confirmed_success = _IntervalSerializer()
    benchmark = _BenchmarkSerializer(help_text="pass rate pooled over the model's Overall entries")


class _CorrelationSerializer(serializers.Serializer):
    figure = serializers.ChoiceField(choices=list(SIGNAL_FIGURES))
    rho = serializers.FloatField(allow_null=True, help_text="Spearman's ρ against pass rate")
    low = serializers.FloatField(allow_null=True, help_text="95% percentile bootstrap bound")
    high = serializers.FloatField(allow_null=True)
    models = serializers.IntegerField()
    resamples = serializers.IntegerField(help_text="bootstrap resamples in which ρ was defined")


class _AgreementSerializer(serializers.Serializer):
    rate = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    agreed = serializers.IntegerField()
    turns = serializers.IntegerField(help_text="hand-labelled turns")
    moderators = serializers.IntegerField()


class CrossValidationSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(allow_null=True)
    board = serializers.CharField(help_text="the benchmark board the pass rates come from")
    models = _ModelSerializer(many=True)
    correlations = _CorrelationSerializer(many=True)
    label_agreement = _AgreementSerializer()
    signal_only = serializers.ListField(child=serializers.CharField())
    benchmark_only = serializers.ListField(child=serializers.CharField())


class SignalValidationApi(DataTermsLinkMixin, APIView):
    """The three layers side by side (the page /signals/validation/)."""

    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(responses={200: CrossValidationSerializer})
    def get(self, request: Request) -> Response | HttpResponse:
        if request.accepted_renderer.format != "json":  # the browsable API
            return Response(validation_payload(cross_validation()))
        return versioned_response(
            request,
            version=current_snapshot_id(),
            key="api signals validation",
            content_type=JSON,
            build=lambda: HttpResponse(
                JSONRenderer().render(validation_payload(cross_validation())), content_type=JSON
            ),
            public=True,
            vary=("Accept",),
        )


def validation_payload(view: CrossValidation) -> dict[str, Any]:
    return {
        "computed_at": view.computed_at,
        "board": view.board_title,
        "models": [_model(row) for row in view.rows],
        "correlations": [
            {"figure": name, **view.correlations[name].as_dict()} for name in SIGNAL_FIGURES
        ],
        "label_agreement": _agreement(view.agreement.overall, view.agreement.moderators),
        "signal_only": view.signal_only,
        "benchmark_only": view.benchmark_only,
    }


def _model(row) -> dict[str, Any]:
    nir = row.figure("net_improvement")
    level = stability(row.signal.sessions, nir.get("low"), nir.get("high"))
    b = row.benchmark
    return {
        "model": row.model,
        "rank": row.signal.rank,
        "sessions": row.signal.sessions,
        "stability": {"level": level.level, "text": level.text},
        **{name: _interval(row.figure(name)) for name in SIGNAL_FIGURES},
        "benchmark": {
            "value": b.pass_rate, "low": b.low, "high": b.high, "passes": b.passes, "n": b.n,
            "entries": b.entries,
        },
    }  # fmt: skip


def _interval(figure: dict[str, Any]) -> dict[str, Any]:
    return {key: figure.get(key) for key in ("value", "low", "high")}


def _agreement(a: Agreement, moderators: int) -> dict[str, Any]:
    return {
        "rate": a.rate, "low": a.low, "high": a.high, "agreed": a.agreed, "turns": a.turns,
        "moderators": moderators,
    }  # fmt: skip
