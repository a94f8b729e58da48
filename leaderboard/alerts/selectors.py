"""The moves past an interval of one snapshot, per account that follows them.

A snapshot's moves are its history rows (EntryHistory, SignalHistory: written only on a
change, so the rows of snapshot S are exactly what S changed), read against the row
each follows; history outlives snapshots, so a late task still finds them. Three
queries whatever the number of follows: the followed agents' rows, the followed signal
models' rows, the follows themselves.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q

from leaderboard.history.moves import FigureChange, entry_changes, signal_changes
from leaderboard.history.selectors import Cause, causes_by_snapshot
from leaderboard.models import EntryHistory, Follow, SignalHistory


@dataclass(frozen=True)
class ItemMoves:
    """One followed item's moves in the snapshot: an agent on one board, or a model on
    the signal boards."""

    follow: Follow  # harness and model loaded
    board_slug: str | None  # None: the signal boards
    row: EntryHistory | SignalHistory
    moves: list[FigureChange]


@dataclass
class AccountAlert:
    user_id: int
    email: str
    username: str
    items: list[ItemMoves] = field(default_factory=list)

    @property
    def moves(self) -> int:
        return sum(len(item.moves) for item in self.items)


@dataclass(frozen=True)
class SnapshotAlerts:
    snapshot_id: int
    causes: list[Cause]
    accounts: list[AccountAlert]


def snapshot_alerts(snapshot_id: int) -> SnapshotAlerts:
    """Every account with a moved followed item in `snapshot_id`, with those items."""
    follows = list(
        Follow.objects.select_related("user", "harness__independent_by", "model")
        .filter(user__is_active=True)
        .exclude(user__email="")
        .filter(_has_rows(snapshot_id))
        .order_by("user_id", "pk")
    )
    agent_rows = _agent_rows(snapshot_id, [f for f in follows if f.harness_id])
    signal_rows = _signal_rows(snapshot_id, [f for f in follows if not f.harness_id])
    accounts: dict[int, AccountAlert] = {}
    for follow in follows:
        for item in _item_moves(follow, agent_rows, signal_rows):
            user = follow.user
            account = accounts.setdefault(
                user.pk, AccountAlert(user.pk, user.email, user.get_username())
            )
            account.items.append(item)
    causes = causes_by_snapshot([snapshot_id]).get(snapshot_id, []) if accounts else []
    return SnapshotAlerts(snapshot_id, causes, list(accounts.values()))


def _has_rows(snapshot_id: int) -> Q:
    """The follows whose item has a history row in the snapshot (the rest cannot move)."""
    agent = EntryHistory.objects.filter(
        snapshot_id=snapshot_id, harness_id=OuterRef("harness_id"), model_id=OuterRef("model_id")
    )
    signal = SignalHistory.objects.filter(
        snapshot_id=snapshot_id, model_name=OuterRef("model__name")
    )
    return Q(Exists(agent)) | Q(Exists(signal), harness__isnull=True)


def _agent_rows(snapshot_id: int, follows: list[Follow]) -> dict[tuple[int, int], list]:
    rows = defaultdict(list)
    if follows:
        found = EntryHistory.objects.filter(
            snapshot_id=snapshot_id,
            harness_id__in={f.harness_id for f in follows},
            model_id__in={f.model_id for f in follows},
        ).select_related("previous")
        for row in found.order_by("board_slug"):
            rows[(row.harness_id, row.model_id)].append(row)
    return rows


def _signal_rows(snapshot_id: int, follows: list[Follow]) -> dict[str, SignalHistory]:
    if not follows:
        return {}
    found = SignalHistory.objects.filter(
        snapshot_id=snapshot_id, model_name__in={f.model.name for f in follows}
    ).select_related("previous")
    return {row.model_name: row for row in found}


def _item_moves(follow: Follow, agent_rows, signal_rows) -> list[ItemMoves]:
    items = []
    if follow.harness_id:
        for row in agent_rows.get((follow.harness_id, follow.model_id), []):
            moved = [c for c in entry_changes(row) if c.past_interval]
            if moved:
                items.append(ItemMoves(follow, row.board_slug, row, moved))
        return items
    row = signal_rows.get(follow.model.name)
    if row is not None:
        moved = [c for c in signal_changes(row) if c.past_interval]
        if moved:
            items.append(ItemMoves(follow, None, row, moved))
    return items
