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

import functools
import hashlib
from collections.abc import Sequence

import numpy as np

from leaderboard.methodology import stats

# Resamples per entry, and the interval's coverage; both are stated on /methodology/.
# 1,000 is the usual floor for a 95% percentile interval; each resample costs a full
# recompute a matrix product over every entry (performance.md).
BOOTSTRAP_RESAMPLES = 1000
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
    # One row per column, contiguous: sorting along rows is what the memory layout likes
    # (a bootstrap of many entries has thousands of columns of a few thousand values).
    columns = np.ascontiguousarray(values.T)
    valid = np.count_nonzero(~np.isnan(columns), axis=1)
    ordered = _order_statistics(columns, valid, (tail, 100 - tail))
    bounds = []
    for q in (tail, 100 - tail):
        position = np.maximum(valid - 1, 0) * (q / 100)
        below = np.floor(position).astype(np.intp)
        above = np.minimum(below + 1, np.maximum(valid - 1, 0))
        fraction = position - below
        low_value = np.take_along_axis(ordered, below[:, None], axis=1)[:, 0]
        high_value = np.take_along_axis(ordered, above[:, None], axis=1)[:, 0]
        bound = low_value + (high_value - low_value) * fraction
        bounds.append(np.where(valid > 0, bound, np.nan))
    return bounds[0], bounds[1]


def _order_statistics(columns: np.ndarray, valid: np.ndarray, qs: tuple) -> np.ndarray:
    """Each row (a column of resamples) sorted far enough for the percentiles qs: fully
    when some value is NaN (NaN sorts last), else only around the ranks needed."""
    size = columns.shape[1]
    if size == 0 or (valid != size).any():
        return np.sort(columns, axis=1)
    below = [int(np.floor((size - 1) * (q / 100))) for q in qs]  # as percentile_interval
    kth = sorted({rank for b in below for rank in (b, min(b + 1, size - 1))})
    return np.partition(columns, kth, axis=1)


