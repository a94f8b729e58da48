"""History written by the recompute (leaderboard.history.services): a row only on change,
with the cause of the snapshot that changed it, kept when snapshots are pruned."""

from __future__ import annotations

import pytest

from ingestion.services.registry import registry_load
from leaderboard.history.services import history_record
from leaderboard.models import (
    BoardSnapshot,
    ConflictDecision,
    EntryHistory,
    SnapshotCause,
    SubmissionDecision,
)
from leaderboard.moderation.conflicts import conflict_decide
from leaderboard.moderation.withdrawals import submission_withdraw
from leaderboard.recompute.services import (
    SNAPSHOTS_KEPT,
    boards_recompute,
    boards_recompute_pending,
)
from tests.builders import outcomes, submit

# Not transactional: the recompute is run by hand (no commit kicks it), which is faster.
pytestmark = pytest.mark.django_db


def causes_of(snapshot: BoardSnapshot) -> list[tuple[str, int | None]]:
    return list(
        SnapshotCause.objects.filter(snapshot_id=snapshot.pk).values_list("kind", "record_id")
    )


def overall(harness_id: int) -> list[EntryHistory]:
    return list(
        EntryHistory.objects.filter(board_slug="overall", harness_id=harness_id).order_by("pk")
    )


def test_it_writes_a_row_only_when_a_figure_changes(registry, submitter):
    submission = submit(submitter, outcomes("pass", "fail"))
    first = boards_recompute_pending()
    assert ("submission", submission.pk) in causes_of(first)
    rows = overall(submission.harness_id)
    assert [(r.n, r.passes, r.previous_id, r.snapshot_id) for r in rows] == [(2, 1, None, first.pk)]
    written = EntryHistory.objects.count()

    boards_recompute()
    boards_recompute()
    assert EntryHistory.objects.count() == written  # nothing changed, nothing written

    second = submit(submitter, outcomes("pass", prefix="b"))
    snapshot = boards_recompute_pending()
    assert causes_of(snapshot) == [("submission", second.pk)]
    old, new = overall(submission.harness_id)
    assert (new.n, new.passes, new.previous_id, new.is_latest) == (3, 2, old.pk, True)
    assert not EntryHistory.objects.get(pk=old.pk).is_latest
    assert new.wilson_low < new.pass_rate < new.wilson_high


def test_it_marks_a_withdrawn_entry_removed_with_the_decision_as_cause(
    registry, submitter, moderator
):
    submission = submit(submitter, outcomes("pass"))
    boards_recompute_pending()
    submission_withdraw(submission=submission, reason="duplicate", user=moderator)
    snapshot = boards_recompute_pending()
    decision = SubmissionDecision.objects.get()
    assert causes_of(snapshot) == [("withdrawal", decision.pk)]
    shown, removed = overall(submission.harness_id)
    assert (removed.removed, removed.previous_id, removed.snapshot_id) == (
        True,
        shown.pk,
        snapshot.pk,
    )
    boards_recompute()
    assert len(overall(submission.harness_id)) == 2  # a removal is written once


def test_it_records_a_conflict_decision_and_a_registry_load(registry, submitter, moderator):
    from ingestion.models import Task

    submission = submit(submitter, outcomes("pass", "fail"))
    boards_recompute_pending()
    task = Task.objects.get(task_id="regex-log")
    conflict_decide(
        harness=submission.harness, task=task, decision="confirm", reason="author", user=moderator
    )
    snapshot = boards_recompute_pending()
    assert causes_of(snapshot) == [("conflict_decision", ConflictDecision.objects.get().pk)]
    assert overall(submission.harness_id)[-1].conflict_excluded == 2

    registry_load(data={"format": "arena-registry/1", "suites": []})
    snapshot = boards_recompute_pending()
    assert causes_of(snapshot) == [("registry", None)]


def test_it_keeps_history_when_old_snapshots_are_pruned(registry, submitter):
    submission = submit(submitter, outcomes("pass"))
    first = boards_recompute_pending()
    for index in range(SNAPSHOTS_KEPT):
        submit(submitter, outcomes("fail", prefix=f"p{index}"))
        boards_recompute_pending()
    assert not BoardSnapshot.objects.filter(pk=first.pk).exists()
    rows = overall(submission.harness_id)
    assert rows[0].snapshot_id == first.pk
    assert len(rows) == SNAPSHOTS_KEPT + 1
    assert SnapshotCause.objects.filter(snapshot_id=first.pk).exists()


def snapshot_with_entries(count: int) -> BoardSnapshot:
    """A current snapshot whose Overall board has `count` entries, written directly."""
    from django.utils import timezone

    from ingestion.models import Harness
    from leaderboard.models import Board, BoardEntry

    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now())
    board = Board.objects.create(snapshot=snapshot, slug="overall", title="Overall", position=0)
    harnesses = Harness.objects.bulk_create(
        Harness(name=f"h{i}", version="1") for i in range(count)
    )
    BoardEntry.objects.bulk_create(
        BoardEntry(
            board=board, position=i, rank=i + 1, harness=harness, model_id=1,
            harness_name=harness.name, harness_version="1", model_name="m", runs=4, n=4,
            passes=4 - i % 4, pass_rate=(4 - i % 4) / 4, wilson_low=0.1, wilson_high=0.9,
            infra_errors=0, conflict_excluded=0, cost_per_success_status="ok",
        )
        for i, harness in enumerate(harnesses)
    )  # fmt: skip
    return snapshot


@pytest.mark.parametrize("entries", [2, 20])
def test_it_writes_history_in_one_statement_whatever_the_number_of_entries(
    entries, django_assert_max_num_queries
):
    snapshot = snapshot_with_entries(entries)
    # One statement, plus the savepoint of the service's atomic block and its release.
    with django_assert_max_num_queries(3):
        history_record(snapshot=snapshot)
    assert EntryHistory.objects.filter(snapshot_id=snapshot.pk).count() == entries
    with django_assert_max_num_queries(3):
        history_record(snapshot=snapshot)  # the same figures again: nothing new
    assert EntryHistory.objects.count() == entries
