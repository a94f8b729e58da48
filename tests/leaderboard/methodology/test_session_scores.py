"""Tests for leaderboard.methodology.session_scores: models scored apart, and the reference
bundle against tests/data/expected.json (methodology §3).

Pure Python: no Django, no database.
"""

from __future__ import annotations

import json

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.stats import Z, wilson_interval
from tests.leaderboard.methodology.reference import (
    CHANGED_FIGURES,
    DATA,
    STEERING,
    assert_reference_steering,
    reference_sessions,
)
from tests.leaderboard.methodology.session_builders import assistant, call, session, sh, user


def test_it_scores_each_model_separately() -> None:
    sessions = [
        session(assistant(), model="a", confirmation="yes"),
        session(assistant(), model="b", confirmation="no"),
        session(assistant(), model="a", confirmation="no"),
    ]
    scores = score_sessions(sessions)
    assert list(scores) == ["a", "b"]
    assert scores["a"]["sessions"] == 2 and scores["b"]["sessions"] == 1
    assert scores["a"]["confirmed_success"]["value"] == 0.5
    nir = scores["a"]["net_improvement"]
    assert set(nir) == {
        "value",
        "observed_gap",
        "null_mean",
        "null_sd",
        "low",
        "high",
        "p_value",
    }


def test_it_scores_no_sessions_as_no_models() -> None:
    assert score_sessions([]) == {}


# --- the reference bundle ------------------------------------------------------------------


def test_it_reproduces_every_signal_of_the_reference_bundle() -> None:
    expected = json.loads((DATA / "expected.json").read_text())["signals"]
    scores = score_sessions(reference_sessions())
    assert set(scores) == set(expected)
    for model, entry in expected.items():
        for signal, figures in entry.items():
            if not isinstance(figures, dict):
                assert scores[model][signal] == figures, (model, signal)
                continue
            for name, value in figures.items():
                if (signal, name) in CHANGED_FIGURES:
                    continue  # counted in turns: pinned below
                got = scores[model][signal][name]
                assert got == pytest.approx(value, abs=1e-9, rel=0), (model, signal, name)


def _one_shell_call_per_turn(session: dict) -> dict:
    """The session's shell calls with a known outcome, each in an assistant turn of its
    own, and nothing else: there a turn is a call, as v1 counted episodes."""
    calls = [
        call
        for turn in session["turns"]
        if turn["role"] == "assistant"
        for call in turn.get("tool_calls") or ()
        if call["tool"] == "bash" and call["exit_code"] is not None
    ]
    turns = [{"role": "assistant", "text": None, "tool_calls": [call]} for call in calls]
    return {**session, "turns": turns}


def test_it_reproduces_the_reference_bash_recovery_where_a_turn_is_one_call() -> None:
    expected = json.loads((DATA / "expected.json").read_text())["signals"]
    scores = score_sessions(_one_shell_call_per_turn(s) for s in reference_sessions())
    for model, entry in expected.items():
        for name, value in entry["bash_recovery"].items():
            got = scores[model]["bash_recovery"][name]
            assert got == pytest.approx(value, abs=1e-9, rel=0), (model, name)


def test_it_counts_the_reference_bash_recovery_in_turns() -> None:
    # Several shell calls share an assistant turn in the reference bundle, so counting
    # turns moves the score (docs/decisions.md): a turn holding the failure and the fix
    # is one turn, however many calls lie between them.
    expected = json.loads((DATA / "expected.json").read_text())["signals"]
    scores = score_sessions(reference_sessions())
    for model, entry in expected.items():
        assert scores[model]["bash_recovery"]["value"] != pytest.approx(
            entry["bash_recovery"]["value"], abs=1e-6
        )
        assert scores[model]["bash_recovery"]["episodes"] == entry["bash_recovery"]["episodes"]


def test_it_publishes_nir_intervals_and_p_values_for_the_reference_bundle() -> None:
    for entry in score_sessions(reference_sessions()).values():
        nir = entry["net_improvement"]
        assert nir["low"] == pytest.approx(nir["value"] - Z * nir["null_sd"])
        assert nir["high"] == pytest.approx(nir["value"] + Z * nir["null_sd"])
        assert 0 < nir["p_value"] <= 1


# --- tool hallucinations: calls and capability claims -----------------------------


def test_it_counts_unsupported_capability_claims_beside_hallucinated_calls() -> None:
    claim = {"role": "assistant", "text": "I've edited app.py.", "tool_calls": []}
    sessions = [
        # Two calls, one invented, and a claim to edit files with no such tool.
        session(
            assistant(call("read_file", path="a"), call("ghost")), claim, toolset=["read_file"]
        ),
        # No toolset: neither its calls nor its claim are scored.
        session(assistant(call("ghost")), claim, toolset=None),
        # One clean call; the claim is backed by the shell.
        session(assistant(call("bash", command="ls")), claim, toolset=["bash"]),
    ]
    entry = score_sessions(sessions)["m"]["tool_hallucination"]
    assert (entry["calls"], entry["claims"]) == (3, 1)
    # (1 invented call + 1 claim) / (3 calls + 1 claim).
    assert entry["value"] == pytest.approx(2 / 4)
    assert (entry["low"], entry["high"]) == wilson_interval(2, 4)


