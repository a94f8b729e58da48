"""Filling a snapshot's interval bounds after it is swapped in.

The bounds are the costly part of a recompute: the pass^k and pass@k bootstrap (1,000
resamples of every entry's tasks), the time horizon's hierarchical bootstrap and the
means' task-clustered intervals. The worker's recompute publishes every point figure in
the swap and leaves the bounds of the entries it recomputed null, marked
`intervals_pending` (the entries carried over keep theirs); this service, run by a task
of its own once that snapshot commits (interval_tasks), computes them from the rollups
with the same code, seeds and order as an inline recompute, and clears the marks. Until
it has, the board page, the API and the CSV say "intervals being computed".

The rollups are read as they are now. An entry whose runs changed meanwhile (its counts
or point pass^k no longer match) is left pending: the change's own recompute, already
asked for, publishes a snapshot with that entry recomputed, and its task fills it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.db.models.functions import Now

from leaderboard.boards import intervals
from leaderboard.boards.compute import finite
from leaderboard.boards.horizons import HorizonTasks, board_horizon
from leaderboard.boards.totals import AgentTotals, agent_totals
from leaderboard.models import Board, BoardEntry
from leaderboard.recompute.announcements import snapshot_filling
from leaderboard.recompute.services import RECOMPUTE_LOCK

# What the fill writes on each entry.
FILLED_FIELDS = ("pass_hat_k", "horizon", *intervals.MEAN_BOUND_FIELDS, "intervals_pending")
_READ_FIELDS = (
    "board__slug", "harness_id", "model_id", "harness_name", "harness_version", "model_name",
    "n", "passes", "pass_hat_k", "horizon",
)  # fmt: skip


@transaction.atomic
def intervals_snapshot_fill(*, snapshot_id: int) -> int:
    """Compute and store the pending interval bounds of a snapshot's entries; returns
    how many entries were filled (0: the snapshot is gone or nothing is pending)."""
    _fill_lock(snapshot_id)
    pending = list(
        BoardEntry.objects.filter(board__snapshot_id=snapshot_id, intervals_pending=True)
        .select_related("board")
        .only("pk", *_READ_FIELDS)
    )
    if not pending:
        return 0
    totals = agent_totals(harness_ids=sorted({e.harness_id for e in pending}), percentiles=False)
    filled = _filled(pending, totals)
    snapshot_filling.send(sender=__name__, snapshot_id=snapshot_id)
    BoardEntry.objects.bulk_update(filled, FILLED_FIELDS, batch_size=500)
    still = BoardEntry.objects.filter(board=OuterRef("pk"), intervals_pending=True)
    Board.objects.filter(snapshot_id=snapshot_id, intervals_pending=True).exclude(
        Exists(still)
    ).update(intervals_pending=False)
    return len(filled)


def intervals_unfilled(*, older_than_s: float = 60) -> int | None:
    """The current snapshot's id when some of its bounds have waited longer than
    `older_than_s` since it was computed (its task lost), else None."""
    snapshot = (
        Board.objects.filter(
            snapshot__is_current=True,
            intervals_pending=True,
            snapshot__computed_at__lte=Now() - timedelta(seconds=older_than_s),
        )
        .values_list("snapshot_id", flat=True)
        .first()
    )
    return snapshot


def _fill_lock(snapshot_id: int) -> None:
    """Serialises two fills of one snapshot (a retried task: the second finds nothing
    pending) without touching the snapshot row, which the next swap updates."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [RECOMPUTE_LOCK, snapshot_id])


def _filled(pending: Iterable[BoardEntry], totals: dict[tuple, AgentTotals]) -> list[BoardEntry]:
    """The pending entries whose runs are still the ones their figures came from, with
    their bounds set; in key order, the order fresh_entries batches the bootstrap in."""
    current = sorted(
        ((key, e) for e in pending if _unchanged(e, totals.get(key := _key(e)))),
        key=lambda pair: pair[0],
    )
    tables = intervals.pass_k_tables([totals[key] for key, _ in current])
    found = HorizonTasks.read()
    for (key, entry), table in zip(current, tables, strict=True):
        t = totals[key]
        entry.pass_hat_k = table
        for field, value in intervals.entry_mean_bounds(t).items():
            setattr(entry, field, finite(value))
        if entry.horizon:
            named = {
                "harness": entry.harness_name,
                "harness_version": entry.harness_version,
                "model": entry.model_name,
            }
            entry.horizon = board_horizon(found, key[0], named, t.per_task)
        entry.intervals_pending = False
    return [entry for _, entry in current]


def _key(entry: BoardEntry) -> tuple[str, int, int]:
    return (entry.board.slug, entry.harness_id, entry.model_id)


def _unchanged(entry: BoardEntry, t: AgentTotals | None) -> bool:
    """Whether the totals are the ones the entry's figures were computed from."""
    if t is None or (t.n, t.passes) != (entry.n, entry.passes):
        return False
    (point,) = intervals.pass_k_tables([t], bounds=False)
    return point == entry.pass_hat_k
