"""Fitting every board's harness × model decomposition of a snapshot.

The fit needs every (harness, model, task) cell of a board, and costs a few tenths of a
second for a large board: more than the whole recompute after an ingest may take
(performance.md). So the recompute only asks for it (tasks.effects_kick, on commit), and
a task of its own (tasks.effects_fit) fits the new snapshot's boards from the
rollups; until it has, the page shows the previous snapshot's fit and says so
(docs/decisions.md, "Harness × model effects").
"""

from __future__ import annotations

import time
from collections import defaultdict

from django.db import transaction

from ingestion.models import Harness
from leaderboard.boards.totals import AgentKey, AgentTotals, agent_totals
from leaderboard.methodology.decomposition import Decomposition, Effect, decompose
from leaderboard.models import (
    Board,
    BoardDecomposition,
    BoardEffect,
    BoardEntry,
    BoardSnapshot,
    EffectKind,
)

Cell = tuple[int, int, int, int, int]  # harness id, model id, task id, passes, trials
# What the fit reads of each entry (names, Minimal flags, latest submissions).
_ENTRY_FIELDS = (
    "harness_id", "model_id", "harness_name", "harness_version", "model_name",
    "minimal_baseline", "latest_submission_at",
)  # fmt: skip


@transaction.atomic
def effects_snapshot_write(*, snapshot_id: int) -> bool:
    """Fit and store the decomposition of every board of a snapshot, once.

    False when there is nothing to do: the snapshot is gone (pruned) or already fitted.
    The rollups are read as they are now; were evidence to change meanwhile, its own
    recompute asks for a fit of the snapshot that shows it.
    """
    # Serialises two fits of one snapshot (a retried task): the second finds it done.
    snapshot = BoardSnapshot.objects.select_for_update().filter(pk=snapshot_id).first()
    boards = list(Board.objects.filter(snapshot=snapshot)) if snapshot else []
    if not boards or BoardDecomposition.objects.filter(board__in=boards).exists():
        return False
    entries = _snapshot_entries(boards)
    cells = _cells_from_totals(agent_totals(percentiles=False, task_sums=False))
    labels = _labels(entries)
    for board in boards:
        _board_write(board, cells.get(board.slug, []), entries.get(board.slug, []), labels)
    return True


def _snapshot_entries(boards: list[Board]) -> dict[str, list[dict]]:
    """Board slug -> its entries, named as compute.fresh_entries names them."""
    slugs = {board.pk: board.slug for board in boards}
    entries: dict[str, list[dict]] = defaultdict(list)
    for row in BoardEntry.objects.filter(board__in=boards).values("board_id", *_ENTRY_FIELDS):
        row["harness"], row["model"] = row.pop("harness_name"), row.pop("model_name")
        entries[slugs[row.pop("board_id")]].append(row)
    return entries


def _cells_from_totals(totals: dict[AgentKey, AgentTotals]) -> dict[str, list[Cell]]:
    """The board's own counting (AgentTotals.per_task: task -> [counted trials, passes],
    infra errors and conflict-excluded runs already left out)."""
    cells: dict[str, list[Cell]] = defaultdict(list)
    for (board, harness_id, model_id), t in totals.items():
        for task_id, (trials, passes) in t.per_task.items():
            if trials:
                cells[board].append((harness_id, model_id, task_id, passes, trials))
    return cells


def _labels(entries: dict[str, list[dict]]) -> dict[tuple[str, int], str]:
    """Display names of every harness (as Harness names itself, one query) and model on
    any board."""
    labels: dict[tuple[str, int], str] = {}
    for board_entries in entries.values():
        for e in board_entries:
            labels[("model", e["model_id"])] = e["model"]
            labels[("harness", e["harness_id"])] = ""
    harness_ids = [key for side, key in labels if side == "harness"]
    for harness in Harness.objects.filter(pk__in=harness_ids).select_related("independent_by"):
        labels[("harness", harness.pk)] = str(harness)
    return labels


def minimal_baseline(entries: list[dict]) -> int | None:
    """The Minimal harness of a board: of several Minimal versions, the most recently
    submitted one (as compute.award_token_saving chooses)."""
    latest: dict[int, object] = {}
    for e in entries:
        if e["minimal_baseline"] and e["latest_submission_at"] is not None:
            previous = latest.get(e["harness_id"])
            latest[e["harness_id"]] = max(filter(None, (previous, e["latest_submission_at"])))
    return max(latest, key=lambda h: (latest[h], h)) if latest else None


def _board_write(
    board: Board, cells: list[Cell], entries: list[dict], labels: dict[tuple[str, int], str]
) -> None:
    baseline = minimal_baseline(entries)
    started = time.monotonic()
    result = decompose(cells, harness_reference=baseline)
    fit_ms = int((time.monotonic() - started) * 1000)
    BoardDecomposition.objects.create(
        board=board,
        thin_reason=result.thin_reason or "",
        baseline_is_minimal=baseline is not None,
        harness_reference=labels.get(("harness", result.harness_reference), ""),
        model_reference=labels.get(("model", result.model_reference), ""),
        tasks_fitted=result.tasks_fitted,
        tasks_uninformative=result.tasks_uninformative,
        cells_fitted=result.cells_fitted,
        runs_fitted=result.runs_fitted,
        fit_ms=fit_ms,
    )
    BoardEffect.objects.bulk_create(_effect_rows(board, result, labels), batch_size=1000)


def _effect_rows(
    board: Board, result: Decomposition, labels: dict[tuple[str, int], str]
) -> list[BoardEffect]:
    rows = []
    for kind, effects in (
        (EffectKind.HARNESS, result.harnesses),
        (EffectKind.MODEL, result.models),
    ):
        rows += [_effect_row(board, kind, i, e, labels) for i, e in enumerate(effects)]
    return rows


def _effect_row(
    board: Board, kind: str, position: int, effect: Effect, labels: dict[tuple[str, int], str]
) -> BoardEffect:
    return BoardEffect(
        board=board,
        kind=kind,
        position=position,
        subject_id=effect.key,
        name=labels.get((kind, effect.key), f"#{effect.key}"),
        is_reference=effect.is_reference,
        tasks=effect.tasks,
        runs=effect.runs,
        estimate=effect.estimate,
        std_error=effect.std_error,
        low=effect.low,
        high=effect.high,
        thin_reason=effect.thin_reason or "",
    )
