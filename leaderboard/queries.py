"""Read-side selectors for the pages: what each page reads, in a fixed number of queries.

Board pages read only the current snapshot's Board and BoardEntry rows, whose every
figure is precomputed; agent and run pages read runs, never aggregating over them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Prefetch, QuerySet, Value
from django.db.models.functions import Concat
from django.http import QueryDict

from ingestion.models import Category, Harness, LanguageModel, Outcome, Run, Submission, Suite, Task
from leaderboard.boards import EXCLUDED_PAIRS_SQL
from leaderboard.models import Board, BoardEntry, BoardSnapshot

# ---------------------------------------------------------------------------------
# Board page parameters


@dataclass(frozen=True)
class SortKey:
    fields: tuple[str, ...]
    # The direction a first click sorts in: the better end first.
    descending_first: bool
    label: str


# Only these columns can be sorted; anything else in ?sort= is ignored.
SORT_KEYS: dict[str, SortKey] = {
    "rank": SortKey(("position",), False, "rank"),
    "agent": SortKey(("harness_name", "harness_version", "model_name"), False, "agent name"),
    "pass_rate": SortKey(("pass_rate",), True, "pass rate"),
    "wilson_low": SortKey(("wilson_low",), True, "lower end of the interval"),
    "wilson_high": SortKey(("wilson_high",), True, "upper end of the interval"),
    "n": SortKey(("n",), True, "n"),
    "cost_per_success": SortKey(("cost_per_success",), False, "cost per success"),
    "tokens_per_success": SortKey(("tokens_per_success",), False, "tokens per success"),
    "ttft_ms_p50": SortKey(("ttft_ms_p50",), False, "median time to first token"),
    "duration_s_p50": SortKey(("duration_s_p50",), False, "median duration"),
}

# Optional column groups of the column picker, in display order.
COLUMNS: dict[str, str] = {
    "cost": "Cost",
    "tokens": "Tokens",
    "passk": "pass^k",
    "latency": "Latency",
}
DEFAULT_COLUMNS = frozenset({"cost", "tokens"})
MAX_FILTER_LENGTH = 100


@dataclass(frozen=True)
class BoardParams:
    """What a visitor asked of a board, parsed from the query string and made safe."""

    model: str = ""
    harness: str = ""
    show_unranked: bool = True
    sort: str = ""
    columns: frozenset[str] = DEFAULT_COLUMNS

    @classmethod
    def from_query(cls, query: QueryDict) -> BoardParams:
        return cls(
            model=query.get("model", "").strip()[:MAX_FILTER_LENGTH],
            harness=query.get("harness", "").strip()[:MAX_FILTER_LENGTH],
            # The filter form sends "0" then, when ticked, "1": the last value wins.
            show_unranked=query.get("unranked", "1") != "0",
            sort=_valid_sort(query.get("sort", "")),
            columns=_columns(query),
        )

    @property
    def sort_key(self) -> str:
        return self.sort.removeprefix("-")

    def shows(self, column: str) -> bool:
        return column in self.columns

    def query_pairs(self) -> list[tuple[str, str]]:
        """Only what differs from the defaults, in a stable order: canonical URLs."""
        pairs = [("model", self.model), ("harness", self.harness)]
        pairs = [(key, value) for key, value in pairs if value]
        if not self.show_unranked:
            pairs.append(("unranked", "0"))
        if self.columns != DEFAULT_COLUMNS:
            pairs += [("col", c) for c in COLUMNS if c in self.columns] or [("col", "")]
        if self.sort:
            pairs.append(("sort", self.sort))
        return pairs

    def querystring(self) -> str:
        pairs = self.query_pairs()
        return "?" + urlencode(pairs) if pairs else ""

    def with_sort(self, sort: str) -> BoardParams:
        return replace(self, sort=sort)


def _valid_sort(raw: str) -> str:
    return raw if raw.removeprefix("-") in SORT_KEYS else ""


def _columns(query: QueryDict) -> frozenset[str]:
    # The form always sends an empty `col` marker, so an unticked picker is "none"
    # rather than "the defaults".
    if "col" not in query:
        return DEFAULT_COLUMNS
    return frozenset(c for c in query.getlist("col") if c in COLUMNS)


@dataclass(frozen=True)
class SortHeader:
    key: str
    href_query: str
    aria_sort: str
    indicator: str
    next_label: str


def sort_headers(params: BoardParams) -> dict[str, SortHeader]:
    """Each sortable header's link: the other direction when already sorted by it."""
    return {key: _sort_header(params, key, sort_key) for key, sort_key in SORT_KEYS.items()}


