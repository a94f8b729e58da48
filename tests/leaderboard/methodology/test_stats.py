"""Tests for leaderboard.methodology.stats: each rule of methodology §2 (and the §3
ratio) pinned.

Pure Python: no Django, no database.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import tarfile
from collections import defaultdict
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from leaderboard.methodology.stats import (
    MIN_RANKED_SESSIONS,
    TOKEN_SAVING_RATIO,
    UNDER_REVIEW_INFRA_RATE,
    Z,
    cluster_robust_ratio,
    competition_ranks,
    cost_per_success,
    is_under_review,
    pass_at_k,
    pass_hat_k,
    pass_k_table,
    percentile,
    token_saving,
    tokens_per_success,
    wilson_interval,
)

DATA = Path(__file__).resolve().parents[2] / "data"
EXPECTED = json.loads((DATA / "expected.json").read_text())


def _expected_entries() -> list[tuple[str, dict]]:
    return [(board, entry) for board, entries in EXPECTED["boards"].items() for entry in entries]


def _wilson_by_hand(successes: int, n: int) -> tuple[float, float]:
    # The §2.2 formula in 50-digit decimals with z = 1.96 written out, so float
    # shortcuts or a different z in the module cannot hide behind it.
    with localcontext() as ctx:
        ctx.prec = 50
        z, p = Decimal("1.96"), Decimal(successes) / Decimal(n)
        center = p + z * z / (2 * n)
        margin = z * ((p * (1 - p) + z * z / (4 * n)) / n).sqrt()
        denominator = 1 + z * z / n
        low, high = (center - margin) / denominator, (center + margin) / denominator
    return float(max(low, Decimal(0))), float(min(high, Decimal(1)))


# --- constants --------------------------------------------------------------------


def test_it_keeps_the_published_constants() -> None:
    assert Z == 1.96
    assert UNDER_REVIEW_INFRA_RATE == 0.2
    assert TOKEN_SAVING_RATIO == 0.8
    assert MIN_RANKED_SESSIONS == 30


# --- Wilson -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "n"), [(7, 9), (1, 2), (3, 10), (50, 100), (110, 128), (1, 1000)]
)
def test_it_agrees_with_statsmodels_wilson_up_to_its_z(successes: int, n: int) -> None:
    # statsmodels uses z = 1.959964; the intervals differ only in the sixth decimal.
    low, high = wilson_interval(successes, n)
    reference_low, reference_high = proportion_confint(successes, n, method="wilson")
    assert low == pytest.approx(reference_low, abs=1e-4)
    assert high == pytest.approx(reference_high, abs=1e-4)


@pytest.mark.parametrize(("successes", "n"), [(7, 9), (1, 3), (5, 8), (117, 143)])
def test_it_uses_z_exactly_1_96(successes: int, n: int) -> None:
    low, high = wilson_interval(successes, n)
    hand_low, hand_high = _wilson_by_hand(successes, n)
    assert low == pytest.approx(hand_low, abs=1e-15)
    assert high == pytest.approx(hand_high, abs=1e-15)
    statsmodels_low, _ = proportion_confint(successes, n, method="wilson")
    assert abs(low - statsmodels_low) > 1e-7


def test_it_reproduces_the_worked_example_of_methodology_2_3() -> None:
    low, high = wilson_interval(7, 9)
    assert (round(low, 4), round(high, 4)) == (0.4526, 0.9368)
    assert low == pytest.approx(0.45258334367280532, abs=1e-15)
    assert high == pytest.approx(0.93677623768777280, abs=1e-15)
    assert not is_under_review(infra_errors=2, runs=12)


def test_it_gives_no_interval_when_n_is_zero() -> None:
    assert wilson_interval(0, 0) == (None, None)


def test_it_pins_the_ends_at_zero_of_n_and_n_of_n() -> None:
    # Unpinned, rounding gives 2e-17 at 0 of 11, -2e-17 at 0 of 15, 1 + 2e-16 at 5 of 5.
    for n in range(1, 200):
        low, high = wilson_interval(0, n)
        assert low == 0.0
        assert high == pytest.approx(_wilson_by_hand(0, n)[1], abs=1e-15)
        low, high = wilson_interval(n, n)
        assert high == 1.0
        assert low == pytest.approx(_wilson_by_hand(n, n)[0], abs=1e-15)


def test_it_rejects_more_successes_than_trials() -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(10, 9)


# --- pass^k and pass@k ------------------------------------------------------------


def test_it_matches_brute_force_pass_hat_k_and_pass_at_k() -> None:
    for n in range(1, 8):
        for c in range(n + 1):
            trials = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                draws = list(itertools.combinations(trials, k))
                all_pass = Fraction(sum(all(d) for d in draws), len(draws))
                any_pass = Fraction(sum(any(d) for d in draws), len(draws))
                assert pass_hat_k(c, n, k) == float(all_pass)
                assert pass_at_k(c, n, k) == pytest.approx(float(any_pass), abs=1e-15)


def test_it_rejects_k_outside_one_to_n() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pass_hat_k(2, 3, 4)
    with pytest.raises(ValueError, match="k must be"):
        pass_at_k(2, 3, 0)


def test_it_rejects_passes_outside_zero_to_n() -> None:
    with pytest.raises(ValueError, match=r"^c must be in \[0, n=3\], got 4$"):
        pass_hat_k(4, 3, 1)
    with pytest.raises(ValueError, match=r"^c must be in \[0, n=3\], got -1$"):
        pass_at_k(-1, 3, 1)


def test_it_builds_pass_k_table_only_from_tasks_with_k_trials() -> None:
    # (counted trials n, passes c) per task.
    table = pass_k_table([(3, 2), (1, 1), (2, 0)])
    assert set(table) == {"1", "2", "3"}
    assert table["1"]["tasks"] == 3
    assert table["1"]["value"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert table["1"]["pass_at_k"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    # k = 2 drops the one-trial task.
    assert table["2"] == pytest.approx(
        {"value": (1 / 3 + 0) / 2, "pass_at_k": (1 + 0) / 2, "tasks": 2}
    )
    assert table["3"] == pytest.approx({"value": 0.0, "pass_at_k": 1.0, "tasks": 1})


def test_it_omits_every_k_that_no_task_qualifies_for() -> None:
    assert pass_k_table([]) == {}
    assert set(pass_k_table([(12, 6)])) == {str(k) for k in range(1, 9)}
    assert set(pass_k_table([(12, 6)], k_max=3)) == {"1", "2", "3"}


# --- percentile -------------------------------------------------------------------


def test_it_matches_numpy_percentile() -> None:
    generator = random.Random(7)
    for size in (1, 2, 3, 10, 101):
        values = [generator.uniform(0, 5000) for _ in range(size)]
        for q in (0, 5, 25, 50, 95, 99, 100, 33.3):
            expected = float(np.percentile(values, q))
            assert percentile(values, q) == pytest.approx(expected, rel=1e-12)


def test_it_gives_no_percentile_for_no_values() -> None:
    assert percentile([], 50) is None


@pytest.mark.parametrize("q", [-0.5, 100.5, 101])
def test_it_rejects_a_percentile_outside_zero_to_a_hundred(q: float) -> None:
    with pytest.raises(ValueError, match=rf"^q must be in \[0, 100\], got {q}$"):
        percentile([1.0, 2.0], q)


def test_it_accepts_the_ends_zero_and_a_hundred() -> None:
    assert percentile([3.0, 1.0, 2.0], 0) == 1.0
    assert percentile([3.0, 1.0, 2.0], 100) == 3.0


def test_it_interpolates_between_ranks() -> None:
    assert percentile([4, 1, 3, 2], 50) == 2.5
    assert percentile([10, 20], 95) == pytest.approx(19.5)


# --- cluster-robust ratio ---------------------------------------------------------


def test_it_computes_cluster_robust_ratio_by_hand() -> None:
    # R = 6/8; residuals y - R·m = -0.5, 0.5, 0; var = 3/2 · 0.5 / 8² = 0.01171875.
    ratio, low, high = cluster_robust_ratio([1, 2, 3], [2, 2, 4])
    half_width = 1.96 * math.sqrt(0.01171875)
    assert ratio == 0.75
    assert low == pytest.approx(0.75 - half_width, abs=1e-15)
    assert high == pytest.approx(0.75 + half_width, abs=1e-15)


def test_it_matches_a_numpy_cluster_robust_ratio() -> None:
    generator = np.random.default_rng(11)
    m = generator.integers(1, 12, size=40).astype(float)
    y = generator.binomial(m.astype(int), 0.3).astype(float)
    ratio = y.sum() / m.sum()
    variance = len(y) / (len(y) - 1) * np.sum((y - ratio * m) ** 2) / m.sum() ** 2
    half_width = 1.96 * np.sqrt(variance)
    result = cluster_robust_ratio(y.tolist(), m.tolist())
    expected = (ratio, ratio - half_width, ratio + half_width)
    assert result == pytest.approx(expected, rel=1e-12)


def test_it_gives_no_ratio_without_clusters_or_units() -> None:
    assert cluster_robust_ratio([], []) == (None, None, None)
    assert cluster_robust_ratio([0, 0], [0, 0]) == (None, None, None)


def test_it_gives_a_ratio_but_no_interval_for_one_cluster() -> None:
    assert cluster_robust_ratio([3], [4]) == (0.75, None, None)


def test_it_gives_no_interval_when_one_cluster_alone_has_units() -> None:
    # Sessions without a unit (no correction, no episode) are clusters that add nothing:
    # with one session holding every unit, the variance is 0 and the interval would be
    # a point, as falsely certain as one cluster's.
    assert cluster_robust_ratio([3, 0, 0, 0], [2, 0, 0, 0]) == (1.5, None, None)


def test_it_rejects_clusters_of_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="length"):
        cluster_robust_ratio([1, 2], [3])


# --- ranks ------------------------------------------------------------------------


def test_it_ranks_ties_with_competition_ranking() -> None:
    assert competition_ranks([0.9, 0.8, 0.8, 0.7]) == [1, 2, 2, 4]
    assert competition_ranks([0.5, 0.5, 0.5]) == [1, 1, 1]
    assert competition_ranks([0.9, 0.8, 0.8]) == [1, 2, 2]
    assert competition_ranks([]) == []


def test_it_ties_only_on_exactly_equal_keys() -> None:
    assert competition_ranks([0.5, 0.5 - 1e-16, 0.4]) == [1, 2, 3]
    zero_pass_lows = [wilson_interval(0, 11)[0], wilson_interval(0, 15)[0]]
    assert competition_ranks(zero_pass_lows) == [1, 1]


def test_it_rejects_keys_not_sorted_descending() -> None:
    with pytest.raises(ValueError, match=r"^keys must be sorted in descending order$"):
        competition_ranks([0.1, 0.2])


# --- under review, cost, tokens ---------------------------------------------------


@pytest.mark.parametrize(
    ("infra_errors", "runs", "flagged"),
    [
        (1, 5, False),
        (3, 15, False),
        (30, 150, False),
        (31, 150, True),
        (2, 9, True),
        (0, 0, False),
    ],
)
def test_it_flags_under_review_only_strictly_above_a_fifth(
    infra_errors: int, runs: int, flagged: bool
) -> None:
    assert is_under_review(infra_errors, runs) is flagged


def test_it_divides_cost_by_successes_when_every_price_is_known() -> None:
    assert cost_per_success(6.0, 4, any_missing_price=False) == (1.5, "ok")


def test_it_gives_cost_per_success_n_a_statuses() -> None:
    assert cost_per_success(6.0, 4, any_missing_price=True) == (None, "missing_price")
    assert cost_per_success(None, 4, any_missing_price=False) == (
        None,
        "missing_price",
    )
    assert cost_per_success(6.0, 0, any_missing_price=False) == (None, "no_successes")
    # Both: missing_price first, the order the spec lists them.
    assert cost_per_success(6.0, 0, any_missing_price=True) == (None, "missing_price")


def test_it_gives_tokens_per_success() -> None:
    assert tokens_per_success(1000, 4) == 250.0
    assert tokens_per_success(None, 4) is None
    assert tokens_per_success(1000, 0) is None


# --- token saving -----------------------------------------------------------------


def test_it_awards_token_saving_at_or_below_the_ratio_without_losing_passes() -> None:
    badge = token_saving(50.0, 0.7, 100.0, 0.6, is_minimal=False)
    assert badge == {"ratio": 0.5, "awarded": True}
    badge = token_saving(80.0, 0.6, 100.0, 0.6, is_minimal=False)
    assert badge == {"ratio": 0.8, "awarded": True}


def test_it_withholds_token_saving_above_the_ratio_or_at_a_lower_pass_rate() -> None:
    above = token_saving(81.0, 0.9, 100.0, 0.6, is_minimal=False)
    assert above == {"ratio": 0.81, "awarded": False}
    lower_pass_rate = token_saving(50.0, 0.59, 100.0, 0.6, is_minimal=False)
    assert lower_pass_rate == {"ratio": 0.5, "awarded": False}


def test_it_gives_the_minimal_baseline_no_token_saving_ratio() -> None:
    badge = token_saving(100.0, 0.6, 100.0, 0.6, is_minimal=True)
    assert badge == {"ratio": None, "awarded": False}


def test_it_gives_no_token_saving_without_a_minimal_or_with_a_null() -> None:
    no_badge = {"ratio": None, "awarded": False}
    assert token_saving(50.0, 0.7, None, None, is_minimal=False) == no_badge
    assert token_saving(None, 0.7, 100.0, 0.6, is_minimal=False) == no_badge
    assert token_saving(50.0, None, 100.0, 0.6, is_minimal=False) == no_badge
    assert token_saving(50.0, 0.7, 0.0, 0.6, is_minimal=False) == no_badge


# --- the reference data (tests/data/expected.json) --------------------------------


def test_it_reproduces_every_wilson_interval_of_the_reference_boards() -> None:
    for _, entry in _expected_entries():
        low, high = wilson_interval(entry["passes"], entry["n"])
        if entry["n"] == 0:
            assert (entry["wilson_low"], entry["wilson_high"]) == (None, None)
            assert (low, high) == (None, None)
        else:
            assert low == pytest.approx(entry["wilson_low"], abs=1e-12)
            assert high == pytest.approx(entry["wilson_high"], abs=1e-12)


def test_it_reproduces_every_under_review_flag_of_the_reference_boards() -> None:
    for _, entry in _expected_entries():
        flagged = is_under_review(entry["infra_errors"], entry["runs"])
        assert flagged is entry["under_review"]


def test_it_reproduces_the_ranks_of_the_reference_boards() -> None:
    for entries in EXPECTED["boards"].values():
        ranked = [e for e in entries if e["rank"] is not None]
        assert ranked == [e for e in entries if not e["under_review"] and e["n"] > 0]
        ranks = competition_ranks([e["wilson_low"] for e in ranked])
        assert ranks == [e["rank"] for e in ranked]


def test_it_agrees_with_the_cost_statuses_of_the_reference_boards() -> None:
    for _, entry in _expected_entries():
        status, value = entry["cost_per_success_status"], entry["cost_per_success"]
        total = value * entry["passes"] if value is not None else 0.0
        missing = status == "missing_price"
        result = cost_per_success(total, entry["passes"], any_missing_price=missing)
        assert result[1] == status
        assert result[0] == pytest.approx(value, rel=1e-12)


def test_it_reproduces_every_token_saving_badge_of_the_reference_boards() -> None:
    for entries in EXPECTED["boards"].values():
        minimal = {e["model"]: e for e in entries if e["minimal_baseline"]}
        for entry in entries:
            baseline = minimal.get(entry["model"], {})
            badge = token_saving(
                entry["tokens_per_success"],
                entry["pass_rate"],
                baseline.get("tokens_per_success"),
                baseline.get("pass_rate"),
                is_minimal=entry["minimal_baseline"],
            )
            assert badge["awarded"] is entry["token_saving"]["awarded"]
            assert badge["ratio"] == pytest.approx(entry["token_saving"]["ratio"], rel=1e-12)


def _termpilot_counted_runs(model: str) -> list[dict]:
    with tarfile.open(DATA / "bundles" / "runs-termpilot.tar.gz") as bundle:
        member = next(m for m in bundle.getmembers() if m.name.endswith("runs.jsonl"))
        lines = bundle.extractfile(member).read().decode().splitlines()
    runs = [json.loads(line) for line in lines if line.strip()]
    return [r for r in runs if r["model"] == model and r["outcome"] != "infra_error"]


@pytest.mark.parametrize("model", ["frontier-large", "frontier-mini"])
def test_it_reproduces_a_reference_entry_from_its_raw_runs(model: str) -> None:
    # TermPilot on the overall board has no conflict exclusions, so its counted runs
    # are simply its non-infra runs: the whole §2.2 pipeline can be replayed here.
    entry = next(
        e
        for e in EXPECTED["boards"]["overall"]
        if e["harness"] == "TermPilot" and e["model"] == model
    )
    assert entry["conflict_excluded"] == 0
    counted = _termpilot_counted_runs(model)
    passes = sum(r["outcome"] == "pass" for r in counted)
    assert (len(counted), passes) == (entry["n"], entry["passes"])

    per_task: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for run in counted:
        trials = per_task[(run["suite"], run["task_id"])]
        trials[0] += 1
        trials[1] += run["outcome"] == "pass"
    table = pass_k_table([(n, c) for n, c in per_task.values()])
    assert set(table) == set(entry["pass_hat_k"])
    for k, row in entry["pass_hat_k"].items():
        assert table[k] == pytest.approx(row, rel=1e-12)

    total_cost = sum(r["cost_usd"] for r in counted)
    cost = cost_per_success(total_cost, passes, any_missing_price=False)
    assert cost == pytest.approx((entry["cost_per_success"], "ok"), rel=1e-12)
    tokens = sum(r["tokens"]["input"] + r["tokens"]["output"] for r in counted)
    assert tokens_per_success(tokens, passes) == pytest.approx(
        entry["tokens_per_success"], rel=1e-12
    )
