"""The page cache is keyed on the canonical parameters a page understands, and bounded.

Hits are counted in queries, not time: a cached board page costs the one query that
names the current boards (ARENA_SNAPSHOT_POLL_SECONDS is 0 in the tests), a render
several more.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.http_cache import cached_bytes

pytestmark = pytest.mark.django_db

# Each pair: a first visit that fills the cache, then an address that must reuse it.
SAME_PAGE = [
    ("/?junk=1", "/?junk=2"),
    ("/", "/?junk=x&utm_source=mail"),
    ("/boards/overall/?sort=n&model=large", "/boards/overall/?model=large&sort=n"),
    ("/boards/overall/?model=large", "/boards/overall/?model=%20large%20&b=2&a=1"),
    ("/boards/overall/", "/boards/overall/?sort=no-such-column"),
    ("/boards/overall/?col=tokens&col=cost", "/boards/overall/?col=cost&col=tokens&col=bogus"),
    ("/boards/overall/?unranked=0", "/boards/overall/?unranked=1&unranked=0"),
    ("/boards/coding/?verified=1", "/boards/coding/?verified=0&verified=yes"),
]


@pytest.mark.parametrize(("first", "again"), SAME_PAGE)
def test_it_serves_an_equivalent_address_from_the_cache(
    boards, client, django_assert_num_queries, first, again
):
    expected = client.get(first)
    assert expected.status_code == 200
    with django_assert_num_queries(1):  # which boards are current; the page is reused
        response = client.get(again)
    assert response.status_code == 200
    assert response.content == expected.content


def test_it_renders_a_different_page_for_different_parameters(boards, client):
    client.get("/boards/overall/?sort=n")
    with CaptureQueriesContext(connection) as captured:
        client.get("/boards/overall/?sort=-n")
    assert len(captured) > 1


def test_it_keeps_partials_apart_from_whole_pages(boards, client):
    whole = client.get("/boards/overall/?junk=1").content.decode()
    partial = client.get("/boards/overall/?junk=2", headers={"HX-Request": "true"}).content.decode()
    assert "<html" in whole and "<html" not in partial


@pytest.mark.skipif(
    bool(settings.REDIS_CACHE_URL), reason="Redis bounds its own memory (maxmemory policy)"
)
def test_it_keeps_the_cache_bounded():
    pages = caches["pages"]
    limit = settings.PAGES_CACHE_ENTRIES
    assert pages._max_entries == limit  # the configured bound is the one in force
    keys = [f"page {i}" for i in range(limit * 2)]
    for key in keys:
        cached_bytes(version=1, key=key, build=lambda: b"x" * 100)
    built = []
    for key in keys:
        cached_bytes(version=1, key=key, build=lambda: built.append(1) or b"x")
    # Many of the first entries were culled: more than the bound never fits at once.
    assert len(built) >= limit
