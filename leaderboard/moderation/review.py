"""Review before publication: a moderator approves or rejects a submission held for
review (an uploader not yet trusted, ingestion.services.trust).

Approval makes it "ingested" and announces the change, so it publishes at the next
recompute; only then does its manifest's harness metadata take effect (the name
claimed, its URL, contributors and maintainers applied: ingestion.services.
harness_owners). Rejection makes it "rejected" with the reason as its error: its runs
stay on no board and its metadata was never applied. Each decision is kept as an
append-only SubmissionReview.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from ingestion.bundles import BundleRejected
from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Submission
from ingestion.services.harness_owners import submission_harness_publish
from ingestion.services.permissions import permission_require, reason_require
from leaderboard.models import SubmissionReview

REVIEW_SUBMISSION = "leaderboard.review_submission"
# The error a rejected submission shows its submitter (the `file` of a bundle error).
REJECTION_SOURCE = "review"


def pending_review_count() -> int:
    """How many submissions wait for a moderator (shown on the admin index)."""
    return Submission.objects.filter(status=Submission.Status.PENDING_REVIEW).count()


class NotPendingReview(ValidationError):
    """The submission is not (any more) waiting for review: approved, rejected or other."""


class NotPublishable(ValidationError):
    """Its manifest may no longer be published as it stands (the harness name has other
    maintainers since, whose metadata it would change): it can only be rejected."""


@transaction.atomic
def submission_approve(*, submission: Submission, moderator, reason: str) -> SubmissionReview:
    """Publish a pending submission: on the boards from the next recompute."""
    locked = _pending_locked(submission, moderator, "approved")
    record = _review_record(locked, SubmissionReview.Action.APPROVE, reason, moderator)
    try:
        harness_ids = submission_harness_publish(submission=locked)
    except BundleRejected as refused:
        error = refused.errors[0]  # one named error of its manifest
        raise NotPublishable(
            f"submission {locked.pk} cannot be published as it stands"
            f" ({error.file} {error.field}: {error.message}): reject it instead",
            code="not_publishable",
        ) from refused
    Submission.objects.filter(pk=locked.pk).update(status=Submission.Status.INGESTED)
    submission.status = Submission.Status.INGESTED
    submission.harness_id = locked.harness_id
    evidence_changed_announce(
        sender=__name__,
        harness_ids=harness_ids,
        sessions=locked.sessions_count > 0,
        cause=EvidenceCause("review", record.pk, f"submission #{locked.pk} approved"),
    )
    return record


@transaction.atomic
def submission_reject(*, submission: Submission, moderator, reason: str) -> SubmissionReview:
    """Turn a pending submission down: rejected, the reason shown to its submitter.

    Its runs and sessions are deleted, as a rejected bundle's never were stored: they
    would otherwise hold their trials' keys against a later upload of them.
    """
    locked = _pending_locked(submission, moderator, "rejected")
    record = _review_record(locked, SubmissionReview.Action.REJECT, reason, moderator)
    locked.runs.all().delete()
    locked.sessions.all().delete()
    error = {"file": REJECTION_SOURCE, "line": None, "field": "", "message": record.reason}
    changes = {
        "status": Submission.Status.REJECTED, "errors": [error], "error_count": 1,
        "runs_count": 0, "sessions_count": 0,
    }  # fmt: skip
    Submission.objects.filter(pk=locked.pk).update(**changes)
    for field, value in changes.items():
        setattr(submission, field, value)
    return record


def _pending_locked(submission: Submission, moderator, verb: str) -> Submission:
    permission_require(moderator, REVIEW_SUBMISSION)
    # Locked so that two moderators cannot both decide it and leave two records.
    locked = Submission.objects.select_for_update().get(pk=submission.pk)
    if locked.status != Submission.Status.PENDING_REVIEW:
        raise NotPendingReview(
            f"only a submission pending review can be {verb}"
            f" (submission {locked.pk} is {locked.status})",
            code="not_pending_review",
        )
    return locked


def _review_record(submission: Submission, action: str, reason: str, moderator) -> SubmissionReview:
    return SubmissionReview.objects.create(
        submission=submission, action=action, reason=reason_require(reason), decided_by=moderator
    )
