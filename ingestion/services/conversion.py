"""Conversion: the worker's first step for a native upload (Harbor job archive, τ-bench
results file), turning the bytes kept at intake into an arena-bundle/1 to ingest.

It runs in the worker, never in a web request: unpacking and parsing native results
costs memory and time that a request must not spend. Conversion errors reject the
submission like any validation error, and errors in the converted runs.jsonl name the
native file each line came from. The same runs again from their uploader (another
path, another archive of the folder) are no error: `AlreadySubmitted` names the
submission that holds them, and the worker records the new one as its duplicate.
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from psycopg import sql

from ingestion.bundles import BundleError, BundleRejected, rejected
from ingestion.importers import Conversion, NativeParams, convert_native, extract_job_archive
from ingestion.models import Submission
from ingestion.services.storage import upload_dir

_FALLBACK_NAMES = {"harbor": "result.json", "claude-code": "transcript.jsonl"}
_GZIP_MAGIC, _ZIP_MAGIC = b"\x1f\x8b", b"PK\x03\x04"
# Advisory locks (BUNDLE_LOCK, bundle hash key) in PostgreSQL's two-key space; the
# ingest locks of ingestion/services/processing.py use another first key (7_202).
BUNDLE_LOCK = 7_203
_BUNDLE_LOCK_TAKE = sql.SQL("SELECT pg_advisory_xact_lock(%s, %s)")


class AlreadySubmitted(Exception):
    """The upload converts to the bundle of an earlier submission of the same account:
    nothing new, and `earlier` holds its runs (or sessions)."""

    def __init__(self, earlier: Submission) -> None:
        self.earlier = earlier
        super().__init__(f"these runs are already submission {earlier.pk}")


@contextlib.contextmanager
def native_bundle(submission: Submission, path: Path) -> Iterator[Path]:
    """The bundle to ingest for `submission`: its upload itself, or for a native
    upload a converted bundle in a temporary folder that is removed afterwards.

    Raises BundleRejected when the native files cannot be converted; a rejection of
    the converted bundle raised inside the block is re-raised pointing at them.
    """
    if not submission.native_format:
        yield path
        return
    with tempfile.TemporaryDirectory(dir=upload_dir(), prefix="convert-") as tmp:
        bundle = Path(tmp) / "bundle.tar.gz"
        conversion = _convert(submission, path, Path(tmp), bundle)
        _refuse_runs_submitted_before(submission, bundle)
        try:
            yield bundle
        except BundleRejected as rejection:
            raise _pointing_back(rejection, conversion) from None


def _convert(submission: Submission, upload: Path, tmp: Path, bundle: Path) -> Conversion:
    if _is_archive(upload):  # a packed folder: a Harbor job, a folder of transcripts
        native = _unpacked_job(upload, tmp / "job")
    else:  # one file (τ-bench results, a transcript, one Harbor trial's result.json)
        # The file is stored under its hash; errors should name it as the submitter did.
        fallback = _FALLBACK_NAMES.get(submission.native_format, "results.json")
        native = tmp / (Path(submission.original_name).name or fallback)
        native.symlink_to(upload)
    try:
        conversion = convert_native(
            submission.native_format, native, params=native_params(submission.native_params),
            out=bundle, max_document_bytes=settings.ARENA_MAX_LINE_BYTES,
        )  # fmt: skip
    except ValueError as exc:  # missing parameters (the API and command check them first)
        raise rejected("", str(exc)) from None
    Submission.objects.filter(pk=submission.pk).update(report=conversion.report)
    submission.report = conversion.report
    return conversion


def native_params(params: dict) -> NativeParams:
    """The importers' parameters from a submission's `native_params`."""
    return NativeParams(
        harness={
            "name": params.get("harness", ""), "version": params.get("harness_version", ""),
            "contributors": list(params.get("contributors") or []),
        },
        suite=params.get("suite", ""), suite_version=params.get("suite_version", ""),
        model=params.get("model") or None, scenario=params.get("scenario") or None,
        confirmation=params.get("confirmation") or None,
        run_config=dict(params.get("run_config") or {}),
        attack=params.get("attack") or None,
        task_ids=tuple(params["task_ids"]) if params.get("task_ids") is not None else None,
        entry=params.get("entry") or None,
    )  # fmt: skip


def _is_archive(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(4)
    return head.startswith(_GZIP_MAGIC) or head == _ZIP_MAGIC


def _refuse_runs_submitted_before(submission: Submission, bundle: Path) -> None:
    """The converter is deterministic, so the same runs give the same bundle bytes even
    when the native upload differs (an archive made again has a new timestamp, a folder
    copied under another name): those runs must not count twice. The bundle's hash is
    kept to recognise them later. From their own uploader they are nothing new
    (AlreadySubmitted), from another account a rejection, as intake's SubmittedByAnother.

    The first conversion to claim a bundle keeps it. Claims of one bundle take turns
    (a lock on its hash), so two conversions at once cannot both be refused, each
    naming the other, nor both pass. "The lower id wins" could not be kept safely: a
    later upload converted first may already be ingesting when the earlier one claims.
    A rejected submission holds nothing, and a duplicate only points at the holder.
    """
    digest = hashlib.sha256()
    with bundle.open("rb") as fh:
        while chunk := fh.read(1024 * 1024):
            digest.update(chunk)
    sha256 = digest.hexdigest()
    with transaction.atomic():
        bundle_claims_lock(sha256)
        params = {**submission.native_params, "bundle_sha256": sha256}
        Submission.objects.filter(pk=submission.pk).update(native_params=params)
        submission.native_params = params
        earlier = (
            Submission.objects.exclude(pk=submission.pk)
            .exclude(status=Submission.Status.REJECTED)
            .filter(duplicate_of__isnull=True)
            .filter(Q(sha256=sha256) | Q(native_params__bundle_sha256=sha256))
            .order_by("pk")
            .first()
        )
    if earlier is None:
        return
    if earlier.uploader_id == submission.uploader_id:
        raise AlreadySubmitted(earlier)
    raise rejected(
        "", f"these runs were already submitted by another account (submission {earlier.pk}):"
        " the same native results converted to the same bundle; a submission belongs to"
        " the account that sent it first"
    )  # fmt: skip


def bundle_claims_lock(sha256: str) -> None:
    """Wait for, then hold until the transaction ends, the turn to claim the bundle
    with this hash (its first 32 bits are the key: a collision only makes two
    bundles take turns)."""
    key = int(sha256[:8], 16) - 2**31  # PostgreSQL's keys are signed 32-bit integers
    with connection.cursor() as cursor:
        cursor.execute(_BUNDLE_LOCK_TAKE, [BUNDLE_LOCK, key])


def _unpacked_job(archive: Path, target: Path) -> Path:
    """The job folder of an uploaded archive, unpacked through the bundles' archive safety.
    An archive holding one folder (`job/…`) gives that folder, so errors name `job/…`."""
    extract_job_archive(
        archive, target, max_members=settings.ARENA_MAX_ARCHIVE_MEMBERS,
        max_bytes=settings.ARENA_MAX_UNCOMPRESSED_BYTES,
        max_compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
    )  # fmt: skip
    entries = list(target.iterdir()) if target.is_dir() else []
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else target


def _pointing_back(rejection: BundleRejected, conversion: Conversion) -> BundleRejected:
    """The converted runs.jsonl exists nowhere the submitter can see: name the native
    file (and item) each erroneous line came from."""
    errors = []
    for error in rejection.errors:
        converted = error.file in ("runs.jsonl", "sessions.jsonl")
        source = conversion.source_of(error.line) if converted else None
        if source:
            message = f"{error.message} (from {source})"
            error = BundleError(error.file, error.line, error.field, message)
        errors.append(error)
    return BundleRejected(errors, rejection.total)
