"""Faults heal by themselves: a real Celery worker on a Redis of its own, and the real
PostgreSQL, under a poison bundle, a broker outage, a worker killed mid-ingest and
mid-recompute, and a connection terminated mid-COPY.

Each test ends the same way: every submission in a final state, the recompute outbox
empty, and the current boards equal to a full recompute from the database.

The moments a fault must hit are made deterministic with locks held from the test
(never with sleeps): a SHARE lock on the runs table holds the worker inside its COPY,
and the recompute's advisory lock holds it inside the recompute task.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

import psycopg
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection

from arena.embedded_db import database_url_of
from bench.gen_bundle import write_bundle
from ingestion.models import Run, Submission
from leaderboard.models import BoardEntry, BoardSnapshot, RecomputeRequest, SignalEntry
from leaderboard.recompute.entries import ENTRY_FIELDS
from leaderboard.recompute.services import RECOMPUTE_LOCK, boards_recompute
from tests.builders import EXAMPLE_RUN_BUNDLES, harness_manifest, run_line, tar_gz_bundle
from tests.conftest import token_client
from tests.e2e.conftest import start_worker, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SETTLE_S = 60


@pytest.fixture
def worker(registry, settings, tmp_path, redis_server, transactional_db):
    # `registry` first: its own recompute runs eagerly, before the worker takes over.
    yield from start_worker(settings, tmp_path, redis_server.url)


@pytest.fixture
def worker_with_beat(registry, settings, tmp_path, redis_server, transactional_db):
    yield from start_worker(settings, tmp_path, redis_server.url, beat=True)


def upload(api, content: bytes, name: str = "bundle.tar.gz") -> int:
    response = api.post(
        "/api/v1/submissions/", {"file": SimpleUploadedFile(name, content)}, format="multipart"
    )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    return response.json()["id"]


def example(name: str) -> bytes:
    return next(p for p in EXAMPLE_RUN_BUNDLES if name in p.name).read_bytes()


def settle(worker, *submission_ids: int) -> dict[int, str]:
    """Wait until every submission is final, the outbox is empty and the current
    snapshot's interval bounds have landed: then it covers every change (requests are
    deleted only with their snapshot) with every figure a full recompute publishes."""

    def final():
        statuses = dict(
            Submission.objects.filter(pk__in=submission_ids).values_list("pk", "status")
        )
        busy = {Submission.Status.QUEUED, Submission.Status.PROCESSING}
        if busy & set(statuses.values()) or RecomputeRequest.objects.exists():
            return None
        pending = BoardEntry.objects.filter(
            board__snapshot__is_current=True, intervals_pending=True
        )
        return None if pending.exists() else statuses

    return wait_until(final, seconds=SETTLE_S, what="the worker to settle", log=worker.tail)


def figures(snapshot: BoardSnapshot) -> tuple[list, list]:
    """Everything a snapshot shows, without its ids and times of computation."""
    entries = BoardEntry.objects.filter(board__snapshot=snapshot).order_by(
        "board__position", "position"
    )
    entry_columns = ("board__slug", "harness_id", "model_id", "token_saving_ratio")
    signals = SignalEntry.objects.filter(snapshot=snapshot).order_by("scope", "position")
    signal_columns = ("scope", "slice_kind", "greyed", "rank", "model_name", "data")
    return (
        list(entries.values_list(*entry_columns, "token_saving_awarded", *ENTRY_FIELDS)),
        list(signals.values_list(*signal_columns)),
    )


def assert_boards_equal_a_full_recompute() -> list:
    current = figures(BoardSnapshot.objects.current())
    fresh = figures(boards_recompute())
    assert current == fresh
    return current[0]


def harnesses_on_board(entries: list) -> set[str]:
    names = dict(BoardEntry.objects.values_list("harness_id", "harness_name"))
    return {names[row[1]] for row in entries if row[0] == "overall"}


@contextlib.contextmanager
def side_connection() -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url_of(connection.settings_dict), autocommit=True) as conn:
        yield conn


@contextlib.contextmanager
def runs_table_locked() -> Iterator[psycopg.Connection]:
    """Hold a SHARE lock on the runs table: a COPY into it waits until released."""
    with side_connection() as conn, conn.transaction():
        conn.execute("LOCK TABLE ingestion_run IN SHARE MODE")
        yield conn


@contextlib.contextmanager
def recompute_lock_held() -> Iterator[psycopg.Connection]:
    with side_connection() as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [RECOMPUTE_LOCK])
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [RECOMPUTE_LOCK])


def backend_waiting(query_like: str) -> int | None:
    """The pid of a backend of this database waiting on a lock in such a statement.

    Asked on a connection of its own: inside a transaction, pg_stat_activity would keep
    showing the snapshot it took first.
    """
    with side_connection() as conn:
        row = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query ILIKE %s",
            [query_like],
        ).fetchone()
    return row[0] if row else None


def backend_gone(pid: int) -> bool:
    with side_connection() as conn:
        return not conn.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()


def test_it_keeps_updating_the_boards_past_a_poison_submission(
    worker, submitter_api, other_submitter
):
    poison = tar_gz_bundle(
        harness_manifest("Poison"),
        [
            run_line("r-1", tokens={"input": 2**63 - 1, "output": 2**63 - 1}),
            run_line("r-2", trial=2, cost_usd=1e308, steps=2**31),
        ],
    )
    poisoned = upload(submitter_api, poison, "poison.tar.gz")
    good = upload(token_client(other_submitter), example("quill"))

    statuses = settle(worker, poisoned, good)
    assert statuses == {poisoned: "rejected", good: "ingested"}
    assert harnesses_on_board(assert_boards_equal_a_full_recompute()) == {"Quill"}


def test_it_queues_uploads_while_the_broker_is_down_and_catches_up_after(
    worker_with_beat, redis_server, submitter_api, caplog
):
    redis_server.stop()
    submission_id = upload(submitter_api, example("termpilot"))  # 202, not 500
    assert "could not queue submission" in caplog.text
    assert Submission.objects.get(pk=submission_id).status == "queued"
    redis_server.start()  # empty: whatever was in it is lost, as after a crash

    # Celery beat's sweep sends it again; nobody calls anything.
    assert settle(worker_with_beat, submission_id) == {submission_id: "ingested"}
    assert harnesses_on_board(assert_boards_equal_a_full_recompute()) == {"TermPilot"}


def test_it_ingests_a_submission_whose_worker_was_killed_mid_ingest(
    worker, submitter_api, tmp_path
):
    bundle = write_bundle(tmp_path / "large.tar.gz", runs=12_000, seed=15, harness="Killed Mid")
    with runs_table_locked():
        submission_id = upload(submitter_api, bundle.read_bytes())
        pid = wait_until(
            lambda: backend_waiting("COPY%"), seconds=SETTLE_S, what="the COPY",
            log=worker.tail,
        )  # fmt: skip
        worker.kill()
    # Released, the dead worker's backend finds its client gone and rolls back.
    wait_until(lambda: backend_gone(pid), seconds=30, what="the orphaned backend to end")
    assert Submission.objects.get(pk=submission_id).status == "processing"
    assert not Run.objects.exists()

    worker.start()
    out = io.StringIO()
    call_command("recompute", "--pending", stdout=out)  # the operator's sweep, at once
    assert f"uploads queued again: 1 ({submission_id})" in out.getvalue()

    assert settle(worker, submission_id) == {submission_id: "ingested"}
    assert Run.objects.count() == 12_000
    assert harnesses_on_board(assert_boards_equal_a_full_recompute()) == {"Killed Mid"}


def test_it_keeps_the_requests_of_a_worker_killed_mid_recompute(worker, submitter_api):
    before = BoardSnapshot.objects.current().pk
    with recompute_lock_held():
        submission_id = upload(submitter_api, example("openharness"))
        pid = wait_until(
            lambda: backend_waiting("%pg_advisory_xact_lock%"), seconds=SETTLE_S,
            what="the recompute to wait for its lock", log=worker.tail,
        )  # fmt: skip
        worker.kill()
    wait_until(lambda: backend_gone(pid), seconds=30, what="the orphaned backend to end")
    assert Submission.objects.get(pk=submission_id).status == "ingested"
    assert RecomputeRequest.objects.exists()  # nothing lost with the worker
    assert BoardSnapshot.objects.current().pk == before

    worker.start()
    out = io.StringIO()
    call_command("recompute", "--pending", stdout=out)
    assert "recompute requests waiting: " in out.getvalue()
    settle(worker, submission_id)
    assert harnesses_on_board(assert_boards_equal_a_full_recompute()) == {"OpenHarness"}


def test_it_retries_an_ingest_whose_connection_was_terminated_mid_copy(worker, submitter_api):
    with runs_table_locked() as held:
        submission_id = upload(submitter_api, example("quill"))
        pid = wait_until(
            lambda: backend_waiting("COPY%"), seconds=SETTLE_S, what="the COPY",
            log=worker.tail,
        )  # fmt: skip
        held.execute("SELECT pg_terminate_backend(%s)", [pid])

    # The same worker queues it again and retries: never an "internal error" rejection.
    assert settle(worker, submission_id) == {submission_id: "ingested"}
    assert "queued again" in worker.tail()
    assert Run.objects.filter(submission_id=submission_id).count() == 300
    assert harnesses_on_board(assert_boards_equal_a_full_recompute()) == {"Quill"}
