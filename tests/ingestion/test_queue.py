"""A broker that is down never fails an upload, and the sweep sends again what was lost;
a transient database failure queues a submission again instead of rejecting it."""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta

import psycopg
import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import InterfaceError, connection
from django.db.models.functions import Now
from django.utils import timezone
from psycopg import errors, sql

from arena.celery import app as celery_app
from arena.embedded_db import database_url_of
from ingestion.evidence import evidence_changed
from ingestion.models import Run, Submission
from ingestion.services.intake import submission_receive, submission_taken_again
from ingestion.services.processing import (
    INTERNAL_ERROR,
    error_is_transient,
    submission_mark_enqueued,
    submission_process,
)
from ingestion.services.queue import submissions_requeue_stuck
from ingestion.services.storage import upload_path
from leaderboard.models import RecomputeRequest
from tests.builders import EXAMPLE_RUN_BUNDLES, harness_manifest, run_line, tar_gz_bundle
from tests.e2e.conftest import broker_down, env_restore, redis_answers, use_broker

pytestmark = pytest.mark.django_db(transaction=True)


def bundle(name: str = "H") -> bytes:
    return tar_gz_bundle(harness_manifest(name), [run_line()])


def test_it_answers_202_queued_when_the_broker_is_down(registry, submitter_api, caplog):
    with broker_down(), caplog.at_level(logging.ERROR):
        response = submitter_api.post(
            "/api/v1/submissions/",
            {"file": SimpleUploadedFile("b.tar.gz", bundle())},
            format="multipart",
        )
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    assert "could not queue submission" in caplog.text
    assert Submission.objects.get().status == Submission.Status.QUEUED


def test_it_sends_an_upload_the_broker_never_took_at_the_next_sweep(
    registry, submitter_api, settings
):
    settings.ARENA_REQUEUE_AFTER_S = 3600
    with broker_down():
        response = submitter_api.post(
            "/api/v1/submissions/",
            {"file": SimpleUploadedFile("b.tar.gz", bundle())},
            format="multipart",
        )
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.enqueued_at is None  # nothing of it is in any queue

    # Not a period later: nothing of it waits in a queue. Eager here: it is ingested.
    assert submissions_requeue_stuck() == [submission.pk]
    assert Submission.objects.get().status == Submission.Status.INGESTED


def test_it_sends_again_what_waited_too_long_or_lost_its_worker(registry, submitter, settings):
    settings.ARENA_REQUEUE_AFTER_S = 0
    waiting, _ = submission_receive(upload=bundle("A"), user=submitter, enqueue=False)
    abandoned, _ = submission_receive(upload=bundle("B"), user=submitter, enqueue=False)
    Submission.objects.filter(pk=abandoned.pk).update(status=Submission.Status.PROCESSING)

    # Eager here: sending it again ingests it at once.
    assert submissions_requeue_stuck() == sorted([waiting.pk, abandoned.pk])
    statuses = set(Submission.objects.values_list("status", flat=True))
    assert statuses == {Submission.Status.INGESTED}


def test_it_leaves_a_recent_upload_to_its_own_task(registry, submitter):
    submission, _ = submission_receive(upload=bundle(), user=submitter, enqueue=False)
    submission_mark_enqueued(submission_id=submission.pk)  # its task is in the queue
    assert submissions_requeue_stuck() == []  # ARENA_REQUEUE_AFTER_S has not passed


def test_it_queues_again_a_submission_whose_database_failed_mid_copy(registry, submitter):
    quill = next(p for p in EXAMPLE_RUN_BUNDLES if "quill" in p.name)
    submission, _ = submission_receive(upload=quill, user=submitter, enqueue=False)
    url = database_url_of(connection.settings_dict)
    with psycopg.connect(url, autocommit=True) as other, other.transaction():
        other.execute("LOCK TABLE ingestion_run IN SHARE MODE")
        with connection.cursor() as cursor:  # the COPY gives up waiting: a transient error
            cursor.execute("SET lock_timeout = '100ms'")
        try:
            assert submission_process(submission_id=submission.pk).status == "queued"
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")
    submission.refresh_from_db()
    assert (submission.status, submission.errors) == ("queued", [])

    assert submission_process(submission_id=submission.pk).status == "ingested"  # the bytes stayed
    assert Run.objects.count() == 300


