"""The conflict review queue and the append-only conflict decisions."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html

from arena.admin import ReadOnlyAdmin
from leaderboard.admin.actions import decisions_url, reason_action
from leaderboard.models import ConflictDecision, ConflictPair
from leaderboard.moderation.conflicts import (
    DECIDE_CONFLICT,
    conflict_decide,
    conflict_queue,
    conflicts_decide,
)


@admin.register(ConflictPair)
class ConflictPairAdmin(ReadOnlyAdmin):
    """The conflict review queue (a database view); decisions are taken by actions."""

    list_display = [
        "harness", "task", "people_involved", "runs_affected", "state", "shown_by_data",
        "latest_decision_summary",
    ]  # fmt: skip
    list_display_links = None
    list_filter = ["state", "needs_review", "shown_by_data", "minimal_baseline"]
    search_fields = ["harness__name", "harness__version", "task__task_id", "task__suite__slug"]
    actions = ["confirm_conflicts", "dismiss_conflicts"]
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[ConflictPair]:
        return conflict_queue()

    def has_decide_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DECIDE_CONFLICT)

    @admin.display(description="people involved")
    def people_involved(self, pair: ConflictPair) -> str:
        return ", ".join(pair.people) or "— (no shared person)"

    @admin.display(description="latest decision")
    def latest_decision_summary(self, pair: ConflictPair) -> str:
        decision = pair.latest_decision
        if decision is None:
            return "—"
        who = decision.decided_by.get_username() if decision.decided_by else "?"
        return format_html(
            '<a href="{}">{} by {}, {}</a>: {}',
            decisions_url(pair.harness_id, pair.task_id),
            decision.decision,
            who,
            f"{timezone.localtime(decision.decided_at):%Y-%m-%d %H:%M}",
            decision.reason,
        )

    @admin.action(
        description="Confirm selected conflicts (exclude their runs)", permissions=["decide"]
    )
    def confirm_conflicts(self, request: HttpRequest, queryset: QuerySet[ConflictPair]):
        return self._decide(request, queryset, ConflictDecision.Decision.CONFIRM)

    @admin.action(
        description="Dismiss selected conflicts (count their runs)", permissions=["decide"]
    )
    def dismiss_conflicts(self, request: HttpRequest, queryset: QuerySet[ConflictPair]):
        return self._decide(request, queryset, ConflictDecision.Decision.DISMISS)

    def _decide(self, request: HttpRequest, queryset: QuerySet[ConflictPair], decision: str):
        pairs = list(queryset.values_list("harness_id", "task_id"))

        def apply(reason: str) -> int:
            records = conflicts_decide(
                pairs=pairs, decision=decision, reason=reason, user=request.user
            )
            return len(records)

        return reason_action(
            self, request, queryset, title=f"{decision.capitalize()} conflicts", apply=apply
        )


class ConflictDecisionForm(forms.ModelForm):
    class Meta:
        model = ConflictDecision
        fields = ["harness", "task", "decision", "reason"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = True


@admin.register(ConflictDecision)
class ConflictDecisionAdmin(admin.ModelAdmin):
    """Append-only: adding one is deciding (e.g. a conflict the data does not show)."""

    form = ConflictDecisionForm
    list_display = ["decided_at", "decision", "harness", "task", "decided_by", "reason"]
    list_filter = ["decision", "decided_at", ("decided_by", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["harness__name", "task__task_id", "reason", "decided_by__username"]
    list_select_related = ["harness", "task__suite", "decided_by"]
    autocomplete_fields = ["harness", "task"]
    date_hierarchy = "decided_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DECIDE_CONFLICT)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def get_changeform_initial_data(self, request: HttpRequest) -> dict:
        return {
            "decision": ConflictDecision.Decision.CONFIRM,
            **super().get_changeform_initial_data(request),
        }

    def save_model(self, request: HttpRequest, obj: ConflictDecision, form, change: bool) -> None:
        record = conflict_decide(
            harness=obj.harness,
            task=obj.task,
            decision=obj.decision,
            reason=obj.reason,
            user=request.user,
        )
        obj.pk, obj.decided_by, obj.decided_at = record.pk, record.decided_by, record.decided_at
