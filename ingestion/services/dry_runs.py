"""Dry runs in the worker: the upload is kept, the worker checks it, the page polls.

A check does an ingest's whole work (reading, converting a native upload, validating,
writing rows that are rolled back), so no web request does it while a broker is there:
`dry_run_queue` keeps the bytes and queues `check_dry_run` once the row has committed;
the worker runs `dry_run_execute` (services.checking.bundle_check on the kept file),
stores the result and deletes the bytes. In eager mode (no broker: the embedded set-up)
the task runs at once, in the request, and the caller has the result straight away.

A broker that cannot take the task never moves the check into the request (a burst of
them would take the web process down with the broker): the dry run stays queued, its
`enqueued_at` cleared like an upload's, and the periodic sweep (`dry_runs_requeue_stuck`,
beside `submissions_requeue_stuck`) sends it again once the broker is back.
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from ingestion.models import DryRun
from ingestion.services.checking import INTERNAL_ERROR, BundleCheck, bundle_check
from ingestion.services.intake import NativeSource, Upload, upload_kept
from ingestion.services.storage import upload_dir

logger = logging.getLogger(__name__)

# Sent by name, like the ingest task (the task module imports the services).
DRY_RUN_TASK = "ingestion.tasks.check_dry_run"
# Past the task's hard time limit (ingestion.tasks) and a queue's wait: a check not
# done by then never will be (its worker died), and says so.
DRY_RUN_GIVE_UP_S = 3600


def dry_run_path(dry_run_id: int) -> Path:
    return upload_dir() / f"dry-run-{dry_run_id}.bundle"


def dry_run_queue(
    *, upload: Upload, user, filename: str = "", native: NativeSource | None = None
) -> DryRun:
    """Keep the upload and have the worker check it; UploadTooLarge keeps nothing.

    The dry run comes back done when the check ran at once (eager mode: no broker).
    """
    kept = upload_kept(upload)
    try:
        with transaction.atomic():
            dry_run = DryRun.objects.create(
                uploader=user, original_name=filename[:255], **(native.fields() if native else {})
            )
            os.replace(kept, dry_run_path(dry_run.pk))
    finally:
        kept.unlink(missing_ok=True)
    if current_app.conf.task_always_eager:
        return dry_run_execute(dry_run_id=dry_run.pk)
    transaction.on_commit(lambda: dry_run_enqueue(dry_run_id=dry_run.pk))
    dry_run.refresh_from_db()
    return dry_run


def dry_run_enqueue(*, dry_run_id: int) -> bool:
    """Send the check; False (logged) when the broker cannot take it.

    `enqueued_at` is recorded before the send; a failed send clears it, so the next
    sweep sends it without waiting. Sending one twice is harmless: the second delivery
    finds it taken or done.
    """
    DryRun.objects.filter(pk=dry_run_id).update(enqueued_at=Now())
    try:
        current_app.tasks[DRY_RUN_TASK].delay(dry_run_id)
    except BrokerError:
        logger.exception("could not queue dry run %s; the sweep will", dry_run_id)
        DryRun.objects.filter(pk=dry_run_id, status=DryRun.Status.QUEUED).update(enqueued_at=None)
        return False
    return True


def dry_runs_requeue_stuck() -> list[int]:
    """Send again every dry run still queued whose task never reached the broker, and
    every one sent over ARENA_REQUEUE_AFTER_S ago and not taken (its task lost).

    One older than DRY_RUN_GIVE_UP_S already reads as failed and is left. One claimed
    by a worker that died is not sent again: an upload that kills its worker must not
    be checked again and again.
    """
    now = timezone.now()
    waited = now - timedelta(seconds=settings.ARENA_REQUEUE_AFTER_S)
    stuck = list(
        DryRun.objects.filter(
            Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=waited),
            status=DryRun.Status.QUEUED,
            created_at__gte=now - timedelta(seconds=DRY_RUN_GIVE_UP_S),
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for dry_run_id in stuck:
        dry_run_enqueue(dry_run_id=dry_run_id)
    return stuck


def dry_run_execute(*, dry_run_id: int) -> DryRun:
    """Check a queued dry run's kept upload and store the result (a no-op if another
    delivery took it); the bytes are deleted either way."""
    claimed = DryRun.objects.filter(pk=dry_run_id, status=DryRun.Status.QUEUED).update(
        status=DryRun.Status.CHECKING
    )
    dry_run = DryRun.objects.select_related("uploader").get(pk=dry_run_id)
    if not claimed:
        return dry_run
    path = dry_run_path(dry_run_id)
    native = (
        NativeSource.from_fields(dry_run.native_format, dry_run.native_params)
        if dry_run.native_format
        else None
    )
    try:
        check = bundle_check(
            upload=path, user=dry_run.uploader, filename=dry_run.original_name, native=native
        )
    except Exception:  # a lost file, a time limit: said, not raised
        logger.exception("dry run %s failed", dry_run_id)
        check = BundleCheck(errors=[INTERNAL_ERROR], error_count=1)
    finally:
        path.unlink(missing_ok=True)
    dry_run.status, dry_run.result, dry_run.finished_at = (
        DryRun.Status.DONE, check.to_json(), timezone.now()
    )  # fmt: skip
    dry_run.save(update_fields=["status", "result", "finished_at"])
    return dry_run


def dry_run_result(dry_run: DryRun) -> BundleCheck | None:
    """The check, when done; a check its worker never finished reads as failed."""
    if dry_run.result is not None:
        return BundleCheck.from_json(dry_run.result)
    if dry_run.created_at < timezone.now() - timedelta(seconds=DRY_RUN_GIVE_UP_S):
        return BundleCheck(errors=[INTERNAL_ERROR], error_count=1)
    return None
