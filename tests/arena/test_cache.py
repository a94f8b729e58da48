"""A Redis cache that cannot be reached is skipped: pages and the API are built from
the database, the default cache falls back to the database one (the rate limits go on
counting there), and a counter with no fallback says it cannot count rather than make a
number up."""

from __future__ import annotations

import pytest
from django.core.cache import caches

from arena.cache import CacheUnavailable
from tests.e2e.conftest import free_port
from tests.leaderboard.boards.builders import build_snapshot, standard_boards

pytestmark = pytest.mark.django_db

READS = ["/", "/boards/coding/?sort=n", "/signals/", "/api/v1/boards/", "/api/v1/signals/"]


@pytest.fixture
def redis_unreachable(settings):
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    backend = {"BACKEND": "arena.cache.ResilientRedisCache", "LOCATION": nowhere}
    # As settings.CACHES has them with REDIS_CACHE_URL set.
    settings.CACHES = {
        **settings.CACHES,
        "default": {**backend, "FALLBACK": "database"},
        "pages": {**backend, "KEY_PREFIX": "pages"},
    }


def test_it_serves_pages_and_the_api_from_the_database(redis_unreachable, client):
    build_snapshot(standard_boards())
    for url in READS:
        first, again = client.get(url), client.get(url)
        assert (first.status_code, again.status_code) == (200, 200), url
        assert first["ETag"] == again["ETag"]


def test_it_misses_drops_and_refuses_to_count_without_a_fallback(redis_unreachable):
    cache = caches["pages"]
    cache.set("k", 1)
    assert cache.get("k", "missing") == "missing"
    assert cache.get_or_set("k", lambda: 2) == 2
    with pytest.raises(CacheUnavailable):
        cache.incr("k")


def test_it_keeps_the_default_cache_in_the_database_while_redis_is_down(redis_unreachable):
    cache = caches["default"]
    cache.set("k", 1)
    assert cache.get("k") == 1 == caches["database"].get("k")
    assert cache.incr("k") == 2
    assert cache.add("k", 5) is False
    assert cache.get_many(["k", "gone"]) == {"k": 2}
    assert cache.reachable() is False


def test_it_keeps_allauths_rate_limits_while_redis_is_down(redis_unreachable, client):
    # allauth counts in the default cache alone: reset_password allows 5 a minute a key.
    answers = [
        client.post("/accounts/password/reset/", {"email": "someone@example.com"}).status_code
        for _ in range(6)
    ]

    assert answers[:5] == [302] * 5 and answers[5] == 429
