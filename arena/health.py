"""/healthz/: whether this web process can serve, and what it is serving without.

The answer is for a load balancer (readiness) and for people: 200 while the database
answers, whatever else is down, since pages, the API and uploads then still work
(the cache is skipped, uploads wait in the database for the broker: arena.cache,
ingestion.services.queue); 503 when the database does not, since nothing can be
served then. The body names each dependency's state:

    {"status": "degraded", "database": "ok", "cache": "unreachable", "broker": "unreachable"}

`cache` is "database" when the shared cache is the database table (no Redis
configured); `broker` is "eager" when tasks run in the web process (no broker).
Each process asks at most every CHECK_EVERY_S, so probes cost next to nothing.
"""

from __future__ import annotations

import threading
import time

from celery import current_app
from django.core.cache import caches
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from kombu.exceptions import OperationalError as BrokerError

CHECK_EVERY_S = 2.0
# A broker that accepts connections but does not answer makes the probe wait this long.
BROKER_TIMEOUT_S = 1.0

_last: tuple[float, dict[str, str]] = (float("-inf"), {})
_lock = threading.Lock()


def healthz(request: HttpRequest) -> JsonResponse:
    state = dependencies()
    serving = state["database"] == "ok"
    degraded = "unreachable" in state.values()
    status = "ok" if serving and not degraded else "degraded" if serving else "unavailable"
    return JsonResponse({"status": status, **state}, status=200 if serving else 503)


def dependencies() -> dict[str, str]:
    """Each dependency's state, asked again when the last answer is CHECK_EVERY_S old."""
    global _last
    checked_at, state = _last
    if time.monotonic() - checked_at < CHECK_EVERY_S:
        return state
    with _lock:
        if time.monotonic() - _last[0] >= CHECK_EVERY_S:
            state = {"database": _database(), "cache": _cache(), "broker": _broker()}
            _last = (time.monotonic(), state)
    return _last[1]


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return "unreachable"
    return "ok"


def _cache() -> str:
    cache = caches["default"]
    if not hasattr(cache, "reachable"):
        return "database"
    return "ok" if cache.reachable() else "unreachable"


def _broker() -> str:
    if current_app.conf.task_always_eager:
        return "eager"
    try:
        with current_app.connection_for_write(connect_timeout=BROKER_TIMEOUT_S) as conn:
            conn.ensure_connection(max_retries=0)
    except (BrokerError, OSError):
        return "unreachable"
    return "ok"
