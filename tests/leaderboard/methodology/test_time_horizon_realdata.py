"""leaderboard.methodology.time_horizon against METR's own published data: the
cross-domain study's SWE-bench Verified horizons refitted from its per-task scores, and
the headline mode against scikit-learn's LogisticRegression on METR's run file.

Read from ../shared/realdata (metr-horizon.tar.xz), extracted into a temporary folder;
skipped, saying why, when the archive is absent. Nothing of it is copied into the project.
"""

from __future__ import annotations

import csv
import json
import tomllib
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from leaderboard.methodology.bootstrap import bootstrap_seed
from leaderboard.methodology.time_horizon import (
    CROSS_DOMAIN,
    HEADLINE,
    HEADLINE_C,
    headline_weights,
    horizon_fit,
)
from leaderboard.methodology.time_horizon_bootstrap import HorizonRun, horizon_interval
from tests.ingestion.importers.realdata import extracted

ARCHIVE = "metr-horizon.tar.xz"
CROSS = Path("metr-horizon/cross-domain-horizon/data")
RUNS = Path("metr-horizon/eval-analysis-public/data/external/all_runs.jsonl")
# The cross-domain study's SWE-bench Verified lengths are its difficulty buckets'
# geometric midpoints (7.5, 30, 120 and 480 minutes), as the archive's file gives them.
BUCKET_MINUTES = {7.5, 30.0, 120.0, 480.0}


@pytest.fixture(scope="module")
def metr(tmp_path_factory) -> Path:
    return extracted(ARCHIVE, ("metr-horizon/",), tmp_path_factory.mktemp("metr"))


@pytest.fixture(scope="module")
def swe_bench(metr: Path) -> tuple[list[str], dict[str, float], dict[str, dict[str, float]]]:
    """(tasks, minutes per task, score in [0, 1] per model per task)."""
    lengths = tomllib.loads((metr / CROSS / "benchmarks/swe_bench_verified.toml").read_text())
    scores = tomllib.loads((metr / CROSS / "scores/swe_bench_verified.toml").read_text())
    tasks = sorted(scores["splits"])
    minutes = {task: lengths["splits"][task]["lengths"][0] for task in tasks}
    by_model: dict[str, dict[str, float]] = defaultdict(dict)
    for task in tasks:
        for model, score in scores["splits"][task].items():
            by_model[model][task] = score / 100
    return tasks, minutes, dict(by_model)


def test_it_reproduces_metrs_swe_bench_verified_horizons(metr, swe_bench):
    tasks, minutes, by_model = swe_bench
    assert len(tasks) == 500 and set(minutes.values()) == BUCKET_MINUTES
    with (metr / CROSS / "horizons/swe_bench_verified.csv").open() as handle:
        published = list(csv.DictReader(handle))
    assert len(published) == 13
    for row in published:
        scores = by_model[row["model"]]
        fit = horizon_fit(
            [minutes[t] for t in tasks],
            [scores[t] for t in tasks],
            mode=CROSS_DOMAIN,
            task_ids=tasks,
        )
        # METR's slope is the steepness of 1 / (1 + e^(slope·(log2 t − log2 h))): ours negated.
        assert fit.p50_minutes == pytest.approx(float(row["horizon"]), rel=1e-3), row["model"]
        assert -fit.slope == pytest.approx(float(row["slope"]), abs=1e-3), row["model"]
        assert fit.p80_minutes < fit.p50_minutes
        assert (fit.n_runs, fit.n_tasks) == (500, 500)


def test_it_fits_the_headline_mode_as_scikit_learn_does(metr):
    sklearn = pytest.importorskip("sklearn.linear_model")
    by_agent: dict[str, list[dict]] = defaultdict(list)
    for line in (metr / RUNS).read_text().splitlines():
        run = json.loads(line)
        by_agent[run["alias"]].append(run)
    compared = 0
    for agent, runs in by_agent.items():
        weights = headline_weights([r["task_id"] for r in runs], [r["task_family"] for r in runs])
        # METR's own weight column, computed by its pipeline from the same runs.
        published = np.array([r["invsqrt_task_weight"] for r in runs])
        np.testing.assert_allclose(weights, published, rtol=1e-6, atol=1e-9, err_msg=agent)
        minutes = np.array([r["human_minutes"] for r in runs])
        successes = np.array([r["score_binarized"] for r in runs], dtype=np.float64)
        fit = horizon_fit(minutes, successes, weights=weights, mode=HEADLINE)
        if len(np.unique(successes)) < 2:
            assert fit.degenerate == "all_failure"
            continue
        # METR fits LogisticRegression(C=1/0.1) with its default lbfgs solver, which
        # leaves the intercept out of the penalty: the same objective as ours,
        # C·Σ w·loss + ½·slope². (liblinear would penalise the intercept too, unless it
        # were given a large intercept_scaling.)
        model = sklearn.LogisticRegression(C=HEADLINE_C, tol=1e-12, max_iter=10_000)
        model.fit(np.log2(minutes)[:, None], successes, sample_weight=weights)
        assert fit.slope == pytest.approx(model.coef_[0][0], abs=1e-6), agent
        assert fit.intercept == pytest.approx(model.intercept_[0], abs=1e-6), agent
        sklearn_p50 = 2 ** (-model.intercept_[0] / model.coef_[0][0])
        assert fit.p50_minutes == pytest.approx(sklearn_p50, rel=1e-5), agent
        compared += 1
    assert compared >= 10


def test_it_bounds_every_swe_bench_model_by_a_bootstrap_around_its_fit(swe_bench):
    tasks, minutes, by_model = swe_bench
    for model, scores in by_model.items():
        # SWE-bench Verified's tasks come in repositories: the family of a task.
        runs = [HorizonRun(t, t.split("__")[0], minutes[t], scores[t]) for t in tasks]
        fit = horizon_fit(
            [run.minutes for run in runs], [run.success for run in runs], mode=CROSS_DOMAIN
        )
        interval = horizon_interval(
            runs, mode=CROSS_DOMAIN, seed=bootstrap_seed("time-horizon", model)
        )
        assert interval.p50_low < fit.p50_minutes < interval.p50_high, model
        assert interval.p80_low < fit.p80_minutes < interval.p80_high, model
