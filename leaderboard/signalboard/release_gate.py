"""The release gate on the current snapshot: the release view's differences, judged.

The differences are signalboard.releases' (the agent view's two composite rows); the
rule is leaderboard.methodology.release_gate's. The command, the API and the release
page all read `gate_of` and `gate_payload`, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leaderboard.methodology import release, release_gate
from leaderboard.methodology.release_gate import FigureVerdict
from leaderboard.methodology.two_sample import Difference
from leaderboard.presentation.signals import SIGNAL_LABELS
from leaderboard.signalboard.releases import ReleaseComparison, release_comparison


@dataclass(frozen=True)
class GateFigure:
    figure: str
    label: str
    difference: Difference
    method: str
    judged: FigureVerdict

    @property
    def verdict(self) -> str:
        return self.judged.verdict


@dataclass(frozen=True)
class GateResult:
    comparison: ReleaseComparison
    figures: list[GateFigure]  # the NIR first, then every signal in display order
    verdict: str

    @property
    def exit_status(self) -> int:
        return release_gate.EXIT_STATUS[self.verdict]


def release_gate_check(harness: str, before: str = "", after: str = "") -> GateResult:
    """The gate for `harness` from `before` to `after` (the release view's defaults);
    raises signalboard.releases.ReleaseError when the two cannot be compared."""
    return gate_of(release_comparison(harness, before, after))


def gate_of(comparison: ReleaseComparison) -> GateResult:
    sessions = {
        "sessions_before": comparison.before.sessions,
        "sessions_after": comparison.after.sessions,
    }
    pairs = [(release_gate.NIR, comparison.nir, release.NIR_METHOD)]
    pairs += [(c.signal, c.difference, c.method) for c in comparison.changes]
    figures = [
        GateFigure(
            figure,
            SIGNAL_LABELS[figure],
            difference,
            method,
            release_gate.figure_verdict(figure, difference, **sessions),
        )
        for figure, difference, method in pairs
    ]
    verdict = release_gate.overall_verdict({f.figure: f.verdict for f in figures})
    return GateResult(comparison, figures, verdict)


def gate_payload(result: GateResult) -> dict[str, Any]:
    """The gate as plain JSON: the API's body and `release_gate --json`'s output."""
    c = result.comparison
    return {
        "harness": c.harness,
        "computed_at": c.computed_at.isoformat() if c.computed_at else None,
        "before": {"version": c.before.harness_version, "sessions": c.before.sessions},
        "after": {"version": c.after.harness_version, "sessions": c.after.sessions},
        "verdict": result.verdict,
        "exit_status": result.exit_status,
        "min_sessions": release_gate.MIN_SESSIONS,
        "figures": [
            {
                "figure": f.figure,
                "verdict": f.verdict,
                "margin": f.judged.margin,
                "lower_is_better": f.figure in release_gate.LOWER_IS_BETTER,
                "reason": f.judged.reason,
                "difference": f.difference.value,
                "low": f.difference.low,
                "high": f.difference.high,
                "method": f.method,
            }
            for f in result.figures
        ],
    }
