"""Conflict decisions (leaderboard.moderation.conflicts) and the review queue."""

from __future__ import annotations

import pytest
from django.db import connection

from ingestion.models import Task
from leaderboard.models import ConflictPair
from leaderboard.moderation.conflicts import conflict_decide, conflict_queue
from leaderboard.moderation.withdrawals import submission_withdraw
from tests.builders import outcomes, submit
from tests.leaderboard.moderation.helpers import MIRA_TASK, OTHER_TASK, current, pair

# Transactional: each service announces on commit and Celery is eager here, so the
# current snapshot already shows a decision when the service returns.
pytestmark = pytest.mark.django_db(transaction=True)


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
        # The board query's own reading of the rule: runs it leaves out, per pair.
        cursor.execute("SELECT harness_id, task_id FROM leaderboard_conflictpair WHERE excluded")
        excluded = set(cursor.fetchall())
    queued = set(
        ConflictPair.objects.filter(state__in=["excluded", "confirmed"]).values_list(
            "harness_id", "task_id"
        )
    )
    assert queued == excluded
    assert (harness.pk, tasks["fix-git"].pk) not in queued
    # python/bowling (confirmed) has no runs; omar.haddad's regex-log run is left out,
    # mira.chen's dismissed fix-git would be counted: the board agrees with the view.
    assert current().conflict_excluded == 1
