"""What the home page reads: every current board's leaders and freshness, and what
Overall pools, in a fixed number of queries whatever the number of rows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, F, Max, Q, Window
from django.db.models.functions import Rank, RowNumber

from ingestion.models import Suite
from leaderboard.boards.catalogue import AGGREGATE, CATEGORY, SUITE, board_kind
from leaderboard.boards.versions import latest_versions_only
from leaderboard.models import Board, BoardEntry

# The leaders a board's card shows.
LEADERS = 3


@dataclass
class BoardCard:
    board: Board
    kind: str  # catalogue.AGGREGATE, SUITE or CATEGORY
    leaders: list[BoardEntry] = field(default_factory=list)
    # The newest submission counted on the board: when its figures last moved.
    latest_submission_at: datetime | None = None


@dataclass(frozen=True)
class PooledSuite:
    board_slug: str
    title: str
    tasks: int


@dataclass
class Overview:
    cards: list[BoardCard]
    pooled: list[PooledSuite]  # the suites Overall pools, with their approved tasks

    def of_kind(self, kind: str) -> list[BoardCard]:
        return [card for card in self.cards if card.kind == kind]

    @property
    def aggregate(self) -> list[BoardCard]:
        return self.of_kind(AGGREGATE)

    @property
    def suites(self) -> list[BoardCard]:
        return self.of_kind(SUITE)

    @property
    def categories(self) -> list[BoardCard]:
        return self.of_kind(CATEGORY)


def overview(boards: list[Board]) -> Overview:
    """The boards' cards in tab order, with their first LEADERS ranked entries and their
    newest submission, and the suites Overall pools (three queries)."""
    leaders: dict[int, list[BoardEntry]] = defaultdict(list)
    for entry in board_leaders(boards):
        leaders[entry.board_id].append(entry)
    latest = dict(
        BoardEntry.objects.filter(board__in=boards)
        .values("board_id")
        .annotate(latest=Max("latest_submission_at"))
        .values_list("board_id", "latest")
    )
    cards = [
        BoardCard(board, board_kind(board.slug), leaders[board.pk], latest.get(board.pk))
        for board in boards
    ]
    return Overview(cards, overall_suites() if boards else [])


def board_leaders(boards: list[Board]) -> list[BoardEntry]:
    """The first LEADERS ranked rows of each board as its page shows them by default
    (the latest version of each harness per model, leaderboard.boards.versions), ranked
    among those rows as the page ranks them (competition ranks by wilson_low, the
    window's `rank()`), `tied` when another kept row shares the rank (one query)."""
    board = F("board_id")
    kept = latest_versions_only(BoardEntry.objects.filter(board__in=boards, rank__isnull=False))
    rows = (
        kept.annotate(
            view_rank=Window(Rank(), partition_by=board, order_by=F("wilson_low").desc()),
            sharing=Window(Count("pk"), partition_by=[board, F("wilson_low")]),
            nth=Window(RowNumber(), partition_by=board, order_by=F("position").asc()),
        )
        .filter(nth__lte=LEADERS)
        .select_related("harness__independent_by")
        .order_by("board_id", "position")
    )
    leaders = list(rows)
    for entry in leaders:
        entry.rank_all, entry.rank, entry.tied = entry.rank, entry.view_rank, entry.sharing > 1
    return leaders


def overall_suites() -> list[PooledSuite]:
    """The official suites that join Overall, with their approved tasks (one query)."""
    suites = (
        Suite.objects.filter(official=True, in_overall=True)
        .annotate(approved=Count("tasks", filter=Q(tasks__approved=True)))
        .order_by("pk")
    )
    return [PooledSuite(s.board_slug, f"{s.name} {s.version}", s.approved) for s in suites]
