"""Spearman's rank correlation across models, with a seeded bootstrap interval.

The cross-validation view relates each model's signal figure to its benchmark pass
rate. ρ is the Pearson correlation of the two columns' average ranks (ties share their
mean rank), as scipy.stats.spearmanr computes it. Its 95% interval is a percentile
bootstrap over models: the models are resampled with replacement (the unit whose
sampling the correlation is uncertain about), each resample's ρ computed the same way,
and resamples in which a column is constant (ρ undefined) are left out. The generator
is seeded from the figures' names (bootstrap.bootstrap_seed), so a page shows the same
bounds on every request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from leaderboard.methodology.bootstrap import CONFIDENCE, bootstrap_seed, percentile_interval

# Resamples of the models; a few thousand is cheap here (models, not sessions).
CORRELATION_RESAMPLES = 2000
# Fewer models: no correlation at all (ρ of two points is always ±1).
MIN_CORRELATION_MODELS = 3


@dataclass(frozen=True)
class RankCorrelation:
    rho: float | None
    low: float | None
    high: float | None
    models: int
    resamples: int  # resamples in which ρ was defined

    def as_dict(self) -> dict[str, float | int | None]:
        return {
            "rho": self.rho,
            "low": self.low,
            "high": self.high,
            "models": self.models,
            "resamples": self.resamples,
        }


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ of two equal-length columns; None when undefined (fewer than two
    values, or a constant column)."""
    rho = _row_spearman(np.asarray([x], dtype=float), np.asarray([y], dtype=float))[0]
    return None if np.isnan(rho) else float(rho)


def rank_correlation(
    x: Sequence[float],
    y: Sequence[float],
    *,
    seed_parts: Sequence[object] = ("rank correlation",),
    resamples: int = CORRELATION_RESAMPLES,
) -> RankCorrelation:
    """ρ with its percentile bootstrap interval over models (seeded by `seed_parts`)."""
    x_values, y_values = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x_values) != len(y_values):
        raise ValueError("x and y must have the same length")
    models = len(x_values)
    if models < MIN_CORRELATION_MODELS:
        return RankCorrelation(None, None, None, models, 0)
    rho = spearman(x_values, y_values)
    rng = np.random.default_rng(bootstrap_seed(*seed_parts, models))
    picks = rng.integers(0, models, size=(resamples, models))
    draws = _row_spearman(x_values[picks], y_values[picks])
    defined = int(np.count_nonzero(~np.isnan(draws)))
    if rho is None or defined == 0:
        return RankCorrelation(rho, None, None, models, defined)
    low, high = percentile_interval(draws[:, None], CONFIDENCE)
    return RankCorrelation(rho, float(low[0]), float(high[0]), models, defined)


def _row_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ρ of each row pair of two (rows × models) arrays; NaN where a row is constant."""
    if x.shape[1] < 2:
        return np.full(x.shape[0], np.nan)
    rx = rankdata(x, axis=1)
    ry = rankdata(y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    numerator = (rx * ry).sum(axis=1)
    denominator = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = numerator / denominator
    # A constant row has zero spread: ρ is undefined there, not 0.
    rho[denominator == 0] = np.nan
    return np.clip(rho, -1.0, 1.0)
