"""Processing: validating a received bundle while COPYing it into PostgreSQL.

`submission_process` (run by the worker, or at once by the command line) claims a
queued submission, streams its bundle through validation into the writers inside one
transaction (it lands whole or not at all), records the outcome and, when the bundle
landed, announces that evidence changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import msgspec
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ingestion.bundles import BundleError, BundleLimits, BundleRejected, open_bundle
from ingestion.evidence import evidence_changed_announce
from ingestion.models import Harness, Person, Submission, Task
from ingestion.services.storage import upload_path
from ingestion.services.writers import RunWriter, SessionWriter

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int], None]
# Longer than the ingest task's hard time limit: a processing claim this old is dead.
ABANDONED_AFTER = timedelta(minutes=30)
PROGRESS_EVERY = 1000


def bundle_limits() -> BundleLimits:
    """The bundle limits of this deployment (ARENA_MAX_* settings)."""
    return BundleLimits(
        max_upload_bytes=settings.ARENA_MAX_UPLOAD_BYTES,
        max_uncompressed_bytes=settings.ARENA_MAX_UNCOMPRESSED_BYTES,
        max_members=settings.ARENA_MAX_ARCHIVE_MEMBERS,
        max_compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
        max_line_bytes=settings.ARENA_MAX_LINE_BYTES,
    )


def submission_process(
    *, submission_id: int, progress: ProgressCallback | None = None
) -> Submission:
    """Validate and store a queued submission; return it ingested or rejected.

    A submission left "processing" for longer than any ingest may run (its worker died;
    the redelivered task finds it) is taken again: its transaction never committed.
    """
    if not _claim(submission_id):  # another worker (or the command) has it, or it is done
        return Submission.objects.select_related("uploader").get(pk=submission_id)
    submission = Submission.objects.select_related("uploader").get(pk=submission_id)
    path = upload_path(submission.sha256)
    try:
        counts = _ingest_file(submission, path, progress)
    except BundleRejected as rejected:
        _finish(
            submission, Submission.Status.REJECTED, errors=rejected.errors, total=rejected.total
        )
    except Exception:
        logger.exception("ingest of submission %s failed", submission.pk)
        error = BundleError(file="", line=None, field="", message="internal error while ingesting")
        _finish(submission, Submission.Status.REJECTED, errors=[error], total=1)
    else:
        _finish(submission, Submission.Status.INGESTED, counts=counts)
    path.unlink(missing_ok=True)
    return submission


def _claim(submission_id: int) -> bool:
    now = timezone.now()
    abandoned = Q(status=Submission.Status.PROCESSING, started_at__lt=now - ABANDONED_AFTER)
    return bool(
        Submission.objects.filter(
            Q(status=Submission.Status.QUEUED) | abandoned, pk=submission_id
        ).update(status=Submission.Status.PROCESSING, started_at=now)
    )


@transaction.atomic
def _finish(
    submission: Submission,
    status: str,
    *,
    errors: list[BundleError] | None = None,
    total: int = 0,
    counts: tuple[int, int] = (0, 0),
) -> None:
    submission.status = status
    submission.errors = [_error_json(e) for e in errors or []]
    submission.error_count = total
    submission.runs_count, submission.sessions_count = counts
    submission.finished_at = timezone.now()
    submission.save(
        update_fields=[
            "status", "errors", "error_count", "runs_count", "sessions_count", "finished_at",
        ]
    )  # fmt: skip
    if status == Submission.Status.INGESTED:
        evidence_changed_announce(
            sender=__name__,
            harness_ids=[submission.harness_id],
            sessions=submission.sessions_count > 0,
        )


def _error_json(error: BundleError) -> dict:
    return {"file": error.file, "line": error.line, "field": error.field, "message": error.message}


@transaction.atomic
def _ingest_file(
    submission: Submission, path: Path, progress: ProgressCallback | None
) -> tuple[int, int]:
    """Everything a bundle writes happens here, in one transaction; any error undoes all of it."""
    with open_bundle(
        path, limits=bundle_limits(), name=submission.original_name or "upload"
    ) as bundle:
        harness = _harness_for(bundle, submission) if bundle.has_runs else None
        submission.manifest = msgspec.to_builtins(bundle.manifest)
        submission.notes = bundle.manifest.notes or ""
        submission.harness = harness
        submission.save(update_fields=["manifest", "notes", "harness"])
        runs = _write_runs(bundle, submission, harness, progress) if bundle.has_runs else 0
        sessions = _write_sessions(bundle, submission, progress) if bundle.has_sessions else 0
        bundle.raise_if_errors()
    return runs, sessions


def _harness_for(bundle, submission: Submission) -> Harness:
    spec = bundle.manifest.harness
    harness, _ = Harness.objects.get_or_create(
        name=spec.name,
        version=spec.version,
        defaults={"minimal_baseline": spec.minimal_baseline, "url": spec.url or ""},
    )
    if harness.minimal_baseline != spec.minimal_baseline:
        _reject(
            "manifest.json",
            "harness.minimal_baseline",
            f"{harness} is registered with minimal_baseline={str(harness.minimal_baseline).lower()}",
        )
    if harness.minimal_baseline and not submission.uploader.is_staff:
        _reject(
            "manifest.json",
            "harness.minimal_baseline",
            "only staff may submit runs of the Minimal baseline harness",
        )
    # Contributors only ever grow: leaving a name out of a later manifest must not
    # hide a conflict of interest. Admins correct mistakes at the source.
    people = [Person.objects.get_or_create(handle=h)[0] for h in spec.contributors]
    harness.contributors.add(*people)
    return harness


def _reject(file: str, field: str, message: str) -> None:
    error = BundleError(file=file, line=None, field=field, message=message)
    raise BundleRejected([error], 1)


def _write_runs(
    bundle, submission: Submission, harness: Harness, progress: ProgressCallback | None
) -> int:
    task_pks = Task.objects.approved_lookup()
    writer = RunWriter(
        submission_id=submission.pk, harness_id=harness.pk, read_trajectory=bundle.read_trajectory
    )
    records = bundle.iter_runs(lambda suite, version, task: task_pks.get((suite, version, task)))
    _write_all(records, writer, bundle, progress)
    return writer.count


def _write_sessions(bundle, submission: Submission, progress: ProgressCallback | None) -> int:
    writer = SessionWriter(submission_id=submission.pk, salt=settings.ARENA_USER_HASH_SALT)
    _write_all(bundle.iter_sessions(), writer, bundle, progress)
    return writer.count


def _write_all(records, writer, bundle, progress: ProgressCallback | None) -> None:
    """Stream records into the writer; after the first error, only keep validating.

    Validation goes on to the end so the submitter sees every error at once; nothing
    written so far survives, because the caller's transaction is rolled back.
    """
    seen = 0
    for record in records:
        if not bundle.errors:
            writer.write(record)
        seen += 1
        if progress and seen % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)
    if not bundle.errors:
        writer.flush()
    if progress:
        progress(seen % PROGRESS_EVERY)
