from __future__ import annotations

from django.contrib import admin

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


@admin.register(Person)
class PersonAdmin(admin.ModelAdmin):
    list_display = ["handle", "display_name"]
    search_fields = ["handle", "display_name"]


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["name", "coding"]
    list_editable = ["coding"]


class TaskInline(admin.TabularInline):
    model = Task
    extra = 0
    fields = ["task_id", "category", "approved"]
    show_change_link = True


@admin.register(Suite)
class SuiteAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "version", "official"]
    list_filter = ["official"]
    search_fields = ["slug", "name"]
    inlines = [TaskInline]


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["task_id", "suite", "category", "approved"]
    list_filter = ["suite", "category", "approved"]
    search_fields = ["task_id", "authors__handle"]
    autocomplete_fields = ["authors"]
    list_select_related = ["suite", "category"]


@admin.register(Harness)
class HarnessAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "minimal_baseline"]
    list_filter = ["minimal_baseline"]
    search_fields = ["name", "contributors__handle"]
    autocomplete_fields = ["contributors"]


@admin.register(LanguageModel)
class LanguageModelAdmin(admin.ModelAdmin):
    list_display = ["name", "provider", "input_price_per_mtok", "output_price_per_mtok"]
    search_fields = ["name", "provider"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "original_name",
        "uploader",
        "harness",
        "status",
        "runs_count",
        "sessions_count",
        "created_at",
    ]
    list_filter = ["status"]
    search_fields = ["sha256", "original_name", "uploader__username", "harness__name"]
    list_select_related = ["uploader", "harness"]
    readonly_fields = [
        "uploader", "sha256", "original_name", "size_bytes", "harness", "manifest", "runs_count",
        "sessions_count", "errors", "error_count", "created_at", "started_at", "finished_at",
    ]  # fmt: skip
    date_hierarchy = "created_at"


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = [
        "run_id",
        "harness",
        "model",
        "task",
        "trial",
        "outcome",
        "infra_error",
        "cost_usd",
    ]
    list_filter = ["outcome", "infra_error", "harness", "model"]
    search_fields = ["run_id", "task__task_id"]
    list_select_related = ["harness", "model", "task__suite"]
    raw_id_fields = ["submission", "task"]
    show_full_result_count = False

    def has_add_permission(self, request) -> bool:
        return False  # runs arrive only in bundles


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

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["session", "position", "role", "label", "label_source"]
    list_filter = ["role", "label", "label_source"]
    raw_id_fields = ["session"]
    inlines = [ToolCallInline]
    show_full_result_count = False
