"""Processing: validating a received bundle while COPYing it into PostgreSQL.

`submission_process` (run by the worker, or at once by the command line) claims a
queued submission, streams its bundle through validation into the writers inside one
transaction (it lands whole or not at all) together with its outcome "ingested" and the
announcement that evidence changed (or "pending_review", announcing nothing, for an
uploader not yet trusted: services/trust.py): a crash can leave runs without their outcome, or
the reverse, never; a retry finds either nothing written or the submission done.

Only a bundle's own errors reject it. A transient failure (the connection lost, a
serialization failure, a deadlock, a lock not available, the server shutting down)
puts the submission back in the queue with its bytes; any other unexpected error
rejects it as an internal error. Every claim counts as an attempt: after
ARENA_MAX_INGEST_ATTEMPTS of them (a bundle that keeps killing its worker, a database
that keeps failing) the submission is rejected as given up. Whatever rejected it, the
same bytes uploaded again by their uploader are taken again (`submission_retake`): the
cause may have been fixed since (the registry now lists its suite, say).

While a process works on a submission it holds a PostgreSQL advisory lock on it, for
as long as its connection lives. A submission "processing" with no lock held has lost
its worker (killed, or its connection dropped), so it can be taken again at once rather
than after a timeout.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import msgspec
import psycopg
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db import InterfaceError as DjangoInterfaceError
from django.db import OperationalError as DjangoOperationalError
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone
from psycopg import sql

from ingestion.bundles import BundleError, BundleLimits, BundleRejected, open_bundle
from ingestion.evidence import EvidenceCause, evidence_changed_announce
from ingestion.models import Harness, Submission, Suite, Task
from ingestion.services.agents import agent_lookup
from ingestion.services.conversion import AlreadySubmitted, native_bundle
from ingestion.services.harness_owners import harness_register
from ingestion.services.rollups import rollups_write
from ingestion.services.session_growth import growth_record
from ingestion.services.storage import upload_path
from ingestion.services.traces import trace_lines_for_ingest, trace_rollups_write
from ingestion.services.trust import uploader_is_trusted
from ingestion.services.verification import (
    bundle_verification_check,
    submission_verification_record,
)
from ingestion.services.writers import ProgressCallback, RunWriter, SessionWriter, records_write

logger = logging.getLogger(__name__)

# Advisory locks (INGEST_LOCK, submission id) in PostgreSQL's two-key space, which
# cannot collide with the recompute's one-key lock.
INGEST_LOCK = 7_202
# The SQLSTATEs worth a retry, besides class 08 (connection exception): serialization
# failure, deadlock, lock not available, and the server shutting down or starting up.
# Others that psycopg also calls OperationalError (a statement timeout, out of memory,
# disk full, a program limit) would fail the same way again: an internal error.
UNIQUE_VIOLATION = "23505"
# Two ingests storing (or growing) one trial or session at once: the later one is retried.
SOURCE_KEY_CONSTRAINTS = frozenset(
    {"run_harness_source_key_unique", "session_source_key_unique", "turn_session_position_unique"}
)
TRANSIENT_SQLSTATES = frozenset({"40001", "40P01", "55P03", "57P01", "57P02", "57P03"})
# Errors without a SQLSTATE that are about the connection (closed, lost, refused).
CONNECTION_ERRORS = (
    DjangoOperationalError, DjangoInterfaceError, psycopg.OperationalError, psycopg.InterfaceError,
)  # fmt: skip
# The rejections that are not the bundle's fault (like any rejection, its bytes may be
# uploaded again and are then taken again).
INTERNAL_ERROR = BundleError(file="", line=None, field="", message="internal error while ingesting")
GAVE_UP_PREFIX = "gave up after "

_LOCKS_HELD = sql.SQL(
    "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s"
    " AND objsubid = 2 AND granted"
    # pg_locks lists every database's locks: another database's ingest is not this one's.
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)
_LOCK_TRY = sql.SQL("SELECT pg_try_advisory_lock(%s, %s)")
_UNLOCK = sql.SQL("SELECT pg_advisory_unlock(%s, %s)")


def bundle_limits() -> BundleLimits:
    """The bundle limits of this deployment (ARENA_MAX_* settings)."""
    return BundleLimits(
        max_upload_bytes=settings.ARENA_MAX_UPLOAD_BYTES,
        max_uncompressed_bytes=settings.ARENA_MAX_UNCOMPRESSED_BYTES,
        max_members=settings.ARENA_MAX_ARCHIVE_MEMBERS,
        max_compression_ratio=settings.ARENA_MAX_COMPRESSION_RATIO,
        max_line_bytes=settings.ARENA_MAX_LINE_BYTES,
    )


def gave_up_error(attempts: int) -> BundleError:
    """The rejection of a submission claimed `attempts` times without finishing."""
    return BundleError(
        file="", line=None, field="",
        message=f"{GAVE_UP_PREFIX}{attempts} attempts: the ingest kept failing"
        " (worker lost or database unavailable)",
    )  # fmt: skip


def error_is_transient(error: BaseException) -> bool:
    """Whether the same ingest may well succeed if tried again (by its SQLSTATE).

    Raw COPY raises psycopg's own errors, the ORM Django's wrappers of them (the
    psycopg error is their __cause__).
    """
    if isinstance(error, DatabaseError) and isinstance(error.__cause__, psycopg.Error):
        error = error.__cause__
    sqlstate = getattr(error, "sqlstate", None) if isinstance(error, psycopg.Error) else None
    if sqlstate == UNIQUE_VIOLATION:
        # Two ingests of the same trials at once: the one that waited is tried again,
        # and then finds the trials stored and names the submission that has them.
        return error.diag.constraint_name in SOURCE_KEY_CONSTRAINTS
    if sqlstate:
        return sqlstate.startswith("08") or sqlstate in TRANSIENT_SQLSTATES
    return isinstance(error, CONNECTION_ERRORS)


def submission_process(
    *, submission_id: int, progress: ProgressCallback | None = None
) -> Submission:
    """Validate and store a queued submission; return it ingested, rejected, or back in
    the queue after a transient failure (the caller retries it).

    A submission "processing" whose worker died (no lock held) is taken again: its
    transaction never committed. One that a live process holds is left to it.
    """
    if not _lock_take(submission_id):
        return Submission.objects.select_related("uploader").get(pk=submission_id)
    try:
        return _process_locked(submission_id, progress)
    finally:
        _lock_release(submission_id)


def _process_locked(submission_id: int, progress: ProgressCallback | None) -> Submission:
    if not _claim(submission_id):  # done already, withdrawn, or out of attempts
        submission = Submission.objects.select_related("uploader").get(pk=submission_id)
        if _give_up(submission):
            upload_path(submission.sha256).unlink(missing_ok=True)
        return submission
    submission = Submission.objects.select_related("uploader").get(pk=submission_id)
    path = upload_path(submission.sha256)
    try:
        # A native upload is converted first (ingestion/services/conversion.py).
        with native_bundle(submission, path) as bundle:
            _ingest_file(submission, bundle, progress)  # records "ingested" itself
    except AlreadySubmitted as same:  # nothing new: a success naming the holder
        submission.duplicate_of = same.earlier
        _outcome_save(submission, Submission.Status.INGESTED)
    except BundleRejected as rejected:
        _finish(submission, errors=rejected.errors, total=rejected.total)
    except Exception as error:
        if error_is_transient(error):
            logger.warning("ingest of submission %s interrupted; queued again", submission.pk)
            _requeue(submission)
            return submission  # the bytes stay for the retry
        logger.exception("ingest of submission %s failed", submission.pk)
        _finish(submission, errors=[INTERNAL_ERROR], total=1)
    path.unlink(missing_ok=True)
    return submission


def submission_retake(*, submission: Submission) -> bool:
    """Put a rejected submission back in the queue with fresh attempts, its errors and
    import report cleared (its bytes must be stored again first); False if it is not
    rejected (any more): an ingested, open or withdrawn one is never run again, except
    a duplicate of a submission rejected since (it holds nothing of its own)."""
    rejected = Submission.Status.REJECTED
    taken = Submission.objects.filter(Q(status=rejected) | Q(duplicate_of__status=rejected))
    taken = taken.filter(pk=submission.pk).update(
        status=Submission.Status.QUEUED, errors=[], error_count=0, report={}, started_at=None,
        finished_at=None, attempts=0, duplicate_of=None,
    )  # fmt: skip
    if taken:
        submission.refresh_from_db()
    return bool(taken)


def submission_mark_enqueued(*, submission_id: int) -> None:
    """Record that its ingest task is being sent (the sweep then waits before sending
    another). Database time, comparable with the `started_at` its claim records."""
    Submission.objects.filter(pk=submission_id).update(enqueued_at=Now())


def submission_mark_unsent(*, submission_id: int) -> None:
    """Record that its ingest task never reached the broker: the sweep sends it at once
    (a waiting period protects only a copy that is in the queue)."""
    Submission.objects.filter(pk=submission_id, status=Submission.Status.QUEUED).update(
        enqueued_at=None
    )


def submissions_abandoned() -> list[int]:
    """Submissions "processing" that no live process holds: their worker died."""
    with connection.cursor() as cursor:
        cursor.execute(_LOCKS_HELD, [INGEST_LOCK])
        held = {row[0] for row in cursor.fetchall()}
    processing = Submission.objects.filter(status=Submission.Status.PROCESSING)
    return [pk for pk in processing.values_list("pk", flat=True) if _lock_key(pk) not in held]


def _lock_key(submission_id: int) -> int:
    return submission_id & 0x7FFFFFFF  # the lock's second key is an int4


def _lock_take(submission_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_TRY, [INGEST_LOCK, _lock_key(submission_id)])
        return cursor.fetchone()[0]


def _lock_release(submission_id: int) -> None:
    """Release the lock; a connection that died has released it already."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(_UNLOCK, [INGEST_LOCK, _lock_key(submission_id)])
    except DatabaseError:
        connection.close()


