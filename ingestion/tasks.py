"""The ingest task. It is acknowledged only when it ends (`acks_late`), and a worker
that dies under it gives the message back (`reject_on_worker_lost`), so a lost worker
never loses a submission; the submission's advisory lock (services.processing) keeps
two deliveries from ingesting it twice. Every delivery that claims it counts as an
attempt, so one that keeps killing its worker is rejected after
ARENA_MAX_INGEST_ATTEMPTS instead of being delivered forever."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import MaxRetriesExceededError
from kombu.exceptions import OperationalError as BrokerError

from ingestion.models import Submission
from ingestion.services.dry_runs import DRY_RUN_TASK, dry_run_execute
from ingestion.services.processing import (
    submission_mark_enqueued,
    submission_mark_unsent,
    submission_process,
)
from ingestion.services.queue import INGEST_TASK

# Backoff after a transient failure: 2 s, 4 s, 8 s, ... up to 5 minutes. Each wait
# stays far below the broker's visibility timeout (arena/settings.py), which a
# countdown longer than it would turn into a duplicate delivery.
RETRY_BASE_S = 2
RETRY_MAX_S = 300
RETRIES = 6


@shared_task(
    name=INGEST_TASK, bind=True, soft_time_limit=1200, time_limit=1260, acks_late=True,
    reject_on_worker_lost=True, max_retries=RETRIES,
)  # fmt: skip
def ingest_submission(self, submission_id: int) -> str:
    """Validate and store one queued submission (a no-op if it is already taken).

    A transient failure leaves it queued; it is retried with backoff (each retry one
    more attempt), and after the last retry the periodic sweep keeps sending it.
    """
    status = submission_process(submission_id=submission_id).status
    if status != Submission.Status.QUEUED:
        return status
    if self.request.retries >= self.max_retries:
        return status  # still queued: the sweep takes it from here
    countdown = min(RETRY_BASE_S * 2**self.request.retries, RETRY_MAX_S)
    submission_mark_enqueued(submission_id=submission_id)  # the sweep need not send it
    try:
        raise self.retry(countdown=countdown)
    except MaxRetriesExceededError:
        return status  # still queued: the sweep takes it from here
    except BrokerError:
        submission_mark_unsent(submission_id=submission_id)  # the next sweep sends it
        return status


# Not acknowledged late: an upload that kills its worker is not checked again and again;
# its page says the check did not finish (services.dry_runs.DRY_RUN_GIVE_UP_S).
@shared_task(name=DRY_RUN_TASK, soft_time_limit=1200, time_limit=1260, acks_late=False)
def check_dry_run(dry_run_id: int) -> str:
    """Check one dry run's kept upload, as an upload would be checked, storing nothing."""
    return dry_run_execute(dry_run_id=dry_run_id).status
