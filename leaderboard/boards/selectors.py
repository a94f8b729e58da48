"""Read-side selectors for the pages: what each page reads, in a fixed number of queries.

Board pages read only the current snapshot's Board and BoardEntry rows, whose every
figure is precomputed; agent and run pages read runs, never aggregating over them.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Exists, F, OuterRef, Prefetch, QuerySet, Value
from django.db.models.functions import Concat

from ingestion.models import Category, Harness, LanguageModel, Outcome, Run, Submission, Suite, Task
from ingestion.natural_order import natural_order
from leaderboard.boards.current import current_boards as current_boards  # its home
from leaderboard.boards.display import (
    GRID_SYMBOLS,
    AgentProfile,
    BoardTable,
    GridCell,
    GridRow,
    group_grid,
    run_status,
)
from leaderboard.boards.params import SORT_KEYS, BoardParams
from leaderboard.boards.rerank import ranks_among
from leaderboard.boards.safety import benign_runs
from leaderboard.boards.sql import VERIFIED, excluded_tasks_query
from leaderboard.boards.versions import latest_versions_only
from leaderboard.methodology.run_config import NON_STANDARD
from leaderboard.models import Board, BoardEntry, BoardSnapshot
from leaderboard.sorting import is_descending

# ---------------------------------------------------------------------------------
# Board pages


def pick_board(boards: list[Board], slug: str | None) -> Board | None:
    """The board named by slug, or the headline (first) board when slug is None."""
    if slug is None:
        return boards[0] if boards else None
    return next((board for board in boards if board.slug == slug), None)


def intervals_state(board: Board | None) -> str:
    """Part of a board's cache keys: its bounds land after the snapshot does, and the
    pages and API show them (and stop saying "being computed") without a new snapshot."""
    return "intervals=pending" if board is not None and board.intervals_pending else ""


def board_table(board: Board, params: BoardParams) -> BoardTable:
    """The board's rows as asked for: filtered and sorted in SQL, ranked among the rows
    the filters keep (one query, two with a text search)."""
    entries = board_rows(board, params)
    return BoardTable(
        ranked=[e for e in entries if e.rank is not None],
        unranked=[e for e in entries if e.rank is None],
        total=board.entry_count,
        leader=board_leader(board, entries),
    )


def board_rows(board: Board, params: BoardParams) -> list[BoardEntry]:
    """The rows the filters keep, in the order asked for, each ranked among the
    population the row filters keep (leaderboard.boards.rerank): `rank`, `rank_best`,
    `rank_worst`, `tied_with_leader` and `tied` are the view's, `rank_all` the
    published rank (one query; two with a text search, whose rows are only part of the
    population they are ranked in)."""
    population = _population(board, params)
    entries = list(_lookups(population, params).order_by(*_ordering(params), "position"))
    if params.model or params.harness:
        ranked = population.filter(rank__isnull=False).order_by("position")
        ranks = ranks_among(ranked.values_list("pk", "wilson_low", "wilson_high"))
    else:  # the rows shown are the population
        ranked = sorted((e for e in entries if e.rank is not None), key=lambda e: e.position)
        ranks = ranks_among((e.pk, e.wilson_low, e.wilson_high) for e in ranked)
    for entry in entries:
        entry.rank_all = entry.rank
        found = ranks.get(entry.pk)
        if found is not None:
            entry.rank, entry.rank_best, entry.rank_worst = found.rank, found.best, found.worst
            entry.tied_with_leader, entry.tied = found.tied_with_leader, found.shared
        else:
            entry.tied = False
    return entries


def board_leader(board: Board, shown: list[BoardEntry]) -> BoardEntry | None:
    """The board's first ranked entry (the rows' compare links point at it): among the
    rows shown when it is (no query), else read, whatever the filters hide."""
    leader = next((e for e in shown if e.position == 0), None)
    if leader is None:
        leader = (
            BoardEntry.objects.filter(board=board, position=0)
            .select_related("harness__independent_by")
            .first()
        )
    return leader if leader is not None and leader.rank is not None else None


def _population(board: Board, params: BoardParams) -> QuerySet[BoardEntry]:
    """The rows the row filters keep: the population the view ranks among. A filter
    added here re-ranks with no more code."""
    entries = BoardEntry.objects.filter(board=board)
    if not params.show_unranked:  # only unranked rows go: the ranked ones are unchanged
        entries = entries.filter(rank__isnull=False)
    if params.verified_only:
        entries = entries.filter(verification=VERIFIED)
    if params.complete_only:
        entries = entries.filter(coverage_tasks__gte=F("coverage_of"))
    if params.standard_only:
        entries = entries.exclude(run_config_status=NON_STANDARD)
    if params.open_weights_only:
        entries = entries.filter(open_weights=True)
    if params.released_after:
        entries = entries.filter(model_release_date__gt=params.released_after)
    if params.latest_only:
        entries = latest_versions_only(entries)
    return entries


def _lookups(entries: QuerySet[BoardEntry], params: BoardParams) -> QuerySet[BoardEntry]:
    """The text searches: finding a row among the population, not a population of their
    own, so the rows found keep the population's ranks."""
    # The harness row says whether the entry is an independent run, and by whom.
    entries = entries.select_related("harness__independent_by")
    if params.model:
        entries = entries.filter(model_name__icontains=params.model)
    if params.harness:
        # Matches "OpenHarness", "0.9" and "OpenHarness 0.9" alike.
        agent = Concat("harness_name", Value(" "), "harness_version")
        entries = entries.alias(harness_full=agent).filter(harness_full__icontains=params.harness)
    return entries


