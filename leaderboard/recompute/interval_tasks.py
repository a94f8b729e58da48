"""The interval bounds of a new snapshot, a task of its own (see recompute.intervals)."""

from __future__ import annotations

import logging

from celery import shared_task
from kombu.exceptions import OperationalError as BrokerError

logger = logging.getLogger(__name__)


@shared_task(soft_time_limit=300, time_limit=330, acks_late=True)
def intervals_fill(snapshot_id: int) -> str:
    """Fill the snapshot's pending bounds (nothing if it is gone or already filled)."""
    # Imported here: the recompute service, which kicks this task, imports this module.
    from leaderboard.recompute.intervals import intervals_snapshot_fill

    filled = intervals_snapshot_fill(snapshot_id=snapshot_id)
    return f"filled {filled}" if filled else "nothing to fill"


def intervals_kick(snapshot_id: int) -> None:
    """Queue the fill of a new snapshot's bounds (run in place when Celery is eager). A
    broker that cannot take it leaves the boards saying "intervals being computed" until
    the next recompute, whose own task fills the entries it carried over as well."""
    try:
        intervals_fill.delay(snapshot_id)
    except BrokerError:
        logger.exception("could not queue the intervals of snapshot %s", snapshot_id)
