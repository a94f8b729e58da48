"""Tests for leaderboard.methodology.sessions: each session's own contribution to
confirmed success, praise vs complaint, steerability and tool hallucinations, and the
summary of every signal at once (methodology §3), on small hand-written sessions.

Pure Python: no Django, no database.
"""

from __future__ import annotations

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.sessions import (
    SessionSignals,
    session_confirmed,
    session_labels,
    session_praise_complaint,
    session_steering_efforts,
    session_tool_calls,
    summarize_session,
)
from leaderboard.methodology.stats import Z, wilson_interval
from tests.leaderboard.methodology.session_builders import (
    SCHEMA_TOOLSET,
    assistant,
    call,
    efforts,
    session,
    sh,
    user,
)

# --- 1. confirmed success ------------------------------------------------------------------


def test_it_counts_only_an_explicit_yes_as_confirmed() -> None:
    assert session_confirmed(session(confirmation="yes"))
    assert not session_confirmed(session(confirmation="no"))


def test_it_treats_a_silent_ending_as_unconfirmed_but_counted() -> None:
    sessions = [
        session(assistant(), confirmation="yes"),
        session(assistant(), confirmation=None),  # never answered / walked away
        session(assistant(), confirmation="no"),
    ]
    entry = score_sessions(sessions)["m"]["confirmed_success"]
    assert entry["n"] == 3
    assert entry["value"] == pytest.approx(1 / 3)
    assert (entry["low"], entry["high"]) == wilson_interval(1, 3)


def test_it_does_not_take_thanks_perfect_as_a_confirmation() -> None:
    praised = session(assistant(), user("Thanks, perfect!", "praise"), confirmation=None)
    assert not session_confirmed(praised)
    assert score_sessions([praised])["m"]["confirmed_success"]["value"] == 0.0


# --- 2. praise vs complaint ----------------------------------------------------------------


def test_it_scores_a_session_with_more_praise_as_success() -> None:
    s = session(user("go"), assistant(), user("great", "praise"), assistant())
    assert session_praise_complaint(s) is True


def test_it_scores_a_session_with_more_complaints_as_failure() -> None:
    s = session(assistant(), user("broken", "complaint"), assistant(), user("still", "complaint"))
    s["turns"].append(user("thanks", "praise"))
    assert session_praise_complaint(s) is False


def test_it_does_not_score_praise_equal_to_complaints() -> None:
    tied = session(assistant(), user("bad", "complaint"), assistant(), user("ok", "praise"))
    assert session_praise_complaint(tied) is None


def test_it_does_not_score_a_session_without_sentiment() -> None:
    silent = session(user("go"), assistant(), user("continue"), assistant())
    assert session_praise_complaint(silent) is None
    entry = score_sessions([silent])["m"]["praise_complaint"]
    assert entry == {"value": None, "low": None, "high": None, "n": 0}


def test_it_counts_scored_sessions_only_in_the_praise_denominator() -> None:
    sessions = [
        session(assistant(), user("great", "praise")),
        session(assistant(), user("broken", "complaint")),
        session(assistant(), user("great", "praise")),
        session(assistant(), user("continue")),
    ]
    entry = score_sessions(sessions)["m"]["praise_complaint"]
    assert (entry["value"], entry["n"]) == (pytest.approx(2 / 3), 3)


def test_it_uses_a_bundle_null_label_over_the_extractor() -> None:
    # "Thanks!" would be praise to the extractor, but the bundle said: none of them.
    s = session(assistant(), user("Thanks!", None))
    assert session_praise_complaint(s) is None


def test_it_labels_turns_without_a_label_key_with_the_extractor() -> None:
    s = session(
        assistant(),
        user("Thanks, that works now!", unlabelled=True),
        assistant(),
        user("No, use the py311 environment.", unlabelled=True),
    )
    assert session_labels(s) == [None, "praise", None, "correction"]
    assert session_praise_complaint(s) is True
    assert session_steering_efforts(s) == [0, 1]


# --- 3. steerability -----------------------------------------------------------------------


def test_it_gives_no_effort_to_an_uncorrected_turn() -> None:
    assert efforts(user("go"), assistant(), user("next"), assistant()) == [0, 0]


def test_it_gives_low_effort_when_the_corrected_turn_is_then_fine() -> None:
    turns = (assistant(), user("no", "correction"), assistant(), user("thanks", "praise"))
    assert efforts(*turns) == [1, 0]


def test_it_gives_low_effort_when_no_user_turn_follows_the_next_assistant_turn() -> None:
    assert efforts(assistant(), user("no", "correction"), assistant()) == [1, 0]


def test_it_gives_low_effort_to_a_correction_with_no_next_assistant_turn() -> None:
    # No judged next turn: not a repeat, so low (1), not high (3).
    assert efforts(user("go"), assistant(), user("no, other file", "correction")) == [1]


def test_it_gives_high_effort_to_a_repeated_correction() -> None:
    turns = (
        assistant(),
        user("no", "correction"),
        assistant(),
        user("no, again", "correction"),
        assistant(),
    )
    assert efforts(*turns) == [3, 1, 0]


def test_it_judges_an_assistant_turn_by_the_first_user_turn_after_it_only() -> None:
    turns = (
        assistant(),
        user("looks fine"),
        user("oh wait, use tabs", "correction"),  # not the first: does not count
        assistant(),
    )
    assert efforts(*turns) == [0, 0]