OPEN = (Submission.Status.QUEUED, Submission.Status.PROCESSING)


def _claim(submission_id: int) -> bool:
    """Mark it processing and count the attempt, unless its attempts are used up. The
    caller holds its lock, so "processing" here means its last worker died."""
    return bool(
        Submission.objects.filter(
            pk=submission_id, status__in=OPEN, attempts__lt=settings.ARENA_MAX_INGEST_ATTEMPTS
        ).update(status=Submission.Status.PROCESSING, started_at=Now(), attempts=F("attempts") + 1)
    )


def _give_up(submission: Submission) -> bool:
    """Reject a submission still open whose attempts are used up (a withdrawal wins)."""
    error = gave_up_error(submission.attempts)
    given_up = Submission.objects.filter(
        pk=submission.pk, status__in=OPEN, attempts__gte=settings.ARENA_MAX_INGEST_ATTEMPTS
    ).update(
        status=Submission.Status.REJECTED, errors=[_error_json(error)], error_count=1,
        finished_at=Now(),
    )  # fmt: skip
    if given_up:
        logger.warning("submission %s: %s", submission.pk, error.message)
        submission.refresh_from_db()
    return bool(given_up)


def _requeue(submission: Submission) -> None:
    """Back to queued after a transient failure, on a fresh connection if the old one
    died. If the database is still away, it stays "processing" with no lock held, which
    the sweep (or the next delivery) recognises as abandoned."""
    submission.status = Submission.Status.PROCESSING  # not what the failed write set
    alive = connection.is_usable()
    try:
        if not alive:  # the lock died with the old connection: take it again, or yield
            connection.close()
            if not _lock_take(submission.pk):
                return  # someone else took it meanwhile
        Submission.objects.filter(pk=submission.pk, status=Submission.Status.PROCESSING).update(
            status=Submission.Status.QUEUED, started_at=None
        )
        submission.refresh_from_db(fields=["status", "started_at"])
    except DatabaseError:
        logger.warning("could not queue submission %s again; the sweep will", submission.pk)
        connection.close()


