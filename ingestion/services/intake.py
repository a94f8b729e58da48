"""Intake: receiving an upload and keeping its bytes, the one door every upload takes.

The web form, the API and `manage.py ingest` all call `submission_receive`, which
stores the bytes under their SHA-256 and creates (or finds) the submission, then queues
`ingest_submission` once the row has committed. The command line instead calls
`submission_ingest`, which processes at once. Native results (Harbor, τ-bench) are
converted to a bundle first and then received like any other.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import IntegrityError, transaction

from ingestion.importers import convert_native, extract_job_archive
from ingestion.models import Submission
from ingestion.services.processing import ProgressCallback, submission_process
from ingestion.services.storage import upload_dir, upload_path
from ingestion.tasks import ingest_submission

CHUNK_BYTES = 1024 * 1024

Upload = BinaryIO | Path | bytes


class UploadTooLarge(Exception):
    """The upload is over ARENA_MAX_UPLOAD_BYTES; nothing was kept."""


def submission_receive(
    *, upload: Upload, user, filename: str = "", enqueue: bool = True
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
    os.replace(stored, upload_path(sha256))
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                uploader=user, sha256=sha256, original_name=filename[:255], size_bytes=size
            )
    except IntegrityError:  # the same bytes, uploaded concurrently
        return Submission.objects.get(sha256=sha256), False
    if enqueue:
        transaction.on_commit(lambda: ingest_submission.delay(submission.pk))
    return submission, True


def submission_ingest(
    *, upload: Upload, user, filename: str = "", progress: ProgressCallback | None = None
) -> tuple[Submission, bool]:
    """Receive and process synchronously (the command line path)."""
    submission, created = submission_receive(
        upload=upload, user=user, filename=filename, enqueue=False
    )
    if submission.status == Submission.Status.QUEUED:
        submission = submission_process(submission_id=submission.pk, progress=progress)
    return submission, created


def _store_upload(upload: Upload) -> tuple[Path, str, int]:
    """Stream the upload to a temporary file, hashing it and enforcing the size limit."""
    limit = settings.ARENA_MAX_UPLOAD_BYTES
    digest, size = hashlib.sha256(), 0
    fd, name = tempfile.mkstemp(dir=upload_dir(), suffix=".part")
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


def _as_stream(upload: Upload):
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
    with tempfile.TemporaryDirectory(dir=upload_dir()) as tmp:
        raw, converted = Path(tmp) / "upload", Path(tmp) / "bundle.tar.gz"
        stored, _, _ = _store_upload(upload)
        os.replace(stored, raw)
        native = raw
        if source.format == "harbor":  # a job folder arrives as an archive of it
            native = Path(tmp) / "job"
            extract_job_archive(
                raw, native, max_members=settings.ARENA_MAX_ARCHIVE_MEMBERS,
                max_bytes=settings.ARENA_MAX_UNCOMPRESSED_BYTES,
                max_compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
            )  # fmt: skip
        convert_native(
            source.format, native, harness=source.harness, suite=source.suite,
            suite_version=source.suite_version, model=source.model, out=converted,
        )  # fmt: skip
        return submission_receive(upload=converted, user=user, filename=filename)