def test_it_takes_again_the_bytes_of_a_submission_rejected_internally(registry, submitter):
    content = bundle()
    first, _ = submission_receive(upload=content, user=submitter, enqueue=False)
    internal = {"file": "", "line": None, "field": "", "message": INTERNAL_ERROR.message}
    Submission.objects.filter(pk=first.pk).update(
        status=Submission.Status.REJECTED, errors=[internal], error_count=1
    )

    again, created = submission_receive(upload=content, user=submitter)  # eager: ingested
    assert (again.pk, created) == (first.pk, False)
    assert Submission.objects.get(pk=first.pk).status == Submission.Status.INGESTED
    assert Run.objects.count() == 1


def test_it_takes_again_a_rejection_for_the_bundle_s_own_errors_and_rejects_it_again(
    registry, submitter
):
    content = tar_gz_bundle(harness_manifest(), [run_line(outcome="maybe")])
    first, _ = submission_receive(upload=content, user=submitter)
    rejected = Submission.objects.get(pk=first.pk)
    assert rejected.status == Submission.Status.REJECTED

    again, _ = submission_receive(upload=content, user=submitter)  # eager: checked again
    assert (again.pk, submission_taken_again(again)) == (first.pk, True)
    retaken = Submission.objects.get(pk=first.pk)
    assert (retaken.status, retaken.errors) == (Submission.Status.REJECTED, rejected.errors)
    assert retaken.attempts == 1


def test_it_never_hands_a_running_task_to_a_second_worker(settings):
    from ingestion.tasks import RETRY_MAX_S, ingest_submission
    from leaderboard.recompute.tasks import recompute_boards

    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert visibility > max(ingest_submission.time_limit, recompute_boards.time_limit)
    assert visibility > RETRY_MAX_S  # a retry's countdown must not look like a lost task
    assert ingest_submission.acks_late and ingest_submission.reject_on_worker_lost


# -- The outcome commits with the runs; only transient errors queue again ---------------


@contextlib.contextmanager
def on_announcement(hook: Callable[[], None]) -> Iterator[None]:
    """Run `hook` when an ingest announces its evidence: after its writes (and after the
    recompute request's), before its transaction commits."""

    def received(sender, **kwargs) -> None:
        hook()

    evidence_changed.connect(received, weak=False, dispatch_uid="tests.on_announcement")
    try:
        yield
    finally:
        evidence_changed.disconnect(dispatch_uid="tests.on_announcement")


def connection_dropped_once() -> Callable[[], None]:
    """A hook that terminates this process's database connection, the first time only."""
    dropped: list[int] = []

    def drop() -> None:
        if dropped:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            dropped.append(cursor.fetchone()[0])
        with psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as side:
            side.execute("SELECT pg_terminate_backend(%s, 10000)", [dropped[0]])  # waits

    return drop


def test_it_retries_an_ingest_whose_connection_dropped_before_commit(registry, submitter):
    submission, _ = submission_receive(upload=bundle(), user=submitter, enqueue=False)
    requests_before = RecomputeRequest.objects.count()
    with on_announcement(connection_dropped_once()):
        assert submission_process(submission_id=submission.pk).status == "queued"
        # Nothing of the first attempt committed: no runs, no outcome, no request.
        assert not Run.objects.exists()
        assert Submission.objects.get(pk=submission.pk).status == "queued"
        assert RecomputeRequest.objects.count() == requests_before

        retried = submission_process(submission_id=submission.pk)
    assert (retried.status, retried.errors, retried.runs_count) == ("ingested", [], 1)
    assert Run.objects.count() == 1


