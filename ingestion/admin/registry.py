"""The registry, people and evidence in the admin.

Every save or delete here that can move a figure (approval, categories, authorship,
contributors, sessions, turns) announces that evidence changed once it commits; the
leaderboard's recompute room decides what that means. Submissions and accounts are
moderated from the leaderboard's admin.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from arena.admin import ReadOnlyAdmin
from ingestion.admin.base import AnnouncesEvidence
from ingestion.models import (
    Category,
    Harness,
    Person,
    Run,
    Session,
    Suite,
    Task,
    ToolCall,
    Turn,
)
from ingestion.services.registry import (
    LOAD_REGISTRY,
    RegistryError,
    registry_file_load,
    registry_parse,
    tasks_approval_set,
)


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
class PersonAdmin(AnnouncesEvidence):
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
class CategoryAdmin(AnnouncesEvidence):
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
class SuiteAdmin(AnnouncesEvidence):
    list_display = ["name", "slug", "version", "official", "in_overall", "in_coding", "task_total"]
    list_filter = ["official", "in_overall", "in_coding"]
    search_fields = ["slug", "name"]
    inlines = [TaskInline]
    change_list_template = "admin/ingestion/suite/change_list.html"
    # Checked as a whole and re-read into every run's trace by a registry load only.
    readonly_fields = ["trajectory", "rules"]

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
                data = registry_parse(upload.read(), source=upload.name)
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
class TaskAdmin(AnnouncesEvidence):
    list_display = ["task_id", "suite", "category", "approved", "author_handles"]
    list_filter = ["approved", "suite", "category"]
    search_fields = ["task_id", "authors__handle"]
    autocomplete_fields = ["authors"]
    list_select_related = ["suite", "category"]
    actions = ["approve_tasks", "retire_tasks"]
    # Checked against its suite and re-read into its runs' traces by a registry load only.
    readonly_fields = ["reference_calls"]

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
class HarnessAdmin(AnnouncesEvidence):
    """Versions and their metadata. An independent run's row is shown with its account;
    ownership of a name is moderated (and transferred) from the leaderboard's admin."""

    list_display = [
        "name", "version", "organisation", "open_source", "independent_by", "minimal_baseline",
        "contributor_handles", "conflicts",
    ]  # fmt: skip
    list_filter = [
        "minimal_baseline", "open_source", ("independent_by", admin.EmptyFieldListFilter)
    ]  # fmt: skip
    list_select_related = ["independent_by"]
    search_fields = ["name", "version", "contributors__handle", "independent_by__username"]
    autocomplete_fields = ["contributors"]
    readonly_fields = ["independent_by"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def evidence_harness_ids(self, obj: Harness) -> list[int]:
        # Independent runs of this version take their contributors from this row.
        same_version = Harness.objects.filter(name=obj.name, version=obj.version)
        return [obj.pk, *same_version.exclude(pk=obj.pk).values_list("pk", flat=True)]

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
    fields = ["position", "role", "text", "labels", "label_source"]


class SessionEvidenceAdmin(AnnouncesEvidence):
    """Sessions and turns feed only the signal boards: no harness's runs change."""

    holds_sessions = True

    def evidence_harness_ids(self, obj) -> list[int]:
        return []


@admin.register(Session)
class SessionAdmin(SessionEvidenceAdmin):
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
class TurnAdmin(SessionEvidenceAdmin):
    list_display = ["session", "position", "role", "labels", "label_source"]
    list_filter = ["role", "label_source"]
    raw_id_fields = ["session"]
    inlines = [ToolCallInline]
    show_full_result_count = False
