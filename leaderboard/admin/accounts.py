"""Submitter accounts: their submissions, API token and upload rate-limit state."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from ingestion.models import ApiToken
from ingestion.services.trust import TRUSTED_GROUP
from leaderboard.admin.actions import reason_action_each
from leaderboard.moderation.accounts import (
    GRANT_TRUST,
    token_revoke,
    token_rotate,
    trusted_submitter_grant,
    upload_rate,
    upload_rate_reset,
)

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class SubmitterAdmin(UserAdmin):
    """Accounts with their submissions, API token and upload rate-limit state."""

    list_display = [
        "username", "email", "is_staff", "is_active", "trusted", "submissions", "has_token",
        "upload_rate_state",
    ]  # fmt: skip
    actions = [
        "token_rotate_action", "token_revoke_action", "upload_rate_reset_action",
        "trusted_submitter_grant_action",
    ]  # fmt: skip

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super()
            .get_queryset(request)
            .annotate(
                submission_total=Count("submissions"),
                token_present=Exists(ApiToken.objects.filter(user=OuterRef("pk"))),
                in_trusted_group=Exists(
                    User.groups.through.objects.filter(
                        user=OuterRef("pk"), group__name=TRUSTED_GROUP
                    )
                ),
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

    @admin.display(description="trusted submitter", boolean=True, ordering="in_trusted_group")
    def trusted(self, user) -> bool:
        return user.in_trusted_group

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

    def has_trust_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(GRANT_TRUST)

    @admin.action(description="Grant the trusted submitter group", permissions=["trust"])
    def trusted_submitter_grant_action(self, request: HttpRequest, queryset: QuerySet):
        return reason_action_each(
            self, request, queryset, title="Grant the trusted submitter group",
            decide=lambda user, reason: trust_grant_logged(self, request, user, reason),
        )  # fmt: skip


def trust_grant_logged(
    modeladmin: admin.ModelAdmin, request: HttpRequest, user, reason: str
) -> bool:
    """Grant `user` the trusted submitter group as `request.user`, written to the
    account's admin history; False when they already had it."""
    granted = trusted_submitter_grant(user=user, actor=request.user, reason=reason)
    if granted:
        modeladmin.log_change(request, user, f"Granted {TRUSTED_GROUP}: {reason.strip()}")
    return granted
