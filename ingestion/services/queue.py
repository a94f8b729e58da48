"""Putting submissions in the worker's queue, and back in it when they were lost.

A broker that cannot be reached never fails a request: the submission is stored and
queued in the database, and the periodic sweep (`submissions_requeue_stuck`, run by
Celery beat and by `manage.py recompute --pending`) sends it again.

Every send records `enqueued_at`, and the sweep sends again only what has waited
longer than ARENA_REQUEUE_AFTER_S since its last send: a submission waiting behind a
long queue gets one more copy per period, not one per sweep. A send that failed clears
`enqueued_at`: nothing of it is in any queue, so the next sweep (the worker runs one as
soon as it is connected again: arena/celery.py) sends it without waiting.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from ingestion.models import Submission
from ingestion.services.processing import (
    submission_mark_enqueued,
    submission_mark_unsent,
    submissions_abandoned,
)

logger = logging.getLogger(__name__)

# The ingest task, sent by its registered name: the task module (an interface above the
# services) imports the services, never the other way round. IngestionConfig.ready
# imports the task module, so the name is registered in every process.
INGEST_TASK = "ingestion.tasks.ingest_submission"


def submission_enqueue(submission_id: int) -> bool:
    """Send the ingest task; False (logged) when the broker cannot take it.

    `enqueued_at` is recorded before the send, so a worker's claim always comes after
    it; a failed send clears it, and the next sweep sends it again.
    """
    submission_mark_enqueued(submission_id=submission_id)
    try:
        current_app.tasks[INGEST_TASK].delay(submission_id)
    except BrokerError:
        logger.exception("could not queue submission %s; the sweep will", submission_id)
        submission_mark_unsent(submission_id=submission_id)
        return False
    return True


def submissions_requeue_stuck() -> list[int]:
    """Send again every submission queued whose task never reached the broker, every
    one queued and not sent for ARENA_REQUEUE_AFTER_S (its task lost), and every one
    processing whose worker died.

    A dead worker's submission is sent at once if nothing was sent since its claim;
    after that, like a queued one, once per period. Sending one twice is harmless: the
    second delivery finds it taken or done.
    """
    waited = timezone.now() - timedelta(seconds=settings.ARENA_REQUEUE_AFTER_S)
    not_sent_lately = Q(enqueued_at__lt=waited) | Q(enqueued_at__isnull=True)
    unsent = Q(enqueued_at__isnull=True)
    queued = Submission.objects.filter(
        unsent | Q(not_sent_lately, created_at__lt=waited), status=Submission.Status.QUEUED
    )
    abandoned = Submission.objects.filter(
        not_sent_lately | Q(started_at__isnull=True) | Q(enqueued_at__lt=F("started_at")),
        pk__in=submissions_abandoned(),
    )
    stuck = sorted(
        set(queued.values_list("pk", flat=True)) | set(abandoned.values_list("pk", flat=True))
    )
    for submission_id in stuck:
        submission_enqueue(submission_id)
    return stuck