def _finish(submission: Submission, *, errors: Sequence[BundleError], total: int) -> None:
    """Record a rejection (an ingest records its own success, see `_ingest_file`)."""
    _outcome_save(submission, Submission.Status.REJECTED, errors=errors, total=total)


def _outcome_save(
    submission: Submission,
    status: str,
    *,
    errors: Sequence[BundleError] = (),
    total: int = 0,
    counts: tuple[int, int] = (0, 0),
) -> None:
    submission.status = status
    submission.errors = [_error_json(e) for e in errors]
    submission.error_count = total
    submission.runs_count, submission.sessions_count = counts
    submission.finished_at = timezone.now()
    submission.save(
        update_fields=[
            "status", "errors", "error_count", "runs_count", "sessions_count", "finished_at",
            "report", "duplicate_of",
        ]
    )  # fmt: skip


def _error_json(error: BundleError) -> dict:
    return error.to_json()


@transaction.atomic
def _ingest_file(submission: Submission, path: Path, progress: ProgressCallback | None) -> None:
    """Everything a bundle writes happens here, in one transaction, with the outcome
    "ingested" (or "pending_review" for an uploader not yet trusted) and the
    announcement (whose listener records a recompute request): any error undoes all
    of it, and nothing can commit the runs without the outcome."""
    runs, sessions = bundle_write(submission=submission, path=path, progress=progress)
    if submission.duplicate_of_id is not None:  # nothing new: nothing to review or announce
        _outcome_save(submission, Submission.Status.INGESTED)
        return
    # An account not yet trusted waits for a moderator: its rows are stored but on no
    # board, so nothing changed for the boards until the approval announces it.
    if not uploader_is_trusted(submission.uploader):
        _outcome_save(submission, Submission.Status.PENDING_REVIEW, counts=(runs, sessions))
        return
    _outcome_save(submission, Submission.Status.INGESTED, counts=(runs, sessions))
    evidence_changed_announce(
        sender=__name__,
        harness_ids=[submission.harness_id],
        sessions=sessions > 0 or "grown" in submission.report,
        cause=EvidenceCause("submission", submission.pk, f"submission #{submission.pk}"),
    )


