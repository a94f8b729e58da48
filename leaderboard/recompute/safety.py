"""The safety boards' rows of a new snapshot (leaderboard.boards.safety): computed from
every SafetyRollup group at each recompute, full or incremental (a few rows per agent
and attack), so nothing is carried over."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from leaderboard.boards.catalogue import safety_slug, safety_title
from leaderboard.boards.compute import AgentName
from leaderboard.boards.safety import safety_entries
from leaderboard.models import BoardSnapshot, SafetyEntry


def safety_write(
    snapshot: BoardSnapshot,
    boards: dict[str, list[dict]],
    titles: Iterable[tuple[str, str]],
    names: Callable[[set[tuple[int, int]]], dict[tuple[int, int], AgentName]],
) -> int:
    """Write the snapshot's safety rows and list its safety boards on it (saved with
    the snapshot's other totals); returns how many rows."""
    rows = safety_entries(boards, titles, names)
    SafetyEntry.objects.bulk_create(SafetyEntry(snapshot=snapshot, **row) for row in rows)
    listed = {row["board_slug"]: row["board_title"] for row in rows}
    snapshot.safety_boards = [
        [safety_slug(board), safety_title(title), board] for board, title in listed.items()
    ]
    return len(rows)
