"""Moderation services: conflict decisions, withdrawals, registry changes, submitter tokens.

Every decision is an append-only record (who, what, when, why) and the current state
is derived from the latest one. Each service checks the acting user's permission
itself, so the admin is only a thin layer and no other caller can skip the check, and
asks for a board recompute once its transaction has committed (the recompute task
must see the new rows).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import Group, Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import QuerySet
from rest_framework.authtoken.models import Token
from rest_framework.throttling import ScopedRateThrottle

from ingestion.models import Harness, Submission, Task
from ingestion.services.registry import (
    REGISTRY_FORMAT,
    RegistryError,
    RegistryLoadResult,
    registry_load,
)
from leaderboard.models import (
    BoardEntry,
    ConflictDecision,
    ConflictPair,
    SubmissionDecision,
    UnderReviewEntry,
)
from leaderboard.tasks import recompute_boards_soon

DECIDE_CONFLICT = "leaderboard.decide_conflict"
WITHDRAW_SUBMISSION = "leaderboard.withdraw_submission"
CHANGE_REGISTRY = "ingestion.change_task"
LOAD_REGISTRY = "ingestion.change_suite"
UPLOAD_THROTTLE_SCOPE = "uploads"

# The living copy of the group migration 0004 creates (see that migration).
MODERATOR_GROUP = "moderator"
MODERATOR_PERMISSIONS = {
    "leaderboard": [
        "decide_conflict", "withdraw_submission", "view_conflictdecision",
        "view_submissiondecision", "view_conflictpair", "view_underreviewentry",
        "view_boardsnapshot",
    ],
    "ingestion": [
        "view_submission", "view_run", "view_suite", "view_category", "view_languagemodel",
        "view_task", "change_task", "view_harness", "change_harness",
        "view_person", "add_person", "change_person",
    ],
}  # fmt: skip


# -- shared ------------------------------------------------------------------------------


def boards_recompute_on_commit(
    *, harness_ids: Iterable[int] | None = None, sessions: bool = False
) -> None:
    """Ask for a recompute once the caller's transaction commits (None: every board)."""
    ids = None if harness_ids is None else sorted({i for i in harness_ids if i is not None})
    transaction.on_commit(lambda: recompute_boards_soon(harness_ids=ids, sessions=sessions))


def _require(user, perm: str) -> None:
    if user is None or not user.is_active or not user.has_perm(perm):
        raise PermissionDenied(f"{getattr(user, 'username', 'anonymous')} lacks {perm}")


def _reason_required(reason: str | None) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("a reason is required")
    return reason


# -- conflicts of interest -------------------------------------------------------------


@transaction.atomic
def conflict_decide(
    *, harness: Harness, task: Task, decision: str, reason: str, user
) -> ConflictDecision:
    """Confirm or dismiss one (harness version, task) pair, shown by the data or not.

    Confirming a pair the data does not show is how an admin adds a conflict.
    """
    return conflicts_decide(
        pairs=[(harness.pk, task.pk)], decision=decision, reason=reason, user=user
    )[0]


@transaction.atomic
def conflicts_decide(
    *, pairs: Iterable[tuple[int, int]], decision: str, reason: str, user
) -> list[ConflictDecision]:
    """The same decision and reason for several (harness id, task id) pairs, one recompute."""
    _require(user, DECIDE_CONFLICT)
    reason = _reason_required(reason)
    if decision not in ConflictDecision.Decision.values:
        raise ValidationError(f"decision must be one of {ConflictDecision.Decision.values}")
    pairs = sorted(set(pairs))
    records = ConflictDecision.objects.bulk_create(
        ConflictDecision(
            harness_id=harness_id, task_id=task_id, decision=decision, reason=reason,
            decided_by=user,
        )
        for harness_id, task_id in pairs
    )  # fmt: skip
    boards_recompute_on_commit(harness_ids=[harness_id for harness_id, _ in pairs])
    return records


