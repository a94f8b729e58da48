"""Submissions in the admin: withdraw and restore with a reason, deletion, the decision log.

Registered here, not in ingestion, because withdrawals are moderation decisions; a
deletion announces that evidence changed, like every other change of evidence.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest

from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Submission
from leaderboard.admin.actions import DecisionHistoryAdmin, reason_action_each
from leaderboard.admin.pending import SubmissionReviewInline
from leaderboard.models import SubmissionDecision
from leaderboard.moderation.withdrawals import (
    WITHDRAW_SUBMISSION,
    submission_restore,
    submission_withdraw,
)


class SubmissionDecisionInline(admin.TabularInline):
    """Withdraw/restore history, newest first; append-only."""

    model = SubmissionDecision
    extra = 0
    fields = ["decided_at", "action", "reason", "decided_by"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Status changes to and from "withdrawn" only through the withdraw/restore actions."""

    list_display = [
        "id", "original_name", "uploader", "harness", "status", "moderation_reason",
        "runs_count", "sessions_count", "created_at",
    ]  # fmt: skip
    list_filter = ["status", "native_format", "created_at"]
    search_fields = ["sha256", "original_name", "uploader__username", "harness__name"]
    list_select_related = ["uploader", "harness"]
    readonly_fields = [
        "uploader", "sha256", "original_name", "size_bytes", "status", "harness", "manifest",
        "runs_count", "sessions_count", "errors", "error_count", "native_format", "native_params",
        "report", "created_at", "started_at", "finished_at",
    ]  # fmt: skip
    date_hierarchy = "created_at"
    inlines = [SubmissionDecisionInline, SubmissionReviewInline]
    actions = ["withdraw_submissions", "restore_submissions"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Submission]:
        latest = SubmissionDecision.objects.filter(submission=OuterRef("pk")).order_by(
            "-decided_at", "-id"
        )
        return (
            super()
            .get_queryset(request)
            .annotate(
                latest_action=Subquery(latest.values("action")[:1]),
                latest_reason=Subquery(latest.values("reason")[:1]),
            )
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # submissions arrive through the upload form, the API or `ingest`

    # Deleting takes runs off the boards (a moderated one is protected by its records).
    def delete_model(self, request: HttpRequest, obj: Submission) -> None:
        label = f"submission #{obj.pk} deleted"  # the delete clears obj.pk
        super().delete_model(request, obj)
        evidence_changed_announce(
            sender=__name__,
            harness_ids=[obj.harness_id],
            sessions=obj.sessions_count > 0,
            cause=EvidenceCause("admin", label=label),
        )

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        deleted = list(queryset.values_list("harness_id", "sessions_count"))
        super().delete_queryset(request, queryset)
        evidence_changed_announce(
            sender=__name__,
            harness_ids=[harness_id for harness_id, _ in deleted],
            sessions=any(sessions for _, sessions in deleted),
            cause=EvidenceCause("admin", label=f"{len(deleted)} submission(s) deleted"),
        )

    def has_withdraw_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(WITHDRAW_SUBMISSION)

    @admin.display(description="moderation")
    def moderation_reason(self, submission: Submission) -> str:
        if not submission.latest_action:
            return ""
        return f"{submission.latest_action}: {submission.latest_reason}"

    @admin.action(description="Withdraw selected submissions", permissions=["withdraw"])
    def withdraw_submissions(self, request: HttpRequest, queryset: QuerySet[Submission]):
        return self._decide(request, queryset, submission_withdraw, "Withdraw submissions")

    @admin.action(description="Restore selected withdrawn submissions", permissions=["withdraw"])
    def restore_submissions(self, request: HttpRequest, queryset: QuerySet[Submission]):
        return self._decide(request, queryset, submission_restore, "Restore submissions")

    def _decide(self, request: HttpRequest, queryset: QuerySet[Submission], service, title: str):
        def decide(submission: Submission, reason: str) -> object:
            return service(submission=submission, reason=reason, user=request.user)

        return reason_action_each(self, request, queryset, title=title, decide=decide)


@admin.register(SubmissionDecision)
class SubmissionDecisionAdmin(DecisionHistoryAdmin):
    """Withdraw/restore history; decisions are taken from the submission list."""
