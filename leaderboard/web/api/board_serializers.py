"""The read API's serializers (api.md). Every float goes out finite or null: the
figures are computed finite (boards.compute), and these fields hold the line for any
value stored before that (a snapshot written by an older release)."""

from __future__ import annotations

import math
from typing import Any

from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ingestion.models import Run
from leaderboard.boards.params import BoardParams
from leaderboard.boards.selectors import board_rows
from leaderboard.models import Board, BoardEntry
from leaderboard.web.terms import DataTermsFields


class FiniteFloatField(serializers.FloatField):
    """A float that JSON can carry: NaN and ±infinity are written as null."""

    def to_representation(self, value: Any) -> float | None:
        number = super().to_representation(value)
        return number if math.isfinite(number) else None


class FiniteModelSerializer(serializers.ModelSerializer):
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.FloatField: FiniteFloatField,
    }


class PassHatKSerializer(serializers.Serializer):
    value = FiniteFloatField()
    pass_at_k = FiniteFloatField()
    tasks = serializers.IntegerField()
    # Bootstrap 95% intervals over tasks (null below two tasks, or in a snapshot
    # computed before they existed).
    low = FiniteFloatField(allow_null=True, default=None)
    high = FiniteFloatField(allow_null=True, default=None)
    pass_at_k_low = FiniteFloatField(allow_null=True, default=None)
    pass_at_k_high = FiniteFloatField(allow_null=True, default=None)


class TokenSavingSerializer(serializers.Serializer):
    ratio = FiniteFloatField(allow_null=True)
    awarded = serializers.BooleanField()


class BoardEntrySerializer(FiniteModelSerializer):
    """api.md `Entry`: one agent on one benchmark board."""

    harness = serializers.CharField(source="harness_name")
    model = serializers.CharField(source="model_name")
    # The account whose independent run this entry is; null for the maintainers' entry.
    independent_by = serializers.SerializerMethodField()
    token_saving = serializers.SerializerMethodField()
    pass_hat_k = serializers.DictField(child=PassHatKSerializer())
    rank_range = serializers.SerializerMethodField()
    rank_all = serializers.SerializerMethodField()
    coverage = serializers.SerializerMethodField()
    run_config = serializers.SerializerMethodField()
    trajectory = serializers.DictField(
        child=serializers.DictField(),
        help_text="Trajectory figure key -> {value, low, high, n} (/methodology/#trajectory); "
        "{} when its runs' tasks have no reference calls.",
    )
    violations = serializers.DictField(
        help_text="{checked: runs checked against its suites' rules, any: runs that broke "
        "one, rules: {rule id: runs that broke it}}; {} when no rule applies.",
    )
    horizon = serializers.DictField(
        help_text="METR's time horizon (/methodology/#time-horizon), in human minutes: "
        "{mode (headline or cross_domain), p50, p80, p50_low, p50_high, p80_low, p80_high "
        "(95% hierarchical-bootstrap interval), slope and intercept (log-odds per log2 "
        "minute), tasks and runs counted (tasks with human minutes only), degenerate "
        "(null, or why the fit has no finite curve: all_success, all_failure, "
        "non_decreasing, separated), shortest and longest task, points ([minutes, pass "
        "rate, tasks, trials])}; a null horizon or upper bound is beyond the longest task "
        "(below the shortest for all_failure); {} with fewer than two such tasks.",
    )

    class Meta:
        model = BoardEntry
        fields = [
            "rank", "rank_all", "harness", "harness_version", "independent_by", "model", "minimal_baseline",
            "runs", "n",
            "passes", "pass_rate", "wilson_low", "wilson_high", "infra_errors",
            "infra_error_rate", "under_review", "conflict_excluded", "cost_per_success",
            "cost_per_success_status", "reported_cost_per_success",
            "reported_cost_per_success_status", "cost_disagrees", "latest_submission_at",
            "model_organisation", "open_weights", "model_release_date", "knowledge_cutoff",
            "harness_organisation", "harness_open_source", "after_cutoff_tasks",
            "after_cutoff_n", "after_cutoff_passes", "after_cutoff_pass_rate", "after_cutoff_low",
            "after_cutoff_high", "tokens_per_success",
            "token_saving", "pass_hat_k",
            "partial_score", "ttft_ms_p50", "ttft_ms_p95", "duration_s_p50", "duration_s_p95",
            "mean_steps", "mean_tool_calls", "verification",
            # rank ranges and the intervals of the means.
            "rank_range", "tied_with_leader", "partial_score_low", "partial_score_high",
            "mean_steps_low", "mean_steps_high", "mean_tool_calls_low", "mean_tool_calls_high",
            "ttft_ms_mean", "ttft_ms_mean_low", "ttft_ms_mean_high", "duration_s_mean",
            "duration_s_mean_low", "duration_s_mean_high", "coverage", "run_config",
            "trajectory", "violations", "horizon", "intervals_pending",
        ]  # fmt: skip
        extra_kwargs = {
            "intervals_pending": {
                "help_text": "true while the entry's interval bounds (pass_hat_k's low, high, "
                "pass_at_k_low and pass_at_k_high; the means' _low and _high; horizon's "
                "p50_low … p80_high) are still being computed after the recompute: they "
                "are null until then, and every point figure is already final."
            }
        }

    @extend_schema_field(serializers.DictField())
    def get_run_config(self, entry: BoardEntry) -> dict:
        """Its submissions' configurations (distinct; several when they differ) against
        their suites' standards: status standard, non_standard, unstated, no_standard
        (or "" without counted runs), and the chips' texts."""
        return {
            "configs": entry.run_configs,
            "status": entry.run_config_status,
            "summary": entry.run_config_summary,
            "unstated": entry.run_config_unstated,
        }

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_rank_all(self, entry: BoardEntry) -> int | None:
        """The published rank (the whole board's); `rank` is among the rows kept."""
        return getattr(entry, "rank_all", entry.rank)

    @extend_schema_field(
        serializers.DictField(child=serializers.IntegerField(), help_text="{tasks, of}")
    )
    def get_coverage(self, entry: BoardEntry) -> dict:
        """The board's tasks it has counted runs on, of those it can be counted on."""
        return {"tasks": entry.coverage_tasks, "of": entry.coverage_of}

    @extend_schema_field(
        serializers.ListField(child=serializers.IntegerField(), allow_null=True, min_length=2)
    )
    def get_rank_range(self, entry: BoardEntry) -> list[int] | None:
        """[best, worst]; null for an unranked entry."""
        if entry.rank_best is None:
            return None
        return [entry.rank_best, entry.rank_worst]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_independent_by(self, entry: BoardEntry) -> str | None:
        harness = entry.harness
        return harness.independent_by.username if harness.independent_by_id else None

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


