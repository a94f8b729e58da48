"""What a comparison reads: the current board's entries, and two agents' counted trials.

The board's figures are the snapshot's; the per-trial outcomes a paired test needs are
not in it, so the runs of the two agents are read here, with every rule the boards apply
to their rollups (leaderboard.boards.sql): counted submissions only (status ingested,
so never withdrawn or held for review), approved tasks of official suites on this board,
no infra errors, no conflict-excluded (harness, task) pairs. Three or four queries
whatever the number of runs: the entries, the runs of both agents, each non-Minimal
harness's excluded tasks.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Q, QuerySet

from ingestion.models import Outcome, Run, Submission
from leaderboard.agent_keys import AgentRef, entry_ref
from leaderboard.boards.safety import benign_runs
from leaderboard.boards.selectors import excluded_task_ids
from leaderboard.boards.totals import board_tasks
from leaderboard.methodology.paired import Trials
from leaderboard.models import Board, BoardEntry, SignalEntry
from leaderboard.signalboard.selectors import current_signal_entries
from leaderboard.signalboard.slices import COMPOSITE_SCOPE, SliceKind


def board_entries(board: Board) -> list[BoardEntry]:
    """The board's entries in display order, each with its harness row (one query)."""
    return list(
        BoardEntry.objects.filter(board=board)
        .select_related("harness__independent_by")
        .order_by("position")
    )


def find_entry(entries: list[BoardEntry], ref: AgentRef) -> BoardEntry | None:
    return next((entry for entry in entries if entry_ref(entry) == ref), None)


@dataclass(frozen=True)
class TaskInfo:
    suite: str  # "Terminal-Bench 4.0.0"
    code: str  # the registry's task id
    suite_slug: str = ""  # with the version, what the task's page is named by
    suite_version: str = ""


@dataclass
class AgentTrials:
    """One agent's counted trials per task (task pk -> [(trial, passed)])."""

    tasks: dict[int, list[tuple[int, bool]]] = field(default_factory=lambda: defaultdict(list))

    def as_mapping(self) -> dict[int, Trials]:
        return dict(self.tasks)


def board_runs(slug: str) -> QuerySet[Run]:
    """Counted runs (before the conflict rule) of tasks that count on this board, by the
    boards' own rule (leaderboard.boards.sql.board_tasks_query)."""
    tasks = [task for task, boards in board_tasks().items() if slug in boards]
    runs = Run.objects.filter(
        submission__status=Submission.Status.INGESTED, task_id__in=tasks
    ).exclude(outcome=Outcome.INFRA_ERROR)
    return benign_runs(runs)  # runs under attack are the safety board's


def agents_trials(
    slug: str, a: BoardEntry, b: BoardEntry
) -> tuple[AgentTrials, AgentTrials, dict[int, TaskInfo]]:
    """Both agents' counted trials on the board, and the tasks they ran."""
    # Once per harness: two models of one harness is the common comparison.
    excluded = {
        h.pk: excluded_task_ids(h)
        for h in {a.harness_id: a.harness, b.harness_id: b.harness}.values()
    }
    pick = Q(harness_id=a.harness_id, model_id=a.model_id) | Q(
        harness_id=b.harness_id, model_id=b.model_id
    )
    rows = (
        board_runs(slug)
        .filter(pick)
        .values_list(
            "harness_id", "model_id", "task_id", "trial", "outcome",
            "task__task_id", "task__suite__name", "task__suite__version", "task__suite__slug",
        )
    )  # fmt: skip
    by_agent = {
        (a.harness_id, a.model_id): AgentTrials(),
        (b.harness_id, b.model_id): AgentTrials(),
    }
    tasks: dict[int, TaskInfo] = {}
    for harness, model, task, trial, outcome, code, suite, version, slug in rows.iterator():
        if task in excluded[harness]:
            continue
        by_agent[(harness, model)].tasks[task].append((trial, outcome == Outcome.PASS))
        tasks.setdefault(task, TaskInfo(f"{suite} {version}", code, slug, version))
    return by_agent[(a.harness_id, a.model_id)], by_agent[(b.harness_id, b.model_id)], tasks


def composite_signal_entries() -> tuple[object, list[SignalEntry]]:
    """(computed_at, entries) of the current snapshot's composite signal board."""
    selection = current_signal_entries(kinds=[SliceKind.COMPOSITE], scope=COMPOSITE_SCOPE)
    return selection.computed_at, selection.entries
