"""What the safety pages and the API read: the current snapshot's safety rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from leaderboard.boards.current import current_boards
from leaderboard.models import Board, BoardSnapshot, SafetyEntry


@dataclass(frozen=True)
class SafetyBoard:
    """A suite board's safety board in a snapshot, its rows by attack."""

    slug: str
    title: str
    board_slug: str
    snapshot_id: int
    computed_at: datetime
    attacks: dict[str, list[SafetyEntry]] = field(default_factory=dict)

    @property
    def rows(self) -> list[SafetyEntry]:
        return [row for rows in self.attacks.values() for row in rows]


def snapshot_safety_boards(snapshot: BoardSnapshot | None) -> list[SafetyBoard]:
    """The snapshot's safety boards, in tab order, without their rows: no query."""
    if snapshot is None:
        return []
    return [
        SafetyBoard(slug, title, board, snapshot.pk, snapshot.computed_at)
        for slug, title, board in snapshot.safety_boards
    ]


def tab_safety_boards(boards: Sequence[Board]) -> list[SafetyBoard]:
    """The safety boards beside these (current) boards: read from their snapshot."""
    return snapshot_safety_boards(boards[0].snapshot if boards else None)


def safety_board(slug: str) -> SafetyBoard | None:
    """The current safety board `slug` (`<suite board>-safety`) with its rows in board
    order, grouped by attack; None when there is none (one query: the snapshot readers
    see is micro-cached, leaderboard.boards.current)."""
    listed = safety_board_listed(slug)
    return None if listed is None else safety_rows(listed)


def safety_board_listed(slug: str) -> SafetyBoard | None:
    """The current safety board `slug` without its rows (no query when the current
    boards are micro-cached): all a cached page needs."""
    return next((b for b in tab_safety_boards(current_boards()) if b.slug == slug), None)


def safety_rows(board: SafetyBoard) -> SafetyBoard:
    """The board with its rows in board order, grouped by attack (one query)."""
    attacks: dict[str, list[SafetyEntry]] = {}
    rows = SafetyEntry.objects.filter(
        snapshot_id=board.snapshot_id, board_slug=board.board_slug
    ).order_by("position")
    for row in rows:
        attacks.setdefault(row.attack, []).append(row)
    return replace(board, attacks=attacks)


def agent_safety_rows(harness_id: int, model_id: int) -> list[SafetyEntry]:
    """The agent's rows on the current snapshot's safety boards, board then attack (one
    query): its triad per attack, for the agent page."""
    return list(
        SafetyEntry.objects.filter(
            snapshot__is_current=True, harness_id=harness_id, model_id=model_id
        ).order_by("board_slug", "attack")
    )
