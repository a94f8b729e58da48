"""Submitter accounts: API tokens, the upload rate limit, trust, and the moderator group."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import Group, Permission
from django.db import transaction

from ingestion.services.api_tokens import IssuedToken, api_token_revoke, api_token_rotate
from ingestion.services.permissions import permission_require, reason_require
from ingestion.services.trust import trusted_group
from ingestion.throttling import upload_limiter

CHANGE_USER = "auth.change_user"
# Whoever may approve an account's submissions may also trust the account.
GRANT_TRUST = "leaderboard.review_submission"

# The living copy of the group migration 0004 creates (a migration must not import
# app code, so that one is frozen at the time it was written).
MODERATOR_GROUP = "moderator"
MODERATOR_PERMISSIONS = {
    "leaderboard": [
        "decide_conflict", "withdraw_submission", "view_conflictdecision",
        "view_submissiondecision", "view_conflictpair", "view_underreviewentry",
        "view_boardsnapshot", "transfer_harness", "view_harnesstransfer",
        "review_submission", "view_submissionreview", "view_pendingsubmission",
        "label_turns", "view_manuallabel",
        "view_sessionconflictpair", "view_sessionconflictdecision",
    ],
    "ingestion": [
        "view_submission", "view_run", "view_suite", "view_category", "view_languagemodel",
        "merge_languagemodel",
        "view_task", "change_task", "view_harness", "change_harness",
        "view_person", "add_person", "change_person", "view_harnessowner",
        "view_modelprice", "add_modelprice", "change_modelprice", "delete_modelprice",
        "view_organisation",
    ],
}  # fmt: skip


@dataclass(frozen=True)
class UploadRate:
    used: int
    limit: int
    window_s: int

    @property
    def blocked(self) -> bool:
        return self.used >= self.limit

    def __str__(self) -> str:
        state = "blocked" if self.blocked else "ok"
        return f"{self.used}/{self.limit} per {self.window_s}s ({state})"


def upload_rate(user) -> UploadRate | None:
    """Uploads in the current throttle window, or None when uploads are not throttled."""
    limiter = upload_limiter()
    if limiter is None:
        return None
    return UploadRate(limiter.usage(user.pk), limiter.rate.limit, limiter.rate.window_s)


def upload_rate_reset(*, user, actor) -> None:
    permission_require(actor, CHANGE_USER)
    limiter = upload_limiter()
    if limiter is not None:
        limiter.reset(user.pk)


@transaction.atomic
def token_rotate(*, user, actor) -> IssuedToken:
    """A new API token for `user`; the old one stops working at once."""
    permission_require(actor, CHANGE_USER)
    return api_token_rotate(user=user)


@transaction.atomic
def token_revoke(*, user, actor) -> bool:
    """Delete `user`'s API token; True when there was one."""
    permission_require(actor, CHANGE_USER)
    return api_token_revoke(user=user)


@transaction.atomic
def trusted_submitter_grant(*, user, actor, reason: str) -> bool:
    """Put `user` in the trusted submitter group: their next uploads publish without
    review (those pending now stay for a moderator). False if they were in it already.

    The reason is required here and kept by the caller in its audit record (the admin
    writes it to the account's history, like the other account actions)."""
    permission_require(actor, GRANT_TRUST)
    reason_require(reason)
    group = trusted_group()
    if user.groups.filter(pk=group.pk).exists():
        return False
    user.groups.add(group)
    return True


def moderator_group_sync() -> Group:
    """Create the moderator group or add any permission it lacks (idempotent).

    Migration 0004 does this at deploy time; a test database flushed between
    transactional tests loses the group and needs it again.
    """
    group, _ = Group.objects.get_or_create(name=MODERATOR_GROUP)
    for app_label, codenames in MODERATOR_PERMISSIONS.items():
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label=app_label, codename__in=codenames)
        )
    return group
