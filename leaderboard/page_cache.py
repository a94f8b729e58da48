"""Which snapshot the cached pages of both rooms (boards, signals) are keyed on.

The rendered bytes, their ETag and Cache-Control are arena.http_cache's; this module
only names the current snapshot cheaply, for pages that have no Board row in hand.
"""

from __future__ import annotations

from django.conf import settings

from arena.http_cache import pages_cache
from leaderboard.models import BoardSnapshot

# Stands for "no snapshot yet" in the cache, where None would read as a miss.
NO_SNAPSHOT = 0


def current_snapshot_id() -> int:
    """The current snapshot's id, or NO_SNAPSHOT; micro-cached like current_boards()."""
    return pages_cache.get_or_set(
        "current-snapshot-id",
        lambda: BoardSnapshot.objects.filter(is_current=True).values_list("pk", flat=True).first()
        or NO_SNAPSHOT,
        settings.ARENA_SNAPSHOT_POLL_SECONDS,
    )
