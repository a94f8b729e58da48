"""Pure statistics behind Arena's boards (methodology §2 and §3).

Nothing here knows about Django, models or the database: every function takes plain
numbers and returns plain numbers, so the rules can be tested exactly and reused by
the board builder, the API and the methodology page alike.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence

# These constants are rendered on the methodology page; keep them the only copy.

# The spec fixes z at exactly 1.96 (not 1.959964) so that anyone can reproduce every
# published interval by hand from the formula on the methodology page.
Z = 1.96
# An entry is under review when strictly more than this share of its runs are infra
# errors.
UNDER_REVIEW_INFRA_RATE = 0.2
# Token Saving badge: tokens per success at most this fraction of the Minimal
# baseline's.
TOKEN_SAVING_RATIO = 0.8
# Signal boards: a model (or a scenario slice) with fewer sessions is listed, unranked.
MIN_RANKED_SESSIONS = 30
# Signal boards: a model whose largest uploading account contributed strictly more than
# this share of its counted sessions is "concentrated" (its figures are also shown
# without that account).
CONCENTRATION_SHARE = 0.5
# "How stable" wording of a signal figure: below MIN_RANKED_SESSIONS it is not ranked;
# below this many sessions its rank may still move as sessions arrive.
SETTLED_SESSIONS = 100
# pass^k and pass@k are published for k = 1 … this.
PASS_K_MAX = 8

COST_OK = "ok"
COST_MISSING_PRICE = "missing_price"
COST_NO_SUCCESSES = "no_successes"
# List cost: a counted run without token counts cannot be priced.
COST_MISSING_TOKENS = "missing_tokens"
# The submitters' reported cost per success disagrees with the list price's when they
# differ by more than this fraction of the list figure.
COST_DISAGREEMENT = 0.25


def wilson_interval(
    successes: int, n: int, z: float = Z
) -> tuple[float, float] | tuple[None, None]:
    """Wilson score interval for successes / n, exactly as written in §2.2."""
    if n == 0:
        return (None, None)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    center = p + z * z / (2 * n)
    margin = z * math.sqrt((p * (1 - p) + z * z / (4 * n)) / n)
    denominator = 1 + z * z / n
    # The spec clamps to [0, 1]. The formula only leaves [0, 1] at its two ends, by
    # float rounding (0 of 15 gives -2e-17, 5 of 5 gives 1 + 2e-16; for 0 < passes < n
    # it stays strictly inside). Yet 0 of 11 gives +2e-17, which clamping would keep,
    # so the ends are pinned to their exact values instead: every 0-pass entry then
    # shares wilson_low = 0 and ties in rank.
    low = 0.0 if successes == 0 else (center - margin) / denominator
    high = 1.0 if successes == n else (center + margin) / denominator
    return (low, high)


def pass_hat_k(c: int, n: int, k: int) -> float:
    """τ-bench pass^k: chance that k trials drawn from n (c passing) all pass."""
    _check_pass_k_arguments(c, n, k)
    # math.comb is exact and int / int rounds once, so the result is correctly rounded.
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(c: int, n: int, k: int) -> float:
    """pass@k: chance that at least one of k trials drawn from n (c passing) passes."""
    _check_pass_k_arguments(c, n, k)
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def _check_pass_k_arguments(c: int, n: int, k: int) -> None:
    # k > n would divide by C(n, k) = 0; callers must skip tasks with fewer trials.
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, n={n}], got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be in [0, n={n}], got {c}")


def pass_k_table(per_task: Iterable[tuple[int, int]], k_max: int = PASS_K_MAX) -> dict[str, dict]:
    """pass^k and pass@k averaged over the tasks with at least k counted trials.

    per_task holds (counted trials n, passes c) for each task. Keys are str(k) so the
    table serialises to JSON unchanged; a k no task qualifies for is left out.
    """
    # One pass over the tasks, adding in task order (as sum() over each k's qualifying
    # tasks would, so the same floats come out): a board has thousands of entries.
    hats, ats, tasks = [0.0] * k_max, [0.0] * k_max, [0] * k_max
    for n, c in per_task:
        for k, (hat, at) in enumerate(task_pass_k(n, c)[:k_max]):
            hats[k] += hat
            ats[k] += at
            tasks[k] += 1
    return {
        str(k + 1): {"value": hats[k] / tasks[k], "pass_at_k": ats[k] / tasks[k], "tasks": tasks[k]}
        for k in range(k_max)
        if tasks[k]
    }


# A board asks for the same few (n, c) thousands of times, and math.comb is slow.
@functools.lru_cache(maxsize=1 << 14)
def task_pass_k(n: int, c: int) -> tuple[tuple[float, float], ...]:
    """(pass^k, pass@k) of one task for k = 1 … min(n, PASS_K_MAX)."""
    return tuple(
        (pass_hat_k(c, n, k), pass_at_k(c, n, k)) for k in range(1, min(n, PASS_K_MAX) + 1)
    )


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (q in [0, 100]) with linear interpolation between ranks.

    Same definition as numpy.percentile's default and PostgreSQL's percentile_cont
    (which takes q / 100), so a database-side p95 agrees with this one.
    """
    if not 0 <= q <= 100:
        raise ValueError(f"q must be in [0, 100], got {q}")
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction


