"""The harness × model fit of a new snapshot, a task of its own (see services)."""

from __future__ import annotations

import logging

from celery import shared_task
from kombu.exceptions import OperationalError as BrokerError

from leaderboard.effects.services import effects_snapshot_write

logger = logging.getLogger(__name__)


@shared_task(soft_time_limit=300, time_limit=330, acks_late=True)
def effects_fit(snapshot_id: int) -> str:
    """Fit every board of the snapshot (nothing if it is gone or already fitted)."""
    return "fitted" if effects_snapshot_write(snapshot_id=snapshot_id) else "nothing to fit"


def effects_kick(snapshot_id: int) -> None:
    """Queue the fit of a new snapshot (run in place when Celery is eager). A broker that
    cannot take it leaves the page on the previous fit until the next recompute's."""
    try:
        effects_fit.delay(snapshot_id)
    except BrokerError:
        logger.exception("could not queue the harness × model fit of snapshot %s", snapshot_id)
