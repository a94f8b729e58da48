"""Recomputing the boards into a new snapshot, swapped in atomically.

Only the recompute room calls this (see leaderboard.recompute). A full recompute
reads every run and session. After an ingest, withdrawal or conflict
decision only the harnesses concerned can have changed, so the incremental path
recomputes their rows and carries every other agent's figures over from the current
snapshot; ranks and Token Saving badges, which depend on the whole board, are always
redone. The signal board is recomputed only when sessions changed, else carried over.

`boards_recompute_pending` is what the worker and the sweep run: it claims the outbox
requests, recomputes what they cover, and deletes them in the transaction that swaps
the snapshot in, so a recompute that dies leaves its requests for the next one.
"""

from __future__ import annotations

import datetime
import time
from functools import partial

from django.db import connection, transaction
from django.utils import timezone
from psycopg import sql

from ingestion.models import Harness, LanguageModel, Task
from leaderboard.boards.catalogue import board_definitions, is_aggregate
from leaderboard.boards.compute import (
    AgentName,
    finish_boards,
    fresh_entries,
)
from leaderboard.boards.horizons import board_horizons
from leaderboard.boards.run_configs import entry_run_configs, run_config_fields
from leaderboard.boards.totals import CoverageOf, agent_totals
from leaderboard.boards.traces import entry_traces, trace_fields
from leaderboard.effects.tasks import effects_kick
from leaderboard.history.services import (
    history_record,
    signal_history_record,
    snapshot_causes_record,
)
from leaderboard.models import Board, BoardSnapshot, BoardState
from leaderboard.recompute.announcements import snapshot_swapping
from leaderboard.recompute.entries import board_entries_write, entries_carry_over
from leaderboard.recompute.interval_tasks import intervals_kick
from leaderboard.recompute.outbox import requests_claim, requests_delete
from leaderboard.recompute.safety import safety_write
from leaderboard.signalboard.snapshot import signals_carry_over, signals_snapshot_write
from leaderboard.signalboard.turn_labelling import turns_label_pending

# Older snapshots are kept for a while (a reader may still be on one), then deleted.
SNAPSHOTS_KEPT = 3
# Serialises recomputes across processes: two at once would each swap in a snapshot
# missing the other's changes.
RECOMPUTE_LOCK = 7_201_001
# Sorting inside the percentile aggregates should stay in memory.
RECOMPUTE_WORK_MEM = "128MB"


def agent_names(pairs: set[tuple[int, int]]) -> dict[tuple[int, int], AgentName]:
    """Names of the (harness id, model id) agents that have figures: two queries."""
    harnesses = Harness.objects.in_bulk({harness_id for harness_id, _ in pairs})
    models = LanguageModel.objects.in_bulk({model_id for _, model_id in pairs})
    return {
        (h, m): AgentName(
            harnesses[h].name,
            harnesses[h].version,
            models[m].name,
            harnesses[h].minimal_baseline,
            about=_about(harnesses[h], models[m]),
        )
        for h, m in pairs
    }


def task_publication_dates() -> dict[int, datetime.date]:
    """Task id -> publication date, for the tasks that have one (one query)."""
    dated = Task.objects.filter(published_on__isnull=False)
    return dict(dated.values_list("pk", "published_on"))


def _about(harness: Harness, model: LanguageModel) -> dict:
    return {
        "model_organisation": model.organisation,
        "open_weights": model.open_weights,
        "model_release_date": model.release_date,
        "knowledge_cutoff": model.knowledge_cutoff,
        "harness_organisation": harness.organisation,
        "harness_open_source": harness.open_source,
    }


@transaction.atomic
def boards_recompute_pending(*, full: bool = False) -> BoardSnapshot | None:
    """Recompute what the outbox asks for (everything with `full`) and delete the
    requests covered, all in one transaction; None when nothing was asked for.

    The recompute lock is taken before claiming, so requests that arrive during a
    recompute are left for the next one, which waits for this one to commit.
    """
    _recompute_lock()
    scope = requests_claim()
    if not scope.request_ids and not full:
        return None
    harness_ids = None if full else scope.harness_ids
    snapshot = boards_recompute(
        harness_ids=harness_ids, signals=scope.sessions, defer_intervals=True
    )
    snapshot_causes_record(snapshot=snapshot, causes=scope.causes)
    requests_delete(scope)
    return snapshot


