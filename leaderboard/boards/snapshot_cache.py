"""Rendered responses cached per board snapshot.

Everything a visitor sees on a board comes from one immutable snapshot, so a rendered
page or JSON body can be reused until the snapshot changes. Keys carry the snapshot id:
a recompute makes a new snapshot and, with it, new keys, so nothing is ever
invalidated by hand (which a per-process cache could not do across workers anyway).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.cache import caches
from django.utils.connection import ConnectionProxy

# Rendered pages and the snapshot micro-cache: the per-process (or Redis) "pages"
# cache, not the shared default one (arena/settings.py CACHES).
cache = ConnectionProxy(caches, "pages")

# Old snapshots' entries simply age out.
SNAPSHOT_CACHE_SECONDS = 600


def snapshot_cached(*, snapshot_id: int, key: str, build: Callable[[], bytes]) -> bytes:
    """The cached bytes for (snapshot, key), built and stored on a miss."""
    cache_key = f"snapshot:{snapshot_id}:{hashlib.sha256(key.encode()).hexdigest()}"
    body = cache.get(cache_key)
    if body is None:
        body = build()
        cache.set(cache_key, body, SNAPSHOT_CACHE_SECONDS)
    return body
