"""An agent before and after a release: each signal's difference (after − before). No Django.

The two versions' sessions are disjoint, so their figures are independent samples and
the two-model rules of two_sample apply unchanged:
* a proportion (confirmed success, praise vs complaint, shell success, tool
  hallucination): Newcombe's hybrid score interval for p_after − p_before, from the
  counts each figure is a proportion of, and the pooled score test;
* a cluster-robust ratio (steerability, bash recovery): its interval is estimate ± Z·se
  clamped to [0, 1], so se = the larger distance from the estimate to an end / Z (the
  end further from the estimate was not clamped), and the difference is normal with
  sd = sqrt(se_after² + se_before²). An interval clamped at both ends, [0, 1], hides
  its se: no difference is given, as for a ratio without an interval;
* the net improvement rate: NIR_after − NIR_before ± Z·sqrt(sd_after² + sd_before²), each
  sd the NIR's own null sd (both NIRs are against the same pool, the agent view's
  sessions with the board's strata; the small covariance is ignored, as in two_sample).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from leaderboard.methodology import two_sample
from leaderboard.methodology.stats import Z

# Proportions: signal -> the counts whose sum its value is a proportion of (tool
# hallucinations are over tool calls and capability claims; snapshots without claims
# count calls alone).
PROPORTION_COUNTS: dict[str, tuple[str, ...]] = {
    "confirmed_success": ("n",),
    "praise_complaint": ("n",),
    "shell_success": ("calls",),
    "tool_hallucination": ("calls", "claims"),
}
RATIOS = ("steerability", "bash_recovery")
NEWCOMBE_METHOD = "Newcombe hybrid score interval (method 10, Wilson z = 1.96); pooled score test"
RATIO_METHOD = (
    "normal: difference ± 1.96·sqrt(se_after² + se_before²), se = interval half-width / 1.96"
)
NIR_METHOD = "normal: NIR_after − NIR_before ± 1.96·sqrt(sd_after² + sd_before²), sd = null sd"

Figure = Mapping[str, Any]


def signal_difference(
    signal: str, after: Figure | None, before: Figure | None
) -> tuple[two_sample.Difference, str]:
    """(after − before with its 95% interval and p-value, the method's name)."""
    if signal in PROPORTION_COUNTS:
        counts = PROPORTION_COUNTS[signal]
        x_after, n_after = proportion_counts(after, counts)
        x_before, n_before = proportion_counts(before, counts)
        difference = two_sample.proportion_difference(x_after, n_after, x_before, n_before)
        return difference, NEWCOMBE_METHOD
    if signal in RATIOS:
        return _estimate(after, before, _clamped_se), RATIO_METHOD
    raise ValueError(f"no difference rule for signal {signal!r}")


def nir_difference(after: Figure | None, before: Figure | None) -> two_sample.Difference:
    return _estimate(after, before, lambda figure: figure.get("null_sd"))


def proportion_counts(figure: Figure | None, counts: tuple[str, ...]) -> tuple[int, int]:
    """(successes, trials) of a stored proportion: its value is successes / trials, the
    trials the sum of its `counts`."""
    figure = figure or {}
    n = sum(int(figure.get(count) or 0) for count in counts)
    value = figure.get("value")
    return (round(value * n) if value is not None else 0), n


def _clamped_se(figure: Figure) -> float | None:
    value, low, high = figure.get("value"), figure.get("low"), figure.get("high")
    if value is None or low is None or high is None or (low, high) == (0.0, 1.0):
        return None
    return max(value - low, high - value) / Z


def _estimate(after: Figure | None, before: Figure | None, se) -> two_sample.Difference:
    after, before = after or {}, before or {}
    return two_sample.estimate_difference(
        after.get("value"), se(after), before.get("value"), se(before)
    )