@transaction.atomic
def boards_recompute(
    *, harness_ids: list[int] | None = None, signals: bool = False, defer_intervals: bool = False
) -> BoardSnapshot:
    """Compute the boards and make the result the current snapshot.

    With `harness_ids`, only those harnesses' runs are read again (see module doc), and
    the signal board is carried over unless `signals` says sessions changed. A full
    recompute (no `harness_ids`) recomputes the signal board too. With
    `defer_intervals`, the bootstrap and clustered interval bounds of the entries
    recomputed are left to a task run once the snapshot commits (recompute.intervals).
    """
    started = time.monotonic()
    _prepare_session()
    current = BoardSnapshot.objects.current()
    if current is None:
        harness_ids = None  # nothing to carry over
    bounds = not defer_intervals
    totals = agent_totals(harness_ids=harness_ids, task_sums=bounds)
    names = agent_names({(h, m) for _, h, m in totals})
    by_board = fresh_entries(totals, names, task_publication_dates(), bounds=bounds)
    configs = entry_run_configs(harness_ids=harness_ids)
    traces = entry_traces(harness_ids=harness_ids)
    for board, entries in by_board.items():
        for entry in entries:
            key = (board, entry["harness_id"], entry["model_id"])
            entry.update(run_config_fields(configs.get(key)))
            entry.update(trace_fields(traces.get(key)))
    board_horizons(by_board, {key: t.per_task for key, t in totals.items()}, bounds=bounds)
    if harness_ids is not None:
        entries_carry_over(current, set(harness_ids), by_board)
    boards = finish_boards(by_board, CoverageOf.read())
    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now())
    definitions = board_definitions()
    for position, (slug, title) in enumerate(definitions):
        _board_write(snapshot, slug, title, position, boards.get(slug, []))
    safety_write(snapshot, boards, definitions, agent_names)  # runs under attack
    # Harness × model effects need the whole board and a fit: a task of their own.
    transaction.on_commit(partial(effects_kick, snapshot.pk), robust=True)
    if any(entry["intervals_pending"] for entries in boards.values() for entry in entries):
        transaction.on_commit(partial(intervals_kick, snapshot.pk), robust=True)
    if harness_ids is None or signals:
        turns_label_pending()
        signals_snapshot_write(snapshot)
    else:
        signals_carry_over(current, snapshot)
    # Every counted run is on exactly one suite board (not every suite joins Overall).
    snapshot.runs_total = sum(
        entry["runs"]
        for slug, entries in boards.items()
        if not is_aggregate(slug)
        for entry in entries
    )
    snapshot.duration_ms = int((time.monotonic() - started) * 1000)
    snapshot.save(update_fields=["runs_total", "sessions_total", "duration_ms", "safety_boards"])
    _snapshot_swap(snapshot)
    history_record(snapshot=snapshot)  # survives the pruning of old snapshots
    signal_history_record(snapshot=snapshot)
    BoardState.objects.update_or_create(pk=1, defaults={"computed_at": snapshot.computed_at})
    return snapshot


def recompute_running() -> bool:
    """Whether some process holds the recompute lock (is recomputing) right now."""
    with connection.cursor() as cursor:
        cursor.execute(
            # pg_locks lists the whole cluster's locks: only this database's count.
            "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1"
            " AND classid = 0 AND objid = %s AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [RECOMPUTE_LOCK],
        )
        return cursor.fetchone() is not None


def _recompute_lock() -> None:
    """Wait for any other recompute to commit (the lock is held until this transaction
    ends; taking it again in the same transaction is a no-op)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [RECOMPUTE_LOCK])


def _prepare_session() -> None:
    _recompute_lock()
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("SET LOCAL work_mem = {}").format(sql.Literal(RECOMPUTE_WORK_MEM)))
        # Fresh statistics on the small tables keep the planner from nested-looping
        # over the runs table when a status filter is misestimated.
        cursor.execute("ANALYZE ingestion_submission, ingestion_harness")


def _board_write(
    snapshot: BoardSnapshot, slug: str, title: str, position: int, entries: list[dict]
) -> None:
    board = Board.objects.create(
        snapshot=snapshot,
        slug=slug,
        title=title,
        position=position,
        entry_count=len(entries),
        intervals_pending=any(entry["intervals_pending"] for entry in entries),
    )
    board_entries_write(board, entries)


def _snapshot_swap(snapshot: BoardSnapshot) -> None:
    snapshot_swapping.send(sender=__name__, snapshot_id=snapshot.pk)
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    BoardSnapshot.objects.filter(pk=snapshot.pk).update(is_current=True)
    snapshot.is_current = True
    older = BoardSnapshot.objects.order_by("-computed_at", "-pk").values_list("pk", flat=True)
    BoardSnapshot.objects.filter(pk__in=list(older[SNAPSHOTS_KEPT:])).delete()
