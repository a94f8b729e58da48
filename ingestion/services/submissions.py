"""Receiving and ingesting bundles: the one path every upload takes.

The web form, the API and `manage.py ingest` all call `submission_receive`, which
stores the bytes under their SHA-256 and creates (or finds) the submission. The worker
(or the command, synchronously) then calls `submission_process`, which validates the
bundle while streaming it into PostgreSQL with COPY inside one transaction: the bundle
lands whole or not at all.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import logging
import os
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import BinaryIO

import msgspec
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from ingestion.bundle import BundleLimits, open_bundle
from ingestion.copy import RunWriter, SessionWriter
from ingestion.importers import convert_native, extract_job_archive
from ingestion.models import Harness, Person, Submission, Task
from ingestion.records import BundleError, BundleRejected

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int], None]
# Longer than the ingest task's hard time limit: a processing claim this old is dead.
ABANDONED_AFTER = timedelta(minutes=30)
PROGRESS_EVERY = 1000
CHUNK_BYTES = 1024 * 1024


class UploadTooLarge(Exception):
    """The upload is over ARENA_MAX_UPLOAD_BYTES; nothing was kept."""


def bundle_limits() -> BundleLimits:
    return BundleLimits(
        max_upload_bytes=settings.ARENA_MAX_UPLOAD_BYTES,
        max_uncompressed_bytes=settings.ARENA_MAX_UNCOMPRESSED_BYTES,
        max_members=settings.ARENA_MAX_ARCHIVE_MEMBERS,
        max_compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
        max_line_bytes=settings.ARENA_MAX_LINE_BYTES,
    )


def submission_receive(
    *, upload: BinaryIO | Path | bytes, user, filename: str = "", enqueue: bool = True
) -> tuple[Submission, bool]:
    """Store an upload and return (submission, created); the same bytes again return the first one."""
    if isinstance(upload, Path) and upload.is_dir():
        # A directory is packed into a temporary archive on disk, never into memory.
        with tempfile.TemporaryFile() as packed:
            _pack_directory(upload, packed)
            packed.seek(0)
            return submission_receive(upload=packed, user=user, filename=filename, enqueue=enqueue)
    stored, sha256, size = _store_upload(upload)
    existing = Submission.objects.filter(sha256=sha256).first()
    if existing is not None:
        stored.unlink(missing_ok=True)
        return existing, False
    final_path = upload_path(sha256)
    os.replace(stored, final_path)
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                uploader=user, sha256=sha256, original_name=filename[:255], size_bytes=size
            )
    except IntegrityError:  # the same bytes, uploaded concurrently
        return Submission.objects.get(sha256=sha256), False
    if enqueue:
        from ingestion.tasks import ingest_submission

        transaction.on_commit(lambda: ingest_submission.delay(submission.pk))
    return submission, True


def upload_path(sha256: str) -> Path:
    return Path(settings.ARENA_UPLOAD_DIR) / f"{sha256}.bundle"


def _store_upload(upload: BinaryIO | Path | bytes) -> tuple[Path, str, int]:
    """Stream the upload to a temporary file, hashing it and enforcing the size limit."""
    directory = _upload_dir()
    limit = settings.ARENA_MAX_UPLOAD_BYTES
    digest, size = hashlib.sha256(), 0
    fd, name = tempfile.mkstemp(dir=directory, suffix=".part")
    with _as_stream(upload) as source, os.fdopen(fd, "wb") as target:
        while chunk := source.read(CHUNK_BYTES):
            size += len(chunk)
            if size > limit:
                target.close()
                os.unlink(name)
                raise UploadTooLarge(
                    f"upload is larger than the limit of {limit:,} bytes (ARENA_MAX_UPLOAD_BYTES)"
                )
            digest.update(chunk)
            target.write(chunk)
    return Path(name), digest.hexdigest(), size


def _as_stream(upload: BinaryIO | Path | bytes):
    if isinstance(upload, bytes):
        return io.BytesIO(upload)
    if isinstance(upload, Path):
        return upload.open("rb")
    return contextlib.nullcontext(upload)  # the caller's stream: not ours to close


def _pack_directory(directory: Path, target: BinaryIO) -> None:
    """A directory bundle becomes a deterministic tar.gz, so the same files hash the same."""
    with (
        gzip.GzipFile(fileobj=target, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w") as archive,
    ):
        for path in sorted(p for p in directory.rglob("*") if p.is_file() or p.is_symlink()):
            info = archive.gettarinfo(str(path), arcname=str(path.relative_to(directory)))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if info.isreg():
                with path.open("rb") as fh:
                    archive.addfile(info, fh)
            else:
                archive.addfile(info)  # links are kept so that validation refuses them


def submission_process(
    *, submission_id: int, progress: ProgressCallback | None = None
) -> Submission:
    """Validate and store a queued submission; return it ingested or rejected.

    A submission left "processing" for longer than any ingest may run (its worker died;
    the redelivered task finds it) is taken again: its transaction never committed.
    """
    now = timezone.now()
    abandoned = Q(status=Submission.Status.PROCESSING, started_at__lt=now - ABANDONED_AFTER)
    claimed = Submission.objects.filter(
        Q(status=Submission.Status.QUEUED) | abandoned, pk=submission_id
    ).update(status=Submission.Status.PROCESSING, started_at=now)
    submission = Submission.objects.select_related("uploader").get(pk=submission_id)
    if not claimed:  # another worker (or the command) has it, or it is done
        return submission
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


def submission_ingest(
    *,
    upload: BinaryIO | Path | bytes,
    user,
    filename: str = "",
    progress: ProgressCallback | None = None,
) -> tuple[Submission, bool]:
    """Receive and process synchronously (the command line path)."""
    submission, created = submission_receive(
        upload=upload, user=user, filename=filename, enqueue=False
    )
    if submission.status == Submission.Status.QUEUED:
        submission = submission_process(submission_id=submission.pk, progress=progress)
    return submission, created


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
            "status",
            "errors",
            "error_count",
            "runs_count",
            "sessions_count",
            "finished_at",
        ]
    )
    if status == Submission.Status.INGESTED:
        from leaderboard.tasks import recompute_boards_soon

        harness_ids = [submission.harness_id] if submission.harness_id else []
        sessions = submission.sessions_count > 0
        transaction.on_commit(
            lambda: recompute_boards_soon(harness_ids=harness_ids, sessions=sessions)
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


@dataclass(frozen=True)
class NativeSource:
    """What a native results file does not say about itself (see ingestion.importers)."""

    format: str  # "harbor" or "tau-bench"
    harness: dict
    suite: str
    suite_version: str
    model: str | None = None


def submission_receive_native(
    *, upload: BinaryIO, user, filename: str, source: NativeSource
) -> tuple[Submission, bool]:
    """Convert an uploaded τ-bench file, or an archive of a Harbor job folder, into a
    bundle and receive it like any other. Raises BundleRejected if it cannot be read."""
    with tempfile.TemporaryDirectory(dir=_upload_dir()) as tmp:
        raw, converted = Path(tmp) / "upload", Path(tmp) / "bundle.tar.gz"
        stored, _, _ = _store_upload(upload)
        os.replace(stored, raw)
        native = raw
        if source.format == "harbor":  # a job folder arrives as an archive of it
            native = Path(tmp) / "job"
            extract_job_archive(
                raw, native, max_members=settings.ARENA_MAX_ARCHIVE_MEMBERS,
                max_bytes=settings.ARENA_MAX_UNCOMPRESSED_BYTES,
            )  # fmt: skip
        convert_native(
            source.format, native, harness=source.harness, suite=source.suite,
            suite_version=source.suite_version, model=source.model, out=converted,
        )  # fmt: skip
        return submission_receive(upload=converted, user=user, filename=filename)


def _upload_dir() -> Path:
    directory = Path(settings.ARENA_UPLOAD_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    return directory
