from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from leaderboard.models import Board, BoardEntry


class PassHatKSerializer(serializers.Serializer):
    value = serializers.FloatField()
    pass_at_k = serializers.FloatField()
    tasks = serializers.IntegerField()


class TokenSavingSerializer(serializers.Serializer):
    ratio = serializers.FloatField(allow_null=True)
    awarded = serializers.BooleanField()


class BoardEntrySerializer(serializers.ModelSerializer):
    """api.md `Entry`: one agent on one benchmark board."""

    harness = serializers.CharField(source="harness_name")
    model = serializers.CharField(source="model_name")
    token_saving = serializers.SerializerMethodField()
    pass_hat_k = serializers.DictField(child=PassHatKSerializer())

    class Meta:
        model = BoardEntry
        fields = [
            "rank", "harness", "harness_version", "model", "minimal_baseline", "runs", "n",
            "passes", "pass_rate", "wilson_low", "wilson_high", "infra_errors",
            "infra_error_rate", "under_review", "conflict_excluded", "cost_per_success",
            "cost_per_success_status", "tokens_per_success", "token_saving", "pass_hat_k",
            "partial_score", "ttft_ms_p50", "ttft_ms_p95", "duration_s_p50", "duration_s_p95",
            "mean_steps", "mean_tool_calls",
        ]  # fmt: skip

    def get_token_saving(self, entry: BoardEntry) -> dict:
        return TokenSavingSerializer(
            {"ratio": entry.token_saving_ratio, "awarded": entry.token_saving_awarded}
        ).data


class BoardSummarySerializer(serializers.ModelSerializer):
    kind = serializers.SerializerMethodField()
    computed_at = serializers.DateTimeField(source="snapshot.computed_at")
    entries = serializers.IntegerField(source="entry_count")

    class Meta:
        model = Board
        fields = ["slug", "title", "kind", "computed_at", "entries"]

    def get_kind(self, board: Board) -> str:
        return "benchmark"


class BoardDetailSerializer(serializers.ModelSerializer):
    """api.md: `{slug, title, computed_at, entries: [Entry…]}` in display order."""

    computed_at = serializers.DateTimeField(source="snapshot.computed_at")
    entries = serializers.SerializerMethodField()

    class Meta:
        model = Board
        fields = ["slug", "title", "computed_at", "entries"]

    @extend_schema_field(BoardEntrySerializer(many=True))
    def get_entries(self, board: Board) -> list[dict]:
        entries = BoardEntry.objects.filter(board=board).order_by("position")
        return BoardEntrySerializer(entries, many=True).data
