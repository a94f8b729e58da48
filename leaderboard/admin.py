"""Moderation in the admin: the conflict review queue, decisions, entries under review.

The admin is a thin layer over leaderboard.moderation: actions collect a reason on an
intermediate page and call a service, which checks permissions, writes the
append-only record and asks for the recompute.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from arena.admin import ReadOnlyAdmin
from leaderboard.models import (
    BoardSnapshot,
    ConflictDecision,
    ConflictPair,
    SubmissionDecision,
    UnderReviewEntry,
)
from leaderboard.moderation import (
    DECIDE_CONFLICT,
    conflict_decide,
    conflict_queue,
    conflicts_decide,
    infra_errors_attach,
    under_review_queryset,
)

# -- shared: actions that need a reason ---------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="Kept with the decision, with your name and the time.",
    )


def reason_action(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    title: str,
    apply: Callable[[str], int],
) -> TemplateResponse | None:
    """Ask for a reason on an intermediate page, then call `apply(reason)` once.

    `apply` returns how many objects it changed; a refusal from the service
    (permission, wrong state) becomes an error message and nothing is kept.
    """
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        try:
            # One transaction: all or nothing, and recomputes start after the commit.
            with transaction.atomic():
                done = apply(form.cleaned_data["reason"])
        except (ValidationError, PermissionDenied) as exc:
            modeladmin.message_user(request, f"{title}: refused, {_message(exc)}", messages.ERROR)
            return None
        modeladmin.message_user(request, f"{title}: {done} done.", messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "objects": list(queryset),
        "opts": modeladmin.model._meta,
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/reason_action.html", context)


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    return str(exc) or "permission denied"


def admin_link(obj, label: str | None = None) -> str:
    url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label or str(obj))


def decisions_url(harness_id: int, task_id: int) -> str:
    query = urlencode({"harness__id__exact": harness_id, "task__id__exact": task_id})
    return reverse("admin:leaderboard_conflictdecision_changelist") + "?" + query


# -- conflicts of interest -------------------------------------------------------------


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


# -- withdrawals -----------------------------------------------------------------------


@admin.register(SubmissionDecision)
class SubmissionDecisionAdmin(ReadOnlyAdmin):
    """Withdraw/restore history; decisions are taken from the submission list."""

    list_display = ["decided_at", "action", "submission_link", "decided_by", "reason"]
    list_filter = ["action", "decided_at"]
    search_fields = ["reason", "decided_by__username", "submission__original_name"]
    list_select_related = ["submission", "decided_by"]
    date_hierarchy = "decided_at"

    @admin.display(description="submission", ordering="submission")
    def submission_link(self, decision: SubmissionDecision) -> str:
        return admin_link(decision.submission)


# -- under review ----------------------------------------------------------------------


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
