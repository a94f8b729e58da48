"""Recompute requests, coalesced: a burst of changes gives one recompute after it."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.models import BoardState
from leaderboard.recompute.tasks import recompute_boards


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
