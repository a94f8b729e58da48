"""Tests for leaderboard.signals: every edge case methodology §3 names, on small
hand-written sessions, and the reference bundle against tests/data/expected.json.

Pure Python: no Django, no database.
"""

from __future__ import annotations

import json
import math
import tarfile
from pathlib import Path

import pytest

from leaderboard.signals import (
    DEFAULT_SHELL_TOOLS,
    SessionSignals,
    episode_score,
    score_sessions,
    session_bash_episodes,
    session_confirmed,
    session_labels,
    session_praise_complaint,
    session_shell_calls,
    session_shell_success,
    session_steering_efforts,
    session_tool_calls,
    shell_program,
    shell_tool_names,
    summarize_session,
)
from leaderboard.stats import Z, wilson_interval

DATA = Path(__file__).resolve().parent.parent / "data"

SCHEMA_TOOLSET = [
    {
        "name": "bash",
        "kind": "shell",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
]


# --- builders ----------------------------------------------------------------------------


def user(text: str = "ok", label: str | None = None, *, unlabelled: bool = False) -> dict:
    turn = {"role": "user", "text": text}
    if not unlabelled:
        turn["label"] = label
    return turn


def assistant(*calls: dict) -> dict:
    return {"role": "assistant", "text": "Done.", "tool_calls": list(calls)}


def call(tool: str, exit_code: int | None = None, **arguments) -> dict:
    return {"tool": tool, "arguments": arguments, "exit_code": exit_code}


def sh(command: str, exit_code: int | None, tool: str = "bash") -> dict:
    return call(tool, exit_code, command=command)


def session(*turns: dict, **fields) -> dict:
    base = {
        "session_id": "s-1",
        "model": "m",
        "scenario": "software_development",
        "confirmation": None,
        "toolset": None,
        "turns": list(turns),
    }
    return {**base, **fields}


def efforts(*turns: dict) -> list[int]:
    return session_steering_efforts(session(*turns))


def attempts(*calls: dict, toolset=None) -> list[int | None]:
    return session_bash_episodes(session(user("go"), assistant(*calls), toolset=toolset))


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


# --- 4. bash recovery: program detection ---------------------------------------------------


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("pytest -q", "pytest"),
        ("  make   build ", "make"),
        ("CI=1 npm test", "npm"),
        ("A=1 B='two words' python manage.py test", "python"),
        ('PATH="/opt/bin:$PATH" cargo build', "cargo"),
        ("sudo apt-get install -y jq", "apt-get"),
        ("sudo -E make install", "make"),
        ("sudo -u postgres psql -c 'select 1'", "psql"),
        ("env FOO=bar node index.js", "node"),
        ("env -u HOME ls", "ls"),
        ("time pytest -x", "pytest"),
        ("nohup ./server.sh &", "./server.sh"),
        ("FOO=1 sudo env BAR=2 time nohup go test ./...", "go"),
        ("'my tool' --flag", "my tool"),
        ("", None),
        ("   ", None),
        ("FOO=1", None),
        ("sudo", None),
    ],
)
def test_it_names_the_program_of_a_shell_command(command: str, program: str | None) -> None:
    assert shell_program(command) == program


def test_it_names_the_program_of_an_argv_command() -> None:
    assert shell_program(["env", "X=1", "pytest", "-q"]) == "pytest"
    assert shell_program(None) is None


def test_it_treats_a_toolset_entry_of_kind_shell_as_a_shell_tool() -> None:
    toolset = [{"name": "run_in_sandbox", "kind": "shell"}, {"name": "read_file"}]
    assert shell_tool_names(toolset) == DEFAULT_SHELL_TOOLS | {"run_in_sandbox"}
    custom = attempts(
        sh("make", 1, tool="run_in_sandbox"),
        sh("make", 0, tool="run_in_sandbox"),
        toolset=toolset,
    )
    assert custom == [1]


def test_it_does_not_treat_other_tools_as_shell_calls() -> None:
    calls = (sh("make", 1, tool="python"), call("read_file", 1, path="x"))
    assert attempts(*calls, toolset=["python", "read_file"]) == []


