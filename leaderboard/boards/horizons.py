"""An entry's time horizon (methodology #time-horizon), from its per-task counts.

METR's model (leaderboard.methodology.time_horizon): a logistic fit of success on
log2(human minutes), and its hierarchical bootstrap interval
(time_horizon_bootstrap). Only the tasks that carry human minutes count: an entry's
counted trials and passes on them (AgentTotals.per_task, the pass rate's runs) are its
runs, a task with c passes of n trials being n runs of which c succeed. An entry gets a
horizon once it has counted runs on two such tasks; else its field is {}.

A suite board fits in its suite's `horizon_mode`; an aggregate board (Overall, Coding)
pools suites whose lengths were measured differently and always fits in the headline
mode, whose weights keep one large family from dominating.

No infinity reaches the stored JSON: a degenerate fit (all successes, all failures, a
slope that does not fall) stores null horizons and says why (`degenerate`); the pages
read that as "> longest task" or "< shortest task".
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ingestion.models import Suite, Task
from leaderboard.boards.catalogue import is_aggregate
from leaderboard.methodology.bootstrap import bootstrap_seed
from leaderboard.methodology.time_horizon import HEADLINE, MODES, headline_weights, horizon_fit
from leaderboard.methodology.time_horizon_bootstrap import HorizonRun, horizon_interval

# Bootstrap draws of an entry's interval: fewer than the pass^k bootstrap's 1000, which
# keeps the horizons' share of a recompute small (the percentile bounds of 400 draws
# move by a few percent of the interval's width between seeds).
HORIZON_DRAWS = 400
# The keys of an entry's `horizon` (and the CSV's columns, prefixed horizon_).
HORIZON_KEYS = (
    "mode", "p50", "p80", "p50_low", "p50_high", "p80_low", "p80_high", "slope", "intercept", "tasks",
    "runs", "degenerate", "shortest", "longest", "points",
)  # fmt: skip
MIN_TASKS = 2


@dataclass(frozen=True)
class HorizonTask:
    minutes: float
    family: str


@dataclass(frozen=True)
class HorizonTasks:
    """The tasks with human minutes (task pk -> length and family) and each suite
    board's fitting mode (board slug -> mode): two queries per recompute."""

    tasks: dict[int, HorizonTask]
    modes: dict[str, str]

    @classmethod
    def read(cls) -> HorizonTasks:
        # The registry checks a length; an admin's edit is kept out here if it is not one.
        rows = Task.objects.filter(human_minutes__gt=0).values_list(
            "pk", "human_minutes", "family", "category__name", "suite_id"
        )
        # A family is a suite's: two suites' "django" tasks are two families.
        tasks = {
            pk: HorizonTask(minutes, f"{suite}/{family or category}")
            for pk, minutes, family, category, suite in rows
            if math.isfinite(minutes)
        }
        suites = Suite.objects.filter(official=True).only("slug", "version", "horizon_mode")
        return cls(tasks, {s.board_slug: s.horizon_mode for s in suites})

    def mode_of(self, board: str) -> str:
        if is_aggregate(board):
            return HEADLINE
        mode = self.modes.get(board, HEADLINE)
        return mode if mode in MODES else HEADLINE


def horizon_runs(per_task: dict[int, list[int]], tasks: dict[int, HorizonTask]) -> list[HorizonRun]:
    """The entry's runs on the tasks with human minutes, tasks in pk order."""
    runs: list[HorizonRun] = []
    for pk in sorted(per_task):
        task = tasks.get(pk)
        if task is None:
            continue
        trials, passes = per_task[pk]
        runs += [HorizonRun(str(pk), task.family, task.minutes, 1.0)] * passes
        runs += [HorizonRun(str(pk), task.family, task.minutes, 0.0)] * (trials - passes)
    return runs


