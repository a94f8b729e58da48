"""Two agents on the same tasks: a paired comparison (methodology "#compare"). No Django.

The difference in pass rate is A − B averaged over the tasks both ran (each task's own
pass rate, so a task with many trials weighs no more than one with few), with a paired
bootstrap interval over tasks. The test is an exact McNemar test on (task, trial) pairs
when both agents ran the very same trial numbers of every shared task, else an exact
sign test over tasks. The bootstrap is seeded from the comparison itself, so a reload
(or a recompute of the same runs) gives the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest

ALPHA = 0.05
BOOTSTRAP_DRAWS = 10_000
CONFIDENCE = 0.95
# The bootstrap draws this many task indices at a time at most (about 16 MB of int64),
# whatever the number of tasks: rows of draws are taken in chunks from one generator.
_CHUNK_CELLS = 2_000_000

MCNEMAR = "mcnemar_exact"
SIGN_TEST = "sign_test_exact"
TEST_LABELS = {
    MCNEMAR: "exact McNemar test on (task, trial) pairs",
    SIGN_TEST: "exact sign test over tasks",
}

A_BETTER, B_BETTER, NO_DIFFERENCE = "a", "b", "none"

# One agent's counted trials of one task: (trial number, passed), one per run. A trial
# number may repeat (two submissions of the same trial): then no trial pairing exists.
Trials = Sequence[tuple[int, bool]]


def bootstrap_mean_interval(
    values: Sequence[float] | np.ndarray,
    *,
    seed: int,
    draws: int = BOOTSTRAP_DRAWS,
    confidence: float = CONFIDENCE,
) -> tuple[float, float] | tuple[None, None]:
    """Percentile bootstrap interval of the mean: resample the values with replacement.

    Row r of the draws is rng.integers(0, n, size=n) taken in order from one generator
    seeded with `seed`, so a loop drawing one row at a time gives the same means.
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n == 0:
        return (None, None)
    means = bootstrap_means(x, seed=seed, draws=draws)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return (float(low), float(high))


def bootstrap_means(x: np.ndarray, *, seed: int, draws: int = BOOTSTRAP_DRAWS) -> np.ndarray:
    """The `draws` bootstrap means of x (vectorised, in chunks of rows)."""
    n = len(x)
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_CELLS // n)
    means = np.empty(draws)
    for start in range(0, draws, rows):
        count = min(rows, draws - start)
        indices = rng.integers(0, n, size=(count, n))
        means[start : start + count] = x[indices].mean(axis=1)
    return means


def mcnemar_exact_p(b: int, c: int) -> float:
    """Two-sided exact McNemar p: min(b, c) of b + c discordant pairs at p = 0.5."""
    if b + c == 0:
        return 1.0
    return float(binomtest(min(b, c), b + c, 0.5).pvalue)


@dataclass(frozen=True)
class SignCounts:
    positive: int  # tasks where A's pass rate is higher
    negative: int  # tasks where B's is higher
    ties: int  # dropped from the test


def sign_test_p(counts: SignCounts) -> float:
    """Two-sided exact sign test over tasks, ties dropped."""
    untied = counts.positive + counts.negative
    if untied == 0:
        return 1.0
    return float(binomtest(counts.positive, untied, 0.5).pvalue)


def same_trials(a: Mapping[str, Trials], b: Mapping[str, Trials], tasks: Sequence[str]) -> bool:
    """Whether both agents ran exactly the same trial numbers of every shared task, each
    number once."""
    for task in tasks:
        numbers = _trial_numbers(a[task])
        if numbers is None or numbers != _trial_numbers(b[task]):
            return False
    return True


def _trial_numbers(trials: Trials) -> list[int] | None:
    numbers = sorted(trial for trial, _ in trials)
    return None if len(set(numbers)) != len(numbers) else numbers


@dataclass(frozen=True)
class PairCounts:
    """The 2×2 table of (task, trial) pairs."""

    both_pass: int
    a_only: int  # b of McNemar: A passed, B failed
    b_only: int  # c of McNemar
    both_fail: int


def pair_counts(
    a: Mapping[str, Trials], b: Mapping[str, Trials], tasks: Sequence[str]
) -> PairCounts:
    cells = [0, 0, 0, 0]
    for task in tasks:
        other_of = dict(b[task])
        for trial, passed in a[task]:
            other = other_of[trial]
            cells[(0 if passed else 2) + (0 if other else 1)] += 1
    both_pass, a_only, b_only, both_fail = cells
    return PairCounts(both_pass, a_only, b_only, both_fail)


@dataclass(frozen=True)
class PairedResult:
    tasks: int  # shared tasks
    a_rate: float | None  # mean over shared tasks of A's per-task pass rate
    b_rate: float | None
    difference: float | None  # a_rate - b_rate
    low: float | None
    high: float | None
    test: str | None  # MCNEMAR or SIGN_TEST
    p_value: float | None
    pairs: PairCounts | None  # McNemar's table, when it was the test
    signs: SignCounts  # the per-task signs (shown whichever test ran)
    verdict: str  # A_BETTER, B_BETTER or NO_DIFFERENCE


def task_rate(trials: Trials) -> float:
    return sum(passed for _, passed in trials) / len(trials)


def paired_comparison(
    a: Mapping[str, Trials], b: Mapping[str, Trials], *, seed: int, alpha: float = ALPHA
) -> PairedResult:
    """Compare A with B on the tasks both have trials of (keys of a and b).

    Tasks are taken in sorted order, so the bootstrap draws do not depend on the order
    the runs were read in.
    """
    tasks = sorted(task for task in a if a[task] and b.get(task))
    diffs = np.array([task_rate(a[t]) - task_rate(b[t]) for t in tasks], dtype=float)
    signs = SignCounts(int((diffs > 0).sum()), int((diffs < 0).sum()), int((diffs == 0).sum()))
    if not tasks:
        return PairedResult(0, None, None, None, None, None, None, None, None, signs, NO_DIFFERENCE)
    low, high = bootstrap_mean_interval(diffs, seed=seed)
    if same_trials(a, b, tasks):
        pairs = pair_counts(a, b, tasks)
        test, p, direction = (
            MCNEMAR,
            mcnemar_exact_p(pairs.a_only, pairs.b_only),
            pairs.a_only - pairs.b_only,
        )
    else:
        pairs = None
        test, p, direction = SIGN_TEST, sign_test_p(signs), signs.positive - signs.negative
    a_rate = float(np.mean([task_rate(a[t]) for t in tasks]))
    b_rate = float(np.mean([task_rate(b[t]) for t in tasks]))
    return PairedResult(
        tasks=len(tasks),
        a_rate=a_rate,
        b_rate=b_rate,
        difference=float(diffs.mean()),
        low=low,
        high=high,
        test=test,
        p_value=p,
        pairs=pairs,
        signs=signs,
        verdict=verdict(p, direction, alpha=alpha),
    )


def verdict(p_value: float | None, direction: float, *, alpha: float = ALPHA) -> str:
    """A_BETTER or B_BETTER when the test rejects at alpha, in the direction of its own
    statistic (discordant pairs, or task signs); else NO_DIFFERENCE."""
    if p_value is None or p_value >= alpha or direction == 0 or math.isnan(p_value):
        return NO_DIFFERENCE
    return A_BETTER if direction > 0 else B_BETTER
