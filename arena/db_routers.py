"""Read replicas: the public read path reads from a replica, everything else the primary.

Which requests are on the read path is said here, in one place (READ_PATH_VIEWS), and
marked by ReadPathMiddleware: a GET or HEAD of one of those views by a visitor who is
not logged in. A logged-in user stays on the primary, so that they always see their
own writes at once. Outside such a request (writes, admin, accounts, uploads, the
recompute, Celery tasks, management commands) every query goes to the primary.

A replica is used only if it holds the current board snapshot. At the first read of
the request the router asks the primary which snapshot is current (one query on a
partial unique index) and the chosen replica whether it has that one or a later one
(snapshot ids only grow); if not, or if the replica cannot be reached, the whole
request reads from the primary. A request that reads nothing (a page served from the
page cache) costs no extra query at all. Only the public data (the leaderboard and
ingestion apps) goes to a replica; sessions, accounts, throttling counters and the
cache table always come from the primary.
"""

from __future__ import annotations

import contextvars
import logging
import random
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.models import Model
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

PRIMARY = "default"
# The public read path: URL names (arena/urls.py, leaderboard/web/urls.py) of the anonymous
# pages and read API that a replica may serve.
READ_PATH_VIEWS = frozenset(
    {
        "home",
        "board",
        "board-export",
        "safety-board",
        "safety-export",
        "agent",
        "agent-independent",
        "run",
        "signals",
        "methodology",
        "api-boards",
        "api-board-detail",
        "api-safety-board",
        "api-signals",
        "api-run-detail",
    }
)
READ_METHODS = frozenset({"GET", "HEAD"})
# The public data a replica serves; every other app (sessions, auth, axes, allauth,
# tokens, the cache table) reads from the primary even on the read path.
REPLICA_APPS = frozenset({"leaderboard", "ingestion"})


class ReadPath:
    """One read-path request: which database it reads from, decided at its first read."""

    def __init__(self) -> None:
        self.alias: str | None = None

    def read_alias(self) -> str:
        if self.alias is None:
            self.alias = choose_read_alias()
            logger.debug("read path reads from %s", self.alias)
        return self.alias


_read_path: contextvars.ContextVar[ReadPath | None] = contextvars.ContextVar(
    "arena_read_path", default=None
)


def current_read_path() -> ReadPath | None:
    return _read_path.get()


class ReadPathMiddleware:
    """Marks the public read path for the router, for the duration of the view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.get_response(request)
        finally:
            token = getattr(request, "_arena_read_path_token", None)
            if token is not None:
                _read_path.reset(token)

    def process_view(self, request: HttpRequest, view: Callable, args: tuple, kwargs: dict) -> None:
        if is_read_path(request):
            request._arena_read_path_token = _read_path.set(ReadPath())  # type: ignore[attr-defined]


def is_read_path(request: HttpRequest) -> bool:
    if not settings.ARENA_REPLICA_ALIASES or request.method not in READ_METHODS:
        return False
    match = request.resolver_match
    if match is None or match.view_name not in READ_PATH_VIEWS:
        return False
    # Evaluated last: for a visitor without a session cookie it costs no query.
    return not request.user.is_authenticated


def choose_read_alias() -> str:
    """A replica holding the current snapshot, or the primary."""
    if connections[PRIMARY].in_atomic_block:
        return PRIMARY  # reads inside a transaction on the primary stay there
    alias = random.choice(settings.ARENA_REPLICA_ALIASES)
    if _is_mirror(alias):
        return PRIMARY  # a test mirror is the primary under another name
    try:
        return alias if replica_is_current(alias) else PRIMARY
    except DatabaseError:
        logger.warning("replica %s unreachable; reading from the primary", alias, exc_info=True)
        return PRIMARY


def replica_is_current(alias: str) -> bool:
    """Whether the replica holds the primary's current snapshot (or a later one)."""
    from leaderboard.models import BoardSnapshot

    current = (
        BoardSnapshot.objects.using(PRIMARY)
        .filter(is_current=True)
        .order_by()
        .values_list("pk", flat=True)
        .first()
    )
    if current is None:
        return True  # nothing published yet: nothing to lag behind
    snapshots = BoardSnapshot.objects.using(alias).filter(is_current=True, pk__gte=current)
    if snapshots.exists():
        return True
    logger.info("replica %s lags behind snapshot %s; reading from the primary", alias, current)
    return False


def _is_mirror(alias: str) -> bool:
    replica, primary = connections[alias].settings_dict, connections[PRIMARY].settings_dict
    return all(replica.get(key) == primary.get(key) for key in ("HOST", "PORT", "NAME"))


class ReadReplicaRouter:
    """Reads on the public read path go to a current replica; all else to the primary."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str:
        read_path = _read_path.get()
        if read_path is None or model._meta.app_label not in REPLICA_APPS:
            return PRIMARY
        return read_path.read_alias()

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool | None:
        # A replica holds the primary's rows: objects read from either may be related.
        pool = {PRIMARY, *settings.ARENA_REPLICA_ALIASES}
        return True if {obj1._state.db, obj2._state.db} <= pool else None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == PRIMARY