def conflict_queue() -> QuerySet[ConflictPair]:
    """Every pair the data shows as a conflict or an admin decided on, unreviewed first.

    Each row carries the people involved, the runs affected, the state the boards
    apply and the latest decision (see ConflictPair and its view in migration 0003).
    """
    return ConflictPair.objects.select_related(
        "harness", "task__suite", "latest_decision__decided_by"
    )


# -- withdrawals -----------------------------------------------------------------------


@transaction.atomic
def submission_withdraw(*, submission: Submission, reason: str, user) -> SubmissionDecision:
    """Take an ingested submission's runs off every board at the next recompute."""
    return _submission_decide(submission, SubmissionDecision.Action.WITHDRAW, reason, user)


@transaction.atomic
def submission_restore(*, submission: Submission, reason: str, user) -> SubmissionDecision:
    """Put a withdrawn submission's runs back on the boards."""
    return _submission_decide(submission, SubmissionDecision.Action.RESTORE, reason, user)


def _submission_decide(
    submission: Submission, action: str, reason: str, user
) -> SubmissionDecision:
    _require(user, WITHDRAW_SUBMISSION)
    reason = _reason_required(reason)
    withdrawing = action == SubmissionDecision.Action.WITHDRAW
    source, target = (
        (Submission.Status.INGESTED, Submission.Status.WITHDRAWN)
        if withdrawing
        else (Submission.Status.WITHDRAWN, Submission.Status.INGESTED)
    )
    # Locked so that two moderators cannot both flip it and leave two records.
    locked = Submission.objects.select_for_update().get(pk=submission.pk)
    if locked.status != source:
        raise ValidationError(
            f"only an {source} submission can be {'withdrawn' if withdrawing else 'restored'}"
            f" (submission {locked.pk} is {locked.status})"
        )
    Submission.objects.filter(pk=locked.pk).update(status=target)
    submission.status = target
    record = SubmissionDecision.objects.create(
        submission=locked, action=action, reason=reason, decided_by=user
    )
    boards_recompute_on_commit(harness_ids=[locked.harness_id], sessions=locked.sessions_count > 0)
    return record


def submission_latest_decision(submission: Submission) -> SubmissionDecision | None:
    return submission.decisions.select_related("decided_by").first()


def submission_moderation_context(submission: Submission) -> dict[str, Any]:
    """Template context for the submitter's submission page: why it is (no longer) withdrawn.

    `moderation` is the latest withdraw/restore record or None; its `action`,
    `reason` and `decided_at` are what the submitter may see.
    """
    return {"moderation": submission_latest_decision(submission)}


# -- under review ----------------------------------------------------------------------

# One aggregate over the runs of the listed agents: infra errors by kind, per
# (harness, model, suite, coding, submission), rolled up per board in Python.
INFRA_ERRORS_SQL = """
    SELECT r.harness_id, r.model_id, s.slug || '-' || s.version, c.coding,
           r.submission_id, r.infra_error, count(*)
    FROM ingestion_run r
    JOIN ingestion_submission sub ON sub.id = r.submission_id AND sub.status = 'ingested'
    JOIN ingestion_task t ON t.id = r.task_id
    JOIN ingestion_suite s ON s.id = t.suite_id
    JOIN ingestion_category c ON c.id = t.category_id
    WHERE r.outcome = 'infra_error' AND t.approved AND s.official
          AND (r.harness_id, r.model_id) IN (SELECT * FROM unnest(%s::bigint[], %s::bigint[]))
    GROUP BY 1, 2, 3, 4, 5, 6
"""


@dataclass
class InfraErrors:
    by_kind: dict[str, int]
    by_submission: dict[int, int]


def under_review_queryset() -> QuerySet[UnderReviewEntry]:
    return UnderReviewEntry.objects.filter(
        board__snapshot__is_current=True, under_review=True
    ).select_related("board")