def entry_horizon(
    per_task: dict[int, list[int]],
    tasks: dict[int, HorizonTask],
    *,
    mode: str,
    seed: int,
    draws: int = HORIZON_DRAWS,
    bounds: bool = True,
) -> dict:
    """The entry's `horizon` field: {} with fewer than MIN_TASKS counted tasks with human
    minutes, else the fit, its interval (None bounds without `bounds`: filled after the
    swap) and the chart's points (see the module)."""
    runs = horizon_runs(per_task, tasks)
    task_ids = [run.task_id for run in runs]
    if len(set(task_ids)) < MIN_TASKS:
        return {}
    minutes = [run.minutes for run in runs]
    weights = headline_weights(task_ids, [run.family for run in runs]) if mode == HEADLINE else None
    fit = horizon_fit(
        minutes, [run.success for run in runs], weights=weights, mode=mode, task_ids=task_ids
    )
    return {
        "mode": mode,
        "p50": _minutes(fit.p50_minutes),
        "p80": _minutes(fit.p80_minutes),
        **(
            horizon_bounds(runs, mode=mode, seed=seed, draws=draws)
            if bounds
            else dict.fromkeys(HORIZON_BOUNDS)
        ),
        "slope": None if math.isnan(fit.slope) else fit.slope,
        "intercept": None if math.isnan(fit.intercept) else fit.intercept,
        "tasks": fit.n_tasks,
        "runs": fit.n_runs,
        "degenerate": fit.degenerate,
        "shortest": min(minutes),
        "longest": max(minutes),
        "points": horizon_points(per_task, tasks),
    }


HORIZON_BOUNDS = ("p50_low", "p50_high", "p80_low", "p80_high")


def horizon_bounds(runs: list[HorizonRun], *, mode: str, seed: int, draws: int) -> dict:
    """The horizon's interval bounds (HORIZON_BOUNDS), from its hierarchical bootstrap."""
    interval = horizon_interval(runs, mode=mode, seed=seed, draws=draws)
    return {key: _bound(getattr(interval, key)) for key in HORIZON_BOUNDS}


def horizon_points(per_task: dict[int, list[int]], tasks: dict[int, HorizonTask]) -> list[list]:
    """The agent page's chart points: [minutes, pass rate, tasks, trials], the tasks of
    one length and one pass rate merged into one point (a board of single runs has at
    most two points per length), in length then rate order."""
    merged: Counter = Counter()
    trials_of: Counter = Counter()
    for pk, (trials, passes) in per_task.items():
        task = tasks.get(pk)
        if task is None or not trials:
            continue
        key = (task.minutes, passes / trials)
        merged[key] += 1
        trials_of[key] += trials
    return [[m, rate, merged[(m, rate)], trials_of[(m, rate)]] for m, rate in sorted(merged)]


def _minutes(value: float) -> float | None:
    """A horizon: None where the fit gives none (infinite, or 0 for all failures)."""
    return value if math.isfinite(value) and value > 0 else None


def _bound(value: float) -> float | None:
    """An interval bound: None for an infinite one (beyond the longest task)."""
    return value if math.isfinite(value) else None


def horizon_seed(board: str, entry: dict) -> int:
    """The entry's bootstrap seed, from its identity, as the other bootstraps seed."""
    return bootstrap_seed(
        "time-horizon", board, entry["harness"], entry["harness_version"], entry["model"]
    )


def board_horizons(
    by_board: dict[str, list[dict]], per_task: dict[tuple, dict], *, bounds: bool = True
) -> None:
    """Set `horizon` on every fresh entry of every board; per_task: (board, harness id,
    model id) -> the entry's AgentTotals.per_task. Without `bounds`, the interval is left
    for after the swap."""
    found = HorizonTasks.read()
    for board, entries in by_board.items():
        for entry in entries:
            counts = per_task.get((board, entry["harness_id"], entry["model_id"]), {})
            entry["horizon"] = board_horizon(found, board, entry, counts, bounds=bounds)


def board_horizon(
    found: HorizonTasks, board: str, entry: dict, counts: dict, *, bounds: bool = True
) -> dict:
    """One entry's `horizon` on its board (entry: its harness, harness_version, model)."""
    if not found.tasks:
        return {}
    mode = found.mode_of(board)
    seed = horizon_seed(board, entry)
    return entry_horizon(counts, found.tasks, mode=mode, seed=seed, bounds=bounds)
