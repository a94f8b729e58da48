"""Cache backends that keep the site up when the cache is not, and count atomically.

`ResilientRedisCache` is Django's Redis cache that never fails a request. While Redis
cannot be reached, each call goes to its FALLBACK cache when one is named (the default
cache names the database one, so that allauth's rate limits and the upload limit go on
counting there: an outage must not lift them), and otherwise every read is a miss and
every write is dropped as if done (the pages cache: pages and the API are then built
from the database). An outage is logged once. After a failure Redis is not tried again
for RETRY_AFTER_S, so an outage costs a request no connect attempt. A counter without a
fallback has no safe stand-in: `incr` raises CacheUnavailable.

`AtomicDatabaseCache` is Django's database cache whose `incr` holds the row
(SELECT ... FOR UPDATE), so simultaneous increments are never lost.
"""

from __future__ import annotations

import base64
import logging
import pickle
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.redis import RedisCache
from django.db import connections, router, transaction
from django.utils import timezone
from psycopg import sql
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# Seconds without trying Redis after it failed: short, so the cache is back soon after
# Redis is, long enough that an outage does not cost every request a connect attempt.
RETRY_AFTER_S = 2.0
# A Redis that accepts connections but does not answer holds a request this long at most.
SOCKET_TIMEOUT_S = 1.0

T = TypeVar("T")


class CacheUnavailable(Exception):
    """The cache cannot be reached: an increment has no safe answer without it."""


class _Breaker:
    """Whether to try the server now; one per cache location, shared by its threads."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.retry_at = 0.0
        self.down = False
        self.lock = threading.Lock()

    def closed(self) -> bool:
        return time.monotonic() >= self.retry_at

    def failed(self, error: Exception) -> None:
        with self.lock:
            self.retry_at = time.monotonic() + RETRY_AFTER_S
            if not self.down:
                self.down = True
                logger.warning(
                    "cache %s unreachable (%s): serving without it", self.location, error
                )

    def succeeded(self) -> None:
        if self.down:
            with self.lock:
                if self.down:
                    self.down = False
                    logger.warning("cache %s reachable again", self.location)


_breakers: dict[str, _Breaker] = {}


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params):
        options = {"socket_connect_timeout": SOCKET_TIMEOUT_S, "socket_timeout": SOCKET_TIMEOUT_S}
        params = {**params, "OPTIONS": {**options, **params.get("OPTIONS", {})}}
        super().__init__(server, params)
        location = server if isinstance(server, str) else ",".join(server)
        self._breaker = _breakers.setdefault(location, _Breaker(location))
        self._fallback: str | None = params.get("FALLBACK")

    def _try(self, call: Callable[[BaseCache], T], default: T) -> T:
        """`call` on Redis; while it cannot be reached, on the FALLBACK cache if one is
        set, else `default` (what a miss or a dropped write answers)."""
        if self._breaker.closed():
            try:
                value = call(super())
            except RedisError as error:
                self._breaker.failed(error)
            else:
                self._breaker.succeeded()
                return value
        if self._fallback is not None:
            return call(caches[self._fallback])
        return default

    def reachable(self) -> bool:
        """Whether Redis answers a PING now (the health check's question)."""
        if not self._breaker.closed():
            return False
        try:
            self._cache.get_client(write=True).ping()
        except RedisError as error:
            self._breaker.failed(error)
            return False
        self._breaker.succeeded()
        return True

    def get(self, key, default=None, version=None):
        return self._try(lambda cache: cache.get(key, default, version), default)

    def get_many(self, keys, version=None):
        keys = list(keys)  # read twice if Redis fails
        return self._try(lambda cache: cache.get_many(keys, version), {})

    def has_key(self, key, version=None):
        return self._try(lambda cache: cache.has_key(key, version), False)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        # True, like a `set` that is dropped: a lock taken by `add` is then no lock
        # rather than one nobody ever gets.
        return self._try(lambda cache: cache.add(key, value, timeout, version), True)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._try(lambda cache: cache.set(key, value, timeout, version), None)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(lambda cache: cache.set_many(data, timeout, version), list(data))

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._try(lambda cache: cache.touch(key, timeout, version), False)

    def delete(self, key, version=None):
        return self._try(lambda cache: cache.delete(key, version), False)

    def delete_many(self, keys, version=None):
        keys = list(keys)
        self._try(lambda cache: cache.delete_many(keys, version), None)

    def clear(self):
        return self._try(lambda cache: cache.clear(), False)

    def incr(self, key, delta=1, version=None):
        unavailable = object()
        value = self._try(lambda cache: cache.incr(key, delta, version), unavailable)
        if value is unavailable:
            raise CacheUnavailable(self._breaker.location)
        return value


class AtomicDatabaseCache(DatabaseCache):
    def incr(self, key, delta=1, version=None):
        key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        table = sql.Identifier(self._table)
        select = sql.SQL("SELECT value, expires FROM {} WHERE cache_key = %s FOR UPDATE")
        update = sql.SQL("UPDATE {} SET value = %s WHERE cache_key = %s")
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(select.format(table).as_string(cursor.connection), [key])
            row = cursor.fetchone()
            if row is None or row[1] < timezone.now():
                raise ValueError(f"Key '{key}' not found.")
            value: Any = pickle.loads(base64.b64decode(row[0].encode())) + delta
            encoded = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            cursor.execute(update.format(table).as_string(cursor.connection), [encoded, key])
        return value
