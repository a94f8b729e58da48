"""A percentile interval for an agent's p50 and p80 time horizons: METR's hierarchical
bootstrap (families, then tasks within each drawn family, then runs within each drawn
task), every draw refitted in the mode of `time_horizon`.

Pure NumPy. Vectorised: the three levels of draws are three flat index arrays for all
draws at once, each draw's runs are summed onto their distinct lengths by one bincount
(a fit depends only on the weighted successes and weights at each length: B × U
numbers, U = 4 on SWE-bench Verified), and `time_horizon.fit_grouped` runs Newton's
method on every draw at once.

As in METR's bootstrap, a drawn run keeps the weight it has in the full data (the
headline weights are not recomputed nor renormalised per draw), and a task or family
drawn twice counts twice. A draw with no finite fit keeps the horizon the stated rule
gives it (time_horizon's docstring: +inf for all successes or a non-negative slope, 0
for all failures, the gap's midpoint for separated data) and is counted, not dropped:
METR drops single-outcome draws, which moves the interval towards the middle.

Seeded: numpy.random.default_rng(seed), the seed derived by the caller from the entry's
identity (bootstrap.bootstrap_seed), never from the clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.methodology import time_horizon
from leaderboard.methodology.bootstrap import BOOTSTRAP_RESAMPLES, CONFIDENCE


@dataclass(frozen=True)
class HorizonRun:
    """One run of one agent: its task, the task's family, the task's human minutes and
    the run's success (0/1, or a fractional score in [0, 1])."""

    task_id: str
    family: str
    minutes: float
    success: float


@dataclass(frozen=True)
class HorizonInterval:
    """Percentile bounds (2.5 / 97.5) of the bootstrap horizons, in minutes; +inf where
    the bound falls among draws without a finite horizon. degenerate_draws counts the
    draws whose horizon came from the stated rule rather than a finite fit."""

    p50_low: float
    p50_high: float
    p80_low: float
    p80_high: float
    draws: int
    degenerate_draws: int


def horizon_interval(
    runs: Sequence[HorizonRun], *, mode: str, seed: int, draws: int = BOOTSTRAP_RESAMPLES
) -> HorizonInterval:
    """The hierarchical-bootstrap interval of one agent's horizons (see the module)."""
    penalty = time_horizon.penalty_for(mode)
    if not runs:
        raise ValueError("a time-horizon interval needs at least one run")
    if draws < 1:
        raise ValueError("draws must be at least 1")
    layout = _Layout.of(runs, mode)
    draw, run = drawn_runs(layout, np.random.default_rng(seed), draws)
    # Each draw's weighted successes and weights at each distinct length: B × U.
    cell = draw * len(layout.levels) + layout.level_of_run[run]
    size = draws * len(layout.levels)
    wins = np.bincount(cell, weights=layout.weighted_successes[run], minlength=size)
    totals = np.bincount(cell, weights=layout.weights[run], minlength=size)
    wins = wins.reshape(draws, -1)
    totals = totals.reshape(draws, -1)
    intercept, slope, status = time_horizon.fit_grouped(layout.levels, wins, totals, penalty)
    p50, p80 = time_horizon.horizons_minutes(layout.levels, wins, totals, intercept, slope, status)
    p50_low, p50_high = percentile_bounds(p50)
    p80_low, p80_high = percentile_bounds(p80)
    return HorizonInterval(
        p50_low=p50_low,
        p50_high=p50_high,
        p80_low=p80_low,
        p80_high=p80_high,
        draws=draws,
        degenerate_draws=int(np.count_nonzero(status != time_horizon.FINITE)),
    )