def test_it_scores_claims_of_a_model_that_made_no_call() -> None:
    claim = {"role": "assistant", "text": "I ran the tests.", "tool_calls": []}
    entry = score_sessions([session(claim, toolset=[])])["m"]["tool_hallucination"]
    assert (entry["value"], entry["calls"], entry["claims"]) == (1.0, 0, 1)


def test_it_reports_no_hallucination_rate_without_references() -> None:
    entry = score_sessions([session(assistant(), toolset=["bash"])])["m"]["tool_hallucination"]
    assert entry == {"value": None, "low": None, "high": None, "calls": 0, "claims": 0}


def test_it_scores_as_many_claims_as_calls() -> None:
    turn = {"role": "assistant", "text": "I googled it.", "tool_calls": [call("bash", command="x")]}
    entry = score_sessions([session(turn, toolset=["bash"])])["m"]["tool_hallucination"]
    assert (entry["value"], entry["calls"], entry["claims"]) == (0.5, 1, 1)


def test_it_reports_no_steerability_without_assistant_turns() -> None:
    entry = score_sessions([session()])["m"]["steerability"]
    assert (entry["value"], entry["low"], entry["high"], entry["turns"]) == (None, None, None, 0)


# --- the means' intervals stay within [0, 1] ----------------------------------------


def _turns(corrected: bool) -> list[dict]:
    """Ten assistant turns; the user corrects the first one or none."""
    first = [assistant(), user("No, not that.", "correction" if corrected else None)]
    return first + [assistant() for _ in range(9)]


def test_it_keeps_the_steerability_interval_within_zero_and_one() -> None:
    # Mean effort R = 1/40 (one low effort in 40 turns), by hand: var = 4/3 · (3 · 0.25²
    # + 0.75²) / 40² = 1/1600, so the effort interval is 0.025 ± 1.96 · 0.025 and its
    # low end, below 0, would map to a score above 1.
    sessions = [session(*_turns(False)) for _ in range(3)] + [session(*_turns(True))]
    entry = score_sessions(sessions)["m"]["steerability"]
    assert entry["mean_effort"] == pytest.approx(1 / 40)
    half = Z * 0.025
    assert 1 / 40 - half < 0
    assert entry["value"] == pytest.approx(1 - 1 / 120)
    assert (entry["low"], entry["high"]) == (pytest.approx(1 - (1 / 40 + half) / 3), 1.0)


def test_it_keeps_the_bash_recovery_interval_within_zero_and_one() -> None:
    # Three episodes fixed in one turn (1 each) and one in two (0.5): R = 3.5/4, by hand
    # var = 4/3 · (3 · 0.125² + 0.375²) / 4² = 1/64, so R + 1.96/8 lies above 1.
    fixed = [assistant(sh("make", 1), sh("make", 0))]
    slow = [assistant(sh("make", 1)), user("go on"), assistant(), assistant(sh("make", 0))]
    sessions = [session(*fixed) for _ in range(3)] + [session(*slow)]
    entry = score_sessions(sessions)["m"]["bash_recovery"]
    assert entry["value"] == pytest.approx(0.875)
    assert (entry["low"], entry["high"]) == (pytest.approx(0.875 - Z / 8), 1.0)


def test_it_gives_turns_to_recover_no_interval_from_one_session_with_corrections() -> None:
    # Three sessions without a correction and one recovering in 1 then 2 turns: the
    # mean is that session's alone, and so is everything an interval could say.
    corrected = [assistant(), user("No.", "correction"), assistant(), user("ok")]
    repeated = [assistant(), user("No.", "correction"), assistant(), user("No!", "correction")]
    sessions = [session(*_turns(False)) for _ in range(3)]
    sessions.append(session(*corrected, *repeated, assistant()))
    entry = score_sessions(sessions)["m"]["steerability"]
    assert (entry["turns_to_recover"], entry["corrections"]) == (pytest.approx(4 / 3), 3)
    assert (entry["turns_to_recover_low"], entry["turns_to_recover_high"]) == (None, None)


# --- finer steering on the reference bundle (docs/decisions.md) ----------------------


def test_it_reproduces_the_reference_turns_to_recover_and_bash_split() -> None:
    scores = score_sessions(reference_sessions())
    assert_reference_steering(scores)
    # The rounded shares docs/decisions.md states, on its own and after the user.
    shares = {
        model: tuple(
            round(100 * scores[model]["bash_recovery"][f"{key}_rate"], 1)
            for key in ("autonomous", "after_user")
        )
        for model in STEERING
    }
    assert shares == {
        "frontier-large": (3.1, 12.5),
        "frontier-mini": (6.3, 11.4),
        "open-weights-70b": (5.8, 14.3),
    }
    large = scores["frontier-large"]["bash_recovery"]
    low, high = large["autonomous_rate_low"], large["autonomous_rate_high"]
    assert (round(100 * low, 1), round(100 * high, 1)) == (0.9, 10.7)
