from __future__ import annotations

from celery import shared_task

from ingestion.services.processing import submission_process


@shared_task(soft_time_limit=1200, time_limit=1260, acks_late=True)
def ingest_submission(submission_id: int) -> str:
    """Validate and store one queued submission (a no-op if it is already taken)."""
    return submission_process(submission_id=submission_id).status
