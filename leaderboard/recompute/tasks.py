"""The recompute tasks: the coalesced recompute, and the periodic sweep (Celery beat)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from kombu.exceptions import OperationalError as BrokerError

from ingestion.services.dry_runs import dry_runs_requeue_stuck
from ingestion.services.queue import submissions_requeue_stuck
from leaderboard.recompute.interval_tasks import intervals_kick
from leaderboard.recompute.intervals import intervals_unfilled
from leaderboard.recompute.outbox import requests_newer_than, requests_waiting_longer_than
from leaderboard.recompute.services import boards_recompute_pending, recompute_running

logger = logging.getLogger(__name__)
# A request younger than this share of the debounce counts as "still arriving".
ARRIVAL_TOLERANCE = 0.8


@shared_task(soft_time_limit=900, time_limit=960, acks_late=True, reject_on_worker_lost=True)
def recompute_boards() -> str:
    """Recompute what the outbox holds, once requests have been quiet for the debounce.

    Each committed request kicks this task after the debounce. While newer requests are
    still arriving the task just returns: the newest request's own kick comes later and
    covers everything before it, so a burst gives one recompute and no task polls. A
    steady stream of requests must not starve the boards, though: once the oldest one has
    waited ARENA_RECOMPUTE_MAX_WAIT_S, the recompute runs whatever keeps arriving.
    """
    debounce = settings.ARENA_RECOMPUTE_DEBOUNCE_S
    # Eager mode has no queue to wait in and no later kick to leave the work to.
    eager = recompute_boards.app.conf.task_always_eager
    if debounce and not eager and _still_arriving(debounce):
        return "postponed"
    return "recomputed" if boards_recompute_pending() is not None else "nothing pending"


def _still_arriving(debounce: float) -> bool:
    # The tolerance keeps the newest request's own kick (due `debounce` after its commit,
    # by the worker's clock) from mistaking itself for a newer one on a skewed clock.
    newer = requests_newer_than(debounce * ARRIVAL_TOLERANCE)
    return newer and not requests_waiting_longer_than(settings.ARENA_RECOMPUTE_MAX_WAIT_S)


@shared_task(soft_time_limit=120, time_limit=150)
def recompute_sweep() -> str:
    """Send again what was lost: stuck or abandoned uploads, dry runs the broker never
    took, the recompute when requests wait in the outbox (a broker outage, or a worker
    killed mid-recompute), and the current snapshot's interval bounds when they still
    wait."""
    requeued = submissions_requeue_stuck()
    checks = dry_runs_requeue_stuck()
    # A request newer than the debounce still has its own kick coming, and a running
    # recompute will be followed by the kicks of what arrived meanwhile: kicking then
    # would only park a second worker on the recompute lock.
    debounce = settings.ARENA_RECOMPUTE_DEBOUNCE_S
    pending = requests_waiting_longer_than(debounce) and not recompute_running()
    if pending:
        recompute_kick(countdown=0)
    unfilled = intervals_unfilled()
    if unfilled is not None:  # its task was lost (a broker outage, a killed worker)
        intervals_kick(unfilled)
    if requeued:
        logger.info("sweep queued submissions %s again", requeued)
    if checks:
        logger.info("sweep queued dry runs %s again", checks)
    return f"requeued {len(requeued)}, recompute {'kicked' if pending else 'not needed'}"


def recompute_kick(*, countdown: float | None = None) -> bool:
    """Queue the coalesced recompute after the debounce; False if the broker is down.

    A kick that cannot reach the broker is only logged: the outbox keeps the request
    and the sweep kicks again.
    """
    delay = settings.ARENA_RECOMPUTE_DEBOUNCE_S if countdown is None else countdown
    try:
        recompute_boards.apply_async(countdown=delay)
    except BrokerError:
        logger.exception("could not queue the recompute; the sweep will")
        return False
    return True
