"""The CACHES setting, built from the environment's Redis URL (arena.settings reads it)."""

from __future__ import annotations

from typing import Any


def caches_setting(*, redis_url: str, table: str, pages_entries: int) -> dict[str, Any]:
    """The default, "database" and "pages" caches: Redis when `redis_url` is set, else
    the PostgreSQL table `table` and a per-process cache of `pages_entries` pages."""
    database = {
        "BACKEND": "arena.cache.AtomicDatabaseCache",
        "LOCATION": table,
        "OPTIONS": {"MAX_ENTRIES": 5000},
    }
    return {
        "default": (
            {
                "BACKEND": "arena.cache.ResilientRedisCache",
                "LOCATION": redis_url,
                "FALLBACK": "database",
            }
            if redis_url
            else database
        ),
        # Where rate limits count while the default cache is unreachable.
        "database": database,
        # Rendered pages and API bodies (arena.http_cache) and the snapshot micro-cache:
        # keyed by immutable snapshot ids, so a per-process copy is correct, and it spares a
        # database round trip on every page; with Redis configured, Redis (shared by the
        # processes; bounded by its maxmemory policy and the entries' 600 s timeout).
        # In memory, at most pages_entries entries per process, least recently used
        # culled first: a board page is ≈240 KB, so ≈70 MB at worst.
        "pages": (
            {
                "BACKEND": "arena.cache.ResilientRedisCache",
                "LOCATION": redis_url,
                "KEY_PREFIX": "pages",
            }
            if redis_url
            else {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "LOCATION": "pages",
                "OPTIONS": {"MAX_ENTRIES": pages_entries},
            }
        ),
    }
