"""Bootstrap intervals for pass^k and pass@k over an entry's tasks (methodology §2.2).

Pure NumPy, no Django. The tasks are the unit that is resampled: trials of one task are
not independent of each other (the same task is easy or hard for every trial), so a
percentile bootstrap over tasks is what the pass^k average is uncertain about.

Vectorised: one matrix of B × T task indices per entry, turned into how often each
task is drawn in each resample (B × T counts). Every k then costs one matrix product,
since a resample's pass^k is Σ count·value / Σ count over the tasks that qualify for k.
The generator is seeded from the entry's identity (`bootstrap_seed`), never from the
clock or Python's salted hash(), so a recompute of the same runs publishes the same
bounds to the last digit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from leaderboard.methodology import stats

# Resamples per entry, and the interval's coverage; both are stated on /methodology/.
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
# Fewer tasks than this: no interval (one task resampled is always itself, and a
# zero-width interval would look falsely certain).
MIN_BOOTSTRAP_TASKS = 2


def bootstrap_seed(*parts: object) -> int:
    """A 64-bit seed from the parts' text: stable across processes and releases.

    Python's hash() of a str is salted per process, so it would change the published
    bounds on every restart; BLAKE2b of the parts joined by "|" does not.
    """
    text = "|".join(str(part) for part in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def resample_counts(tasks: int, seed: int, resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray:
    """How often each of `tasks` tasks is drawn in each resample: a resamples × tasks
    integer matrix from one matrix of indices drawn with replacement.

    The indices are drawn as rng.integers(0, tasks, (resamples, tasks)), exactly as
    scipy.stats.bootstrap draws them, so the two agree draw for draw.
    """
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, tasks, size=(resamples, tasks))
    # Offsetting row b by b·tasks (in place) lets one bincount count every row at once.
    indices += np.arange(0, resamples * tasks, tasks)[:, None]
    return np.bincount(indices.ravel(), minlength=resamples * tasks).reshape(resamples, tasks)


def percentile_interval(
    values: np.ndarray, confidence: float = CONFIDENCE
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile bounds of each column, NaN rows left out (NaN where a
    column has no value at all).

    numpy.nanpercentile's linear interpolation, written out for all columns at once:
    nanpercentile loops over the columns in Python, which cost more than the bootstrap.
    """
    tail = (1 - confidence) / 2 * 100
    valid = np.count_nonzero(~np.isnan(values), axis=0)
    ordered = _order_statistics(values, valid, (tail, 100 - tail))
    bounds = []
    for q in (tail, 100 - tail):
        position = np.maximum(valid - 1, 0) * (q / 100)
        below = np.floor(position).astype(np.intp)
        above = np.minimum(below + 1, np.maximum(valid - 1, 0))
        fraction = position - below
        low_value = np.take_along_axis(ordered, below[None, :], axis=0)[0]
        high_value = np.take_along_axis(ordered, above[None, :], axis=0)[0]
        bound = low_value + (high_value - low_value) * fraction
        bounds.append(np.where(valid > 0, bound, np.nan))
    return bounds[0], bounds[1]


def _order_statistics(values: np.ndarray, valid: np.ndarray, qs: tuple) -> np.ndarray:
    """The columns sorted far enough for the percentiles qs: fully when some value is
    NaN (NaN sorts last), else only around the ranks needed (np.partition, cheaper)."""
    rows = values.shape[0]
    if rows == 0 or (valid != rows).any():
        return np.sort(values, axis=0)
    below = [int(np.floor((rows - 1) * (q / 100))) for q in qs]  # as percentile_interval
    kth = sorted({rank for b in below for rank in (b, min(b + 1, rows - 1))})
    return np.partition(values, kth, axis=0)


def ratio_intervals(
    counts: np.ndarray, values: np.ndarray, qualifies: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of Σ value / Σ 1 over the qualifying tasks of each resample.

    values and qualifies are tasks × columns (one column per statistic). A resample
    that drew no qualifying task has no value for that column and is left out.
    """
    weights = counts.astype(np.float64)
    sums = weights @ (values * qualifies)
    drawn = weights @ qualifies.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(drawn > 0, sums / drawn, np.nan)
    return percentile_interval(means)


def pass_k_table_with_intervals(
    per_task: Sequence[tuple[int, int]], seed: int, k_max: int = stats.PASS_K_MAX
) -> dict[str, dict]:
    """stats.pass_k_table plus a bootstrap interval over tasks for each value.

    Each row gains low, high (pass^k) and pass_at_k_low, pass_at_k_high; all four are
    None when fewer than MIN_BOOTSTRAP_TASKS tasks qualify for that k.
    """
    tasks = list(per_task)
    table = stats.pass_k_table(tasks, k_max)
    ks = [int(k) for k in table]
    if not ks:
        return table
    values, qualifies = _per_task_matrix(tasks, ks)
    counts = resample_counts(len(tasks), seed)
    low, high = ratio_intervals(counts, values, qualifies)
    for column, k in enumerate(ks):
        row = table[str(k)]
        enough = row["tasks"] >= MIN_BOOTSTRAP_TASKS and not np.isnan(low[column])
        pass_hat, pass_at = column, len(ks) + column
        row["low"] = float(low[pass_hat]) if enough else None
        row["high"] = float(high[pass_hat]) if enough else None
        row["pass_at_k_low"] = float(low[pass_at]) if enough else None
        row["pass_at_k_high"] = float(high[pass_at]) if enough else None
    return table


def _per_task_matrix(tasks: list[tuple[int, int]], ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """tasks × 2·len(ks) matrices: pass^k then pass@k per task, and whether it qualifies.

    Tasks with the same (n, c) share one row: trial counts are small, so most repeat.
    """
    rows: dict[tuple[int, int], tuple[list[float], list[bool]]] = {}
    for task in tasks:
        if task not in rows:
            rows[task] = _task_row(*task, ks)
    values = np.array([rows[task][0] for task in tasks], dtype=np.float64)
    qualifies = np.array([rows[task][1] for task in tasks], dtype=bool)
    return values, qualifies


def _task_row(n: int, c: int, ks: list[int]) -> tuple[list[float], list[bool]]:
    pass_hat = [stats.pass_hat_k(c, n, k) if n >= k else 0.0 for k in ks]
    pass_at = [stats.pass_at_k(c, n, k) if n >= k else 0.0 for k in ks]
    qualifies = [n >= k for k in ks]
    return pass_hat + pass_at, qualifies + qualifies
