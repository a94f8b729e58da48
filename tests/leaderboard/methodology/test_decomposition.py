"""Tests for leaderboard.methodology.decomposition (and its fit, `logistic`): the
harness × model additive logistic model, against hand-built truths, SciPy's optimiser
and statsmodels' binomial GLM, and each reason a design is too thin.

Pure: no Django, no database.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from statsmodels.genmod.families import Binomial
from statsmodels.genmod.generalized_linear_model import GLM

from leaderboard.methodology import decomposition as dec
from leaderboard.methodology import logistic
from leaderboard.methodology.decomposition import decompose
from leaderboard.methodology.stats import Z

HARNESS_TRUTH = {"minimal": 0.0, "h1": 0.7, "h2": -0.4, "h3": 1.1}
MODEL_TRUTH = {"m0": 0.0, "m1": -0.8, "m2": 0.5}
TASK_TRUTH = {f"t{i}": -1.0 + 0.4 * i for i in range(6)}
INTERCEPT = 0.2


def _noiseless_rows(trials: float = 1e9) -> list[tuple]:
    """Counts set to expit(true log-odds) exactly (up to rounding a billion trials)."""
    rows = []
    for h, b in HARNESS_TRUTH.items():
        for m, c in MODEL_TRUTH.items():
            for t, d in TASK_TRUTH.items():
                passes = round(trials * expit(INTERCEPT + b + c + d))
                rows.append((h, m, t, passes, int(trials)))
    return rows


def _noisy_rows(seed: int = 3, trials: int = 6) -> list[tuple]:
    rng = np.random.default_rng(seed)
    rows = []
    for h, b in HARNESS_TRUTH.items():
        for m, c in MODEL_TRUTH.items():
            if (h, m) == ("h3", "m2"):  # an unbalanced design: one cell never run
                continue
            for t, d in TASK_TRUTH.items():
                p = expit(INTERCEPT + b + c + d)
                rows.append((h, m, t, int(rng.binomial(trials, p)), trials))
    return rows


def _by_key(effects) -> dict:
    return {e.key: e for e in effects}


def test_it_recovers_the_true_additive_log_odds_from_noiseless_counts() -> None:
    result = decompose(_noiseless_rows(), harness_reference="minimal", model_reference="m0")
    assert result.thin_reason is None
    harnesses, models = _by_key(result.harnesses), _by_key(result.models)
    for key, truth in HARNESS_TRUTH.items():
        assert harnesses[key].estimate == pytest.approx(truth, abs=1e-6)
    for key, truth in MODEL_TRUTH.items():
        assert models[key].estimate == pytest.approx(truth, abs=1e-6)
    assert harnesses["h1"].odds_ratio == pytest.approx(math.exp(0.7), rel=1e-6)
    assert harnesses["minimal"].is_reference and harnesses["minimal"].odds_ratio == 1.0
    assert result.tasks_fitted == len(TASK_TRUTH)


def test_it_orders_effects_from_the_largest_with_the_reference_among_them() -> None:
    result = decompose(_noiseless_rows(), harness_reference="minimal", model_reference="m0")
    assert [e.key for e in result.harnesses] == ["h3", "h1", "minimal", "h2"]


def _scipy_fit(rows: list[tuple], harness_ref: str, model_ref: str) -> dict:
    """An independent maximum-likelihood fit: the log-likelihood written out per row,
    minimised by BFGS with its analytic gradient."""
    harnesses = sorted({r[0] for r in rows} - {harness_ref})
    models = sorted({r[1] for r in rows} - {model_ref})
    tasks = sorted({r[2] for r in rows})[1:]
    names = ["a"] + [("harness", h) for h in harnesses] + [("model", m) for m in models]
    names += [("task", t) for t in tasks]
    index = {name: i for i, name in enumerate(names)}
    x = np.zeros((len(rows), len(names)))
    for i, (h, m, t, _, _) in enumerate(rows):
        x[i, 0] = 1
        for level in (("harness", h), ("model", m), ("task", t)):
            if level in index:
                x[i, index[level]] = 1
    y = np.array([r[3] for r in rows], float)
    n = np.array([r[4] for r in rows], float)

    def negative(beta):
        eta = x @ beta
        return -np.sum(y * eta - n * np.logaddexp(0, eta))

    def gradient(beta):
        return -x.T @ (y - n * expit(x @ beta))

    found = minimize(
        negative, np.zeros(len(names)), jac=gradient, method="BFGS", options={"gtol": 1e-10}
    )
    return {name: found.x[i] for name, i in index.items()}


def test_it_matches_scipy_minimising_the_binomial_log_likelihood() -> None:
    rows = _noisy_rows()
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    expected = _scipy_fit(rows, "minimal", "m0")
    assert result.thin_reason is None
    for effect in result.harnesses:
        if not effect.is_reference:
            assert effect.estimate == pytest.approx(expected[("harness", effect.key)], abs=1e-5)
    for effect in result.models:
        if not effect.is_reference:
            assert effect.estimate == pytest.approx(expected[("model", effect.key)], abs=1e-5)


def test_it_matches_statsmodels_binomial_glm_estimates_and_wald_intervals() -> None:
    rows = _noisy_rows(seed=11)
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    cells = dec._aggregate(rows)
    design, columns = dec.design(cells, "minimal", "m0")
    passes = np.array([c.passes for c in cells], float)
    trials = np.array([c.trials for c in cells], float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        glm = GLM(np.column_stack([passes, trials - passes]), design.dense(), family=Binomial())
        fitted = glm.fit()
    for side, effects in (("harness", result.harnesses), ("model", result.models)):
        for effect in effects:
            if effect.is_reference:
                continue
            column = columns[(side, effect.key)]
            assert effect.estimate == pytest.approx(fitted.params[column], abs=1e-8)
            assert effect.std_error == pytest.approx(fitted.bse[column], rel=1e-6)
            assert effect.low == pytest.approx(fitted.params[column] - Z * fitted.bse[column])
            assert effect.odds_ratio_high == pytest.approx(
                math.exp(fitted.params[column] + Z * fitted.bse[column])
            )


def test_it_defaults_each_reference_to_the_most_run_level() -> None:
    rows = [*_noisy_rows(), ("h1", "m1", "t0", 3, 40)]
    result = decompose(rows, harness_reference=None)
    assert result.harness_reference == "h1"
    assert result.model_reference == "m1"


def test_it_adds_up_repeated_cells_and_rejects_impossible_counts() -> None:
    halves = [(h, m, t, p // 2, n // 2) for h, m, t, p, n in _noiseless_rows(2e9)]
    twice = decompose(halves + halves, harness_reference="minimal", model_reference="m0")
    once = decompose(_noiseless_rows(), harness_reference="minimal", model_reference="m0")
    assert _by_key(twice.harnesses)["h1"].estimate == pytest.approx(
        _by_key(once.harnesses)["h1"].estimate, abs=1e-6
    )
    with pytest.raises(ValueError, match="outside"):
        decompose([("h", "m", "t", 5, 4)], harness_reference="h")


# ---------------------------------------------------------------------------------
# Too thin to separate


def test_it_says_so_when_there_are_no_counted_runs() -> None:
    result = decompose([("h", "m", "t", 0, 0)], harness_reference="h")
    assert result.thin_reason == dec.THIN_NO_RUNS
    assert result.harnesses == ()


def test_it_says_so_when_every_harness_ran_the_same_model() -> None:
    rows = [r for r in _noisy_rows() if r[1] == "m0"]
    result = decompose(rows, harness_reference="minimal")
    assert result.thin_reason == dec.THIN_ONE_MODEL
    assert all(e.estimate is None for e in result.harnesses)
    assert {e.key for e in result.harnesses} == set(HARNESS_TRUTH)


def test_it_says_so_with_a_single_harness() -> None:
    rows = [r for r in _noisy_rows() if r[0] == "minimal"]
    assert decompose(rows, harness_reference="minimal").thin_reason == dec.THIN_ONE_HARNESS


def test_it_names_a_harness_run_only_with_a_model_no_other_harness_ran() -> None:
    rows = _noisy_rows() + [
        ("solo", "own-model", t, i % 3 + 1, 5) for i, t in enumerate(TASK_TRUTH)
    ]
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    assert result.thin_reason is None  # the rest of the board is fine
    solo, own = _by_key(result.harnesses)["solo"], _by_key(result.models)["own-model"]
    assert solo.estimate is None and "only one model" in solo.thin_reason
    assert own.estimate is None and "only one harness" in own.thin_reason
    assert _by_key(result.harnesses)["h1"].estimate is not None


def test_it_names_harnesses_in_a_part_of_the_board_not_connected_to_the_baseline() -> None:
    island = [
        (h, m, t, (i + j) % 4 + 1, 5)
        for i, h in enumerate(("x1", "x2"))
        for j, m in enumerate(("y1", "y2"))
        for t in TASK_TRUTH
    ]
    result = decompose(_noisy_rows() + island, harness_reference="minimal", model_reference="m0")
    x1 = _by_key(result.harnesses)["x1"]
    assert x1.estimate is None and "chain of shared models" in x1.thin_reason


def test_it_says_so_when_the_baseline_is_cut_off_from_every_other_model() -> None:
    rows = [r for r in _noisy_rows() if r[0] != "minimal"] + [
        ("minimal", "own", t, 2, 5) for t in TASK_TRUTH
    ]
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    assert "too few harnesses and models" in result.thin_reason


def test_it_says_so_with_too_few_informative_tasks() -> None:
    rows = [r for r in _noisy_rows(trials=40) if r[2] in ("t2", "t3", "t4")]
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    assert result.thin_reason.startswith("only 3 informative task(s)")


def test_it_leaves_out_tasks_every_run_passed_without_changing_the_estimates() -> None:
    rows = _noisy_rows()
    easy = [(h, m, "easy", 5, 5) for h in HARNESS_TRUTH for m in MODEL_TRUTH]
    with_easy = decompose(rows + easy, harness_reference="minimal", model_reference="m0")
    without = decompose(rows, harness_reference="minimal", model_reference="m0")
    assert with_easy.tasks_uninformative >= 1
    assert _by_key(with_easy.harnesses)["h1"].estimate == pytest.approx(
        _by_key(without.harnesses)["h1"].estimate, abs=1e-9
    )


def test_it_names_a_harness_whose_every_run_passed_as_separated() -> None:
    rows = [r for r in _noisy_rows() if r[0] != "h3"]
    rows += [("h3", m, t, 6, 6) for m in MODEL_TRUTH for t in TASK_TRUTH]
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    h3 = _by_key(result.harnesses)["h3"]
    assert result.thin_reason is None
    assert h3.estimate is None and "perfect separation" in h3.thin_reason


def test_it_says_so_when_the_design_matrix_is_rank_deficient() -> None:
    # h1 ran only t0 and t1 with m1; h2 only t2 and t3 with m1; the baseline ran every
    # task with m0 and m1 but only t0, t1 with m0. Harness and task effects of h1/h2
    # are confounded once their tasks are not shared: build a design where a task is
    # only ever run by one harness–model pair that also appears elsewhere.
    rows = [
        ("minimal", "m0", "t0", 2, 5), ("minimal", "m0", "t1", 3, 5),
        ("minimal", "m1", "t0", 1, 5), ("minimal", "m1", "t1", 2, 5),
        ("h1", "m1", "t2", 2, 5), ("h1", "m1", "t3", 3, 5),
        ("h1", "m1", "t4", 2, 5), ("minimal", "m0", "t5", 1, 5),
        ("minimal", "m0", "t6", 4, 5),
    ]  # fmt: skip
    result = decompose(rows, harness_reference="minimal", model_reference="m0")
    assert result.thin_reason == dec.THIN_RANK


def test_it_says_so_when_the_fit_does_not_converge(monkeypatch: pytest.MonkeyPatch) -> None:
    # Separation that no margin shows (a pattern across cells) makes Newton run away;
    # the iteration limit stands in for it here.
    monkeypatch.setattr(logistic, "MAX_ITERATIONS", 1)
    result = decompose(_noisy_rows(), harness_reference="minimal", model_reference="m0")
    assert result.thin_reason == dec.THIN_NOT_CONVERGED
