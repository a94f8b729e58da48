"""Every moderation decision: permission checked by the service, an append-only record kept."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from ingestion.models import Submission, Task
from ingestion.services.registry import tasks_approval_set
from leaderboard.models import ConflictDecision, SubmissionDecision
from leaderboard.moderation.conflicts import conflict_decide, conflict_queue
from leaderboard.moderation.withdrawals import submission_restore, submission_withdraw
from tests.builders import outcomes, submit
from tests.leaderboard.moderation.helpers import OTHER_TASK, pair

# Transactional: each service announces on commit and Celery is eager here, so the
# current snapshot already shows a decision when the service returns.
pytestmark = pytest.mark.django_db(transaction=True)


def test_it_refuses_every_decision_to_staff_without_the_permissions(registry, submitter, staff):
    submission = submit(submitter, outcomes("pass"), contributors=["omar.haddad"])
    harness, task = pair("H", OTHER_TASK)
    with pytest.raises(PermissionDenied):
        conflict_decide(harness=harness, task=task, decision="dismiss", reason="x", user=staff)
    with pytest.raises(PermissionDenied):
        submission_withdraw(submission=submission, reason="x", user=staff)
    with pytest.raises(PermissionDenied):
        tasks_approval_set(tasks=Task.objects.filter(pk=task.pk), approved=False, user=staff)
    assert not ConflictDecision.objects.exists() and not SubmissionDecision.objects.exists()
    assert Submission.objects.get(pk=submission.pk).status == "ingested"
    assert Task.objects.get(pk=task.pk).approved


def test_it_records_who_what_when_and_why_for_every_decision(registry, submitter, moderator):
    submission = submit(submitter, outcomes("pass"), contributors=["omar.haddad"])
    harness, task = pair("H", OTHER_TASK)
    conflict_decide(harness=harness, task=task, decision="dismiss", reason="r1", user=moderator)
    conflict_decide(harness=harness, task=task, decision="confirm", reason="r2", user=moderator)
    submission_withdraw(submission=submission, reason="r3", user=moderator)
    submission_restore(submission=submission, reason="r4", user=moderator)

    conflicts = list(ConflictDecision.objects.order_by("id"))
    assert [(d.decision, d.reason, d.decided_by) for d in conflicts] == [
        ("dismiss", "r1", moderator),
        ("confirm", "r2", moderator),
    ]
    moves = list(SubmissionDecision.objects.order_by("id"))
    assert [(d.action, d.reason, d.decided_by) for d in moves] == [
        ("withdraw", "r3", moderator),
        ("restore", "r4", moderator),
    ]
    assert all(d.decided_at for d in [*conflicts, *moves])
    # The current state is the latest decision.
    assert conflict_queue().get(harness=harness, task=task).latest_decision == conflicts[1]
    assert submission.decisions.first() == moves[1]
