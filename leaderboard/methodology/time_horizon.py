"""METR's time horizon: the task length (human minutes) at which an agent's fitted
success curve crosses 50% (p50) or 80% (p80).

Pure NumPy and SciPy, no Django. The model is a logistic regression of success on
log2(human minutes), P(success) = expit(intercept + slope · log2 minutes), so the
horizon of success probability p is 2 ** ((logit(p) − intercept) / slope) minutes. The
slope is negative for an agent that fails longer tasks more often, and p80 < p50.

Two fitting modes, as METR publishes them:

* ``cross_domain`` ("How Does Time Horizon Vary Across Domains?", 2025): the plain,
  unweighted, unpenalised maximum likelihood over the tasks. METR's code maximises it
  over (horizon, slope) with SLSQP; the maximum is the same, so this module solves the
  logistic likelihood directly (Newton). Their SWE-bench Verified data put each task at
  its difficulty bucket's length: "<15 min fix" 7.5, "15 min – 1 hour" 30 (√(15·60)),
  "1–4 hours" 120 (√(60·240)), ">4 hours" 480 minutes (√(240·960)). Other METR
  publications map the same buckets differently, so a length is always taken as given.
* ``headline`` (the time-horizon paper and METR-Horizon v1.x): each run weighted
  1 / (runs of its task × √(tasks of its family)), the agent's weights normalised to sum
  to 1 (`headline_weights`), and an L2 penalty on the slope only: scikit-learn's
  ``LogisticRegression(C=1/0.1)`` with lbfgs, which minimises
  C · Σ wᵢ·lossᵢ + ½·slope², i.e. Σ wᵢ·lossᵢ + slope² / (2C), with the intercept not
  penalised. The weights are passed as they are, not rescaled: the penalty's strength
  relative to the data depends on their sum (1 for a full agent; METR's bootstrap keeps
  the drawn runs' original weights, so a draw's sum varies around 1).

Successes may be fractional scores in [0, 1]: the log loss y·log p + (1−y)·log(1−p) is
what METR gets by splitting a fractional run into a 0 and a 1 weighted (1−y) and y.

Degenerate data have no finite fit, and get a stated horizon instead (``degenerate``):
all successes: +inf; all failures: 0; a non-negative slope (success does not fall with
length): +inf; in the unpenalised mode, successes all at lengths no longer than every
failure (separation: the slope runs to −inf): both horizons at the geometric midpoint of
the gap between the longest success and the shortest failure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_expit

CROSS_DOMAIN = "cross_domain"
HEADLINE = "headline"
MODES = (CROSS_DOMAIN, HEADLINE)
# METR's headline regularization 0.1 (fig_params/figs.yaml), passed to scikit-learn as
# C = 1 / regularization.
HEADLINE_C = 10.0

MAX_ITERATIONS = 100
# Converged when no coefficient moves by more than this (log-odds per log2 minute).
TOLERANCE = 1e-10
MAX_HALVINGS = 40

# Why a fit has no finite coefficients (or no decreasing curve), per draw.
FINITE = 0
ALL_SUCCESS = 1
ALL_FAILURE = 2
SEPARATED = 3
NON_DECREASING = 4
DEGENERATE_NAMES = {
    FINITE: None,
    ALL_SUCCESS: "all_success",
    ALL_FAILURE: "all_failure",
    SEPARATED: "separated",
    NON_DECREASING: "non_decreasing",
}

LOGIT_50 = 0.0
LOGIT_80 = math.log(0.8 / 0.2)


@dataclass(frozen=True)
class HorizonFit:
    """One agent's fitted curve and its horizons in minutes (p80_minutes < p50_minutes).

    intercept and slope are NaN when the fit is degenerate (see the module docstring);
    degenerate then names the rule that set the horizons.
    """

    intercept: float
    slope: float
    p50_minutes: float
    p80_minutes: float
    mode: str
    n_runs: int
    n_tasks: int
    degenerate: str | None = None


def penalty_for(mode: str) -> float:
    """The coefficient λ of ½·λ·slope² added to the weighted log loss."""
    if mode == CROSS_DOMAIN:
        return 0.0
    if mode == HEADLINE:
        return 1.0 / HEADLINE_C
    raise ValueError(f"unknown time-horizon mode {mode!r}; expected one of {MODES}")


def headline_weights(task_ids: Sequence[str], families: Sequence[str]) -> np.ndarray:
    """METR's diversity weight of each of one agent's runs: 1 / (runs of its task ×
    √(distinct tasks of its family)), normalised to sum to 1."""
    tasks = np.asarray(task_ids, dtype=object)
    family_of = np.asarray(families, dtype=object)
    if tasks.shape != family_of.shape or tasks.ndim != 1:
        raise ValueError("task_ids and families must be two sequences of one length")
    if tasks.size == 0:
        return np.zeros(0)
    task_codes, task_index, runs_per_task = np.unique(
        tasks.astype(str), return_inverse=True, return_counts=True
    )
    first_run = np.zeros(len(task_codes), dtype=np.intp)
    first_run[task_index[::-1]] = np.arange(len(tasks))[::-1]
    _, family_of_task = np.unique(family_of[first_run].astype(str), return_inverse=True)
    tasks_per_family = np.bincount(family_of_task)
    raw = 1.0 / (runs_per_task[task_index] * np.sqrt(tasks_per_family[family_of_task][task_index]))
    return raw / raw.sum()


def horizon_fit(
    minutes: Sequence[float],
    successes: Sequence[float],
    *,
    weights: Sequence[float] | None = None,
    mode: str,
    task_ids: Sequence[str] | None = None,
) -> HorizonFit:
    """The logistic fit of success on log2(minutes) and its p50 / p80 horizons.

    weights: per run; None means 1 per run (cross_domain) or 1/n each (headline), so a
    headline fit of equally weighted runs still sums its weights to 1. Pass
    `headline_weights` for METR's headline weighting. task_ids only count n_tasks
    (without them every run counts as its own task).
    """
    penalty = penalty_for(mode)
    lengths = np.asarray(minutes, dtype=np.float64)
    y = np.asarray(successes, dtype=np.float64)
    if lengths.shape != y.shape or lengths.ndim != 1 or lengths.size == 0:
        raise ValueError("minutes and successes must be two non-empty sequences of one length")
    if not np.all(np.isfinite(lengths) & (lengths > 0)):
        raise ValueError("every task length must be a positive, finite number of minutes")
    x = np.log2(lengths)
    if np.any((y < 0) | (y > 1)):
        raise ValueError("successes must lie in [0, 1]")
    if weights is None:
        w = np.full(x.size, 1.0 if mode == CROSS_DOMAIN else 1.0 / x.size)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != x.shape or np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError("weights must be finite, non-negative and one per run")
    levels, level_of_run = np.unique(x, return_inverse=True)
    wins = np.bincount(level_of_run, weights=w * y, minlength=len(levels))[None, :]
    totals = np.bincount(level_of_run, weights=w, minlength=len(levels))[None, :]
    intercept, slope, status = fit_grouped(levels, wins, totals, penalty)
    p50, p80 = horizons_minutes(levels, wins, totals, intercept, slope, status)
    n_tasks = len(set(task_ids)) if task_ids is not None else int(x.size)
    return HorizonFit(
        intercept=float(intercept[0]),
        slope=float(slope[0]),
        p50_minutes=float(p50[0]),
        p80_minutes=float(p80[0]),
        mode=mode,
        n_runs=int(x.size),
        n_tasks=n_tasks,
        degenerate=DEGENERATE_NAMES[int(status[0])],
    )


def fit_grouped(
    levels: np.ndarray, wins: np.ndarray, totals: np.ndarray, penalty: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Many logistic fits at once on shared log2 lengths: (intercepts, slopes, status).

    levels: U distinct log2 lengths; wins and totals: B × U weighted successes and
    weights at each length, one row per fit. Minimises
    Σ_u [totals·log(1+e^η) − wins·η] + ½·penalty·slope² by Newton's method with step
    halving, every row at once. Rows that are degenerate (status ≠ FINITE) get NaN
    coefficients, except a fit that converged to a slope >= 0 (NON_DECREASING), whose
    coefficients are kept.
    """
    rows = wins.shape[0]
    status = degenerate_status(levels, wins, totals, penalty)
    beta = np.zeros((rows, 2))
    total = totals.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.clip(wins.sum(axis=1) / total, 1e-6, 1 - 1e-6)
    beta[:, 0] = np.log(mean / (1 - mean))
    active = np.flatnonzero(status == FINITE)
    current = _objective(beta, levels, wins, totals, penalty)
    for _ in range(MAX_ITERATIONS):
        if active.size == 0:
            break
        row_wins, row_totals = wins[active], totals[active]
        step = _newton_step(beta[active], levels, row_wins, row_totals, penalty)
        scale = np.ones(active.size)
        # Halve the step where it does not lower the objective (rarely needed: the log
        # loss is convex and Newton starts at the intercept-only fit).
        for _ in range(MAX_HALVINGS):
            trial = beta[active] + scale[:, None] * step
            value = _objective(trial, levels, row_wins, row_totals, penalty)
            worse = (value > current[active]) & (scale > 2.0**-MAX_HALVINGS)
            if not worse.any():
                break
            scale[worse] /= 2
        else:
            value = _objective(
                beta[active] + scale[:, None] * step, levels, row_wins, row_totals, penalty
            )
        moved = scale[:, None] * step
        beta[active] += moved
        current[active] = value
        active = active[np.abs(moved).max(axis=1) > TOLERANCE]
    intercept, slope = beta[:, 0].copy(), beta[:, 1].copy()
    lost = status != FINITE
    intercept[lost] = np.nan
    slope[lost] = np.nan
    status = np.where((status == FINITE) & (slope >= 0), NON_DECREASING, status)
    return intercept, slope, status