def _sort_header(params: BoardParams, key: str, sort_key: SortKey) -> SortHeader:
    active = params.sort_key == key
    descending = params.sort.startswith("-")
    # A second click on the active column flips it; a first click sorts best first.
    next_descending = not descending if active else sort_key.descending_first
    aria, indicator = "none", ""
    if active:
        aria, indicator = ("descending", "▼") if descending else ("ascending", "▲")
    next_sort = ("-" if next_descending else "") + key
    direction = "descending" if next_descending else "ascending"
    return SortHeader(
        key=key,
        href_query=params.with_sort(next_sort).querystring(),
        aria_sort=aria,
        indicator=indicator,
        next_label=f"Sort by {sort_key.label}, {direction}",
    )


# ---------------------------------------------------------------------------------
# Board page data


def current_boards() -> list[Board]:
    """The current snapshot's boards in tab order, each with its snapshot (one query).

    Micro-cached for ARENA_SNAPSHOT_POLL_SECONDS: under load, most requests then make
    no query at all, and a new snapshot shows at most that many seconds late.
    """
    return cache.get_or_set(
        "current-boards",
        lambda: list(Board.objects.current()),
        settings.ARENA_SNAPSHOT_POLL_SECONDS,
    )


def pick_board(boards: list[Board], slug: str | None) -> Board | None:
    """The board named by slug, or the headline (first) board when slug is None."""
    if slug is None:
        return boards[0] if boards else None
    return next((board for board in boards if board.slug == slug), None)


@dataclass
class BoardTable:
    ranked: list[BoardEntry]
    unranked: list[BoardEntry]
    total: int

    @property
    def entries(self) -> list[BoardEntry]:
        return self.ranked + self.unranked


def board_table(board: Board, params: BoardParams) -> BoardTable:
    """The board's rows as asked for: filtered and sorted in SQL, ties marked (two queries)."""
    entries = list(_entries(board, params))
    tied = tied_ranks(board)
    for entry in entries:
        entry.tied = entry.rank in tied
    return BoardTable(
        ranked=[e for e in entries if e.rank is not None],
        unranked=[e for e in entries if e.rank is None],
        total=board.entry_count,
    )


def _entries(board: Board, params: BoardParams) -> QuerySet[BoardEntry]:
    entries = BoardEntry.objects.filter(board=board)
    if params.model:
        entries = entries.filter(model_name__icontains=params.model)
    if params.harness:
        # Matches "OpenHarness", "0.9" and "OpenHarness 0.9" alike.
        agent = Concat("harness_name", Value(" "), "harness_version")
        entries = entries.alias(harness_full=agent).filter(harness_full__icontains=params.harness)
    if not params.show_unranked:
        entries = entries.filter(rank__isnull=False)
    return entries.order_by(*_ordering(params), "position")


def _ordering(params: BoardParams) -> list:
    if not params.sort:
        return []
    descending = params.sort.startswith("-")
    fields = SORT_KEYS[params.sort_key].fields
    # Missing figures (n/a cost, no interval) go last whichever way the column sorts.
    return [F(f).desc(nulls_last=True) if descending else F(f).asc(nulls_last=True) for f in fields]


