"""The registry, submissions and submitter accounts in the admin.

Edits that can move runs on or off a board (approval, categories, authorship,
contributors, withdrawals) ask for a board recompute once they commit; moderation
decisions go through leaderboard.moderation, which keeps the append-only records.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from rest_framework.authtoken.models import Token

from arena.admin import ReadOnlyAdmin
from ingestion.models import (
    Category,
    Harness,
    LanguageModel,
    Person,
    Run,
    Session,
    Submission,
    Suite,
    Task,
    ToolCall,
    Turn,
)
from ingestion.services.registry import RegistryError
from leaderboard.admin import reason_action
from leaderboard.models import SubmissionDecision
from leaderboard.moderation import (
    LOAD_REGISTRY,
    WITHDRAW_SUBMISSION,
    boards_recompute_on_commit,
    registry_file_load,
    registry_parse,
    submission_restore,
    submission_withdraw,
    tasks_approval_set,
    token_revoke,
    token_rotate,
    upload_rate,
    upload_rate_reset,
)

User = get_user_model()


class RecomputesBoards(admin.ModelAdmin):
    """Saving or deleting here changes what the boards count: recompute after the commit."""

    def recompute_scope(self, obj) -> list[int] | None:
        """Harness ids whose entries may change, or None for every board."""
        return None

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not change or form.has_changed() or any(fs.has_changed() for fs in formsets):
            boards_recompute_on_commit(harness_ids=self.recompute_scope(form.instance))

    def delete_model(self, request: HttpRequest, obj) -> None:
        scope = self.recompute_scope(obj)
        super().delete_model(request, obj)
        boards_recompute_on_commit(harness_ids=scope)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        super().delete_queryset(request, queryset)
        boards_recompute_on_commit()


# -- people, authorship, contributors ----------------------------------------------------


class AuthoredTaskInline(admin.TabularInline):
    model = Task.authors.through
    extra = 0
    autocomplete_fields = ["task"]
    verbose_name = "authored task"
    verbose_name_plural = "authored tasks"


class ContributedHarnessInline(admin.TabularInline):
    model = Harness.contributors.through
    extra = 0
    autocomplete_fields = ["harness"]
    verbose_name = "harness contributed to"
    verbose_name_plural = "harnesses contributed to"


@admin.register(Person)
class PersonAdmin(RecomputesBoards):
    """Authorship and contributions decide conflicts of interest: fix them at the source."""

    list_display = ["handle", "display_name", "tasks_authored", "harnesses_contributed"]
    search_fields = ["handle", "display_name"]
    inlines = [AuthoredTaskInline, ContributedHarnessInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Person]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                task_total=Count("authored_tasks", distinct=True),
                harness_total=Count("harnesses", distinct=True),
            )
        )

    @admin.display(description="tasks authored", ordering="task_total")
    def tasks_authored(self, person: Person) -> int:
        return person.task_total

    @admin.display(description="harnesses", ordering="harness_total")
    def harnesses_contributed(self, person: Person) -> int:
        return person.harness_total


# -- registry --------------------------------------------------------------------------


@admin.register(Category)
class CategoryAdmin(RecomputesBoards):
    """`coding` decides which tasks count on the Coding board."""

    list_display = ["name", "coding"]
    list_editable = ["coding"]
    search_fields = ["name"]


class TaskInline(admin.TabularInline):
    model = Task
    extra = 0
    fields = ["task_id", "category", "approved"]
    show_change_link = True


class RegistryUploadForm(forms.Form):
    file = forms.FileField(help_text="A registry file in the arena-registry/1 format (JSON).")


@admin.register(Suite)
class SuiteAdmin(RecomputesBoards):
    list_display = ["name", "slug", "version", "official", "task_total"]
    list_filter = ["official"]
    search_fields = ["slug", "name"]
    inlines = [TaskInline]
    change_list_template = "admin/ingestion/suite/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Suite]:
        return super().get_queryset(request).annotate(tasks_n=Count("tasks"))

    @admin.display(description="tasks", ordering="tasks_n")
    def task_total(self, suite: Suite) -> int:
        return suite.tasks_n

    def get_urls(self) -> list:
        load = path(
            "load-registry/",
            self.admin_site.admin_view(self.registry_load_view),
            name="ingestion_suite_load_registry",
        )
        return [load, *super().get_urls()]

    def registry_load_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a registry file: suites, tasks, categories and authors, then a full recompute."""
        if not request.user.has_perm(LOAD_REGISTRY):
            raise PermissionDenied
        form = RegistryUploadForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                data = registry_parse(upload.read())
                result = registry_file_load(data=data, user=request.user)
            except RegistryError as exc:
                form.add_error("file", str(exc))
            else:
                self._log_registry_load(request, data, upload.name)
                self.message_user(
                    request,
                    f"Loaded {upload.name}: {result.suites} suites, {result.tasks_created} tasks "
                    f"created, {result.tasks_updated} updated. The boards are being recomputed.",
                    messages.SUCCESS,
                )
                return redirect("admin:ingestion_suite_changelist")
        context = {
            **self.admin_site.each_context(request),
            "title": "Load a registry file",
            "opts": self.model._meta,
            "form": form,
        }
        return TemplateResponse(request, "admin/ingestion/suite/load_registry.html", context)

    def _log_registry_load(self, request: HttpRequest, data: dict, filename: str) -> None:
        keys = [(s["slug"], s["version"]) for s in data.get("suites", [])]
        suites = [s for s in Suite.objects.all() if (s.slug, s.version) in keys]
        for suite in suites:
            self.log_change(request, suite, f"Loaded from registry file {filename}")


