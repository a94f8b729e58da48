"""The release gate: may a new version of an agent ship? No Django.

A non-inferiority reading of the release view's differences (after − before, each with
its 95% interval, leaderboard.methodology.release). Per figure:
* **not enough data** when either version has fewer than MIN_SESSIONS sessions (the
  boards' own minimum for a rank), or the difference has no interval (a figure missing
  on one side, no counts behind it);
* **fail** when the whole interval lies beyond the figure's margin δ on the worse side:
  high < −δ for a figure where higher is better, low > +δ where lower is better (tool
  hallucinations). The regression is then larger than δ at 95% confidence;
* **pass** otherwise: no regression larger than δ is established (an interval that
  straddles −δ passes; the gate blocks on evidence, not on doubt).

Overall: **fail** when any figure fails; else **not enough data** when the net
improvement rate (the headline) has not enough data; else **pass**. A signal without
data on either side (say, no shell calls at all) cannot block a release by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from leaderboard.methodology.stats import MIN_RANKED_SESSIONS
from leaderboard.methodology.two_sample import Difference

PASS = "pass"
FAIL = "fail"
NOT_ENOUGH_DATA = "not_enough_data"
VERDICTS = (PASS, FAIL, NOT_ENOUGH_DATA)
VERDICT_LABELS = {PASS: "pass", FAIL: "fail", NOT_ENOUGH_DATA: "not enough data"}
# The exit status of `manage.py release_gate` for each overall verdict; a usage error
# (unknown harness, versions that cannot be compared, bad arguments) is USAGE_ERROR.
EXIT_STATUS = {PASS: 0, FAIL: 1, NOT_ENOUGH_DATA: 2}
USAGE_ERROR = 3

NIR = "net_improvement"
# Fewer sessions than this on either side: not enough data (the boards' rank minimum).
MIN_SESSIONS = MIN_RANKED_SESSIONS
# δ per figure: the regression tolerated, in the figure's own unit (a share, or a score
# in [0, 1]). Proportions of sessions or calls and the NIR: 2 points; praise vs
# complaint rests on the few sessions with any sentiment, and bash recovery's episode
# score on the few with a failing command: 5 points; tool hallucinations, whose rates
# are a few percent, 1 point.
MARGINS: dict[str, float] = {
    NIR: 0.02,
    "confirmed_success": 0.02,
    "praise_complaint": 0.05,
    "steerability": 0.02,
    "bash_recovery": 0.05,
    "shell_success": 0.02,
    "tool_hallucination": 0.01,
}
LOWER_IS_BETTER = frozenset({"tool_hallucination"})


@dataclass(frozen=True)
class FigureVerdict:
    figure: str
    verdict: str
    margin: float
    reason: str  # one sentence, for the table and the JSON


def figure_verdict(
    figure: str, difference: Difference, *, sessions_before: int, sessions_after: int
) -> FigureVerdict:
    """The gate's answer for one figure's difference (after − before)."""
    margin = MARGINS[figure]
    fewest = min(sessions_before, sessions_after)
    if fewest < MIN_SESSIONS:
        reason = (
            f"fewer than {MIN_SESSIONS} sessions on one side "
            f"(before {sessions_before}, after {sessions_after})"
        )
        return FigureVerdict(figure, NOT_ENOUGH_DATA, margin, reason)
    low, high = difference.low, difference.high
    if low is None or high is None:
        return FigureVerdict(figure, NOT_ENOUGH_DATA, margin, "no interval for the difference")
    if figure in LOWER_IS_BETTER:
        if low > margin:
            return FigureVerdict(figure, FAIL, margin, f"the interval lies wholly above +{margin}")
        return FigureVerdict(figure, PASS, margin, f"no rise beyond +{margin} established")
    if high < -margin:
        return FigureVerdict(figure, FAIL, margin, f"the interval lies wholly below −{margin}")
    return FigureVerdict(figure, PASS, margin, f"no drop beyond −{margin} established")


def overall_verdict(verdicts: Mapping[str, str]) -> str:
    """Fail when any figure fails; else the headline NIR's answer decides."""
    if FAIL in verdicts.values():
        return FAIL
    if verdicts.get(NIR) != PASS:
        return NOT_ENOUGH_DATA
    return PASS
