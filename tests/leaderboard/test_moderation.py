"""Moderation services (leaderboard.moderation): decisions, their records and the boards.

Transactional tests: each service asks for the recompute on commit, and Celery is
eager here, so the current snapshot already shows a decision when the service returns.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.db.models import ProtectedError

from ingestion.models import Harness, Submission, Task
from leaderboard.boards import EXCLUDED_PAIRS_SQL
from leaderboard.models import BoardEntry, ConflictDecision, ConflictPair, SubmissionDecision
from leaderboard.moderation import (
    conflict_decide,
    conflict_queue,
    moderator_group_sync,
    submission_moderation_context,
    submission_restore,
    submission_withdraw,
    tasks_approval_set,
    under_review_entries,
)
from leaderboard.services import ENTRY_FIELDS
from tests.builders import outcomes, submit

pytestmark = pytest.mark.django_db(transaction=True)

# terminal-bench tasks: fix-git is authored by mira.chen, regex-log by omar.haddad.
MIRA_TASK, OTHER_TASK = "fix-git", "regex-log"


@pytest.fixture(autouse=True)
def moderator_group(db):
    """The group migration 0004 creates; a flush between transactional tests drops it."""
    return moderator_group_sync()


def current(harness: str = "H", slug: str = "overall") -> BoardEntry:
    """The entry visitors see now: no recompute here, the services must have caused it."""
    return BoardEntry.objects.get(
        board__snapshot__is_current=True, board__slug=slug, harness_name=harness
    )


def figures(harness: str = "H") -> dict[str, dict]:
    """Every published figure of a harness on every board of the current snapshot."""
    rows = BoardEntry.objects.filter(board__snapshot__is_current=True, harness_name=harness)
    return {
        row.board.slug: {f: getattr(row, f) for f in (*ENTRY_FIELDS, "token_saving_ratio")}
        for row in rows.select_related("board")
    }


def pair(harness: str, task_id: str) -> tuple[Harness, Task]:
    return Harness.objects.get(name=harness), Task.objects.get(task_id=task_id)


def test_it_brings_runs_back_into_n_when_a_moderator_dismisses_a_conflict(
    registry, submitter, moderator
):
    runs = outcomes("pass", "fail") + outcomes("pass", "pass", task=MIRA_TASK, prefix="coi")
    submit(submitter, runs, contributors=["mira.chen"])
    assert (current().conflict_excluded, current().n) == (2, 2)

    harness, task = pair("H", MIRA_TASK)
    conflict_decide(
        harness=harness, task=task, decision="dismiss", reason="co-author only", user=moderator
    )

    e = current()
    assert (e.conflict_excluded, e.n, e.passes) == (0, 4, 3)


def test_it_removes_runs_of_a_confirmed_conflict_the_data_does_not_show(
    registry, submitter, moderator
):
    submit(
        submitter, outcomes("pass", "pass", "timeout") + outcomes("fail", task="sqlite-db-truncate")
    )
    assert (current().conflict_excluded, current().n) == (0, 3)

    harness, task = pair("H", OTHER_TASK)
    conflict_decide(
        harness=harness, task=task, decision="confirm", reason="omar reviews H", user=moderator
    )

    e = current()
    assert (e.conflict_excluded, e.n, e.passes, e.infra_errors) == (2, 1, 0, 1)
    row = conflict_queue().get(harness=harness, task=task)
    assert (row.state, row.shown_by_data, row.people, row.runs_affected) == (
        "confirmed",
        False,
        [],
        2,
    )


def test_it_never_excludes_the_minimal_baseline_even_when_confirmed(registry, staff, moderator):
    submit(
        staff,
        outcomes("pass", "fail", task=MIRA_TASK),
        harness="Minimal",
        minimal_baseline=True,
        contributors=["mira.chen"],
    )
    harness, task = pair("Minimal", MIRA_TASK)
    conflict_decide(harness=harness, task=task, decision="confirm", reason="x", user=moderator)

    e = current("Minimal")
    assert (e.conflict_excluded, e.n, e.minimal_baseline) == (0, 2, True)
    row = conflict_queue().get(harness=harness, task=task)
    assert (row.state, row.needs_review) == ("exempt", False)


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
    assert submission_moderation_context(submission)["moderation"] == moves[1]


def test_it_keeps_the_records_of_a_moderated_submission(registry, submitter, moderator):
    submission = submit(submitter, outcomes("pass"))
    submission_withdraw(submission=submission, reason="spam", user=moderator)
    with pytest.raises(ProtectedError):
        Submission.objects.filter(pk=submission.pk).delete()
    assert SubmissionDecision.objects.filter(submission=submission).exists()


def test_it_gives_the_submission_page_the_withdrawal_reason(registry, submitter, moderator):
    submission = submit(submitter, outcomes("pass"))
    assert submission_moderation_context(submission) == {"moderation": None}
    submission_withdraw(submission=submission, reason="verifier was broken", user=moderator)
    moderation = submission_moderation_context(submission)["moderation"]
    assert (moderation.action, moderation.reason) == ("withdraw", "verifier was broken")


def test_it_lists_every_conflicting_pair_with_people_and_runs_affected(
    registry, submitter, moderator
):
    runs = outcomes("pass", "fail", "timeout", task=MIRA_TASK) + outcomes("pass")
    submit(submitter, runs, contributors=["mira.chen", "raj.patel"])
    withdrawn = submit(submitter, outcomes("pass", task=MIRA_TASK, prefix="w"))
    submission_withdraw(submission=withdrawn, reason="dup", user=moderator)

    rows = {(r.task.task_id, r.state): r for r in conflict_queue().filter(harness__name="H")}
    fix_git = rows[("fix-git", "excluded")]
    # Infra errors and withdrawn submissions are not affected by the exclusion.
    assert (fix_git.people, fix_git.runs_affected, fix_git.needs_review) == (
        ["mira.chen"],
        2,
        True,
    )
    assert ("git-multibranch", "excluded") in rows  # no runs yet, still a conflict
    assert ("nginx-request-logging", "excluded") in rows  # raj.patel's task
    assert not any(task == OTHER_TASK for task, _ in rows)


def test_it_agrees_with_the_board_rule_on_which_pairs_are_excluded(registry, submitter, moderator):
    submit(submitter, outcomes("pass"), contributors=["mira.chen", "omar.haddad"])
    harness, _ = pair("H", MIRA_TASK)
    tasks = {t.task_id: t for t in Task.objects.filter(task_id__in=["fix-git", "regex-log"])}
    conflict_decide(
        harness=harness, task=tasks["fix-git"], decision="dismiss", reason="a", user=moderator
    )
    conflict_decide(
        harness=harness,
        task=Task.objects.get(task_id="python/bowling"),
        decision="confirm",
        reason="b",
        user=moderator,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH " + EXCLUDED_PAIRS_SQL + " SELECT harness_id, task_id FROM excluded_pairs"
        )
        excluded = set(cursor.fetchall())
    queued = set(
        ConflictPair.objects.filter(state__in=["excluded", "confirmed"]).values_list(
            "harness_id", "task_id"
        )
    )
    assert queued == excluded
    assert (harness.pk, tasks["fix-git"].pk) not in queued


def test_it_lists_under_review_entries_with_failing_runs_by_kind(registry, submitter):
    broken = submit(submitter, outcomes("timeout", "timeout", "network", "pass", "fail"))
    assert current().under_review

    entries = {e.board.slug: e for e in under_review_entries() if e.harness_name == "H"}
    assert set(entries) == {"overall", "coding", "terminal-bench-4.0.0"}
    overall = entries["overall"]
    assert overall.infra_error_rate == pytest.approx(3 / 5)
    assert overall.infra.by_kind == {"network": 1, "timeout": 2}
    assert overall.infra.by_submission == {broken.pk: 3}

    # A clean submission repairs the rate: 3 / 15 = 0.2 is not above the threshold.
    submit(submitter, outcomes(*["pass"] * 10, prefix="clean"))
    assert not current().under_review
    assert [e for e in under_review_entries() if e.harness_name == "H"] == []


def test_it_drops_runs_of_retired_tasks_and_brings_them_back(registry, submitter, superuser):
    submit(submitter, outcomes("pass") + outcomes("pass", task="sqlite-db-truncate"))
    assert current().runs == 2
    retired = Task.objects.filter(task_id="sqlite-db-truncate")
    assert tasks_approval_set(tasks=retired, approved=False, user=superuser) == 1
    assert current().runs == 1
    tasks_approval_set(tasks=retired, approved=True, user=superuser)
    assert current().runs == 2


@pytest.fixture
def superuser(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("root", password="pw-root")