def bundle_write(
    *, submission: Submission, path: Path, progress: ProgressCallback | None = None
) -> tuple[int, int]:
    """Validate the bundle at `path` while writing its rows for `submission`: (runs,
    sessions) written, or BundleRejected naming every error. No outcome, no announcement:
    the ingest commits it with its outcome, a dry run (services/checking.py) rolls it back."""
    with open_bundle(
        path, limits=bundle_limits(), name=submission.original_name or "upload"
    ) as bundle:
        # A signature that can never count refuses the bundle before a row is written.
        verification = bundle_verification_check(bundle=bundle, uploader=submission.uploader)
        harness = _harness_for(bundle, submission) if bundle.has_runs else None
        submission.manifest = msgspec.to_builtins(bundle.manifest)
        submission.notes = bundle.manifest.notes or ""
        submission.harness = harness
        submission.save(update_fields=["manifest", "notes", "harness"])
        runs = _write_runs(bundle, submission, harness, progress) if bundle.has_runs else 0
        sessions = _write_sessions(bundle, submission, progress, runs) if bundle.has_sessions else 0
        bundle.raise_if_errors()
        submission_verification_record(submission=submission, bundle=bundle, pending=verification)
    return runs, sessions


def _harness_for(bundle, submission: Submission) -> Harness:
    # Ownership decides the row: the maintainers' own, or an independent run's; a bundle
    # held for review goes to its uploader's own row until approval.
    uploader = submission.uploader
    held = not uploader_is_trusted(uploader)
    return harness_register(spec=bundle.manifest.harness, uploader=uploader, held=held)


def _write_runs(
    bundle, submission: Submission, harness: Harness, progress: ProgressCallback | None
) -> int:
    # The trace statements first (a registry load waits from here to the commit), so
    # each run's trace is scored as it is written: no second reading of the runs.
    traces = trace_lines_for_ingest()
    task_pks = Task.objects.approved_lookup()
    writer = RunWriter(
        submission_id=submission.pk, harness_id=harness.pk, read_trajectory=bundle.read_trajectory,
        uploader_id=submission.uploader_id, traces=traces,
    )  # fmt: skip
    suites = set(Suite.objects.values_list("slug", "version"))
    records = bundle.iter_runs(
        lambda suite, version, task: task_pks.get((suite, version, task)),
        lambda suite, version: (suite, version) in suites,
    )
    records_write(records=records, writer=writer, bundle=bundle, progress=progress)
    if not bundle.errors and writer.nothing_new and not bundle.has_sessions:
        # The same runs again from their uploader (a τ-bench file renamed: other run ids).
        submission.duplicate_of = Submission.objects.get(pk=max(writer.same_from))
        return 0
    if not bundle.errors:  # the bundle's own errors first: they stop the checking early
        writer.duplicates.raise_if_any()
    if bundle.errors:  # refused whole below: no rollup or trace is worth writing
        return writer.count
    # In the COPY's transaction: the boards never see runs without their rollups.
    rollups_write(submission_ids=[submission.pk])
    if traces is not None and traces.scored:
        trace_rollups_write(submission_ids=[submission.pk])
    return writer.count


def _write_sessions(
    bundle, submission: Submission, progress: ProgressCallback | None, runs: int
) -> int:
    writer = SessionWriter(
        submission_id=submission.pk, salt=settings.ARENA_USER_HASH_SALT,
        uploader_id=submission.uploader_id, trusted=uploader_is_trusted(submission.uploader),
    )  # fmt: skip
    # After the bundle's own harness is registered: its sessions may name it as their agent.
    records = bundle.iter_sessions(agent_lookup())
    records_write(records=records, writer=writer, bundle=bundle, progress=progress)
    if not bundle.errors:  # sessions met again: grown, skipped, or nothing new at all
        growth_record(submission=submission, growth=writer.growth, stored=writer.count + runs)
    return writer.count
