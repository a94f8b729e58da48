"""How an effect reads: its odds ratio, interval text and interval bar.

The bar is drawn on a fixed log-odds scale, −SCALE … +SCALE with zero (no difference
from the reference) in the middle, so bars can be compared down a column; an interval
running past the scale is clipped at its edge.
"""

from __future__ import annotations

from typing import Any

from leaderboard.formatting import IntervalBar
from leaderboard.methodology.stats import Z

# ±3 log-odds: odds ratios from 1/20 to 20.
SCALE = 3.0
ZERO_X = 50.0


def _x(log_odds: float) -> float:
    clipped = min(max(log_odds, -SCALE), SCALE)
    return round((clipped + SCALE) / (2 * SCALE) * 100, 2)


def effect_bar(effect: Any) -> IntervalBar | None:
    if effect.estimate is None or effect.low is None or effect.high is None:
        return None
    low, high = _x(effect.low), _x(effect.high)
    return IntervalBar(low=low, width=round(high - low, 2), point=_x(effect.estimate))


def odds(value: float | None) -> str:
    """An odds ratio as '×1.85', '×0.42'; '—' for none."""
    if value is None:
        return "—"
    return f"×{value:.3g}" if value < 100 else f"×{value:,.0f}"


def log_odds(value: float | None) -> str:
    """A signed log-odds difference: '+0.62', '−0.87'."""
    if value is None:
        return "—"
    return f"{value:+.2f}".replace("-", "−")


def effect_interval_text(effect: Any) -> str:
    if effect.is_reference:
        return "the reference: every other effect is relative to it"
    if effect.low is None:
        return effect.thin_reason or "not estimable"
    return (
        f"odds ratio {odds(effect.odds_ratio)}, 95% Wald interval "
        f"{odds(effect.odds_ratio_low)}–{odds(effect.odds_ratio_high)} "
        f"(log-odds {log_odds(effect.estimate)} ± {Z}·{effect.std_error:.2f})"
    )
