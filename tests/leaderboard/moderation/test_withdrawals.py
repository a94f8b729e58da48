"""Withdrawals and restorations (leaderboard.moderation.withdrawals)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db.models import ProtectedError

from ingestion.models import Submission
from leaderboard.models import SubmissionDecision
from leaderboard.moderation.withdrawals import submission_restore, submission_withdraw
from tests.builders import outcomes, submit
from tests.leaderboard.moderation.helpers import current, figures

# Transactional: each service announces on commit and Celery is eager here, so the
# current snapshot already shows a decision when the service returns.
pytestmark = pytest.mark.django_db(transaction=True)


def test_it_restores_a_withdrawn_submission_to_exactly_the_same_figures(
    registry, submitter, moderator
):
    submit(submitter, outcomes("pass", "fail", "timeout", "pass"))
    second = submit(
        submitter,
        outcomes("pass", "network", prefix="b") + outcomes("fail", task="fix-git", prefix="b"),
    )
    before = figures()

    submission_withdraw(submission=second, reason="duplicate trials", user=moderator)
    assert Submission.objects.get(pk=second.pk).status == "withdrawn"
    assert (current().runs, current().n) == (4, 3)
    assert figures() != before

    submission_restore(submission=second, reason="trials were distinct", user=moderator)
    assert Submission.objects.get(pk=second.pk).status == "ingested"
    assert figures() == before


def test_it_withdraws_only_ingested_and_restores_only_withdrawn(registry, submitter, moderator):
    submission = submit(submitter, outcomes("pass"))
    with pytest.raises(ValidationError):
        submission_restore(submission=submission, reason="not withdrawn", user=moderator)
    with pytest.raises(ValidationError, match="reason"):
        submission_withdraw(submission=submission, reason="  ", user=moderator)
    submission_withdraw(submission=submission, reason="bad", user=moderator)
    with pytest.raises(ValidationError):
        submission_withdraw(submission=submission, reason="again", user=moderator)
    Submission.objects.filter(pk=submission.pk).update(status="rejected")
    with pytest.raises(ValidationError):
        submission_restore(submission=submission, reason="rejected stays", user=moderator)
    assert SubmissionDecision.objects.count() == 1


def test_it_keeps_the_records_of_a_moderated_submission(registry, submitter, moderator):
    submission = submit(submitter, outcomes("pass"))
    submission_withdraw(submission=submission, reason="spam", user=moderator)
    with pytest.raises(ProtectedError):
        Submission.objects.filter(pk=submission.pk).delete()
    assert SubmissionDecision.objects.filter(submission=submission).exists()


def test_it_gives_the_submission_page_the_withdrawal_reason(registry, submitter, moderator, client):
    submission = submit(submitter, outcomes("pass"))
    client.force_login(submitter)
    page = f"/submissions/{submission.pk}/"
    assert "verifier was broken" not in client.get(page).content.decode()
    submission_withdraw(submission=submission, reason="verifier was broken", user=moderator)
    assert "verifier was broken" in client.get(page).content.decode()