@dataclass(frozen=True)
class _Layout:
    """The runs sorted by family, then task: each family's tasks and each task's runs
    are contiguous, so a draw within a group is its start plus a uniform offset."""

    weights: np.ndarray  # (R,) per run, as in the full-data fit
    weighted_successes: np.ndarray  # (R,) weight × success
    levels: np.ndarray  # (U,) distinct log2 minutes
    level_of_run: np.ndarray  # (R,) index into levels
    family_task_start: np.ndarray  # (F,) first task of each family
    family_task_count: np.ndarray  # (F,)
    task_run_start: np.ndarray  # (T,) first run of each task
    task_run_count: np.ndarray  # (T,)

    @classmethod
    def of(cls, runs: Sequence[HorizonRun], mode: str) -> _Layout:
        families = np.array([str(run.family) for run in runs])
        tasks = np.array([str(run.task_id) for run in runs])
        order = np.lexsort((tasks, families))
        families, tasks = families[order], tasks[order]
        minutes = np.array([float(runs[i].minutes) for i in order])
        successes = np.array([float(runs[i].success) for i in order])
        if not np.all(np.isfinite(minutes) & (minutes > 0)):
            raise ValueError("every task length must be a positive, finite number of minutes")
        if np.any((successes < 0) | (successes > 1)):
            raise ValueError("successes must lie in [0, 1]")
        new_task = np.r_[True, (tasks[1:] != tasks[:-1]) | (families[1:] != families[:-1])]
        task_run_start = np.flatnonzero(new_task)
        task_run_count = np.diff(np.r_[task_run_start, len(tasks)])
        task_family = families[task_run_start]
        if len(set(zip(tasks[task_run_start], task_family, strict=True))) != len(set(tasks)):
            raise ValueError("every task must belong to exactly one family")
        new_family = np.r_[True, task_family[1:] != task_family[:-1]]
        family_task_start = np.flatnonzero(new_family)
        family_task_count = np.diff(np.r_[family_task_start, len(task_family)])
        if mode == time_horizon.HEADLINE:
            weights = time_horizon.headline_weights(tasks, families)
        else:
            weights = np.ones(len(tasks))
        levels, level_of_run = np.unique(np.log2(minutes), return_inverse=True)
        return cls(
            weights=weights,
            weighted_successes=weights * successes,
            levels=levels,
            level_of_run=level_of_run,
            family_task_start=family_task_start,
            family_task_count=family_task_count,
            task_run_start=task_run_start,
            task_run_count=task_run_count,
        )


def resample_runs(layout: _Layout, rng: np.random.Generator, draws: int) -> np.ndarray:
    """draws × runs: how often each run is drawn (drawn_runs, counted)."""
    draw, run = drawn_runs(layout, rng, draws)
    n_runs = len(layout.weights)
    flat = np.bincount(draw * n_runs + run, minlength=draws * n_runs)
    return flat.reshape(draws, n_runs)


def drawn_runs(
    layout: _Layout, rng: np.random.Generator, draws: int
) -> tuple[np.ndarray, np.ndarray]:
    """(draw, run) of every run drawn when each draw resamples the families, then the
    tasks of each drawn family, then the runs of each drawn task, all with replacement
    and as many as there are at that level."""
    n_families = len(layout.family_task_start)
    # Level 1: draws × families indices, flattened draw by draw.
    family = rng.integers(0, n_families, size=draws * n_families)
    draw_of_family = np.repeat(np.arange(draws), n_families)
    # Level 2: each drawn family draws as many of its tasks as it has.
    task_count = layout.family_task_count[family]
    task_family = np.repeat(family, task_count)
    draw_of_task = np.repeat(draw_of_family, task_count)
    offset = rng.random(task_family.size) * layout.family_task_count[task_family]
    task = layout.family_task_start[task_family] + offset.astype(np.intp)
    # Level 3: each drawn task draws as many of its runs as it has (its one run, when
    # every task has one: the draw the uniform offset would make anyway).
    if (layout.task_run_count == 1).all():
        return draw_of_task, layout.task_run_start[task]
    run_count = layout.task_run_count[task]
    run_task = np.repeat(task, run_count)
    draw_of_run = np.repeat(draw_of_task, run_count)
    offset = rng.random(run_task.size) * layout.task_run_count[run_task]
    run = layout.task_run_start[run_task] + offset.astype(np.intp)
    return draw_of_run, run


def percentile_bounds(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """numpy's linear-interpolation percentiles (2.5 / 97.5 at 95%), where a bound next
    to an infinite value is that infinity (numpy would give NaN for inf − inf)."""
    ordered = np.sort(values)
    tail = (1 - confidence) / 2
    bounds = []
    for q in (tail, 1 - tail):
        position = (ordered.size - 1) * q
        below = int(np.floor(position))
        above = min(below + 1, ordered.size - 1)
        fraction = position - below
        low, high = ordered[below], ordered[above]
        if fraction == 0 or low == high:
            bounds.append(float(low))
        else:
            bounds.append(float(low + (high - low) * fraction))
    return bounds[0], bounds[1]