def ratio_intervals(
    counts: np.ndarray, values: np.ndarray, qualifies: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of Σ value / Σ 1 over the qualifying tasks of each resample.

    values and qualifies are tasks × columns (one column per statistic). A resample
    that drew no qualifying task has no value for that column and is left out.
    """
    # Computed as columns × resamples (transposed below without a copy), the layout
    # percentile_interval sorts in.
    weights = counts.T.astype(np.float64)
    means = (values * qualifies).T @ weights
    # A resample draws as many tasks as there are, so where every task qualifies (the
    # usual case: every task has k trials) the denominator is that number, in place.
    everywhere = qualifies.all(axis=0)
    means[everywhere] /= counts.shape[1]
    partly = np.flatnonzero(~everywhere)
    if partly.size:
        means[partly] = _partial_means(means[partly], weights, qualifies[:, partly])
    return percentile_interval(means.T)


def _partial_means(sums: np.ndarray, weights: np.ndarray, qualifies: np.ndarray) -> np.ndarray:
    """Σ value / Σ 1 over the qualifying tasks drawn, NaN where a resample drew none."""
    # Columns often share their qualifying tasks (pass^k and pass@k of one k always do):
    # each distinct pattern is counted once.
    patterns, which = np.unique(qualifies.T, axis=0, return_inverse=True)
    drawn = (patterns.astype(np.float64) @ weights)[which.ravel()]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(drawn > 0, sums / drawn, np.nan)


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
    low, high = ratio_intervals(resample_counts(len(tasks), seed), values, qualifies)
    _fill(table, ks, low, high)
    return table


def task_count_seed(tasks: int) -> int:
    """The seed of every entry with this many tasks (see pass_k_tables_with_intervals)."""
    return bootstrap_seed("pass^k", tasks)


# Resample means held at once: B × columns floats, about 32 MB.
_CHUNK_VALUES = 4_000_000


def pass_k_tables_with_intervals(
    entries: Sequence[Sequence[tuple[int, int]]], k_max: int = stats.PASS_K_MAX
) -> list[dict[str, dict]]:
    """pass_k_table_with_intervals of many entries at once, each seeded by its number of
    tasks (task_count_seed): the same runs still give the same bounds, and entries with
    as many tasks share one matrix of resample counts, so a board's thousand entries cost
    a few matrix products rather than a thousand draws (performance.md)."""
    tables = [stats.pass_k_table(list(tasks), k_max) for tasks in entries]
    by_size: dict[int, list[int]] = {}
    for index, tasks in enumerate(entries):
        if tables[index]:
            by_size.setdefault(len(tasks), []).append(index)
    for size, indices in by_size.items():
        counts = resample_counts(size, task_count_seed(size))
        per_chunk = max(1, _CHUNK_VALUES // (BOOTSTRAP_RESAMPLES * 2 * k_max))
        for start in range(0, len(indices), per_chunk):
            chunk = indices[start : start + per_chunk]
            _fill_chunk(counts, [list(entries[i]) for i in chunk], [tables[i] for i in chunk])
    return tables


def _fill_chunk(counts: np.ndarray, entries: list[list], tables: list[dict]) -> None:
    """One matrix product for every entry of the chunk (they share `counts`)."""
    columns = [[int(k) for k in table] for table in tables]
    parts = [_per_task_matrix(tasks, ks) for tasks, ks in zip(entries, columns, strict=True)]
    values = np.concatenate([v for v, _ in parts], axis=1)
    qualifies = np.concatenate([q for _, q in parts], axis=1)
    low, high = ratio_intervals(counts, values, qualifies)
    start = 0
    for table, ks in zip(tables, columns, strict=True):
        width = 2 * len(ks)
        _fill(table, ks, low[start : start + width], high[start : start + width])
        start += width


# Bounds are rounded to this many decimals: a matrix product's summation order may
# depend on how many entries share it (BLAS blocking), which moved the last bit of a
# bound between a full and an incremental recompute; no figure is shown to 12 digits.
BOUND_DECIMALS = 12


def _fill(table: dict, ks: list[int], low: np.ndarray, high: np.ndarray) -> None:
    """Set the bounds of each k from the columns pass^k (ks order) then pass@k."""
    for column, k in enumerate(ks):
        row = table[str(k)]
        enough = row["tasks"] >= MIN_BOOTSTRAP_TASKS and not np.isnan(low[column])
        pass_hat, pass_at = column, len(ks) + column
        bounds = (low[pass_hat], high[pass_hat], low[pass_at], high[pass_at])
        keys = ("low", "high", "pass_at_k_low", "pass_at_k_high")
        for key, bound in zip(keys, bounds, strict=True):
            row[key] = round(float(bound), BOUND_DECIMALS) if enough else None


def _per_task_matrix(tasks: list[tuple[int, int]], ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """tasks × 2·len(ks) matrices: pass^k then pass@k per task, and whether it qualifies.

    ks is always 1 … m (a pass^k table's keys). Every (n, c) is computed once per
    process (_task_columns), and an entry's rows are picked from those by index.
    """
    width = len(ks)
    picked = [_task_columns(n, c) for n, c in tasks]
    values = np.array([row[0] for row in picked], dtype=np.float64)
    qualifies = np.array([row[1] for row in picked], dtype=bool)
    keep = list(range(width)) + list(range(stats.PASS_K_MAX, stats.PASS_K_MAX + width))
    return values[:, keep], qualifies[:, keep]


@functools.lru_cache(maxsize=1 << 14)
def _task_columns(n: int, c: int) -> tuple[tuple[float, ...], tuple[bool, ...]]:
    """pass^k for k = 1 … PASS_K_MAX, then pass@k, 0 where n < k; and n >= k twice."""
    profile = stats.task_pass_k(n, c)
    padding = (0.0,) * (stats.PASS_K_MAX - len(profile))
    pass_hat = tuple(hat for hat, _ in profile) + padding
    pass_at = tuple(at for _, at in profile) + padding
    qualifies = tuple(n >= k for k in range(1, stats.PASS_K_MAX + 1))
    return pass_hat + pass_at, qualifies + qualifies