def under_review_entries() -> list[UnderReviewEntry]:
    """Entries under review in the current snapshot, each with `.infra` (InfraErrors)."""
    entries = list(under_review_queryset())
    infra_errors_attach(entries)
    return entries


def infra_errors_attach(entries: list[BoardEntry]) -> None:
    """Set `.infra` on each entry: its board's infra-error runs by kind and by submission."""
    agents = sorted({(e.harness_id, e.model_id) for e in entries})
    found: dict[tuple[str, int, int], InfraErrors] = defaultdict(
        lambda: InfraErrors(defaultdict(int), defaultdict(int))
    )
    if agents:
        with connection.cursor() as cursor:
            cursor.execute(INFRA_ERRORS_SQL, [[a[0] for a in agents], [a[1] for a in agents]])
            for harness_id, model_id, suite_board, coding, submission_id, kind, runs in cursor:
                boards = ["overall", suite_board] + (["coding"] if coding else [])
                for board in boards:
                    errors = found[(board, harness_id, model_id)]
                    errors.by_kind[kind] += runs
                    errors.by_submission[submission_id] += runs
    for entry in entries:
        errors = found.get((entry.board.slug, entry.harness_id, entry.model_id))
        entry.infra = InfraErrors(
            dict(sorted(errors.by_kind.items())) if errors else {},
            dict(sorted(errors.by_submission.items())) if errors else {},
        )


# -- registry --------------------------------------------------------------------------


def registry_parse(raw: bytes) -> dict[str, Any]:
    """A registry file's bytes as data, with the same checks as registry_read."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RegistryError(f"cannot read registry: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
        raise RegistryError(f"format must be {REGISTRY_FORMAT!r}")
    return data


@transaction.atomic
def registry_file_load(*, data: dict[str, Any], user) -> RegistryLoadResult:
    """Load a registry file; suites, tasks, categories and authors may all change."""
    _require(user, LOAD_REGISTRY)
    try:
        result = registry_load(data=data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise RegistryError(f"malformed registry: {exc!r}") from exc
    boards_recompute_on_commit()
    return result


@transaction.atomic
def tasks_approval_set(*, tasks: QuerySet[Task], approved: bool, user) -> int:
    """Approve or retire tasks; runs on retired tasks leave every board."""
    _require(user, CHANGE_REGISTRY)
    changed = tasks.exclude(approved=approved).update(approved=approved)
    if changed:
        boards_recompute_on_commit()
    return changed


# -- submitter accounts ----------------------------------------------------------------


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


def upload_throttle_key(user) -> str:
    """The cache key DRF's ScopedRateThrottle keeps this account's upload history under."""
    return ScopedRateThrottle.cache_format % {"scope": UPLOAD_THROTTLE_SCOPE, "ident": user.pk}


def upload_rate(user) -> UploadRate | None:
    """Uploads in the current throttle window, or None when uploads are not throttled."""
    rate = ScopedRateThrottle.THROTTLE_RATES.get(UPLOAD_THROTTLE_SCOPE)
    if not rate:
        return None
    limit, window = ScopedRateThrottle().parse_rate(rate)
    history = ScopedRateThrottle.cache.get(upload_throttle_key(user), [])
    now = time.time()
    return UploadRate(sum(1 for t in history if t > now - window), limit, window)


def upload_rate_reset(*, user, actor) -> None:
    _require_user_admin(actor)
    ScopedRateThrottle.cache.delete(upload_throttle_key(user))


@transaction.atomic
def token_rotate(*, user, actor) -> Token:
    """A new API token for `user`; the old one stops working at once."""
    _require_user_admin(actor)
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


@transaction.atomic
def token_revoke(*, user, actor) -> bool:
    """Delete `user`'s API token; True when there was one."""
    _require_user_admin(actor)
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def _require_user_admin(actor) -> None:
    _require(actor, "auth.change_user")


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
