"""History rows written directly, many at once: what a long-lived board accumulates,
for the tests that count the queries of its readers (feeds, alerts)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from leaderboard.methodology.stats import wilson_interval
from leaderboard.models import EntryHistory, SignalHistory, SnapshotCause

# Snapshot ids far above the ones the tests' recomputes take.
FIRST_SNAPSHOT = 10_000


def entry_chain(
    *, board: str, harness_id: int, model_id: int, name: str, snapshots: int
) -> list[EntryHistory]:
    """One agent's rows on `board`, one per snapshot from FIRST_SNAPSHOT, each chained
    to the one before: its pass rate swings between 1 and 9 in 10, past the previous
    row's interval every time."""
    rows: list[EntryHistory] = []
    previous = None
    for i in range(snapshots):
        passes = 9 if i % 2 else 1
        low, high = wilson_interval(passes, 10)
        previous = EntryHistory.objects.create(
            board_slug=board, harness_id=harness_id, model_id=model_id,
            snapshot_id=FIRST_SNAPSHOT + i, valid_from=_time(i), previous=previous,
            is_latest=i == snapshots - 1, harness_name=name, harness_version="1.0.0",
            model_name="m", rank=1, n=10, passes=passes, pass_rate=passes / 10,
            wilson_low=low, wilson_high=high, rank_best=1, rank_worst=1,
        )  # fmt: skip
        rows.append(previous)
    return rows


def signal_chain(*, model: str, snapshots: int) -> list[SignalHistory]:
    """One signal model's rows, one per snapshot from FIRST_SNAPSHOT: its confirmed
    success swings between 3 and 27 in 30, past the previous row's interval every time."""
    rows: list[SignalHistory] = []
    previous = None
    for i in range(snapshots):
        confirmed = 27 if i % 2 else 3
        low, high = wilson_interval(confirmed, 30)
        figures = {"confirmed_success": {"value": confirmed / 30, "low": low, "high": high}}
        previous = SignalHistory.objects.create(
            model_name=model, snapshot_id=FIRST_SNAPSHOT + i, valid_from=_time(i),
            previous=previous, is_latest=i == snapshots - 1, rank=1, sessions=30,
            figures=figures,
        )  # fmt: skip
        rows.append(previous)
    return rows


def causes(snapshots: int) -> None:
    """Two causes for each snapshot."""
    SnapshotCause.objects.bulk_create(
        SnapshotCause(snapshot_id=FIRST_SNAPSHOT + i, kind=kind, label=f"cause {i}")
        for i in range(snapshots)
        for kind in ("submission", "other")
    )


def _time(i: int):
    return timezone.now() - timedelta(days=365) + timedelta(hours=i)
