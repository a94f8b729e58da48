"""Tests for leaderboard.methodology.shell: which calls are shell calls, the program a
command runs, bash recovery episodes and the shell success rate (methodology §3).

Pure Python: no Django, no database.
"""

from __future__ import annotations

import math

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.shell import (
    DEFAULT_SHELL_TOOLS,
    episode_score,
    session_bash_episodes,
    session_shell_calls,
    session_shell_success,
    shell_program,
    shell_tool_names,
)
from leaderboard.methodology.stats import Z, wilson_interval
from tests.leaderboard.methodology.session_builders import (
    assistant,
    attempts,
    call,
    session,
    sh,
    user,
)

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