@pytest.mark.parametrize("tool", sorted(DEFAULT_SHELL_TOOLS))
def test_it_treats_every_default_shell_name_as_a_shell_tool(tool: str) -> None:
    assert attempts(sh("make", 2, tool=tool), sh("make", 0, tool=tool)) == [1]


# --- 4. bash recovery: episodes ------------------------------------------------------------


def test_it_resolves_an_episode_fixed_by_the_very_next_command() -> None:
    assert attempts(sh("pytest -q", 1), sh("pytest -q", 0)) == [1]


def test_it_counts_attempts_of_a_command_reissued_until_it_passes() -> None:
    calls = (sh("pytest", 1), sh("pytest", 1), sh("pytest", 1), sh("pytest", 0))
    # Three calls after the failure, the last one passing; the re-failures do not
    # open new episodes while one is open.
    assert attempts(*calls) == [3]
    assert episode_score(3) == pytest.approx(1 / 3)


def test_it_counts_every_shell_call_after_the_failure_as_an_attempt() -> None:
    calls = (sh("make", 2), sh("ls", 0), sh("cat Makefile", 0), sh("make", 0))
    assert attempts(*calls) == [3]


def test_it_fails_a_workaround_that_never_reruns_the_failing_program() -> None:
    calls = (sh("pip install foo", 1), sh("conda install foo", 0), sh("python app.py", 0))
    assert attempts(*calls) == [None]
    assert episode_score(None) == 0.0


def test_it_fails_an_episode_still_open_at_the_end() -> None:
    assert attempts(sh("make", 1), sh("make", 1)) == [None]


def test_it_matches_a_program_through_wrappers_and_assignments() -> None:
    assert attempts(sh("sudo make install", 1), sh("CC=clang make install", 0)) == [1]


def test_it_keeps_separate_episodes_per_program() -> None:
    calls = (sh("make", 1), sh("pytest", 1), sh("pytest", 0), sh("make", 0))
    # make: 3 calls after its failure; pytest: 1.
    assert attempts(*calls) == [3, 1]


def test_it_opens_a_new_episode_after_the_previous_one_resolved() -> None:
    calls = (sh("make", 1), sh("make", 0), sh("make", 1))
    assert attempts(*calls) == [1, None]


def test_it_ignores_shell_calls_whose_exit_code_is_null() -> None:
    calls = (sh("make", 1), sh("make", None), sh("ls", None), sh("make", 0))
    assert attempts(*calls) == [1]
    s = session(assistant(sh("make", None), sh("ls", 0)))
    assert session_shell_calls(s) == [("ls", 0)]


def test_it_counts_episodes_across_turns_of_a_session() -> None:
    s = session(assistant(sh("make", 1)), user("?"), assistant(sh("make", 0)))
    assert session_bash_episodes(s) == [1]


def test_it_counts_unnamed_commands_as_attempts_without_opening_episodes() -> None:
    calls = (sh("make", 1), sh("", 1), sh("make", 0))
    assert attempts(*calls) == [2]


def test_it_aggregates_bash_recovery_over_episodes() -> None:
    sessions = [
        session(assistant(sh("make", 1), sh("make", 0))),  # 1 attempt: 1
        session(assistant(sh("a", 1), sh("b", 0), sh("a", 0), sh("c", 1))),  # 2: 1/2; fail
        session(assistant(sh("ls", 0))),  # no episode: a cluster with y = m = 0
    ]
    entry = score_sessions(sessions)["m"]["bash_recovery"]
    assert entry["episodes"] == 3
    assert entry["value"] == pytest.approx(1.5 / 3)
    assert entry["recovery_rate"] == pytest.approx(2 / 3)
    assert entry["median_attempts"] == 1.5
    # y = (1, 0.5, 0), m = (1, 2, 0), R = 0.5: residuals 0.5, -0.5, 0.
    half = Z * math.sqrt(3 / 2 * 0.5 / 9)
    assert (entry["low"], entry["high"]) == pytest.approx((0.5 - half, 0.5 + half))


def test_it_reports_no_bash_recovery_without_episodes() -> None:
    entry = score_sessions([session(assistant(sh("ls", 0)))])["m"]["bash_recovery"]
    assert entry["value"] is None and entry["episodes"] == 0
    assert entry["recovery_rate"] is None and entry["median_attempts"] is None