def test_it_writes_neither_runs_nor_outcome_when_the_ingest_fails_before_commit(
    registry, submitter
):
    submission, _ = submission_receive(upload=bundle(), user=submitter, enqueue=False)
    requests_before = RecomputeRequest.objects.count()

    def fail() -> None:
        raise RuntimeError("after the writes, before the commit")

    with on_announcement(fail):
        rejected = submission_process(submission_id=submission.pk)
    assert (rejected.status, rejected.errors) == ("rejected", [internal_error_json()])
    assert Submission.objects.get(pk=submission.pk).runs_count == 0
    assert not Run.objects.exists()
    assert RecomputeRequest.objects.count() == requests_before


def internal_error_json() -> dict:
    return {"file": "", "line": None, "field": "", "message": INTERNAL_ERROR.message}


@pytest.mark.parametrize(
    "error",
    [
        errors.ConnectionFailure("08006"), errors.SerializationFailure("40001"),
        errors.DeadlockDetected("40P01"), errors.LockNotAvailable("55P03"),
        errors.AdminShutdown("57P01"), errors.CrashShutdown("57P02"),
        errors.CannotConnectNow("57P03"),
        psycopg.OperationalError("server closed the connection unexpectedly"),
        psycopg.InterfaceError("the connection is closed"),
        InterfaceError("connection already closed"),
    ],
    ids=repr,
)  # fmt: skip
def test_it_tries_again_after_a_transient_error(error):
    assert error_is_transient(error)
    assert error_is_transient(wrapped_by_django(error))


@pytest.mark.parametrize(
    "error",
    [
        errors.QueryCanceled("57014"), errors.OutOfMemory("53200"), errors.DiskFull("53100"),
        errors.ProgramLimitExceeded("54000"), errors.UniqueViolation("23505"),
        RuntimeError("a bug"),
    ],
    ids=repr,
)  # fmt: skip
def test_it_does_not_try_again_after_an_error_that_would_repeat(error):
    assert not error_is_transient(error)
    assert not error_is_transient(wrapped_by_django(error))


def wrapped_by_django(error: Exception) -> Exception:
    """What the ORM raises for a driver error: Django's class, the driver's as cause."""
    try:
        with connection.wrap_database_errors:
            raise error
    except Exception as wrapped:  # whatever the ORM would raise
        return wrapped


def test_it_rejects_an_ingest_that_hit_the_statement_timeout_as_an_internal_error(
    registry, submitter
):
    content = bundle()  # the same bytes (an archive records its time)
    submission, _ = submission_receive(upload=content, user=submitter, enqueue=False)
    with runs_table_locked(), database_setting("statement_timeout", "100ms"):
        rejected = submission_process(submission_id=submission.pk)
    assert (rejected.status, rejected.errors) == ("rejected", [internal_error_json()])

    again, _ = submission_receive(upload=content, user=submitter)  # eager: taken again
    assert (again.pk, Submission.objects.get(pk=again.pk).status) == (submission.pk, "ingested")


@contextlib.contextmanager
def runs_table_locked() -> Iterator[None]:
    """A SHARE lock on the runs table, held elsewhere: the ingest's COPY waits for it."""
    url = database_url_of(connection.settings_dict)
    with psycopg.connect(url, autocommit=True) as other, other.transaction():
        other.execute("LOCK TABLE ingestion_run IN SHARE MODE")
        yield


@contextlib.contextmanager
def database_setting(name: str, value: str) -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, false)", [name, value])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(sql.SQL("RESET {}").format(sql.Identifier(name)))


# -- Attempts are counted, and run out ---------------------------------------------------


