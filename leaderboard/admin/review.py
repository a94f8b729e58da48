"""Entries under review (infra errors over the allowance) and the board snapshots."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from arena.admin import ReadOnlyAdmin
from leaderboard.models import BoardSnapshot, UnderReviewEntry
from leaderboard.moderation.under_review import infra_errors_attach, under_review_queryset


class UnderReviewChangeList(ChangeList):
    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        # One aggregate query for the whole page, not one per row.
        self.result_list = list(self.result_list)
        infra_errors_attach(self.result_list)


@admin.register(UnderReviewEntry)
class UnderReviewEntryAdmin(ReadOnlyAdmin):
    """Entries flagged by the last recompute; the flag clears itself when data repairs it."""

    list_display = [
        "board_title", "agent", "runs", "infra_errors", "infra_rate", "by_kind",
        "by_submission", "failing_runs",
    ]  # fmt: skip
    list_display_links = None
    search_fields = ["harness_name", "model_name"]
    ordering = ["board__position", "-infra_error_rate", "harness_name", "model_name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[UnderReviewEntry]:
        return under_review_queryset()

    def get_changelist(self, request: HttpRequest, **kwargs) -> type[ChangeList]:
        return UnderReviewChangeList

    @admin.display(description="board", ordering="board__position")
    def board_title(self, entry: UnderReviewEntry) -> str:
        return entry.board.title

    @admin.display(description="agent", ordering="harness_name")
    def agent(self, entry: UnderReviewEntry) -> str:
        return str(entry)

    @admin.display(description="infra error rate", ordering="infra_error_rate")
    def infra_rate(self, entry: UnderReviewEntry) -> str:
        return f"{entry.infra_error_rate:.1%}" if entry.infra_error_rate is not None else "—"

    @admin.display(description="infra errors by kind")
    def by_kind(self, entry: UnderReviewEntry) -> str:
        return ", ".join(f"{kind}: {runs}" for kind, runs in entry.infra.by_kind.items())

    @admin.display(description="infra errors by submission")
    def by_submission(self, entry: UnderReviewEntry) -> str:
        change = "admin:ingestion_submission_change"
        return format_html_join(
            ", ",
            '<a href="{}">#{}</a>: {}',
            (
                (reverse(change, args=[pk]), pk, runs)
                for pk, runs in entry.infra.by_submission.items()
            ),
        )

    @admin.display(description="runs")
    def failing_runs(self, entry: UnderReviewEntry) -> str:
        query = urlencode(
            {
                "harness__id__exact": entry.harness_id,
                "model__id__exact": entry.model_id,
                "outcome__exact": "infra_error",
            }
        )
        url = reverse("admin:ingestion_run_changelist") + "?" + query
        return format_html('<a href="{}">failing runs</a>', url)


@admin.register(BoardSnapshot)
class BoardSnapshotAdmin(ReadOnlyAdmin):
    list_display = ["computed_at", "is_current", "runs_total", "sessions_total", "duration_ms"]
    list_filter = ["is_current"]