# --- 3.2 shell success rate -----------------------------------------------------------------


def shell_success(*calls: dict, toolset=None) -> tuple[int, int]:
    return session_shell_success(session(user("go"), assistant(*calls), toolset=toolset))


def test_it_counts_shell_calls_and_those_that_exit_zero() -> None:
    calls = (sh("make", 2), sh("make", 0), sh("ls", 0, tool="terminal"), sh("git", 128))
    assert shell_success(*calls) == (4, 2)


def test_it_ignores_shell_calls_with_a_null_exit_code_in_the_success_rate() -> None:
    assert shell_success(sh("make", None), sh("make", 0), sh("ls", None)) == (1, 1)


def test_it_ignores_non_shell_tools_in_the_success_rate() -> None:
    calls = (sh("make", 0, tool="python"), call("read_file", 1, path="x"), sh("make", 1))
    assert shell_success(*calls, toolset=["python", "read_file", "bash"]) == (1, 0)


def test_it_counts_a_toolset_entry_of_kind_shell_in_the_success_rate() -> None:
    toolset = [{"name": "run_in_sandbox", "kind": "shell"}, {"name": "read_file"}]
    calls = (sh("make", 1, tool="run_in_sandbox"), sh("make", 0, tool="run_in_sandbox"))
    assert shell_success(*calls, toolset=toolset) == (2, 1)
    # Without the declaration the same tool is not a shell tool.
    assert shell_success(*calls) == (0, 0)


def test_it_counts_shell_calls_of_assistant_turns_only() -> None:
    s = session(
        {"role": "user", "text": "ran it", "label": None, "tool_calls": [sh("make", 0)]},
        assistant(sh("make", 1)),
    )
    assert session_shell_success(s) == (1, 0)


def test_it_aggregates_the_shell_success_rate_over_calls_with_a_wilson_interval() -> None:
    toolset = [{"name": "sandbox", "kind": "shell"}]
    sessions = [
        session(assistant(sh("make", 1), sh("make", 0), sh("ls", None))),
        session(assistant(sh("make", 0, tool="sandbox"), call("read_file", 1)), toolset=toolset),
        session(assistant(call("read_file", 0))),  # no shell calls: adds nothing
        session(assistant(sh("pytest", 0)), model="other"),
    ]
    scores = score_sessions(sessions)
    entry = scores["m"]["shell_success"]
    assert entry["calls"] == 3
    assert entry["value"] == pytest.approx(2 / 3)
    assert (entry["low"], entry["high"]) == wilson_interval(2, 3)
    assert scores["other"]["shell_success"]["calls"] == 1
    assert scores["other"]["shell_success"]["value"] == 1.0


def test_it_reports_no_shell_success_rate_without_shell_calls() -> None:
    sessions = [session(assistant(sh("make", None), call("read_file", 0, path="x")))]
    entry = score_sessions(sessions)["m"]["shell_success"]
    assert entry == {"value": None, "low": None, "high": None, "calls": 0}


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


def _reference_sessions() -> list[dict]:
    with tarfile.open(DATA / "bundles" / "sessions.tar.gz") as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("sessions.jsonl"))
        lines = archive.extractfile(member).read().decode("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_it_reproduces_every_signal_of_the_reference_bundle() -> None:
    expected = json.loads((DATA / "expected.json").read_text())["signals"]
    scores = score_sessions(_reference_sessions())
    assert set(scores) == set(expected)
    for model, entry in expected.items():
        for signal, figures in entry.items():
            if not isinstance(figures, dict):
                assert scores[model][signal] == figures, (model, signal)
                continue
            for name, value in figures.items():
                got = scores[model][signal][name]
                assert got == pytest.approx(value, abs=1e-9, rel=0), (model, signal, name)


def test_it_publishes_nir_intervals_and_p_values_for_the_reference_bundle() -> None:
    for entry in score_sessions(_reference_sessions()).values():
        nir = entry["net_improvement"]
        assert nir["low"] == pytest.approx(nir["value"] - Z * nir["null_sd"])
        assert nir["high"] == pytest.approx(nir["value"] + Z * nir["null_sd"])
        assert 0 < nir["p_value"] <= 1
