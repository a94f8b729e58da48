"""Net improvement rate by randomization inference (methodology §3.1).

For a model T and a session outcome y: observed = mean(y | T) - mean(y). Under the null
the model labels are shuffled within strata, which keeps every model's mix of strata
fixed: the boards pass (scenario, user cohort) pairs (leaderboard.methodology.cohorts;
sessions without a scenario, or without a user, are strata of their own). Any hashable
stratum key works here. mean(y) does not move under such shuffles, so
E_null[observed] = E[mean_T] - mean(y) and sd_null = sd[mean_T].

The closed form is exact (sampling without replacement within each stratum) and is
what boards use; the seeded Monte Carlo path exists to check it and for small boards.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from leaderboard.methodology.stats import Z

DEFAULT_SHUFFLES = 10_000
# Monte Carlo shuffles are drawn in blocks of about this many cells (shuffles x sessions)
# so that memory stays bounded on large boards.
_BLOCK_CELLS = 4_000_000
# Permuted statistics that equal the observed one up to float rounding must count as
# "at least as extreme"; outcomes are means of values in [0, 1].
_TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class NirResult:
    value: float | None  # NIR = observed_gap - null_mean
    observed_gap: float | None  # mean(y | T) - mean(y)
    null_mean: float | None  # E_null[observed_gap]
    null_sd: float | None  # sd_null[observed_gap]
    low: float | None  # value - Z·null_sd
    high: float | None
    p_value: float | None

    def as_dict(self) -> dict[str, float | None]:
        return asdict(self)


EMPTY_RESULT = NirResult(None, None, None, None, None, None, None)


@dataclass(frozen=True)
class _Encoded:
    y: np.ndarray  # float outcomes
    model: np.ndarray  # model code per session
    stratum: np.ndarray  # stratum code per session
    model_keys: list  # code -> original model label
    n_models: int
    n_strata: int


def _encode(
    outcomes: Sequence[float] | np.ndarray,
    models: Sequence[Hashable] | np.ndarray,
    strata: Sequence[Hashable | None],
) -> _Encoded:
    y = np.asarray(outcomes, dtype=float)
    if not (len(y) == len(models) == len(strata)):
        raise ValueError("outcomes, models and strata must have the same length")
    model_codes, model_keys = _codes(models)
    # None is an ordinary key here: sessions without a scenario form one stratum.
    stratum_codes, stratum_keys = _codes(strata)
    return _Encoded(y, model_codes, stratum_codes, model_keys, len(model_keys), len(stratum_keys))


def _codes(values: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, list]:
    index: dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64)
    # Codes are dense (0 .. len(index) - 1, each used), so a bincount over them has one
    # cell per key without a minlength.
    return codes, list(index)


# --- closed form -----------------------------------------------------------------------


def nir_closed_form_all(
    outcomes: Sequence[float] | np.ndarray,
    models: Sequence[Hashable] | np.ndarray,
    strata: Sequence[Hashable | None],
) -> dict[Hashable, NirResult]:
    """Closed-form NIR of every model at once: model label -> NirResult."""
    data = _encode(outcomes, models, strata)
    if len(data.y) == 0:
        return {}
    mu_g, var_g, size_g = _stratum_moments(data)
    # counts[t, g]: sessions of model t in stratum g.
    counts = np.bincount(
        data.model * data.n_strata + data.stratum, minlength=data.n_models * data.n_strata
    ).reshape(data.n_models, data.n_strata)
    n_t = counts.sum(axis=1)
    sum_t = np.bincount(data.model, weights=data.y)
    overall = data.y.mean()
    expected_mean_t = counts @ mu_g / n_t
    # Finite-population correction (N_g - n_Tg)/(N_g - 1); a stratum of one session has
    # zero variance, so its term is 0 whatever the correction is (divided by 1 there).
    fpc = (size_g - counts) / np.maximum(size_g - 1, 1)
    var_mean_t = (counts * var_g * fpc).sum(axis=1) / n_t**2
    return {
        data.model_keys[t]: _result(
            sum_t[t] / n_t[t] - overall, expected_mean_t[t] - overall, var_mean_t[t]
        )
        for t in range(data.n_models)
    }


def nir_closed_form_counts(
    counts: Mapping[tuple[Hashable, Hashable], tuple[int, int]],
) -> dict[Hashable, NirResult]:
    """Closed-form NIR of a 1/0 outcome (confirmed success) from counts alone:
    (model, stratum) -> (sessions, sessions with y = 1); model label -> NirResult.

    A 1/0 outcome's population variance in a stratum is μ(1 − μ), so these counts are
    all the closed form needs: the same figures as nir_closed_form_all over the sessions
    themselves, at a cost that grows with (model, stratum) groups, not sessions.
    """
    counts = {key: value for key, value in counts.items() if value[0] > 0}
    if not counts:
        return {}
    models = list(dict.fromkeys(model for model, _ in counts))
    strata = list(dict.fromkeys(stratum for _, stratum in counts))
    m_code = {model: i for i, model in enumerate(models)}
    g_code = {stratum: i for i, stratum in enumerate(strata)}
    n = np.zeros((len(models), len(strata)))
    ones = np.zeros((len(models), len(strata)))
    for (model, stratum), (sessions, positive) in counts.items():
        n[m_code[model], g_code[stratum]] += sessions
        ones[m_code[model], g_code[stratum]] += positive
    size_g = n.sum(axis=0)
    mu_g = ones.sum(axis=0) / size_g
    var_g = mu_g * (1 - mu_g)
    n_t = n.sum(axis=1)
    overall = ones.sum() / size_g.sum()
    expected_mean_t = n @ mu_g / n_t
    fpc = (size_g - n) / np.maximum(size_g - 1, 1)
    var_mean_t = (n * var_g * fpc).sum(axis=1) / n_t**2
    return {
        model: _result(
            ones[t].sum() / n_t[t] - overall, expected_mean_t[t] - overall, var_mean_t[t]
        )
        for t, model in enumerate(models)
    }


def _stratum_moments(data: _Encoded) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    size = np.bincount(data.stratum)
    mu = np.bincount(data.stratum, weights=data.y) / size
    # Two-pass population variance: stabler than E[y²] - μ² for outcomes near 0 or 1.
    centred = data.y - mu[data.stratum]
    var = np.bincount(data.stratum, weights=centred**2) / size
    return mu, var, size


def _result(observed: float, null_mean: float, null_var: float) -> NirResult:
    value = observed - null_mean
    sd = math.sqrt(max(null_var, 0.0))
    return NirResult(
        value=float(value),
        observed_gap=float(observed),
        null_mean=float(null_mean),
        null_sd=sd,
        low=float(value - Z * sd),
        high=float(value + Z * sd),
        p_value=_normal_p_value(value, sd),
    )


def _normal_p_value(value: float, sd: float) -> float:
    # 2·(1 - Φ(|NIR|/sd)) written as erfc, which keeps precision in the far tail.
    if sd == 0:
        # A degenerate null (every stratum constant, or the model holds all of it):
        # the observed gap is its own expectation, so there is nothing to reject.
        return 1.0
    return math.erfc(abs(value) / sd / math.sqrt(2))


# --- Monte Carlo -----------------------------------------------------------------------


def nir_monte_carlo_all(
    outcomes: Sequence[float] | np.ndarray,
    models: Sequence[Hashable] | np.ndarray,
    strata: Sequence[Hashable | None],
    shuffles: int = DEFAULT_SHUFFLES,
    seed: int = 0,
) -> dict[Hashable, NirResult]:
    """Monte Carlo NIR of every model from `shuffles` within-stratum permutations.

    null_mean and null_sd are the mean and sd (ddof=1) of the permuted gaps; the
    p-value is (1 + #{|stat_b - mean_b| ≥ |observed - mean_b|}) / (B + 1).
    """
    data = _encode(outcomes, models, strata)
    if len(data.y) == 0:
        return {}
    stats = _permuted_gaps(data, shuffles, np.random.default_rng(seed))
    n_t = np.bincount(data.model)
    overall = data.y.mean()
    observed = np.bincount(data.model, weights=data.y) / n_t
    return {
        data.model_keys[t]: _mc_result(observed[t] - overall, stats[:, t])
        for t in range(data.n_models)
    }


def _permuted_gaps(data: _Encoded, shuffles: int, rng: np.random.Generator) -> np.ndarray:
    """(shuffles, models) array of mean(y | T) - mean(y) under within-stratum shuffles.

    Shuffling the labels within a stratum is the same as shuffling the outcomes within
    it while the labels stay put, so each stratum's outcomes are permuted row by row
    and summed onto the models holding those positions. Blocks only bound memory: the
    generator permutes row after row, so any block size draws the very same shuffles.
    """
    sums = np.zeros((shuffles, data.n_models))
    for g in range(data.n_strata):
        members = np.flatnonzero(data.stratum == g)
        onehot = np.zeros((len(members), data.n_models))
        onehot[np.arange(len(members)), data.model[members]] = 1.0
        block = max(1, _BLOCK_CELLS // len(members))
        for start in range(0, shuffles, block):
            rows = min(block, shuffles - start)
            tiled = np.broadcast_to(data.y[members], (rows, len(members)))
            sums[start : start + rows] += rng.permuted(tiled, axis=1) @ onehot
    n_t = np.bincount(data.model)
    return sums / n_t - data.y.mean()


def _mc_result(observed: float, stats: np.ndarray) -> NirResult:
    null_mean = float(stats.mean())
    sd = float(stats.std(ddof=1)) if len(stats) > 1 else 0.0
    value = float(observed - null_mean)
    return NirResult(
        value=value,
        observed_gap=float(observed),
        null_mean=null_mean,
        null_sd=sd,
        low=value - Z * sd,
        high=value + Z * sd,
        p_value=monte_carlo_p_value(observed, stats),
    )


def monte_carlo_p_value(observed: float, null_stats: np.ndarray) -> float:
    """(1 + #{|stat_b - mean_b| ≥ |observed - mean_b|}) / (B + 1), mean_b the mean of
    the B permuted statistics (§3.1). The +1 counts the observed assignment itself,
    so the estimate is never 0.
    """
    centre = float(np.mean(null_stats))
    extreme = np.abs(null_stats - centre) >= abs(observed - centre) - _TIE_TOLERANCE
    return (1 + int(extreme.sum())) / (len(null_stats) + 1)
