"""Which snapshot readers see: the current one, micro-cached, and how a new one is shown.

Readers learn the current snapshot from the "pages" cache (ARENA_SNAPSHOT_POLL_SECONDS)
rather than from the database on every request. Every page and API body is cached per
snapshot (arena.http_cache), so a new snapshot starts with none: when a recompute swaps
one in, `readers_hold` (inside the swap's transaction, so a rollback changes nothing)
keeps readers on the snapshot they see while the new one's most-read pages are rendered
(leaderboard.web.warm, which sees the new snapshot through `rendering`), and
`readers_show` then moves every reader to it at once. A hold lapses by itself after
HOLD_SECONDS, so a warm that never runs delays a snapshot, never hides it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.core.cache import caches
from django.utils.connection import ConnectionProxy

from leaderboard.models import Board, BoardSnapshot

# The per-process (or Redis) "pages" cache, not the shared default one.
cache = ConnectionProxy(caches, "pages")

BOARDS_KEY = "current-boards"
SNAPSHOT_KEY = "current-snapshot-id"
# Stands for "no snapshot yet" in the cache, where None would read as a miss.
NO_SNAPSHOT = 0
# The longest a new snapshot waits for its pages: a warm takes a few seconds.
HOLD_SECONDS = 30

# The boards a warm renders (a snapshot not yet shown); None: the readers' current ones.
_rendering: ContextVar[list[Board] | None] = ContextVar("rendering", default=None)


def current_boards() -> list[Board]:
    """The current snapshot's boards in tab order, each with its snapshot (one query).

    Micro-cached for ARENA_SNAPSHOT_POLL_SECONDS: under load, most requests then make
    no query at all, and a new snapshot shows at most that many seconds late.
    """
    rendering = _rendering.get()
    if rendering is not None:
        return rendering
    return cache.get_or_set(BOARDS_KEY, _boards_in_db, settings.ARENA_SNAPSHOT_POLL_SECONDS)


def current_snapshot_id() -> int:
    """The current snapshot's id, or NO_SNAPSHOT; micro-cached like current_boards()."""
    rendering = _rendering.get()
    if rendering is not None:
        return rendering[0].snapshot_id if rendering else NO_SNAPSHOT
    return cache.get_or_set(SNAPSHOT_KEY, _snapshot_id_in_db, settings.ARENA_SNAPSHOT_POLL_SECONDS)


@contextmanager
def rendering(snapshot_id: int) -> Iterator[list[Board]]:
    """Inside: current_boards() and current_snapshot_id() name this snapshot, for this
    thread only (the pages of a snapshot that readers do not see yet)."""
    boards = list(
        Board.objects.filter(snapshot_id=snapshot_id)
        .select_related("snapshot")
        .order_by("position")
    )
    token = _rendering.set(boards)
    try:
        yield boards
    finally:
        _rendering.reset(token)


def readers_hold() -> None:
    """Keep readers on the snapshot they see now for up to HOLD_SECONDS. Called in the
    swap's transaction before the swap, so the database still names the old one."""
    if not settings.ARENA_SNAPSHOT_POLL_SECONDS:
        return  # readers read every snapshot at once: nothing to hold
    boards = cache.get(BOARDS_KEY)
    if boards is None:
        boards = _boards_in_db()
    _show(boards, HOLD_SECONDS)


def readers_show(boards: list[Board]) -> None:
    """Move every reader to these boards' snapshot now (the end of a hold)."""
    _show(boards, settings.ARENA_SNAPSHOT_POLL_SECONDS)


def _show(boards: list[Board], seconds: float) -> None:
    if not seconds:
        return
    snapshot_id = boards[0].snapshot_id if boards else NO_SNAPSHOT
    cache.set_many({BOARDS_KEY: boards, SNAPSHOT_KEY: snapshot_id}, seconds)


def _boards_in_db() -> list[Board]:
    return list(Board.objects.current())


def _snapshot_id_in_db() -> int:
    current = BoardSnapshot.objects.filter(is_current=True).values_list("pk", flat=True).first()
    return current or NO_SNAPSHOT
