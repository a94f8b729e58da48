"""The slices of the signal board: which rows a snapshot holds, and what they are called.

The composite board (every session), one slice per scenario and one per capability
signal (the three-way cross view of methodology §3.1–3.2). Shared by the computation,
the page and the API so that a slice is named the same everywhere.
"""

from __future__ import annotations

from ingestion.models import Scenario
from leaderboard.models import SignalEntry

SliceKind = SignalEntry.SliceKind

COMPOSITE_SCOPE = "all"
SCENARIOS: tuple[str, ...] = tuple(Scenario.values)
CAPABILITY_PREFIX = "capability:"
# The capability signals of the cross view, keyed as SessionSignals.capability_outcomes
# names them; confirmed success is the headline outcome, so its slice repeats the
# composite NIR beside the others for comparison.
CAPABILITIES: tuple[str, ...] = (
    "confirmed_success",
    "praise_complaint",
    "steerability",
    "bash_recovery",
    "shell_success",
    "tool_validity",
)
# The signal columns of a SignalEntry, in display order (api.md).
SIGNALS: tuple[str, ...] = (
    "confirmed_success",
    "praise_complaint",
    "steerability",
    "bash_recovery",
    "shell_success",
    "tool_hallucination",
)