def test_it_gives_up_on_a_submission_whose_attempts_kept_failing(registry, submitter, settings):
    settings.ARENA_MAX_INGEST_ATTEMPTS = 2
    content = bundle()  # the same bytes (an archive records its time)
    submission, _ = submission_receive(upload=content, user=submitter, enqueue=False)
    with runs_table_locked(), database_setting("lock_timeout", "100ms"):
        for _ in range(2):
            assert submission_process(submission_id=submission.pk).status == "queued"
        given_up = submission_process(submission_id=submission.pk)

    message = (
        "gave up after 2 attempts: the ingest kept failing (worker lost or database unavailable)"
    )
    assert (given_up.status, given_up.attempts) == ("rejected", 2)
    assert [e["message"] for e in given_up.errors] == [message]
    assert not upload_path(submission.sha256).exists()
    assert not Run.objects.exists()

    # Not the bundle's fault: the same bytes uploaded again start afresh.
    again, _ = submission_receive(upload=content, user=submitter)  # eager: ingested
    again.refresh_from_db()
    assert (again.pk, again.status, again.attempts) == (submission.pk, "ingested", 1)


def test_it_stops_delivering_a_submission_that_keeps_killing_its_worker(
    registry, submitter, settings
):
    from ingestion.tasks import ingest_submission

    submission, _ = submission_receive(upload=bundle(), user=submitter, enqueue=False)
    # Claimed as often as allowed, each time by a worker that died under it.
    Submission.objects.filter(pk=submission.pk).update(
        status="processing", attempts=settings.ARENA_MAX_INGEST_ATTEMPTS
    )
    assert ingest_submission.apply(args=[submission.pk]).get() == "rejected"
    assert not Run.objects.exists()
    assert submissions_requeue_stuck() == []


# -- The sweep sends a stuck submission once per period ----------------------------------


@pytest.fixture
def broker_queue() -> Iterator[Callable[[], int]]:
    """This process sends tasks to a real Redis (no worker): the fixture counts them."""
    url = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
    if not url.startswith("redis://") or not redis_answers(url):
        pytest.skip("needs a Redis broker (CELERY_BROKER_URL)")
    queue = f"arena-test-sweep-{uuid.uuid4().hex[:8]}"
    saved = (celery_app.conf.CELERY_BROKER_URL, celery_app.conf.CELERY_TASK_DEFAULT_QUEUE)
    saved_env = os.environ.get("CELERY_BROKER_URL")
    use_broker(url, queue, eager=False)
    client = redis.Redis.from_url(url)
    try:
        yield lambda: client.llen(queue)
    finally:
        client.delete(queue, f"_kombu.binding.{queue}")  # Celery's exchange: the queue's name
        use_broker(*saved, eager=True)
        env_restore(saved_env)


@pytest.mark.parametrize("status", ["queued", "processing"])
def test_it_sends_a_stuck_submission_again_once_per_period(
    registry, submitter, broker_queue, status
):
    submission, _ = submission_receive(upload=bundle(), user=submitter, enqueue=False)
    an_hour_ago = timezone.now() - timedelta(hours=1)
    # Sent an hour ago; queued ever since, or claimed by a worker that died.
    Submission.objects.filter(pk=submission.pk).update(
        status=status, created_at=an_hour_ago, enqueued_at=an_hour_ago,
        started_at=an_hour_ago + timedelta(seconds=1) if status == "processing" else None,
    )  # fmt: skip

    assert submissions_requeue_stuck() == [submission.pk]
    assert submissions_requeue_stuck() == []  # the copy just sent is still waiting
    assert broker_queue() == 1


def test_it_sends_a_dead_worker_s_submission_again_at_once(registry, submitter, broker_queue):
    submission, _ = submission_receive(upload=bundle(), user=submitter)  # sent now
    assert broker_queue() == 1
    Submission.objects.filter(pk=submission.pk).update(status="processing", started_at=Now())

    assert submissions_requeue_stuck() == [submission.pk]  # sent before its claim
    assert submissions_requeue_stuck() == []
    assert broker_queue() == 2
