"""The session conflict queue and the append-only session conflict decisions."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from arena.admin import ReadOnlyAdmin
from leaderboard.admin.actions import reason_action
from leaderboard.models import SessionConflictDecision, SessionConflictPair
from leaderboard.moderation.conflicts import DECIDE_CONFLICT
from leaderboard.moderation.session_conflicts import (
    session_conflict_decide,
    session_conflict_queue,
    session_conflicts_decide,
)


@admin.register(SessionConflictPair)
class SessionConflictPairAdmin(ReadOnlyAdmin):
    """The session conflict queue (a database view); decisions are taken by actions."""

    list_display = [
        "account", "model", "organisation_names", "sessions_affected", "state",
        "shown_by_data", "latest_decision_summary",
    ]  # fmt: skip
    list_display_links = None
    list_filter = ["state", "needs_review", "shown_by_data"]
    search_fields = ["account__username", "model__name"]
    actions = ["confirm_conflicts", "dismiss_conflicts"]
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[SessionConflictPair]:
        return session_conflict_queue()

    def has_decide_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DECIDE_CONFLICT)

    @admin.display(description="organisations")
    def organisation_names(self, pair: SessionConflictPair) -> str:
        return ", ".join(pair.organisations) or "— (added by a decision)"

    @admin.display(description="latest decision")
    def latest_decision_summary(self, pair: SessionConflictPair) -> str:
        decision = pair.latest_decision
        if decision is None:
            return "—"
        when = f"{timezone.localtime(decision.decided_at):%Y-%m-%d %H:%M}"
        who = decision.decided_by.get_username()
        return f"{decision.decision} by {who}, {when}: {decision.reason}"

    @admin.action(
        description="Confirm selected session conflicts (exclude their sessions)",
        permissions=["decide"],
    )
    def confirm_conflicts(self, request: HttpRequest, queryset: QuerySet[SessionConflictPair]):
        return self._decide(request, queryset, SessionConflictDecision.Decision.CONFIRM)

    @admin.action(
        description="Dismiss selected session conflicts (count their sessions)",
        permissions=["decide"],
    )
    def dismiss_conflicts(self, request: HttpRequest, queryset: QuerySet[SessionConflictPair]):
        return self._decide(request, queryset, SessionConflictDecision.Decision.DISMISS)

    def _decide(self, request: HttpRequest, queryset: QuerySet, decision: str):
        pairs = list(queryset.values_list("account_id", "model_id"))

        def apply(reason: str) -> int:
            records = session_conflicts_decide(
                pairs=pairs, decision=decision, reason=reason, user=request.user
            )
            return len(records)

        return reason_action(
            self, request, queryset, title=f"{decision.capitalize()} session conflicts", apply=apply
        )


class SessionConflictDecisionForm(forms.ModelForm):
    class Meta:
        model = SessionConflictDecision
        fields = ["account", "model", "decision", "reason"]


@admin.register(SessionConflictDecision)
class SessionConflictDecisionAdmin(admin.ModelAdmin):
    """Append-only: adding one is deciding (e.g. a conflict no organisation shows)."""

    form = SessionConflictDecisionForm
    list_display = ["decided_at", "decision", "account", "model", "decided_by", "reason"]
    list_filter = ["decision", "decided_at"]
    search_fields = ["account__username", "model__name", "reason", "decided_by__username"]
    list_select_related = ["account", "model", "decided_by"]
    autocomplete_fields = ["model"]
    raw_id_fields = ["account"]
    date_hierarchy = "decided_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DECIDE_CONFLICT)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj, form, change: bool) -> None:
        record = session_conflict_decide(
            account=obj.account,
            model=obj.model,
            decision=obj.decision,
            reason=obj.reason,
            user=request.user,
        )
        obj.pk, obj.decided_by, obj.decided_at = record.pk, record.decided_by, record.decided_at
