"""Withdrawing a submission takes its runs and sessions off every board; restoring puts them back."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Submission
from ingestion.services.permissions import permission_require, reason_require
from leaderboard.models import SubmissionDecision

WITHDRAW_SUBMISSION = "leaderboard.withdraw_submission"


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
    permission_require(user, WITHDRAW_SUBMISSION)
    reason = reason_require(reason)
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
    evidence_changed_announce(
        sender=__name__,
        harness_ids=[locked.harness_id],
        sessions=locked.sessions_count > 0,
        cause=EvidenceCause(
            "withdrawal" if withdrawing else "restore",
            record.pk,
            f"submission #{locked.pk} {'withdrawn' if withdrawing else 'restored'}",
        ),
    )
    return record
