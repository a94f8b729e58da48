"""The reference bundle and its figures (tests/data/expected.json) for the tests that
check the published signals against them. Pure Python: no Django.

expected.json was computed under the v1 methodology, which counted a bash recovery
episode in shell calls. The current methodology counts it in assistant turns, as the
signal definition does (docs/decisions.md, "bash recovery in turns, tool output"), which
moves exactly the figures of CHANGED_FIGURES; test_session_scores pins them to
expected.json on the reference bundle rewritten one shell call per assistant turn,
where turns and calls agree. Every other figure must still match expected.json as it is.

STEERING holds the finer steering figures, which came after expected.json and are not
in it (docs/decisions.md, "Finer steering"): expected.json stays the reference as given.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.stats import wilson_interval

DATA = Path(__file__).resolve().parents[2] / "data"
CHANGED_FIGURES = frozenset(
    {("bash_recovery", "value"), ("bash_recovery", "low"), ("bash_recovery", "high")}
)


# The reference bundle's turns to recover and bash recovery split, as docs/decisions.md
# states them ("Finer steering", 2026-12-03): counts exact, the recovery turns (the sum
# the mean divides) derived from them, the intervals to the doc's two decimals.
STEERING = {
    "frontier-large": {
        "corrections": 68, "recovery_turns": 88, "turns_to_recover": (1.29, 1.15, 1.43),
        "episodes": 64, "autonomous": 2, "after_user": 8,
    },
    "frontier-mini": {
        "corrections": 93, "recovery_turns": 120, "turns_to_recover": (1.29, 1.15, 1.43),
        "episodes": 79, "autonomous": 5, "after_user": 9,
    },
    "open-weights-70b": {
        "corrections": 139, "recovery_turns": 205, "turns_to_recover": (1.47, 1.31, 1.64),
        "episodes": 154, "autonomous": 9, "after_user": 22,
    },
}  # fmt: skip


def reference_sessions() -> list[dict[str, Any]]:
    with tarfile.open(DATA / "bundles" / "sessions.tar.gz") as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("sessions.jsonl"))
        lines = archive.extractfile(member).read().decode("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def expected_signals() -> dict[str, Any]:
    """expected.json's `signals`, CHANGED_FIGURES taken from the methodology's own
    scoring of the reference bundle (itself pinned by test_session_scores)."""
    expected = json.loads((DATA / "expected.json").read_text())["signals"]
    now = score_sessions(reference_sessions())
    for model, entry in expected.items():
        for signal, name in CHANGED_FIGURES:
            entry[signal][name] = now[model][signal][name]
    return expected


def assert_reference_steering(scores: dict) -> None:
    """`scores` (per model, as score_sessions or the API give them) hold STEERING."""
    assert set(scores) == set(STEERING)
    for model, pinned in STEERING.items():
        steer, bash = scores[model]["steerability"], scores[model]["bash_recovery"]
        assert (steer["corrections"], steer["corrections_open"]) == (pinned["corrections"], 0)
        value, low, high = pinned["turns_to_recover"]
        mean = pinned["recovery_turns"] / pinned["corrections"]
        assert steer["turns_to_recover"] == pytest.approx(mean, abs=1e-12), model
        assert round(mean, 2) == value, model
        assert round(steer["turns_to_recover_low"], 2) == low, model
        assert round(steer["turns_to_recover_high"], 2) == high, model
        episodes = pinned["episodes"]
        assert bash["episodes"] == episodes, model
        for key in ("autonomous", "after_user"):
            assert bash[key] == pinned[key], (model, key)
            assert bash[f"{key}_rate"] == pytest.approx(pinned[key] / episodes, abs=1e-12)
            interval = (bash[f"{key}_rate_low"], bash[f"{key}_rate_high"])
            assert interval == pytest.approx(wilson_interval(pinned[key], episodes), abs=1e-12)
