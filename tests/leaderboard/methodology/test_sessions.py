"""Tests for leaderboard.methodology.sessions: each session's own contribution to
confirmed success, praise vs complaint, steerability and tool hallucinations, and the
summary of every signal at once (methodology §3), on small hand-written sessions.

Pure Python: no Django, no database.
"""

from __future__ import annotations

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.sessions import (
    Recoveries,
    SessionSignals,
    corrected_turns,
    session_confirmed,
    session_labels,
    session_tool_calls,
    steering_efforts,
    summarize_session,
    turns_to_recover,
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


def praise_complaint(session: dict) -> bool | None:
    """The session's praise-vs-complaint outcome, as its summary carries it."""
    return summarize_session(session).praise_complaint


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
    assert praise_complaint(s) is True


def test_it_scores_a_session_with_more_complaints_as_failure() -> None:
    s = session(assistant(), user("broken", "complaint"), assistant(), user("still", "complaint"))
    s["turns"].append(user("thanks", "praise"))
    assert praise_complaint(s) is False


def test_it_does_not_score_praise_equal_to_complaints() -> None:
    tied = session(assistant(), user("bad", "complaint"), assistant(), user("ok", "praise"))
    assert praise_complaint(tied) is None


def test_it_does_not_score_a_session_without_sentiment() -> None:
    silent = session(user("go"), assistant(), user("continue"), assistant())
    assert praise_complaint(silent) is None
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
    assert praise_complaint(s) is None


def test_it_labels_turns_without_a_label_key_with_the_extractor() -> None:
    s = session(
        assistant(),
        user("Thanks, that works now!", unlabelled=True),
        assistant(),
        user("No, use the py311 environment.", unlabelled=True),
    )
    assert session_labels(s) == [set(), {"praise"}, set(), {"correction"}]
    assert praise_complaint(s) is True
    assert steering_efforts(s["turns"], session_labels(s)) == [0, 1]


def _said(text: str, *labels: str) -> dict:
    """A user turn carrying a stored label set."""
    return {"role": "user", "text": text, "labels": list(labels), "label_source": "bundle"}


def test_it_counts_a_turn_with_praise_and_a_complaint_once_each_way() -> None:
    both = _said("Thanks! But the header is still off.", "praise", "complaint")
    assert praise_complaint(session(assistant(), both)) is None
    praised = session(assistant(), both, assistant(), _said("Great.", "praise"))
    assert praise_complaint(praised) is True


def test_it_counts_a_complaint_that_also_corrects_as_a_complaint() -> None:
    turn = _said("Wrong and frustrating, use the other config instead.", "complaint", "correction")
    assert praise_complaint(session(assistant(), turn)) is False


def test_it_counts_neither_urging_nor_iteration_as_sentiment() -> None:
    s = session(
        assistant(), _said("Any update?", "urging"), assistant(), _said("Next.", "iteration")
    )
    assert praise_complaint(s) is None


def test_it_reads_stored_label_sets_and_extracts_the_rest() -> None:
    s = session(
        assistant(),
        _said("ok", "praise", "iteration"),
        assistant(),
        user("This is wrong, use yarn instead.", unlabelled=True),
    )
    assert session_labels(s) == [set(), {"praise", "iteration"}, set(), {"complaint", "correction"}]


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
    assert 1 - (1 - Z) / 3 > 1  # the mapped high end, cut at 1
    assert entry["high"] == 1.0
    assert entry["turns"] == 4


def test_it_counts_a_correction_in_a_set_of_labels_as_steering() -> None:
    corrected = _said("Wrong file, use utils.py instead.", "complaint", "correction")
    assert efforts(assistant(), corrected, assistant(), corrected, assistant()) == [3, 1, 0]


def test_it_does_not_count_iteration_or_urging_as_steering() -> None:
    turns = (assistant(), _said("Great. Next, add a footer.", "praise", "iteration"))
    assert efforts(*turns, assistant(), _said("Any update?", "urging"), assistant()) == [0, 0, 0]


# --- 3b. turns to recover -------------------------------------------------------------------


def recoveries(*turns: dict) -> Recoveries:
    built = session(*turns)
    return turns_to_recover(corrected_turns(built["turns"], session_labels(built)))


def no(text: str = "no, the other file") -> dict:
    return user(text, "correction")


def test_it_counts_one_turn_to_recover_when_the_next_turn_holds() -> None:
    assert recoveries(user("go"), assistant(), no(), assistant(), user("thanks", "praise")) == (
        Recoveries((1,), 0)
    )


def test_it_counts_each_correction_of_a_run_until_the_first_turn_that_holds() -> None:
    # A0 corrected, A1 corrected again, A2 holds, A3 corrected, A4 holds (the session ends
    # on it: no user turn follows, so it is not corrected). From A0's correction A2 is
    # two turns on, from A1's one; from A3's, A4 is one.
    turns = (user("go"), assistant(), no(), assistant(), no(), assistant(), user("ok"))
    assert recoveries(*turns, assistant(), no(), assistant()) == Recoveries((2, 1, 1), 0)


def test_it_leaves_open_the_corrections_a_session_ends_before_recovering_from() -> None:
    # The last assistant turn is itself corrected: no later turn shows the model back on
    # track, so each correction of that run is open (and counts in no mean).
    assert recoveries(user("go"), assistant(), no()) == Recoveries((), 1)
    turns = (user("go"), assistant(), no(), assistant(), user("ok"), assistant(), no())
    assert recoveries(*turns, assistant(), no()) == Recoveries((1,), 2)


def test_it_counts_one_act_of_steering_recorded_in_several_user_turns_once() -> None:
    # Two parallel calls rejected (as an older bundle records them: one user turn each)
    # and the person's words after them: one correction of the one assistant turn.
    turns = (
        user("tidy up"),
        assistant(sh("rm -rf build", None), sh("git clean -fdx", None)),
        user("[rejected the Bash call]", "correction"),
        user("[rejected the Bash call]", "correction"),
        user("keep the build folder", "correction"),
        assistant(),
    )
    assert efforts(*turns) == [1, 0]
    assert recoveries(*turns) == Recoveries((1,), 0)


def test_it_agrees_with_the_effort_on_which_corrections_land_at_once() -> None:
    # Low effort is a correction the next turn holds (1 turn to recover); high is one
    # the user has to repeat (2 or more), but for the last one the session leaves open.
    turns = (user("go"), assistant(), no(), assistant(), no(), assistant(), no(), assistant())
    assert efforts(*turns) == [3, 3, 1, 0]
    assert recoveries(*turns) == Recoveries((3, 2, 1), 0)


def test_it_publishes_the_mean_turns_to_recover_with_a_cluster_robust_interval() -> None:
    sessions = [
        # Corrections recovered in 2 and 1 turns: y = 3, m = 2.
        session(user("go"), assistant(), no(), assistant(), no(), assistant(), user("ok")),
        # Two corrections open at the end: y = m = 0, but a cluster all the same.
        session(user("go"), assistant(), no(), assistant(), no()),
        # No correction: y = m = 0.
        session(user("go"), assistant(), user("thanks", "praise"), assistant()),
        # One correction recovered in 1 turn: y = m = 1.
        session(user("go"), assistant(), no(), assistant()),
    ]
    entry = score_sessions(sessions)["m"]["steerability"]
    # R = (3 + 1) / (2 + 1) = 4/3; var = 4/3 · ((3 − 8/3)² + (1 − 4/3)²) / 3² = 8/243.
    half = Z * (8 / 243) ** 0.5
    assert entry["turns_to_recover"] == pytest.approx(4 / 3)
    assert entry["turns_to_recover_high"] == pytest.approx(4 / 3 + half)
    # 4/3 − 0.356 = 0.978: a recovery takes at least one turn, so the low end is 1.
    assert entry["turns_to_recover_low"] == 1.0
    assert (entry["corrections"], entry["corrections_open"]) == (3, 2)


def test_it_publishes_no_turns_to_recover_without_a_recovered_correction() -> None:
    entry = score_sessions([session(user("go"), assistant(), no())])["m"]["steerability"]
    assert entry["turns_to_recover"] is None
    assert (entry["turns_to_recover_low"], entry["turns_to_recover_high"]) == (None, None)
    assert (entry["corrections"], entry["corrections_open"]) == (0, 1)


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
        # make failed and was fixed in the same turn, before the user's next words.
        episodes_unaided=1,
        # The correction after the first turn: the next turn holds (praise follows).
        recoveries=(1,),
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


# --- 5. tool hallucinations: capability claims --------------------------------------


def claiming(text: str, *calls: dict, toolset) -> dict:
    turn = {"role": "assistant", "text": text, "tool_calls": list(calls)}
    return session(user("go"), turn, toolset=toolset)


def test_it_summarizes_a_capability_claim_beside_the_calls() -> None:
    # "… claiming a file-editing capability that isn't there, counts as a hallucination."
    s = claiming(
        "I've edited config.yaml.",
        call("read_file", 0, path="config.yaml"),
        call("grep", 0),
        toolset=["read_file"],
    )
    summary = summarize_session(s)
    assert (summary.tool_calls, summary.claims) == ((2, 1), 1)
    # Three references (two calls, one claim), two of them hallucinated.
    assert summary.capability_outcomes()["tool_validity"] == pytest.approx(1 - 2 / 3)


def test_it_scores_a_claim_made_without_any_call() -> None:
    summary = summarize_session(claiming("I ran the tests.", toolset=["read_file"]))
    assert (summary.tool_calls, summary.claims) == ((0, 0), 1)
    assert summary.capability_outcomes()["tool_validity"] == 0.0


def test_it_leaves_tool_validity_undefined_without_calls_claims_or_toolset() -> None:
    assert (
        summarize_session(claiming("Hello.", toolset=[])).capability_outcomes()["tool_validity"]
        is None
    )
    no_toolset = summarize_session(claiming("I ran the tests.", call("x"), toolset=None))
    assert (no_toolset.tool_calls, no_toolset.claims) == (None, 0)
    assert no_toolset.capability_outcomes()["tool_validity"] is None


def test_it_accepts_a_claim_the_toolset_backs() -> None:
    summary = summarize_session(claiming("I ran the tests.", sh("pytest", 0), toolset=["bash"]))
    assert (summary.tool_calls, summary.claims) == ((1, 0), 0)
    assert summary.capability_outcomes()["tool_validity"] == 1.0


def test_it_reads_odd_toolset_entries_and_arguments_without_failing() -> None:
    toolset = [{"kind": "shell"}, {"name": "t", "parameters": "not a schema"}, "bash"]
    assert tool_calls(call("t", anything=1), toolset=toolset) == (1, 0)
    required = [{"name": "run", "parameters": {"required": ["command"]}}]
    odd = {"tool": "run", "arguments": "ls -la", "exit_code": 0}
    assert tool_calls(odd, toolset=required) == (1, 1)


def test_it_summarizes_shell_calls_episodes_and_turns() -> None:
    s = session(
        user("go"),
        assistant(sh("make", 2), sh("ls", 0), sh("pwd", 0)),
        user("and?"),
        assistant(sh("pytest", 1), sh("make", 0)),
        toolset=["bash"],
    )
    summary = summarize_session(s)
    assert (summary.shell_calls, summary.shell_successes) == (5, 3)
    # make: fixed in the next turn (1); pytest: never fixed (0). Mean 1/2.
    assert summary.episode_attempts == (1, None)
    assert summary.capability_outcomes()["bash_recovery"] == 0.5


def test_it_leaves_steerability_undefined_without_assistant_turns() -> None:
    summary = summarize_session(session(user("hello")))
    assert summary.assistant_turns == 0
    assert summary.capability_outcomes()["steerability"] is None
