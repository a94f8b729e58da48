"""Intake: receiving an upload and keeping its bytes, the one door every upload takes.

The web form, the API and `manage.py ingest` all call `submission_receive`, which
stores the bytes under their SHA-256 and creates (or finds) the submission, then queues
`ingest_submission` once the row has committed. The same bytes again from their
uploader return the same submission, untouched, unless it was rejected: then it is
taken again (`submission_taken_again` tells the caller, who says so). The command
line instead calls `submission_ingest`, which processes at once. Native results
(Harbor, τ-bench) are kept as sent, with their format and parameters on the
submission; the worker converts them (ingestion/services/conversion.py), never the web
request.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.db import IntegrityError, transaction

from ingestion.models import Submission
from ingestion.services.processing import ProgressCallback, submission_process, submission_retake
from ingestion.services.queue import submission_enqueue
from ingestion.services.storage import upload_dir, upload_path

CHUNK_BYTES = 1024 * 1024

Upload = BinaryIO | Path | bytes


class UploadTooLarge(Exception):
    """The upload is over ARENA_MAX_UPLOAD_BYTES; nothing was kept."""


class SubmittedByAnother(Exception):
    """These bytes are another account's submission; nothing was kept (API: 409)."""

    def __init__(self, submission_id: int) -> None:
        self.submission_id = submission_id
        super().__init__(
            f"these bytes were already submitted by another account (submission"
            f" {submission_id}); a submission belongs to the account that sent it first."
            " To submit the same runs yourself, change the bundle (e.g. its manifest notes)."
        )


def _own_or_refuse(submission: Submission, user) -> Submission:
    # The same bytes from their own uploader return their submission; from anyone else
    # they are refused by name, never answered with an id the sender cannot read.
    if submission.uploader_id != user.pk:
        raise SubmittedByAnother(submission.pk)
    return submission


# What the submitter is told when the bytes of a rejected submission are taken again.
TAKEN_AGAIN = (
    "taken again: it was rejected before; the same bytes are queued again and checked"
    " against the registry as it is now"
)
# Set (True) on the instance `submission_receive` returns when it took a rejection again.
_TAKEN_AGAIN_ATTR = "taken_again"


def submission_taken_again(submission: Submission) -> bool:
    """Whether `submission_receive` (or `submission_ingest`) just took this rejected
    submission again, rather than creating it or returning it as it was."""
    return getattr(submission, _TAKEN_AGAIN_ATTR, False)


def _received_again(existing: Submission, stored: Path, *, user, enqueue: bool) -> Submission:
    """The same bytes again: refused by name from another account; from their uploader,
    the existing submission. A rejected one is taken again (its bytes stored again,
    queued with fresh attempts), since whatever rejected it may have been fixed since;
    an ingested, queued, processing or withdrawn one is returned as it is (idempotent),
    and so is one the moderators rejected on review: that is a decision, not a fault.
    A duplicate (nothing new) is taken again once the submission it named is rejected:
    its results are then stored nowhere."""
    rejected = Submission.Status.REJECTED
    own_rejection = existing.status == rejected and not existing.reviews.exists()
    holder = existing.duplicate_of
    retakable = own_rejection or (holder is not None and holder.status == rejected)
    if existing.uploader_id != user.pk or not retakable:
        stored.unlink(missing_ok=True)
        return _own_or_refuse(existing, user)
    os.replace(stored, upload_path(existing.sha256))
    if submission_retake(submission=existing):
        setattr(existing, _TAKEN_AGAIN_ATTR, True)
        if enqueue:
            transaction.on_commit(lambda: submission_enqueue(existing.pk))
    return existing


