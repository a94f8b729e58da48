"""Recomputing the boards into a new snapshot, swapped in atomically."""

from __future__ import annotations

import time

from django.db import transaction
from django.utils import timezone

from ingestion.models import Harness, LanguageModel, Suite
from leaderboard.boards import AgentName, board_aggregates, build_board_entries
from leaderboard.models import Board, BoardEntry, BoardSnapshot, BoardState

# Snapshots older than the current one are kept for a while (a reader may still be
# paging through one) and then deleted, so the tables stay the size of a few boards.
SNAPSHOTS_KEPT = 3

ENTRY_FIELDS = (
    "rank", "harness_name", "harness_version", "model_name", "minimal_baseline", "runs", "n",
    "passes", "pass_rate", "wilson_low", "wilson_high", "infra_errors", "infra_error_rate",
    "under_review", "conflict_excluded", "cost_per_success", "cost_per_success_status",
    "tokens_per_success", "pass_hat_k", "partial_score", "ttft_ms_p50", "ttft_ms_p95",
    "duration_s_p50", "duration_s_p95", "mean_steps", "mean_tool_calls",
)  # fmt: skip


def board_definitions() -> list[tuple[str, str]]:
    """(slug, title) of every benchmark board, in the order the tabs show them."""
    suites = Suite.objects.filter(official=True).order_by("pk")
    return [("overall", "Overall"), ("coding", "Coding")] + [
        (s.board_slug, f"{s.name} {s.version}") for s in suites
    ]


def agent_names() -> dict[tuple[int, int], AgentName]:
    harnesses = {h.pk: h for h in Harness.objects.all()}
    models = dict(LanguageModel.objects.values_list("pk", "name"))
    return {
        (h_id, m_id): AgentName(h.name, h.version, m_name, h.minimal_baseline)
        for h_id, h in harnesses.items()
        for m_id, m_name in models.items()
    }


@transaction.atomic
def boards_recompute() -> BoardSnapshot:
    """Compute every board from the runs and make the result the current snapshot."""
    started = time.monotonic()
    boards = build_board_entries(board_aggregates(), agent_names())
    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now())
    for position, (slug, title) in enumerate(board_definitions()):
        _board_write(snapshot, slug, title, position, boards.get(slug, []))
    snapshot.runs_total = sum(e["runs"] for e in boards.get("overall", []))
    snapshot.duration_ms = int((time.monotonic() - started) * 1000)
    snapshot.save(update_fields=["runs_total", "duration_ms"])
    _snapshot_swap(snapshot)
    BoardState.objects.update_or_create(pk=1, defaults={"computed_at": snapshot.computed_at})
    return snapshot


def _board_write(
    snapshot: BoardSnapshot, slug: str, title: str, position: int, entries: list[dict]
) -> None:
    board = Board.objects.create(
        snapshot=snapshot, slug=slug, title=title, position=position, entry_count=len(entries)
    )
    BoardEntry.objects.bulk_create(
        [_entry_row(board, position, entry) for position, entry in enumerate(entries)],
        batch_size=1000,
    )


def _entry_row(board: Board, position: int, entry: dict) -> BoardEntry:
    values = {
        "harness_name": entry["harness"],
        "model_name": entry["model"],
        "token_saving_ratio": entry["token_saving"]["ratio"],
        "token_saving_awarded": entry["token_saving"]["awarded"],
    }
    values.update({f: entry[f] for f in ENTRY_FIELDS if f in entry})
    return BoardEntry(
        board=board,
        position=position,
        harness_id=entry["harness_id"],
        model_id=entry["model_id"],
        **values,
    )


def _snapshot_swap(snapshot: BoardSnapshot) -> None:
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    BoardSnapshot.objects.filter(pk=snapshot.pk).update(is_current=True)
    snapshot.is_current = True
    stale = BoardSnapshot.objects.order_by("-computed_at", "-pk").values_list("pk", flat=True)[
        SNAPSHOTS_KEPT:
    ]
    BoardSnapshot.objects.filter(pk__in=list(stale)).delete()
