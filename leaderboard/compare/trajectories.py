"""Two agents' trajectory figures on one board, paired by task.

For each figure both agents have on a shared task, the task's difference is A's mean
minus B's over its counted runs; the published difference is the mean of those task
differences, with a percentile bootstrap interval over tasks (methodology.paired), the
same pairing as the pass rate's. The task means come from the trace rollups over the
runs the board counts (leaderboard.boards.traces), never from the traces themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingestion.traces.figures import FIGURES, Figure
from leaderboard.boards.traces import agent_task_figures
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
    means = {
        side: agent_task_figures(slug, entry.harness_id, entry.model_id)
        for side, entry in (("a", a), ("b", b))
    }
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
