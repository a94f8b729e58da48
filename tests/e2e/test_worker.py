"""End to end through a real Celery worker on Redis: upload, ingest, recompute, read.

The worker is a separate process started here (tests/e2e/conftest.py), connected to
the test database and a queue of its own, so nothing but this test's tasks reach it.
Skipped (with the reason) only where no Redis answers; CI and every session machine
have one.
"""

from __future__ import annotations

import os

import pytest

from tests.builders import EXAMPLE_RUN_BUNDLES
from tests.e2e.conftest import redis_answers, start_worker, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REDIS_URL = os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/0"


@pytest.fixture
def worker(settings, tmp_path, transactional_db):
    if not redis_answers(REDIS_URL):
        pytest.skip(f"no Redis answers at {REDIS_URL}; the worker test needs one")
    for running in start_worker(settings, tmp_path, REDIS_URL):
        yield running.log


def wait_for(predicate, *, seconds: float, log):
    return wait_until(predicate, seconds=seconds, what="the worker", log=log.read_text)


def test_it_ingests_a_burst_and_recomputes_once_after_it(registry, submitter_api, worker, client):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.utils import timezone

    from leaderboard.models import BoardSnapshot

    burst_started = timezone.now()  # the registry load before it made its own snapshot
    names = ("quill", "openharness", "termpilot")
    bundles = [next(p for p in EXAMPLE_RUN_BUNDLES if name in p.name) for name in names]
    urls = []
    for bundle in bundles:
        response = submitter_api.post(
            "/api/v1/submissions/",
            {"file": SimpleUploadedFile(bundle.name, bundle.read_bytes())},
            format="multipart",
        )
        assert response.status_code == 202
        assert response.json()["status"] == "queued"  # the web process only queued it
        urls.append(response.json()["url"])

    def all_ingested():
        details = [submitter_api.get(url).json() for url in urls]
        return details if all(d["status"] == "ingested" for d in details) else None

    details = wait_for(all_ingested, seconds=90, log=worker)
    assert [d["runs"] for d in details] == [300, 300, 300]

    def board_entries():
        board = client.get("/api/v1/boards/overall/")
        return board.json()["entries"] if board.status_code == 200 else None

    entries = wait_for(board_entries, seconds=60, log=worker)
    assert {e["harness"] for e in entries} == {"Quill", "OpenHarness", "TermPilot"}
    assert len(entries) == 6
    # One recompute after the burst, not one per bundle.
    assert BoardSnapshot.objects.filter(computed_at__gte=burst_started).count() == 1
    assert worker.read_text().count("'recomputed'") == 1


def test_it_dry_runs_in_the_worker_and_the_api_polls_the_result(
    registry, submitter_api, worker, settings
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from ingestion.models import Submission

    bundle = next(p for p in EXAMPLE_RUN_BUNDLES if "quill" in p.name)
    response = submitter_api.post(
        "/api/v1/submissions/?dry_run=1",
        {"file": SimpleUploadedFile(bundle.name, bundle.read_bytes())},
        format="multipart",
    )
    assert response.status_code == 202  # the web process only kept the bytes
    assert response.json()["status"] == "queued"
    url = response.json()["url"]

    def done():
        body = submitter_api.get(url).json()
        return body if body["status"] == "done" else None

    body = wait_for(done, seconds=90, log=worker)
    assert (body["valid"], body["runs"], body["error_count"]) == (True, 300, 0)
    assert not Submission.objects.exists()
    assert not list(settings.ARENA_UPLOAD_DIR.glob("dry-run-*"))  # checked, then deleted
