"""A Redis cache that cannot be reached is skipped: pages and the API are built from
the database, and a counter says it cannot count rather than make a number up."""

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
    settings.CACHES = {
        **settings.CACHES,
        "default": backend,
        "pages": {**backend, "KEY_PREFIX": "pages"},
    }


def test_it_serves_pages_and_the_api_from_the_database(redis_unreachable, client):
    build_snapshot(standard_boards())
    for url in READS:
        first, again = client.get(url), client.get(url)
        assert (first.status_code, again.status_code) == (200, 200), url
        assert first["ETag"] == again["ETag"]


def test_it_misses_drops_and_refuses_to_count(redis_unreachable):
    cache = caches["default"]
    cache.set("k", 1)
    assert cache.get("k", "missing") == "missing"
    assert cache.get_or_set("k", lambda: 2) == 2
    with pytest.raises(CacheUnavailable):
        cache.incr("k")