def _ordering(params: BoardParams) -> list:
    if not params.sort:
        return []
    descending = is_descending(params.sort)
    fields = SORT_KEYS[params.sort_key].fields
    # Missing figures (n/a cost, no interval) go last whichever way the column sorts:
    # the SQL form of sorting.sorted_missing_last.
    return [F(f).desc(nulls_last=True) if descending else F(f).asc(nulls_last=True) for f in fields]


def current_computed_at() -> Any:
    snapshot = BoardSnapshot.objects.current()
    return snapshot.computed_at if snapshot else None


# ---------------------------------------------------------------------------------
# Agent page


def agent_profile(harness: Harness, model: LanguageModel) -> AgentProfile:
    board_rows = list(
        BoardEntry.objects.filter(board__snapshot__is_current=True, harness=harness, model=model)
        .select_related("board")
        .order_by("board__position")
    )
    _mark_ties(board_rows)
    cells = task_grid_cells(harness, model)
    counts = {status: 0 for status in GRID_SYMBOLS}
    for _suite, _category, _task, cell in cells:
        counts[cell.status] += 1
    original = harness.original() if harness.is_independent else harness
    # An independent run's people are the maintainers' (the conflict rule reads them).
    people = {p.pk: p for p in harness.contributors.all()}
    if original is not None and original.pk != harness.pk:
        people.update((p.pk, p) for p in original.contributors.all())
    return AgentProfile(
        harness=harness,
        model=model,
        contributors=sorted(people.values(), key=lambda person: person.handle),
        original=original if original is not None and original.pk != harness.pk else None,
        board_rows=board_rows,
        grid=group_grid(cells),
        status_counts=counts,
        submissions=agent_submissions(harness, model),
        pass_k_entry=next((row for row in board_rows if row.pass_hat_k), None),
        runs_total=len(cells),
    )


def _mark_ties(rows: list[BoardEntry]) -> None:
    """Set `tied` on entries whose rank another entry of their board shares (one query)."""
    ranked = [row for row in rows if row.rank is not None]
    if not ranked:
        return
    shared = (
        BoardEntry.objects.filter(board__in=[row.board_id for row in ranked])
        .exclude(pk__in=[row.pk for row in ranked])
        .filter(rank__in=[row.rank for row in ranked])
        .values_list("board_id", "rank")
    )
    tied = set(shared)
    for row in rows:
        row.tied = (row.board_id, row.rank) in tied


