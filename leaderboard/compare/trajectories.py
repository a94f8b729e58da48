"""Two agents' trajectory figures on one board, paired by task.

For each figure both agents have on a shared task, the task's difference is A's mean
minus B's over its counted runs; the published difference is the mean of those task
differences, with a percentile bootstrap interval over tasks (methodology.paired), the
same pairing as the pass rate's. The runs are the comparison's (selectors._board_runs:
counted submissions, no infra errors), conflict-excluded tasks left out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import QuerySet

from ingestion.models import Run, RunTrace
from ingestion.traces.figures import FIGURES, Figure
from leaderboard.boards.selectors import excluded_task_ids
from leaderboard.compare.selectors import board_runs
from leaderboard.methodology import paired
from leaderboard.models import BoardEntry


@dataclass(frozen=True)
class FigureDifference:
    figure: Figure
    a: float
    b: float
    difference: float
    low: float | None
    high: float | None
    tasks: int


def trajectory_differences(
    slug: str, a: BoardEntry, b: BoardEntry, *, seed: int
) -> list[FigureDifference]:
    """Every figure both agents have on at least one shared task, in the table's order;
    no query when either entry has no trajectory figure (nothing could pair)."""
    if not a.trajectory or not b.trajectory:
        return []
    runs = board_runs(slug)
    means = {side: _task_means(runs, entry) for side, entry in (("a", a), ("b", b))}
    found = []
    for figure in FIGURES:
        a_tasks, b_tasks = means["a"].get(figure.key, {}), means["b"].get(figure.key, {})
        shared = sorted(a_tasks.keys() & b_tasks.keys())
        if not shared:
            continue
        differences = [a_tasks[task] - b_tasks[task] for task in shared]
        low, high = paired.bootstrap_mean_interval(differences, seed=seed)
        found.append(
            FigureDifference(
                figure,
                a=sum(a_tasks[task] for task in shared) / len(shared),
                b=sum(b_tasks[task] for task in shared) / len(shared),
                difference=sum(differences) / len(differences),
                low=low,
                high=high,
                tasks=len(shared),
            )
        )
    return found


def _task_means(board_runs: QuerySet[Run], entry: BoardEntry) -> dict[str, dict[int, float]]:
    """figure -> task pk -> the mean over the agent's counted runs defining it."""
    excluded = excluded_task_ids(entry.harness)
    runs = board_runs.filter(harness_id=entry.harness_id, model_id=entry.model_id)
    traces = RunTrace.objects.filter(run__in=runs).exclude(figures={})
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for task, figures in traces.values_list("run__task_id", "figures").iterator():
        if task in excluded:
            continue
        for key, value in figures.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                cell = sums[key][task]
                cell[0] += value
                cell[1] += 1
    return {
        key: {task: total / count for task, (total, count) in tasks.items()}
        for key, tasks in sums.items()
    }
