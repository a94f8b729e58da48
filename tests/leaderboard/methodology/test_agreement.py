"""Agreement between the extractor and the moderators (leaderboard.methodology.agreement),
on a hand-worked example; the intervals checked against statsmodels' Wilson interval."""

from __future__ import annotations

import pytest
from statsmodels.stats.proportion import proportion_confint

from leaderboard.methodology.agreement import ALL_LABELS, label_agreement

# (extractor's labels, moderator's labels), one pair per hand-labelled turn.
PAIRS = [
    ({"complaint"}, {"complaint"}),  # the same set: agrees
    ({"complaint", "correction"}, {"complaint"}),  # one label too many: differs
    (set(), set()),  # none and none: agrees
    ({"praise"}, {"iteration"}),  # differs on two labels
]


def test_it_counts_a_turn_as_agreeing_only_when_the_sets_are_equal():
    result = label_agreement(PAIRS, moderators=2)
    overall = result.overall
    # By hand: turns 1 and 3 agree, 2 of 4.
    assert (overall.name, overall.agreed, overall.turns, overall.rate) == (ALL_LABELS, 2, 4, 0.5)
    assert (result.turns, result.moderators) == (4, 2)


def test_it_gives_each_share_the_wilson_interval():
    overall = label_agreement(PAIRS).overall
    low, high = proportion_confint(2, 4, alpha=0.05, method="wilson")
    assert overall.low == pytest.approx(low, abs=1e-4)  # statsmodels' z is 1.96 to 4 places
    assert overall.high == pytest.approx(high, abs=1e-4)
    assert (round(overall.low, 3), round(overall.high, 3)) == (0.15, 0.85)  # by hand


def test_it_counts_per_label_agreement_when_both_or_neither_gave_it():
    per_label = {row.name: (row.agreed, row.turns) for row in label_agreement(PAIRS).per_label}
    # praise: turn 4 differs; complaint: all agree (turns 1, 2 both; 3, 4 neither);
    # correction: turn 2 differs; urging: never given; iteration: turn 4 differs.
    assert per_label == {
        "praise": (3, 4), "complaint": (4, 4), "correction": (3, 4), "urging": (4, 4),
        "iteration": (3, 4),
    }  # fmt: skip


def test_it_publishes_no_rate_without_hand_labelled_turns():
    result = label_agreement([])
    assert result.turns == 0
    assert (result.overall.rate, result.overall.low, result.overall.high) == (None, None, None)