def excluded_task_ids(harness: Harness) -> set[int]:
    """Tasks whose runs of this harness are conflict-excluded (methodology §2.2)."""
    if harness.minimal_baseline:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(excluded_tasks_query(), [harness.pk])
        return {row[0] for row in cursor.fetchall()}


def task_grid_cells(harness: Harness, model: LanguageModel) -> list[GridRow]:
    """(suite, category, task, cell) for every run of non-withdrawn submissions, ordered."""
    excluded = excluded_task_ids(harness)
    ingested = Run.objects.filter(
        harness=harness, model=model, submission__status=Submission.Status.INGESTED
    )
    runs = (
        benign_runs(ingested)  # runs under attack are the safety board's
        .order_by("task__suite__slug", "task__suite__version", "task__category__name",
                  *natural_order("task__task_id"), "trial", "id")
        .values_list("pk", "trial", "outcome", "task_id", "task__task_id",
                     "task__suite__name", "task__suite__slug", "task__suite__version",
                     "task__category__name")
    )  # fmt: skip
    return [
        (
            (f"{suite} {version}", slug, version),
            category,
            task_code,
            GridCell(pk, trial, run_status(outcome, task in excluded)),
        )
        for pk, trial, outcome, task, task_code, suite, slug, version, category in runs
    ]


def agent_submissions(harness: Harness, model: LanguageModel) -> list[Submission]:
    """The harness's submissions that hold runs of this model: counted ones and withdrawn."""
    has_model = Exists(Run.objects.filter(submission=OuterRef("pk"), model=model))
    statuses = [Submission.Status.INGESTED, Submission.Status.WITHDRAWN]
    return list(Submission.objects.filter(has_model, harness=harness, status__in=statuses))


# ---------------------------------------------------------------------------------
# Run page

VISIBLE_STATUSES = (Submission.Status.INGESTED, Submission.Status.WITHDRAWN)


def run_for_page(pk: int) -> Run | None:
    return (
        Run.objects.select_related(
            "task__suite", "task__category", "harness__independent_by", "model", "submission"
        )
        .filter(pk=pk, submission__status__in=VISIBLE_STATUSES)
        .first()
    )


def run_is_conflict_excluded(run: Run) -> bool:
    if run.outcome == Outcome.INFRA_ERROR:
        return False
    return run.task_id in excluded_task_ids(run.harness)


# ---------------------------------------------------------------------------------
# Methodology page


def official_suites() -> list[Suite]:
    """Official suites with their approved tasks, categories and authors (three queries)."""
    approved = (
        Task.objects.filter(approved=True).select_related("category").prefetch_related("authors")
    )
    return list(
        Suite.objects.filter(official=True)
        .order_by("pk")
        .prefetch_related(
            Prefetch(
                "tasks",
                queryset=approved.order_by(*natural_order("task_id")),
                to_attr="approved_tasks",
            )
        )
    )


def coding_categories() -> list[str]:
    return list(
        Category.objects.filter(coding=True).order_by("name").values_list("name", flat=True)
    )


def find_agent(
    harness: str, version: str, model: str, independent_by: str | None = None
) -> tuple[Harness, LanguageModel] | None:
    """The agent of a page address: the maintainers' harness row, or, with
    `independent_by`, that account's independent run of the same version."""
    rows = Harness.objects.select_related("independent_by").filter(name=harness, version=version)
    # A harness only a submission held for review (or rejected) named is not public yet.
    shown = Submission.objects.filter(harness=OuterRef("pk"), status__in=VISIBLE_STATUSES)
    rows = rows.filter(Exists(shown))
    if independent_by is None:
        rows = rows.filter(independent_by__isnull=True)
    else:
        rows = rows.filter(independent_by__username=independent_by)
    found_harness = rows.first()
    found_model = LanguageModel.objects.filter(name=model).first()
    if found_harness is None or found_model is None:
        return None
    return found_harness, found_model
