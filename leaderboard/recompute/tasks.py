"""The coalesced recompute task: it takes whatever requests have piled up."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.models import BoardState
from leaderboard.recompute.services import boards_recompute


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
    boards_recompute(harness_ids=harness_ids, signals=signals)
    return "recomputed"