def tied_ranks(board: Board) -> set[int]:
    """Ranks shared by more than one entry of the whole board, filters or not."""
    rows = (
        BoardEntry.objects.filter(board=board, rank__isnull=False)
        .order_by()
        .values("rank")
        .annotate(count=Count("id"))
        .filter(count__gt=1)
        .values_list("rank", flat=True)
    )
    return set(rows)


def current_computed_at() -> Any:
    snapshot = BoardSnapshot.objects.current()
    return snapshot.computed_at if snapshot else None


# ---------------------------------------------------------------------------------
# Agent page

GRID_SYMBOLS = {
    "pass": ("✓", "pass"),
    "fail": ("✗", "fail"),
    "infra_error": ("!", "infra error"),
    "conflict": ("⊘", "conflict-excluded"),
}


@dataclass(frozen=True)
class GridCell:
    run_pk: int
    trial: int
    status: str

    @property
    def symbol(self) -> str:
        return GRID_SYMBOLS[self.status][0]

    @property
    def label(self) -> str:
        return GRID_SYMBOLS[self.status][1]


@dataclass
class TaskRow:
    task_id: str
    cells: list[GridCell]


@dataclass
class CategoryGroup:
    name: str
    tasks: list[TaskRow]


@dataclass
class SuiteGroup:
    name: str
    categories: list[CategoryGroup]


@dataclass
class AgentProfile:
    harness: Harness
    model: LanguageModel
    contributors: list
    board_rows: list[BoardEntry]
    grid: list[SuiteGroup]
    status_counts: dict[str, int]
    submissions: list[Submission]
    pass_k_entry: BoardEntry | None = None
    runs_total: int = field(default=0)


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
    return AgentProfile(
        harness=harness,
        model=model,
        contributors=list(harness.contributors.all()),
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
    sql = "WITH " + EXCLUDED_PAIRS_SQL + " SELECT task_id FROM excluded_pairs WHERE harness_id = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [harness.pk])
        return {row[0] for row in cursor.fetchall()}


def run_status(outcome: str, conflict_excluded: bool) -> str:
    """One grid status: an infra error stays one; otherwise exclusion wins over the outcome."""
    if outcome == Outcome.INFRA_ERROR:
        return "infra_error"
    return "conflict" if conflict_excluded else outcome


GridRow = tuple[str, str, str, GridCell]


def task_grid_cells(harness: Harness, model: LanguageModel) -> list[GridRow]:
    """(suite, category, task, cell) for every run of non-withdrawn submissions, ordered."""
    excluded = excluded_task_ids(harness)
    runs = (
        Run.objects.filter(harness=harness, model=model, submission__status=Submission.Status.INGESTED)
        .order_by("task__suite__slug", "task__suite__version", "task__category__name",
                  "task__task_id", "trial", "id")
        .values_list("pk", "trial", "outcome", "task_id", "task__task_id",
                     "task__suite__name", "task__suite__version", "task__category__name")
    )  # fmt: skip
    return [
        (
            f"{suite} {version}",
            category,
            task_code,
            GridCell(pk, trial, run_status(outcome, task in excluded)),
        )
        for pk, trial, outcome, task, task_code, suite, version, category in runs
    ]


def group_grid(cells: Iterable[GridRow]) -> list[SuiteGroup]:
    """Nest ordered grid rows as suite → category → task → cells."""
    suites = []
    for suite, in_suite in itertools.groupby(cells, key=lambda row: row[0]):
        categories = []
        for category, in_category in itertools.groupby(in_suite, key=lambda row: row[1]):
            tasks = [
                TaskRow(task, [row[3] for row in in_task])
                for task, in_task in itertools.groupby(in_category, key=lambda row: row[2])
            ]
            categories.append(CategoryGroup(category, tasks))
        suites.append(SuiteGroup(suite, categories))
    return suites


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
            "task__suite", "task__category", "harness", "model", "submission"
        )
        .filter(pk=pk, submission__status__in=VISIBLE_STATUSES)
        .first()
    )