def submission_receive(
    *,
    upload: Upload,
    user,
    filename: str = "",
    enqueue: bool = True,
    native: NativeSource | None = None,
) -> tuple[Submission, bool]:
    """Store an upload and return (submission, created); the same bytes again return the first one.

    `native` marks a native upload (kept as sent, converted by the worker).
    """
    if isinstance(upload, Path) and upload.is_dir():
        # A directory is packed into a temporary archive on disk, never into memory.
        # A native job folder keeps its name as the archive's top folder (errors name it).
        prefix = upload.name if native else ""
        with tempfile.TemporaryFile() as packed:
            _pack_directory(upload, packed, prefix=prefix)
            packed.seek(0)
            return submission_receive(
                upload=packed, user=user, filename=filename, enqueue=enqueue, native=native
            )
    stored, sha256, size = _store_upload(upload, key=native.key() if native else b"")
    existing = Submission.objects.filter(sha256=sha256).first()
    if existing is not None:
        return _received_again(existing, stored, user=user, enqueue=enqueue), False
    os.replace(stored, upload_path(sha256))
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                uploader=user,
                sha256=sha256,
                original_name=filename[:255],
                size_bytes=size,
                **(native.fields() if native else {}),
            )
    except IntegrityError:  # the same bytes, uploaded concurrently
        return _own_or_refuse(Submission.objects.get(sha256=sha256), user), False
    if enqueue:  # a broker that is down only logs: the sweep sends it later
        transaction.on_commit(lambda: submission_enqueue(submission.pk))
    return submission, True


def submission_ingest(
    *,
    upload: Upload,
    user,
    filename: str = "",
    progress: ProgressCallback | None = None,
    native: NativeSource | None = None,
) -> tuple[Submission, bool]:
    """Receive and process synchronously (the command line path)."""
    submission, created = submission_receive(
        upload=upload, user=user, filename=filename, enqueue=False, native=native
    )
    taken_again = submission_taken_again(submission)
    if submission.status == Submission.Status.QUEUED:
        submission = submission_process(submission_id=submission.pk, progress=progress)
        setattr(submission, _TAKEN_AGAIN_ATTR, taken_again)
    return submission, created


@contextlib.contextmanager
def upload_spooled(*, upload: Upload, native: NativeSource | None = None) -> Iterator[Path]:
    """The upload as a temporary file (a directory packed as `submission_receive` packs
    it, the size limit enforced), removed when the block ends: a dry run keeps nothing."""
    if isinstance(upload, Path) and upload.is_dir():
        with tempfile.TemporaryFile() as packed:
            _pack_directory(upload, packed, prefix=upload.name if native else "")
            packed.seek(0)
            with upload_spooled(upload=packed, native=native) as path:
                yield path
        return
    stored, _, _ = _store_upload(upload)
    try:
        yield stored
    finally:
        stored.unlink(missing_ok=True)


def upload_kept(upload: Upload) -> Path:
    """The upload (a file or bytes) as a temporary file under ARENA_UPLOAD_DIR, the size
    limit enforced (UploadTooLarge, nothing kept); the caller moves or removes it."""
    return _store_upload(upload)[0]


def _store_upload(upload: Upload, key: bytes = b"") -> tuple[Path, str, int]:
    """Stream the upload to a temporary file, hashing it and enforcing the size limit.

    `key` is hashed before the bytes (never stored): a native upload is identified by
    its bytes and the parameters it is converted with.
    """
    limit = settings.ARENA_MAX_UPLOAD_BYTES
    digest, size = hashlib.sha256(key), 0
    fd, name = tempfile.mkstemp(dir=upload_dir(), suffix=".part")
    try:
        with _as_stream(upload) as source, os.fdopen(fd, "wb") as target:
            while chunk := source.read(CHUNK_BYTES):
                size += len(chunk)
                if size > limit:
                    raise UploadTooLarge(
                        f"upload is larger than the limit of {limit:,} bytes (ARENA_MAX_UPLOAD_BYTES)"
                    )
                digest.update(chunk)
                target.write(chunk)
    except BaseException:  # over a limit (or the client went away): nothing is kept
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name), digest.hexdigest(), size


class _CappedJsonBody:
    """A JSON bundle's request body, refused (UploadTooLarge) once past the one-document
    cap while it streams to disk: the worker parses it whole, so nothing larger is
    kept (archives stream their records and take the upload limit instead)."""

    def __init__(self, stream: BinaryIO, cap: int):
        self._stream, self._cap, self._read = stream, cap, 0

    def read(self, n: int = -1) -> bytes:
        data = self._stream.read(n)
        self._read += len(data)
        if self._read > self._cap:
            raise UploadTooLarge(
                f"a JSON bundle is larger than the limit of {self._cap:,} bytes for one JSON"
                " document (ARENA_MAX_LINE_BYTES); send a .tar.gz or .zip instead"
            )
        return data


