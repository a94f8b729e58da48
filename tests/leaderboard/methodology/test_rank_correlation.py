"""Spearman's ρ across models and its seeded bootstrap interval."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from leaderboard.methodology.rank_correlation import (
    MIN_CORRELATION_MODELS,
    rank_correlation,
    spearman,
)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_it_gives_scipys_spearman_rho_ties_included(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 5, size=12).astype(float)  # ties on purpose
    y = x + rng.normal(0, 2, size=12)
    assert spearman(x, y) == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)


def test_it_has_no_rho_for_a_constant_column():
    assert spearman([0.3, 0.3, 0.3], [1, 2, 3]) is None


def test_it_draws_the_same_interval_for_the_same_figures():
    x, y = [0.1, 0.4, 0.35, 0.8, 0.6, 0.2], [0.0, 0.1, 0.2, 0.3, 0.1, -0.1]
    first = rank_correlation(x, y, seed_parts=("nir",))
    again = rank_correlation(x, y, seed_parts=("nir",))
    assert first == again
    assert first.rho == pytest.approx(spearmanr(x, y).statistic)
    assert first.low <= first.rho <= first.high
    assert first.low >= -1
    assert first.high <= 1
    assert 0 < first.resamples <= 2000


def test_it_gives_nothing_below_the_model_floor():
    result = rank_correlation([0.1, 0.2], [0.3, 0.1])
    assert MIN_CORRELATION_MODELS == 3
    assert (result.rho, result.low, result.high, result.models) == (None, None, None, 2)


def test_it_refuses_columns_of_different_lengths():
    with pytest.raises(ValueError):
        rank_correlation([0.1, 0.2, 0.3], [0.1, 0.2])
