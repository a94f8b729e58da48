"""The release gate's rule on hand-made differences: no database."""

from __future__ import annotations

import pytest

from leaderboard.methodology.release_gate import (
    FAIL,
    MARGINS,
    MIN_SESSIONS,
    NIR,
    NOT_ENOUGH_DATA,
    PASS,
    figure_verdict,
    overall_verdict,
)
from leaderboard.methodology.two_sample import MISSING, Difference

ENOUGH = {"sessions_before": MIN_SESSIONS, "sessions_after": MIN_SESSIONS}


def verdict(figure: str, low: float | None, high: float | None, **sessions) -> str:
    difference = Difference(None if low is None else (low + high) / 2, low, high, 0.5)
    return figure_verdict(figure, difference, **(sessions or ENOUGH)).verdict


def test_it_fails_an_interval_wholly_below_minus_the_margin():
    δ = MARGINS[NIR]
    assert verdict(NIR, -0.30, -δ - 1e-9) == FAIL


def test_it_passes_an_interval_that_reaches_minus_the_margin_or_straddles_it():
    δ = MARGINS[NIR]
    assert verdict(NIR, -0.30, -δ) == PASS  # not wholly below: the bound itself
    assert verdict(NIR, -0.30, 0.10) == PASS
    assert verdict(NIR, 0.01, 0.05) == PASS


def test_a_figure_where_lower_is_better_fails_above_plus_the_margin():
    δ = MARGINS["tool_hallucination"]
    assert verdict("tool_hallucination", δ + 0.001, 0.2) == FAIL
    assert verdict("tool_hallucination", δ, 0.2) == PASS  # not wholly above: the bound itself
    assert verdict("tool_hallucination", -0.2, -0.1) == PASS  # fewer hallucinations
    assert verdict("steerability", δ + 0.001, 0.2) == PASS  # higher is better there


@pytest.mark.parametrize(("before", "after"), [(MIN_SESSIONS - 1, 500), (500, MIN_SESSIONS - 1)])
def test_fewer_sessions_than_the_minimum_on_either_side_is_not_enough_data(before, after):
    judged = figure_verdict(
        NIR, Difference(-0.5, -0.6, -0.4, 0.0), sessions_before=before, sessions_after=after
    )
    assert judged.verdict == NOT_ENOUGH_DATA
    assert f"fewer than {MIN_SESSIONS} sessions" in judged.reason


def test_a_difference_without_an_interval_is_not_enough_data():
    assert figure_verdict(NIR, MISSING, **ENOUGH).verdict == NOT_ENOUGH_DATA


def test_any_failing_figure_fails_the_release():
    assert overall_verdict({NIR: PASS, "shell_success": FAIL}) == FAIL
    assert overall_verdict({NIR: NOT_ENOUGH_DATA, "shell_success": FAIL}) == FAIL


def test_otherwise_the_nir_decides():
    assert overall_verdict({NIR: PASS, "bash_recovery": NOT_ENOUGH_DATA}) == PASS
    assert overall_verdict({NIR: NOT_ENOUGH_DATA, "confirmed_success": PASS}) == NOT_ENOUGH_DATA