def json_body(stream: BinaryIO) -> BinaryIO:
    """The body of a JSON bundle, as `submission_receive` takes it, held to its cap."""
    return _CappedJsonBody(stream, settings.ARENA_MAX_LINE_BYTES)  # type: ignore[return-value]


def _as_stream(upload: Upload):
    if isinstance(upload, bytes):
        return io.BytesIO(upload)
    if isinstance(upload, Path):
        return upload.open("rb")
    return contextlib.nullcontext(upload)  # the caller's stream: not ours to close


def _pack_directory(directory: Path, target: BinaryIO, prefix: str = "") -> None:
    """A directory bundle becomes a deterministic tar.gz, so the same files hash the same."""
    with (
        gzip.GzipFile(fileobj=target, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w") as archive,
    ):
        # Every entry but a directory is packed: links, FIFOs, sockets and devices too,
        # as headers only (never opened: a FIFO would block), so that the archive check
        # refuses each of them by its path instead of the bundle losing it silently.
        for path in sorted(p for p in directory.rglob("*") if p.is_symlink() or not p.is_dir()):
            name = path.relative_to(directory).as_posix()
            arcname = f"{prefix}/{name}" if prefix else name
            info = archive.gettarinfo(str(path), arcname=arcname)
            if info is None:  # a socket: tar has no type for it
                info = tarfile.TarInfo(arcname)
                info.type = b"s"  # unknown to tar, so "has an unsupported type"
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if info.isreg():
                with path.open("rb") as fh:
                    archive.addfile(info, fh)
            else:
                archive.addfile(info)


@dataclass(frozen=True)
class NativeSource:
    """What a native results file does not say about itself (see ingestion.importers)."""

    format: str  # one of limits.NATIVE_FORMATS
    harness: str = ""
    harness_version: str = ""
    suite: str = ""
    suite_version: str = ""
    model: str | None = None
    contributors: tuple[str, ...] = field(default=())
    # For session transcripts: what every imported session is about.
    scenario: str | None = None
    confirmation: str | None = None
    # The run configuration the files do not record (ingestion.bundles.run_config, checked).
    run_config: dict = field(default_factory=dict)
    # AgentDojo: which runs (an attack's folder name; None: the benign runs) and the
    # task ids of one benchmark version to keep (None: every run).
    attack: str | None = None
    task_ids: tuple[str, ...] | None = None
    # Which entry (agent) of a file holding several (swebench, task-matrix).
    entry: str | None = None

    def params(self) -> dict:
        params = asdict(self)
        del params["format"]
        params["contributors"] = list(self.contributors)
        # Left out when unset, so an upload's key is what it was before they existed.
        for name in ("scenario", "confirmation", "attack", "task_ids", "entry"):
            if params[name] is None:
                del params[name]
        if self.task_ids is not None:
            params["task_ids"] = sorted(self.task_ids)
        if not params["run_config"]:
            del params["run_config"]
        return params

    @classmethod
    def from_fields(cls, native_format: str, native_params: dict) -> NativeSource:
        """The source `fields()` recorded (on a submission or a dry run)."""
        known = {f.name for f in dataclass_fields(cls)} - {"format"}
        params = {name: value for name, value in native_params.items() if name in known}
        params["contributors"] = tuple(params.get("contributors", ()))
        if params.get("task_ids") is not None:
            params["task_ids"] = tuple(params["task_ids"])
        return cls(format=native_format, **params)

    def fields(self) -> dict:
        """The Submission fields that record it."""
        return {"native_format": self.format, "native_params": self.params()}

    def key(self) -> bytes:
        """Hashed with the bytes: the same file with other parameters is another upload."""
        return json.dumps([self.format, self.params()], sort_keys=True).encode() + b"\n"


def submission_receive_native(
    *, upload: Upload, user, filename: str, source: NativeSource
) -> tuple[Submission, bool]:
    """Keep an uploaded τ-bench file, or an archive of a Harbor job folder, as sent and
    queue it; the worker converts it and ingests the bundle (or rejects it, naming the
    native file of each problem)."""
    return submission_receive(upload=upload, user=user, filename=filename, native=source)