def degenerate_status(
    levels: np.ndarray, wins: np.ndarray, totals: np.ndarray, penalty: float
) -> np.ndarray:
    """FINITE where a finite fit exists, else why not (see the module docstring)."""
    losses = totals - wins
    # Below a relative 1e-12 of a row's weight, a success or failure is rounding.
    floor = 1e-12 * totals.sum(axis=1, keepdims=True)
    has_win = wins > floor
    has_loss = losses > floor
    status = np.full(wins.shape[0], FINITE)
    any_win = has_win.any(axis=1)
    any_loss = has_loss.any(axis=1)
    if penalty == 0.0:
        longest_win = np.where(has_win, levels, -np.inf).max(axis=1)
        shortest_win = np.where(has_win, levels, np.inf).min(axis=1)
        longest_loss = np.where(has_loss, levels, -np.inf).max(axis=1)
        shortest_loss = np.where(has_loss, levels, np.inf).min(axis=1)
        # Every success no longer than every failure: the slope runs to −inf.
        status[longest_win <= shortest_loss] = SEPARATED
        # Every failure no longer than every success: the slope runs to +inf.
        rising = (longest_loss <= shortest_win) & (status == FINITE)
        status[rising] = NON_DECREASING
    status[~any_loss] = ALL_SUCCESS
    status[~any_win] = ALL_FAILURE
    return status