@admin.register(Task)
class TaskAdmin(RecomputesBoards):
    list_display = ["task_id", "suite", "category", "approved", "author_handles"]
    list_filter = ["approved", "suite", "category"]
    search_fields = ["task_id", "authors__handle"]
    autocomplete_fields = ["authors"]
    list_select_related = ["suite", "category"]
    actions = ["approve_tasks", "retire_tasks"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Task]:
        return super().get_queryset(request).prefetch_related("authors")

    @admin.display(description="authors")
    def author_handles(self, task: Task) -> str:
        return ", ".join(p.handle for p in task.authors.all())

    @admin.action(description="Approve selected tasks (count their runs)", permissions=["change"])
    def approve_tasks(self, request: HttpRequest, queryset: QuerySet[Task]) -> None:
        self._approval_set(request, queryset, approved=True)

    @admin.action(description="Retire selected tasks (drop their runs)", permissions=["change"])
    def retire_tasks(self, request: HttpRequest, queryset: QuerySet[Task]) -> None:
        self._approval_set(request, queryset, approved=False)

    def _approval_set(self, request: HttpRequest, queryset: QuerySet[Task], *, approved: bool):
        verb = "approved" if approved else "retired"
        changing = list(queryset.exclude(approved=approved))
        changed = tasks_approval_set(tasks=queryset, approved=approved, user=request.user)
        if changing:
            LogEntry.objects.log_actions(
                request.user.pk, changing, CHANGE, change_message=f"Task {verb}"
            )
        self.message_user(request, f"{changed} tasks {verb}; the boards are being recomputed.")


@admin.register(Harness)
class HarnessAdmin(RecomputesBoards):
    list_display = ["name", "version", "minimal_baseline", "contributor_handles", "conflicts"]
    list_filter = ["minimal_baseline"]
    search_fields = ["name", "version", "contributors__handle"]
    autocomplete_fields = ["contributors"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def recompute_scope(self, obj: Harness) -> list[int]:
        return [obj.pk]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Harness]:
        return super().get_queryset(request).prefetch_related("contributors")

    @admin.display(description="contributors")
    def contributor_handles(self, harness: Harness) -> str:
        return ", ".join(p.handle for p in harness.contributors.all())

    @admin.display(description="conflict queue")
    def conflicts(self, harness: Harness) -> str:
        url = reverse("admin:leaderboard_conflictpair_changelist")
        return format_html(
            '<a href="{}?{}">pairs</a>', url, urlencode({"harness__id__exact": harness.pk})
        )


@admin.register(LanguageModel)
class LanguageModelAdmin(RecomputesBoards):
    list_display = ["name", "provider", "input_price_per_mtok", "output_price_per_mtok"]
    search_fields = ["name", "provider"]


