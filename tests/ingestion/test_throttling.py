"""The upload limit counts by atomic increments: simultaneous requests never pass it
together, in Redis or in the database cache, and it keeps counting (in the database)
while Redis is unreachable."""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from ingestion.throttling import Rate, Usage, WindowCounter, upload_limiter, wait_seconds
from tests.builders import api_key
from tests.e2e.conftest import free_port, redis_answers

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 5
AT_ONCE = 16


@pytest.fixture
def five_uploads_an_hour(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": f"{LIMIT}/hour"},
    }


def redis_cache(url: str) -> dict:
    # A prefix of the test's own: clearing would flush the database the broker shares.
    return {
        "BACKEND": "arena.cache.ResilientRedisCache",
        "LOCATION": url,
        "KEY_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
    }


@pytest.fixture(params=["database", "redis"])
def shared_cache(request, settings):
    """The default cache as deployed: the database table, or Redis."""
    if request.param == "redis":
        url = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
        if not url.startswith("redis://") or not redis_answers(url):
            pytest.skip("needs a Redis (CELERY_BROKER_URL)")
        settings.CACHES = {**settings.CACHES, "default": redis_cache(url)}
    return request.param


def test_it_lets_through_exactly_the_limit_of_simultaneous_uploads(
    five_uploads_an_hour, shared_cache, live_server, submitter
):
    token = api_key(submitter)
    start = threading.Barrier(AT_ONCE)

    def post(_) -> int:
        # No file: a request the limit lets through is refused after it (400).
        request = urllib.request.Request(
            f"{live_server.url}/api/v1/submissions/", data=b"", method="POST",
            headers={"Authorization": f"Token {token}"},
        )  # fmt: skip
        start.wait(timeout=30)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status
        except urllib.error.HTTPError as refused:
            return refused.code

    with ThreadPoolExecutor(AT_ONCE) as pool:
        codes = list(pool.map(post, range(AT_ONCE)))
    assert sorted(codes) == [400] * LIMIT + [429] * (AT_ONCE - LIMIT)
    assert upload_limiter().usage(submitter.pk) == LIMIT


def test_it_counts_in_the_database_while_redis_is_unreachable(five_uploads_an_hour, settings):
    settings.CACHES = {
        **settings.CACHES,
        "default": redis_cache(f"redis://127.0.0.1:{free_port()}/0"),  # nothing listens
    }
    limiter = upload_limiter()
    answers = [limiter.hit("someone") for _ in range(LIMIT + 1)]
    assert answers[:LIMIT] == [None] * LIMIT  # still accepted
    assert answers[LIMIT] is not None and answers[LIMIT] > 0  # and still limited


def test_it_forgets_an_account_s_count_on_reset(five_uploads_an_hour):
    limiter = upload_limiter()
    for _ in range(LIMIT):
        limiter.hit("someone")
    assert limiter.hit("someone") is not None
    limiter.reset("someone")
    assert limiter.hit("someone") is None


@pytest.mark.pure
@pytest.mark.parametrize(
    ("usage", "wait"),
    [
        (Usage(previous=0, current=5, elapsed=600), 3720.0),  # then 5 fade to 4
        (Usage(previous=10, current=0, elapsed=0), 2160.0),  # 10 fade to 4 at 0.4 in
        (Usage(previous=10, current=3, elapsed=0), 3240.0),  # 10 fade to 1 at 0.9 in
        (Usage(previous=2, current=10, elapsed=1200), 2400.0 + 2160.0),  # then 10 fade
    ],
)
def test_it_waits_until_one_more_fits(usage, wait):
    rate = Rate(limit=5, window_s=3600)
    assert wait_seconds(usage, rate) == pytest.approx(wait)
    later = Usage(usage.previous, usage.current, usage.elapsed + wait)
    fits_then = later if later.elapsed < rate.window_s else next_window(later, rate)
    assert fits_then.weighed(rate.window_s) + 1 <= rate.limit + 1e-9


def next_window(usage: Usage, rate: Rate) -> Usage:
    return Usage(usage.current, 0, usage.elapsed - rate.window_s)


@pytest.mark.pure
def test_it_reads_drf_rates():
    assert Rate.parse("30/hour") == Rate(30, 3600)
    assert Rate.parse("5/min") == Rate(5, 60)
    assert WindowCounter("x", Rate.parse("2/s")).rate.window_s == 1
