from __future__ import annotations

import logging
import os
from functools import partial

from celery import Celery, bootsteps
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.exceptions import OperationalError as BrokerError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

logger = logging.getLogger(__name__)

# The sweep (leaderboard.recompute.tasks), sent by name: it sends again what a broker
# outage kept from the queue (uploads, dry runs, recompute requests).
SWEEP_TASK = "leaderboard.recompute.tasks.recompute_sweep"
# Seconds between a worker's attempts to reach a broker that is gone. Kombu's default
# grows to 30 s, so a broker back after a minute's outage waited up to that long; an
# attempt is one connect, cheap enough every second or two.
RECONNECT_FIRST_S = 0.5
RECONNECT_MAX_S = 2.0

app = Celery("arena")
# Every CELERY_* Django setting configures the app (broker, eager mode, limits).
app.config_from_object("django.conf:settings", namespace="CELERY")
# Task modules: each app's `tasks`, and the recompute and effects rooms'.
app.autodiscover_tasks(["ingestion", "leaderboard.recompute", "leaderboard.effects"])


class Consumer(CeleryConsumer):
    """The worker's consumer, trying a lost broker again every RECONNECT_MAX_S at most
    (CELERY_WORKER_CONSUMER names it)."""

    def ensure_connected(self, conn):
        conn.ensure_connection = partial(
            conn.ensure_connection,
            interval_start=RECONNECT_FIRST_S,
            interval_step=RECONNECT_FIRST_S,
            interval_max=RECONNECT_MAX_S,
        )
        return super().ensure_connected(conn)


class SweepWhenConnected(bootsteps.StartStopStep):
    """Each time the worker is connected to the broker again after losing it, it sends
    the sweep: what could not be queued meanwhile is taken within seconds of the
    broker's return, not at the next period (beat's, ARENA_SWEEP_INTERVAL_S)."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, c, **kwargs) -> None:
        super().__init__(c, **kwargs)
        self.connected_before = False

    def start(self, c) -> None:
        again, self.connected_before = self.connected_before, True
        if not again:
            return
        try:
            c.app.send_task(SWEEP_TASK)
        except BrokerError:  # gone again: the next connection sends it
            logger.warning("could not send the sweep after connecting to the broker")


app.steps["consumer"].add(SweepWhenConnected)
