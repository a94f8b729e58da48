"""End to end through a real Celery worker on Redis: upload, ingest, recompute, read.

The worker is a separate process started here, connected to the test database and a
queue of its own, so nothing but this test's tasks reach it. Skipped (with the reason)
only where no Redis answers; CI and every session machine have one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from arena.celery import app as celery_app
from arena.embedded_db import database_url_of
from tests.builders import EXAMPLE_RUN_BUNDLES

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

REDIS_URL = os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/0"
ROOT = Path(__file__).resolve().parents[2]


def redis_answers(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def worker(settings, tmp_path):
    if not redis_answers(REDIS_URL):
        pytest.skip(f"no Redis answers at {REDIS_URL}; the worker test needs one")
    queue = f"arena-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url_of(connection.settings_dict),
        "CELERY_BROKER_URL": REDIS_URL,
        "ARENA_CELERY_QUEUE": queue,
        "ARENA_UPLOAD_DIR": str(settings.ARENA_UPLOAD_DIR),
        "ARENA_RECOMPUTE_DEBOUNCE_S": "1",
    }
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "arena", "worker", "--pool=solo", "--loglevel=INFO", "-Q", queue],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    overrides = {
        "CELERY_TASK_ALWAYS_EAGER": False,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_DEFAULT_QUEUE": queue,
    }
    saved = {key: celery_app.conf.get(key) for key in overrides}
    celery_app.conf.update(overrides)
    settings.ARENA_RECOMPUTE_DEBOUNCE_S = 1
    yield tmp_path / "worker.log"
    celery_app.conf.update(saved)
    process.terminate()
    process.wait(timeout=30)
    log.close()


def wait_for(predicate, *, seconds: float, log: Path):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"timed out; worker log:\n{log.read_text()[-4000:]}")


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