def horizons_minutes(
    levels: np.ndarray,
    wins: np.ndarray,
    totals: np.ndarray,
    intercept: np.ndarray,
    slope: np.ndarray,
    status: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """p50 and p80 horizons in minutes of each fit, degenerate rows by the stated rule."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p50 = np.exp2((LOGIT_50 - intercept) / slope)
        p80 = np.exp2((LOGIT_80 - intercept) / slope)
    p50[status == ALL_SUCCESS] = np.inf
    p80[status == ALL_SUCCESS] = np.inf
    p50[status == ALL_FAILURE] = 0.0
    p80[status == ALL_FAILURE] = 0.0
    p50[status == NON_DECREASING] = np.inf
    p80[status == NON_DECREASING] = np.inf
    separated = np.flatnonzero(status == SEPARATED)
    if separated.size:
        floor = 1e-12 * totals[separated].sum(axis=1, keepdims=True)
        win_x = np.where(wins[separated] > floor, levels, -np.inf).max(axis=1)
        loss_x = np.where(totals[separated] - wins[separated] > floor, levels, np.inf).min(axis=1)
        midpoint = np.exp2((win_x + loss_x) / 2)
        p50[separated] = midpoint
        p80[separated] = midpoint
    return p50, p80


def _newton_step(
    beta: np.ndarray, levels: np.ndarray, wins: np.ndarray, totals: np.ndarray, penalty: float
) -> np.ndarray:
    p = expit(beta[:, :1] + beta[:, 1:] * levels)
    residual = wins - totals * p
    gradient = np.stack(
        [residual.sum(axis=1), residual @ levels - penalty * beta[:, 1]], axis=1
    )  # minus the objective's gradient
    curvature = totals * p * (1 - p)
    h00 = curvature.sum(axis=1)
    h01 = curvature @ levels
    h11 = curvature @ (levels * levels) + penalty
    determinant = h00 * h11 - h01 * h01
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.stack(
            [
                (h11 * gradient[:, 0] - h01 * gradient[:, 1]) / determinant,
                (h00 * gradient[:, 1] - h01 * gradient[:, 0]) / determinant,
            ],
            axis=1,
        )
    return np.nan_to_num(step, nan=0.0, posinf=0.0, neginf=0.0)


def _objective(
    beta: np.ndarray, levels: np.ndarray, wins: np.ndarray, totals: np.ndarray, penalty: float
) -> np.ndarray:
    eta = beta[:, :1] + beta[:, 1:] * levels
    # wins·log p + losses·log(1−p), with log(1−p) = log_expit(−η).
    loglik = wins * log_expit(eta) + (totals - wins) * log_expit(-eta)
    return -loglik.sum(axis=1) + 0.5 * penalty * beta[:, 1] ** 2