def cluster_robust_ratio(
    y: Sequence[float], m: Sequence[float], z: float = Z
) -> tuple[float | None, float | None, float | None]:
    """Ratio of sums R = Σy / Σm with a cluster-robust interval (methodology §3).

    Each cluster (session) s contributes a total y_s over m_s units (turns, episodes).
    Returns (R, low, high); the bounds are not clamped because the caller maps them
    (for example through 1 - R/3) before publishing.
    """
    if len(y) != len(m):
        raise ValueError(f"y and m differ in length: {len(y)} != {len(m)}")
    clusters = len(y)
    total_units = math.fsum(m)
    # No clusters, or clusters without a single unit: there is no ratio to report.
    if clusters == 0 or total_units == 0:
        return (None, None, None)
    ratio = math.fsum(y) / total_units
    # One cluster: the n/(n-1) correction divides by zero, and a single session says
    # nothing about how sessions vary, so the ratio is reported without an interval
    # rather than with a zero-width one that would look falsely certain. The same when
    # one cluster alone has units (one session with corrections, or with episodes, among
    # many): the others add nothing, and the variance would be exactly 0.
    if sum(1 for m_s in m if m_s > 0) < 2:
        return (ratio, None, None)
    half_width = z * math.sqrt(_cluster_robust_variance(y, m, ratio, total_units))
    return (ratio, ratio - half_width, ratio + half_width)


def _cluster_robust_variance(
    y: Sequence[float], m: Sequence[float], ratio: float, total_units: float
) -> float:
    clusters = len(y)
    squared_residuals = math.fsum((y_s - ratio * m_s) ** 2 for y_s, m_s in zip(y, m, strict=True))
    return clusters / (clusters - 1) * squared_residuals / total_units**2


def competition_ranks(keys: Sequence[float]) -> list[int]:
    """Standard competition ranks (1, 2, 2, 4) for sort keys already sorted descending.

    Ties are exact float equality of the key: wilson_low is a deterministic function
    of (passes, n), so equal records give bit-identical keys, and any tolerance would
    make ties depend on an arbitrary epsilon. Keys must not be NaN.
    """
    ranks: list[int] = []
    for position, key in enumerate(keys):
        if position and key > keys[position - 1]:
            raise ValueError("keys must be sorted in descending order")
        tied_with_previous = position > 0 and key == keys[position - 1]
        ranks.append(ranks[-1] if tied_with_previous else position + 1)
    return ranks


def cost_per_success(
    total_cost: float | None, passes: int, any_missing_price: bool
) -> tuple[float | None, str]:
    """Dollars per success over all counted runs, with its status (§2.2).

    When a price is missing and there are no successes, missing_price wins: the spec
    lists it first, and it names a data gap that the submitter can fix, whereas
    no_successes would stay true however the prices were repaired. (The reference
    data has no entry with both; its passes = 0 entries have no counted runs at all.)
    A None total is treated as a missing price: a partial sum is never published.
    """
    if any_missing_price or total_cost is None:
        return (None, COST_MISSING_PRICE)
    if passes == 0:
        return (None, COST_NO_SUCCESSES)
    return (total_cost / passes, COST_OK)


def list_cost_per_success(
    list_cost: float, passes: int, *, untokened: int, unpriced: int
) -> tuple[float | None, str]:
    """Dollars per success at the price list's prices, with its status: n/a when any
    counted run has no token counts (missing_tokens, named first: the submitter can fix
    it) or its model no list price on the run's date (missing_price), never a partial
    sum; then no_successes when passes = 0."""
    if untokened:
        return (None, COST_MISSING_TOKENS)
    if unpriced:
        return (None, COST_MISSING_PRICE)
    return cost_per_success(list_cost, passes, False)


def cost_disagrees(list_cost: float | None, reported_cost: float | None) -> bool:
    """Whether the reported cost per success differs from the list price's by more than
    COST_DISAGREEMENT of the list figure (both known; a free list price disagrees with
    any reported cost above zero)."""
    if list_cost is None or reported_cost is None:
        return False
    return abs(reported_cost - list_cost) > COST_DISAGREEMENT * list_cost


def tokens_per_success(total_tokens: int | None, passes: int) -> float | None:
    """Input + output tokens per success; None when any run lacked counts (the caller
    passes None for the total then) or there are no successes."""
    if total_tokens is None or passes == 0:
        return None
    return total_tokens / passes


def token_saving(
    agent_tps: float | None,
    agent_pass_rate: float | None,
    minimal_tps: float | None,
    minimal_pass_rate: float | None,
    *,
    is_minimal: bool,
) -> dict:
    """Token Saving badge against the Minimal baseline of the same model and board.

    Awarded when the agent needs at most TOKEN_SAVING_RATIO of the Minimal tokens per
    success without a lower pass rate. The Minimal baseline is never compared with
    itself, and any missing figure (or a Minimal entry that needed zero tokens, which
    leaves the ratio undefined) means no ratio and no badge.
    """
    inputs = (agent_tps, agent_pass_rate, minimal_tps, minimal_pass_rate)
    if is_minimal or any(value is None for value in inputs) or minimal_tps == 0:
        return {"ratio": None, "awarded": False}
    ratio = agent_tps / minimal_tps
    awarded = ratio <= TOKEN_SAVING_RATIO and agent_pass_rate >= minimal_pass_rate
    return {"ratio": ratio, "awarded": awarded}


def is_under_review(infra_errors: int, runs: int) -> bool:
    """True when infra errors are strictly more than UNDER_REVIEW_INFRA_RATE of runs.

    Integer division rounds once, and equal fractions round to the same float, so a
    rate of exactly one in five (3 of 15, 20 of 100) equals the constant and is not
    under review. No runs means nothing is broken.
    """
    if runs == 0:
        return False
    return infra_errors / runs > UNDER_REVIEW_INFRA_RATE
