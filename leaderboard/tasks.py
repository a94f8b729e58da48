"""Board recomputation, coalesced: a burst of ingests gives one recompute after it."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.models import BoardState


def recompute_boards_soon(*, harness_ids: list[int] | None = None, sessions: bool = False) -> None:
    """Ask for a recompute of some harnesses' runs (or of everything, with None), and of
    the signal board when `sessions` changed.

    Requests pile up in BoardState; the task is scheduled only if none is waiting.
    """
    BoardState.load()
    with transaction.atomic():
        state = BoardState.objects.select_for_update().get(pk=1)
        state.requested_at = timezone.now()
        if harness_ids is None:
            state.full_pending = True
        else:
            state.pending_harness_ids = sorted(set(state.pending_harness_ids) | set(harness_ids))
        state.sessions_pending = state.sessions_pending or sessions
        already_scheduled, state.scheduled = state.scheduled, True
        state.save(
            update_fields=[
                "requested_at", "full_pending", "pending_harness_ids", "sessions_pending", "scheduled",
            ]
        )  # fmt: skip
    if not already_scheduled:
        recompute_boards.apply_async(countdown=settings.ARENA_RECOMPUTE_DEBOUNCE_S)


@shared_task(soft_time_limit=900, time_limit=960)
def recompute_boards() -> str:
    """Recompute once requests have been quiet for the debounce interval."""
    debounce = timedelta(seconds=settings.ARENA_RECOMPUTE_DEBOUNCE_S)
    with transaction.atomic():
        state = BoardState.objects.select_for_update().get(pk=1)
        quiet_for = timezone.now() - (state.requested_at or timezone.now())
        # Eager mode has no queue to wait in: postponing would recurse, so run now.
        eager = recompute_boards.app.conf.task_always_eager
        if debounce and quiet_for < debounce and not eager:
            wait = (debounce - quiet_for).total_seconds()
            transaction.on_commit(lambda: recompute_boards.apply_async(countdown=wait))
            return "postponed"
        harness_ids = None if state.full_pending else list(state.pending_harness_ids)
        signals = state.sessions_pending
        state.scheduled, state.full_pending, state.pending_harness_ids = False, False, []
        state.sessions_pending = False
        state.save(
            update_fields=["scheduled", "full_pending", "pending_harness_ids", "sessions_pending"]
        )
    from leaderboard.services import boards_recompute

    boards_recompute(harness_ids=harness_ids, signals=signals)
    return "recomputed"