class BoardDetailSerializer(DataTermsFields, serializers.ModelSerializer):
    """api.md: `{slug, title, computed_at, entries: [Entry…]}` in display order, after
    the data terms (`attribution`, `terms`)."""

    computed_at = serializers.DateTimeField(source="snapshot.computed_at")
    intervals_pending = serializers.BooleanField(
        help_text="true while some entry's interval bounds are being computed (each "
        "entry's own intervals_pending says which); false once every bound has landed."
    )
    entries = serializers.SerializerMethodField()

    class Meta:
        model = Board
        fields = [
            "attribution", "terms", "slug", "title", "computed_at", "intervals_pending", "entries",
        ]  # fmt: skip

    @extend_schema_field(BoardEntrySerializer(many=True))
    def get_entries(self, board: Board) -> list[dict]:
        # The board page's filters (BoardParams), passed in by the view: the same rows,
        # ranked among themselves.
        params = self.context.get("params") or BoardParams()
        return BoardEntrySerializer(board_rows(board, params), many=True).data


class RunSerializer(DataTermsFields, FiniteModelSerializer):
    """api.md `GET /api/v1/runs/<id>/`: one run with its trajectory, after the data terms."""

    submission = serializers.IntegerField(source="submission_id")
    withdrawn = serializers.SerializerMethodField()
    harness = serializers.CharField(source="harness.name")
    harness_version = serializers.CharField(source="harness.version")
    model = serializers.CharField(source="model.name")
    suite = serializers.CharField(source="task.suite.slug")
    suite_version = serializers.CharField(source="task.suite.version")
    task_id = serializers.CharField(source="task.task_id")
    category = serializers.CharField(source="task.category.name")
    infra_error = serializers.SerializerMethodField()
    tokens = serializers.SerializerMethodField()
    checkpoints = serializers.SerializerMethodField()
    duration_s = FiniteFloatField(allow_null=True)

    class Meta:
        model = Run
        fields = [
            "attribution", "terms",
            "id", "run_id", "submission", "withdrawn", "harness", "harness_version", "model",
            "suite", "suite_version", "task_id", "category", "trial", "outcome", "infra_error",
            "cost_usd", "tokens", "steps", "tool_calls", "ttft_ms", "started_at", "finished_at",
            "duration_s", "checkpoints", "verifier", "trajectory", "extra",
        ]  # fmt: skip

    def get_withdrawn(self, run: Run) -> bool:
        return run.submission.status == "withdrawn"

    def get_infra_error(self, run: Run) -> str | None:
        return run.infra_error or None

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_tokens(self, run: Run) -> dict | None:
        if run.tokens_input is None:
            return None
        tokens = {"input": run.tokens_input, "output": run.tokens_output}
        if run.tokens_cached is not None:
            tokens["cached"] = run.tokens_cached
        return tokens

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_checkpoints(self, run: Run) -> dict | None:
        if run.checkpoints_total is None:
            return None
        return {"passed": run.checkpoints_passed, "total": run.checkpoints_total}