def run_is_conflict_excluded(run: Run) -> bool:
    if run.outcome == Outcome.INFRA_ERROR:
        return False
    return run.task_id in excluded_task_ids(run.harness)


FOLD_LINES = 40


@dataclass(frozen=True)
class FoldedText:
    """Text shown up to FOLD_LINES lines, the rest behind a "show all" disclosure."""

    head: str
    rest: str
    lines: int

    @property
    def folded(self) -> bool:
        return bool(self.rest)


def fold(text: str | None, limit: int = FOLD_LINES) -> FoldedText | None:
    if text is None or text == "":
        return None
    lines = text.splitlines()
    return FoldedText("\n".join(lines[:limit]), "\n".join(lines[limit:]), len(lines))


@dataclass(frozen=True)
class ToolCallView:
    tool: str
    command: FoldedText | None
    arguments: FoldedText | None
    exit_code: int | None
    output: FoldedText | None

    @property
    def failed(self) -> bool:
        return self.exit_code not in (None, 0)


KNOWN_ROLES = frozenset({"user", "assistant", "tool", "system"})


@dataclass(frozen=True)
class TurnView:
    role: str
    text: FoldedText | None
    tool_calls: list[ToolCallView]

    @property
    def role_class(self) -> str:
        """A CSS class from a fixed set: the role itself is bundle text."""
        return self.role if self.role in KNOWN_ROLES else "other"


def trajectory_turns(raw: Any) -> list[TurnView] | None:
    """A stored trajectory as turns to display; None when there is none to show.

    Bundles are validated at ingest, but this reads defensively anyway: whatever the
    JSON holds becomes text for the template to escape, never markup.
    """
    if not isinstance(raw, list):
        return None
    return [_turn_view(turn) for turn in raw if isinstance(turn, dict)]


def _turn_view(turn: dict) -> TurnView:
    calls = turn.get("tool_calls") or []
    return TurnView(
        role=str(turn.get("role") or "?"),
        text=fold(_as_text(turn.get("text"))),
        tool_calls=[_tool_call_view(call) for call in calls if isinstance(call, dict)],
    )


def _tool_call_view(call: dict) -> ToolCallView:
    arguments = call.get("arguments")
    arguments = dict(arguments) if isinstance(arguments, dict) else {"arguments": arguments}
    command = arguments.pop("command", None)
    if command is not None and not isinstance(command, str):
        arguments["command"], command = command, None
    exit_code = call.get("exit_code")
    return ToolCallView(
        tool=str(call.get("tool") or "?"),
        command=fold(command),
        arguments=fold(json.dumps(arguments, indent=2, ensure_ascii=False)) if arguments else None,
        exit_code=exit_code
        if isinstance(exit_code, int) and not isinstance(exit_code, bool)
        else None,
        output=fold(_as_text(call.get("output"))),
    )


def verifier_facts(verifier: Any) -> list[tuple[str, str]]:
    """The verifier record as (key, text) pairs, name and version first."""
    if not isinstance(verifier, dict):
        return [] if verifier is None else [("verifier", _as_text(verifier) or "")]
    first = [key for key in ("name", "version") if key in verifier]
    keys = first + sorted(key for key in verifier if key not in first)
    return [(str(key), _as_text(verifier[key]) or "—") for key in keys]


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, indent=2, ensure_ascii=False)


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
            Prefetch("tasks", queryset=approved.order_by("task_id"), to_attr="approved_tasks")
        )
    )


def coding_categories() -> list[str]:
    return list(
        Category.objects.filter(coding=True).order_by("name").values_list("name", flat=True)
    )


def find_agent(harness: str, version: str, model: str) -> tuple[Harness, LanguageModel] | None:
    found_harness = Harness.objects.filter(name=harness, version=version).first()
    found_model = LanguageModel.objects.filter(name=model).first()
    if found_harness is None or found_model is None:
        return None
    return found_harness, found_model
