"""The one Redis of docker/compose.yaml (broker in database 0, cache in database 1)
stops: the site degrades and never breaks, and catches up as soon as Redis is back.

Pages, the API and log-in are served from the database; an upload is stored, limited
(in the database: past the rate it is refused) and queued; /healthz/ names what is missing. The worker keeps the
deployment's sweep period and requeue wait (a minute, ten minutes) and no beat runs,
so only its reconnection can take the upload within the test's wait.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from ingestion.models import Submission
from ingestion.throttling import upload_limiter
from tests.accounts.builders import account_with_password
from tests.builders import harness_manifest, run_line, tar_gz_bundle
from tests.e2e.conftest import start_worker, wait_until
from tests.e2e.test_faults import (
    assert_boards_equal_a_full_recompute,
    example,
    harnesses_on_board,
    settle,
    upload,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"
BACK_WITHIN_S = 30  # far below the sweep period and the requeue wait the worker keeps
UPLOADS_AN_HOUR = 2
READS = ["/", "/boards/overall/", "/signals/", "/api/v1/boards/", "/api/v1/boards/overall/"]


def redis_cache(url: str, prefix: str = "") -> dict:
    return {"BACKEND": "arena.cache.ResilientRedisCache", "LOCATION": url, "KEY_PREFIX": prefix}


@pytest.fixture
def compose_worker(registry, settings, tmp_path, redis_server, transactional_db):
    cache_url = redis_server.url.removesuffix("/0") + "/1"
    settings.CACHES = {
        **settings.CACHES,
        "default": redis_cache(cache_url),
        "pages": redis_cache(cache_url, "pages"),
    }
    env = {
        "REDIS_CACHE_URL": cache_url,
        "ARENA_SWEEP_INTERVAL_S": "60",
        "ARENA_REQUEUE_AFTER_S": "600",
    }
    yield from start_worker(settings, tmp_path, redis_server.url, env=env)


@pytest.fixture
def uploads_limited(settings, submitter):
    """ARENA_UPLOAD_RATE low enough to reach in a test, from no count at all."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": f"{UPLOADS_AN_HOUR}/hour"},
    }
    upload_limiter().reset(submitter.pk)
    yield
    upload_limiter().reset(submitter.pk)  # the database cache outlives the test's rows


def small_bundle(name: str) -> bytes:
    return tar_gz_bundle(harness_manifest(name), [run_line()])


def health(client: Client) -> tuple[int, dict]:
    response = client.get("/healthz/")
    return response.status_code, response.json()


def log_in(client: Client, username: str) -> int:
    token = client.get("/accounts/login/").cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/",
        {"login": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    return response.status_code


def test_it_serves_and_queues_while_the_one_redis_is_down_and_catches_up_after(
    compose_worker, redis_server, submitter_api, uploads_limited
):
    account_with_password("visitor", PASSWORD)
    client = Client(enforce_csrf_checks=True)
    assert [client.get(url).status_code for url in READS] == [200] * len(READS)  # cached
    wait_until(lambda: health(client)[1]["status"] == "ok", seconds=10, what="all up")
    # Consuming when Redis stops (not still starting up), like a worker of a live site.
    wait_until(lambda: " ready." in compose_worker.tail(), seconds=60, what="the worker")

    redis_server.stop()
    assert [client.get(url).status_code for url in READS] == [200] * len(READS)
    assert log_in(client, "visitor") == 302
    assert client.get("/submit/").status_code == 200
    # Still limited, counted in the database: the uploads within the rate are taken
    # (202, queued), the one past it refused before it is read.
    submission_id = upload(submitter_api, example("termpilot"))
    second_id = upload(submitter_api, small_bundle("Outage"))
    past_the_rate = submitter_api.post(
        "/api/v1/submissions/",
        {"file": SimpleUploadedFile("c.tar.gz", small_bundle("Refused"))},
        format="multipart",
    )
    assert past_the_rate.status_code == 429, past_the_rate.content
    assert set(Submission.objects.values_list("pk", "enqueued_at")) == {
        (submission_id, None), (second_id, None),
    }  # fmt: skip
    status, state = wait_until(
        lambda: (h := health(Client()))[1]["broker"] == "unreachable" and h,
        seconds=10, what="the health check to see the outage",
    )  # fmt: skip
    assert status == 200  # still serving: a load balancer keeps this server
    assert state == {
        "status": "degraded", "database": "ok", "cache": "unreachable", "broker": "unreachable",
    }  # fmt: skip

    redis_server.start()  # empty, as after a crash
    ingested = wait_until(
        lambda: Submission.objects.get(pk=submission_id).status == "ingested",
        seconds=BACK_WITHIN_S, what="the upload to be taken after Redis came back",
        log=compose_worker.tail,
    )  # fmt: skip
    assert ingested
    assert settle(compose_worker, submission_id, second_id) == {
        submission_id: "ingested", second_id: "ingested",
    }  # fmt: skip
    assert "TermPilot" in harnesses_on_board(assert_boards_equal_a_full_recompute())
    wait_until(lambda: health(Client())[1]["status"] == "ok", seconds=10, what="all up again")