# -- submissions -----------------------------------------------------------------------


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
    list_filter = ["status", "created_at"]
    search_fields = ["sha256", "original_name", "uploader__username", "harness__name"]
    list_select_related = ["uploader", "harness"]
    readonly_fields = [
        "uploader", "sha256", "original_name", "size_bytes", "status", "harness", "manifest",
        "runs_count", "sessions_count", "errors", "error_count", "created_at", "started_at",
        "finished_at",
    ]  # fmt: skip
    date_hierarchy = "created_at"
    inlines = [SubmissionDecisionInline]
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
        super().delete_model(request, obj)
        boards_recompute_on_commit(harness_ids=[obj.harness_id])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        harness_ids = list(queryset.values_list("harness_id", flat=True))
        super().delete_queryset(request, queryset)
        boards_recompute_on_commit(harness_ids=harness_ids)

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
        def apply(reason: str) -> int:
            submissions = list(queryset.order_by("pk"))
            for submission in submissions:
                service(submission=submission, reason=reason, user=request.user)
            return len(submissions)

        return reason_action(self, request, queryset, title=title, apply=apply)


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = [
        "run_id", "harness", "model", "task", "trial", "outcome", "infra_error", "cost_usd",
    ]  # fmt: skip
    list_filter = ["outcome", "infra_error", "harness", "model"]
    search_fields = ["run_id", "task__task_id"]
    list_select_related = ["harness", "model", "task__suite"]
    raw_id_fields = ["submission", "task"]
    show_full_result_count = False

    # Runs are evidence: they arrive only in bundles and leave the boards only with
    # their submission (withdraw it), never by editing one here.


class ToolCallInline(admin.TabularInline):
    model = ToolCall
    extra = 0


class TurnInline(admin.TabularInline):
    model = Turn
    extra = 0
    fields = ["position", "role", "text", "label", "label_source"]


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["session_id", "model", "scenario", "confirmation", "submission"]
    list_filter = ["scenario", "confirmation", "model"]
    search_fields = ["session_id"]
    list_select_related = ["model", "submission"]
    raw_id_fields = ["submission"]
    inlines = [TurnInline]
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["session", "position", "role", "label", "label_source"]
    list_filter = ["role", "label", "label_source"]
    raw_id_fields = ["session"]
    inlines = [ToolCallInline]
    show_full_result_count = False


# -- submitter accounts ----------------------------------------------------------------

admin.site.unregister(User)


@admin.register(User)
class SubmitterAdmin(UserAdmin):
    """Accounts with their submissions, API token and upload rate-limit state."""

    list_display = [
        "username", "email", "is_staff", "is_active", "submissions", "has_token", "upload_rate_state",
    ]  # fmt: skip
    actions = ["token_rotate_action", "token_revoke_action", "upload_rate_reset_action"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super()
            .get_queryset(request)
            .annotate(
                submission_total=Count("submissions"),
                token_present=Exists(Token.objects.filter(user=OuterRef("pk"))),
            )
        )

    @admin.display(description="submissions", ordering="submission_total")
    def submissions(self, user) -> str:
        url = reverse("admin:ingestion_submission_changelist")
        return format_html(
            '<a href="{}?{}">{}</a>',
            url,
            urlencode({"uploader__id__exact": user.pk}),
            user.submission_total,
        )

    @admin.display(description="API token", boolean=True, ordering="token_present")
    def has_token(self, user) -> bool:
        return user.token_present

    @admin.display(description="uploads (rate limit)")
    def upload_rate_state(self, user) -> str:
        rate = upload_rate(user)
        return "not limited" if rate is None else str(rate)

    @admin.action(description="Create or rotate API token", permissions=["change"])
    def token_rotate_action(self, request: HttpRequest, queryset: QuerySet) -> None:
        for user in queryset:
            token_rotate(user=user, actor=request.user)
            self.log_change(request, user, "Rotated API token")
        self.message_user(request, f"New API tokens for {len(queryset)} accounts.")

    @admin.action(description="Revoke API token", permissions=["change"])
    def token_revoke_action(self, request: HttpRequest, queryset: QuerySet) -> None:
        revoked = 0
        for user in queryset:
            if token_revoke(user=user, actor=request.user):
                revoked += 1
                self.log_change(request, user, "Revoked API token")
        self.message_user(request, f"Revoked {revoked} API tokens.")

    @admin.action(description="Reset upload rate limit", permissions=["change"])
    def upload_rate_reset_action(self, request: HttpRequest, queryset: QuerySet) -> None:
        for user in queryset:
            upload_rate_reset(user=user, actor=request.user)
            self.log_change(request, user, "Reset upload rate limit")
        self.message_user(request, f"Reset the upload rate limit of {len(queryset)} accounts.")
