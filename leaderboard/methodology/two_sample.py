"""Two models on the signal boards: differences of independent figures. No Django.

The two models' sessions are disjoint, so their figures are independent samples:
* confirmed success, a proportion each: Newcombe's hybrid score interval (his method 10,
  built from the two Wilson intervals with the boards' z = 1.96) for p_A − p_B, and the
  two-sided pooled score (z) test for p_A = p_B;
* the net improvement rate, an estimate with its null standard deviation each: the
  difference with sd = sqrt(sd_A² + sd_B²) and a normal interval and p-value. The two
  NIRs share the null's pool of sessions, so this ignores a (small, negative) covariance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from leaderboard.methodology.paired import A_BETTER, ALPHA, B_BETTER, NO_DIFFERENCE
from leaderboard.methodology.stats import Z, wilson_interval


@dataclass(frozen=True)
class Difference:
    value: float | None
    low: float | None
    high: float | None
    p_value: float | None

    def verdict(self, alpha: float = ALPHA) -> str:
        if self.value is None or self.p_value is None or self.p_value >= alpha or self.value == 0:
            return NO_DIFFERENCE
        return A_BETTER if self.value > 0 else B_BETTER


MISSING = Difference(None, None, None, None)


def newcombe_interval(
    x1: int, n1: int, x2: int, n2: int, z: float = Z
) -> tuple[float, float] | tuple[None, None]:
    """Newcombe's hybrid score interval (method 10) for x1/n1 − x2/n2."""
    if n1 == 0 or n2 == 0:
        return (None, None)
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson_interval(x1, n1, z)
    l2, u2 = wilson_interval(x2, n2, z)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (low, high)


def normal_two_sided_p(z_score: float) -> float:
    """2·(1 − Φ(|z|)), via erfc so that small p-values keep their digits."""
    return math.erfc(abs(z_score) / math.sqrt(2))


def pooled_score_p(x1: int, n1: int, x2: int, n2: int) -> float | None:
    """Two-sided p of the pooled two-proportion z test (the score test)."""
    if n1 == 0 or n2 == 0:
        return None
    pooled = (x1 + x2) / (n1 + n2)
    variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if variance == 0:  # both all successes or all failures: no evidence of a difference
        return 1.0
    return normal_two_sided_p((x1 / n1 - x2 / n2) / math.sqrt(variance))


def proportion_difference(x1: int, n1: int, x2: int, n2: int) -> Difference:
    if n1 == 0 or n2 == 0:
        return MISSING
    low, high = newcombe_interval(x1, n1, x2, n2)
    return Difference(x1 / n1 - x2 / n2, low, high, pooled_score_p(x1, n1, x2, n2))


def estimate_difference(
    a: float | None, sd_a: float | None, b: float | None, sd_b: float | None, z: float = Z
) -> Difference:
    """a − b for two independent normal estimates with their standard deviations."""
    if a is None or b is None or sd_a is None or sd_b is None:
        return MISSING
    value = a - b
    sd = math.sqrt(sd_a**2 + sd_b**2)
    if sd == 0:
        return Difference(value, None, None, None)
    return Difference(value, value - z * sd, value + z * sd, normal_two_sided_p(value / sd))
