"""Reading history: a board's change log and an agent's figures over time.

Every read is a fixed number of queries whatever the size of the history: a change
log page reads its snapshot ids, their changed entries (capped per snapshot with a
window function) and their causes; an agent's history reads its last rows and their
causes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber

from ingestion.evidence import CAUSE_KINDS
from ingestion.models import Harness
from leaderboard.models import Board, BoardSnapshot, EntryHistory, SnapshotCause

SNAPSHOTS_PER_PAGE = 20
# A change that moves one entry to the top moves every rank below it: past this many
# changed entries a snapshot says how many more there are instead of listing them.
CHANGES_SHOWN = 50
# An agent page shows at most this many history rows (its latest changes).
AGENT_HISTORY_ROWS = 200
KIND_LABELS = dict(CAUSE_KINDS)


@dataclass(frozen=True)
class Cause:
    kind: str
    record_id: int | None
    label: str

    @property
    def kind_label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)


@dataclass(frozen=True)
class EntryChange:
    """One entry's change in a snapshot: `before` is None for a new entry, `after` is
    None for a removed one."""

    before: EntryHistory | None
    after: EntryHistory | None
    row: EntryHistory  # the history row itself (names, keys)
    account: str | None = None  # the uploader of an independent run (its page's address)

    @property
    def kind(self) -> str:
        if self.after is None:
            return "removed"
        return "new" if self.before is None else "changed"

    @property
    def rank_moved(self) -> bool:
        return (
            self.before is not None
            and self.after is not None
            and (self.before.rank != self.after.rank)
        )


@dataclass
class SnapshotChanges:
    snapshot_id: int
    computed_at: datetime
    causes: list[Cause] = field(default_factory=list)
    changes: list[EntryChange] = field(default_factory=list)
    changed_total: int = 0

    @property
    def changes_omitted(self) -> int:
        return self.changed_total - len(self.changes)


@dataclass(frozen=True)
class ChangeLog:
    slug: str
    title: str
    page: Page
    snapshots: list[SnapshotChanges]


def board_title(slug: str) -> str | None:
    """The title of a board of the current snapshot; None when there is no such board."""
    return Board.objects.current().filter(slug=slug).values_list("title", flat=True).first()


def current_computed_at() -> datetime | None:
    snapshot = BoardSnapshot.objects.current()
    return snapshot.computed_at if snapshot else None


def board_change_log(*, slug: str, title: str, page_number: object = 1) -> ChangeLog:
    """The snapshots that changed something on board `slug`, newest first, one page."""
    snapshot_ids = (
        EntryHistory.objects.filter(board_slug=slug)
        .order_by("-snapshot_id")
        .values_list("snapshot_id", flat=True)
        .distinct()
    )
    page = Paginator(snapshot_ids, SNAPSHOTS_PER_PAGE).get_page(page_number)
    ids = list(page.object_list)
    by_snapshot: dict[int, SnapshotChanges] = {}
    rows = _changed_rows(slug, ids)
    accounts = _independent_accounts({row.harness_id for row in rows})
    for row in rows:
        changes = by_snapshot.setdefault(
            row.snapshot_id, SnapshotChanges(row.snapshot_id, row.valid_from)
        )
        changes.changed_total = row.changed_total
        changes.changes.append(_entry_change(row, accounts.get(row.harness_id)))
    causes = causes_by_snapshot(ids)
    for snapshot_id, changes in by_snapshot.items():
        changes.causes = causes.get(snapshot_id, [])
    snapshots = [by_snapshot[i] for i in ids if i in by_snapshot]
    return ChangeLog(slug=slug, title=title, page=page, snapshots=snapshots)


def _changed_rows(slug: str, snapshot_ids: list[int]) -> list[EntryHistory]:
    # Removals last; then the new order of the board.
    order = [F("removed").asc(), F("rank").asc(nulls_last=True), "harness_name", "model_name"]
    partition = [F("snapshot_id")]
    rows = (
        EntryHistory.objects.filter(board_slug=slug, snapshot_id__in=snapshot_ids)
        .select_related("previous")
        .annotate(
            row_number=Window(RowNumber(), partition_by=partition, order_by=order),
            changed_total=Window(Count("id"), partition_by=partition),
        )
        .filter(row_number__lte=CHANGES_SHOWN)
        .order_by("-snapshot_id", "row_number")
    )
    return list(rows)


def _entry_change(row: EntryHistory, account: str | None) -> EntryChange:
    before = row.previous if row.previous is not None and not row.previous.removed else None
    return EntryChange(before=before, after=None if row.removed else row, row=row, account=account)


def _independent_accounts(harness_ids: set[int]) -> dict[int, str]:
    """The uploader of each independent run among these harnesses (one query, none
    when there are no rows)."""
    if not harness_ids:
        return {}
    rows = Harness.objects.filter(pk__in=harness_ids, independent_by__isnull=False)
    return dict(rows.values_list("pk", "independent_by__username"))


def causes_by_snapshot(snapshot_ids: Iterable[int]) -> dict[int, list[Cause]]:
    """Why each of these snapshots was computed, one query."""
    causes: dict[int, list[Cause]] = defaultdict(list)
    rows = SnapshotCause.objects.filter(snapshot_id__in=list(snapshot_ids)).order_by("pk")
    for snapshot_id, kind, record_id, label in rows.values_list(
        "snapshot_id", "kind", "record_id", "label"
    ):
        causes[snapshot_id].append(Cause(kind, record_id, label))
    return causes


# ---------------------------------------------------------------------------------
# An agent's history


@dataclass(frozen=True)
class HistoryPoint:
    row: EntryHistory
    board_title: str
    causes: list[Cause]


@dataclass(frozen=True)
class AgentHistory:
    points: list[HistoryPoint]  # newest first
    truncated: bool  # older changes exist beyond AGENT_HISTORY_ROWS

    def series(self) -> dict[str, list[HistoryPoint]]:
        """Points per board title, oldest first (what a chart draws)."""
        boards: dict[str, list[HistoryPoint]] = {}
        for point in reversed(self.points):
            boards.setdefault(point.board_title, []).append(point)
        return boards

    @property
    def recorded_states(self) -> int:
        """How many recomputes changed the agent's entries (each wrote one row per board
        it changed): one state may span several boards' rows."""
        return len({point.row.snapshot_id for point in self.points})

    @property
    def has_trend(self) -> bool:
        """Some board has two recorded states to compare: a line, not a dot."""
        return any(
            sum(1 for p in points if not p.row.removed) >= 2 for points in self.series().values()
        )


def agent_history(
    *, harness_id: int, model_id: int, limit: int = AGENT_HISTORY_ROWS
) -> AgentHistory:
    """The last `limit` changes of an agent's entries on every board: three queries."""
    rows = list(
        EntryHistory.objects.filter(harness_id=harness_id, model_id=model_id)
        .select_related("previous")  # what each row changed (feeds, alerts)
        .order_by("-snapshot_id", "board_slug")[: limit + 1]
    )
    truncated = len(rows) > limit
    rows = rows[:limit]
    titles = dict(Board.objects.current().values_list("slug", "title"))
    causes = causes_by_snapshot({row.snapshot_id for row in rows})
    points = [
        HistoryPoint(
            row, titles.get(row.board_slug, row.board_slug), causes.get(row.snapshot_id, [])
        )
        for row in rows
    ]
    return AgentHistory(points=points, truncated=truncated)
