"""The effects forest plot: pure, no database."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from leaderboard.presentation import effects_charts


def effect(name: str, estimate: float | None, *, reference: bool = False) -> SimpleNamespace:
    low = None if estimate is None else estimate - 0.3
    high = None if estimate is None else estimate + 0.3
    return SimpleNamespace(
        name=name,
        is_reference=reference,
        estimate=estimate,
        low=low,
        high=high,
        std_error=0.15,
        thin_reason="",
        odds_ratio=None if estimate is None else math.exp(estimate),
        odds_ratio_low=None if low is None else math.exp(low),
        odds_ratio_high=None if high is None else math.exp(high),
    )


def test_it_draws_the_axis_on_the_bars_scale_of_x0_05_to_x20_whatever_the_effects():
    figure = effects_charts.effects_forest(
        [effect("Minimal", 0.0, reference=True), effect("Relay", 0.4), effect("Quill", 0.9)],
        title="odds ratio",
    )
    xaxis = figure["layout"]["xaxis"]
    low, high = (10**edge for edge in xaxis["range"])
    assert low == pytest.approx(1 / 20, rel=0.01) and high == pytest.approx(20, rel=0.01)
    assert xaxis["ticktext"][0] == "×0.05" and xaxis["ticktext"][-1] == "×20"
    assert "×1" in xaxis["ticktext"]


def test_it_draws_nothing_without_an_interval():
    assert effects_charts.effects_forest([effect("Minimal", None)], title="odds ratio") is None