def test_it_skips_tool_turns_between_assistant_and_user() -> None:
    tool = {"role": "tool", "text": "exit 0"}
    turns = (assistant(), tool, user("no", "correction"), assistant(), tool)
    assert efforts(*turns) == [1, 0]


def test_it_scores_steerability_as_one_minus_mean_effort_over_three() -> None:
    sessions = [
        session(assistant(), user("no", "correction"), assistant(), user("no", "correction")),
        session(assistant(), user("ok"), assistant()),
    ]
    # Efforts [3, 1] and [0, 0]: mean effort 4/4 = 1.
    entry = score_sessions(sessions)["m"]["steerability"]
    assert entry["mean_effort"] == pytest.approx(1.0)
    assert entry["value"] == pytest.approx(1 - 1 / 3)
    # Cluster-robust: y = (4, 0), m = (2, 2), R = 1, var = 2·(2² + 2²)/4² = 1.
    assert entry["low"] == pytest.approx(1 - (1 + Z) / 3)
    assert entry["high"] == pytest.approx(1 - (1 - Z) / 3)
    assert entry["turns"] == 4


# --- 5. tool hallucinations ----------------------------------------------------------------


def tool_calls(*calls: dict, toolset=SCHEMA_TOOLSET) -> tuple[int, int] | None:
    return session_tool_calls(session(user("go"), assistant(*calls), toolset=toolset))


def test_it_accepts_a_valid_call() -> None:
    assert tool_calls(call("bash", 0, command="ls")) == (1, 0)


def test_it_flags_a_call_to_a_tool_outside_the_toolset() -> None:
    calls = (call("apply_patch", diff="..."), call("bash", 0, command="ls"))
    assert tool_calls(*calls) == (2, 1)


def test_it_flags_an_argument_not_in_properties() -> None:
    assert tool_calls(call("write_file", path="a", content="b", mode="w")) == (1, 1)


def test_it_flags_a_missing_required_argument() -> None:
    assert tool_calls(call("write_file", path="a")) == (1, 1)


def test_it_does_not_score_a_session_without_a_toolset() -> None:
    assert tool_calls(call("anything"), toolset=None) is None
    s = session(assistant(call("anything")))
    del s["toolset"]
    assert session_tool_calls(s) is None


def test_it_accepts_any_arguments_for_a_toolset_of_plain_names() -> None:
    toolset = ["bash", "read_file"]
    assert tool_calls(call("read_file", whatever=1), toolset=toolset) == (1, 0)
    assert tool_calls(call("read_file"), call("edit", x=1), toolset=toolset) == (2, 1)


def test_it_checks_only_required_when_a_schema_has_no_properties() -> None:
    toolset = [{"name": "t", "parameters": {"type": "object", "required": ["a"]}}]
    assert tool_calls(call("t", a=1, b=2), call("t", b=2), toolset=toolset) == (2, 1)


def test_it_flags_every_call_under_an_empty_toolset() -> None:
    assert tool_calls(call("bash", command="ls"), toolset=[]) == (1, 1)


def test_it_counts_tool_calls_of_assistant_turns_only() -> None:
    stray = {"role": "user", "text": "x", "label": None, "tool_calls": [call("nope")]}
    s = session(stray, assistant(call("bash", command="ls")), toolset=SCHEMA_TOOLSET)
    assert session_tool_calls(s) == (1, 0)


def test_it_aggregates_hallucinations_over_calls_of_scored_sessions() -> None:
    sessions = [
        session(assistant(call("bash", command="ls"), call("ghost")), toolset=["bash"]),
        session(assistant(call("ghost"), call("ghost")), toolset=None),  # not scored
        session(assistant(call("bash", command="ls")), toolset=["bash"]),
    ]
    entry = score_sessions(sessions)["m"]["tool_hallucination"]
    assert entry["calls"] == 3
    assert entry["value"] == pytest.approx(1 / 3)
    assert (entry["low"], entry["high"]) == wilson_interval(1, 3)


# --- one session, every signal --------------------------------------------------------------


def test_it_summarizes_a_session_with_its_capability_outcomes() -> None:
    s = session(
        user("go"),
        assistant(sh("make", 1), sh("make", 0), call("ghost")),
        user("no", "correction"),
        assistant(),
        user("thanks", "praise"),
        toolset=SCHEMA_TOOLSET,
        confirmation="yes",
    )
    summary = summarize_session(s)
    assert summary == SessionSignals(
        model="m",
        scenario="software_development",
        confirmed=True,
        praise_complaint=True,
        assistant_turns=2,
        effort=1,
        episode_attempts=(1,),
        tool_calls=(3, 1),
        shell_calls=2,
        shell_successes=1,
    )
    assert summary.capability_outcomes() == {
        "confirmed_success": 1.0,
        "praise_complaint": 1.0,
        "steerability": pytest.approx(1 - 1 / 6),
        "bash_recovery": 1.0,
        "shell_success": 0.5,
        "tool_validity": pytest.approx(2 / 3),
    }


def test_it_leaves_the_shell_success_outcome_undefined_without_shell_calls() -> None:
    s = session(user("go"), assistant(call("read_file", 0, path="x"), sh("make", None)))
    summary = summarize_session(s)
    assert (summary.shell_calls, summary.shell_successes) == (0, 0)
    assert summary.capability_outcomes()["shell_success"] is None
