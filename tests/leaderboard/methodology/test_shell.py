"""Tests for leaderboard.methodology.shell: which calls are shell calls, the program a
command runs, errors shown in tool output, bash recovery episodes counted in assistant
turns and the shell success rate (methodology §3).

Pure Python: no Django, no database. Every case is written out here, never read from
the module's own tables.
"""

from __future__ import annotations

import math

import pytest

from leaderboard.methodology.session_scores import score_sessions
from leaderboard.methodology.shell import (
    Episode,
    ShellCall,
    bash_episode_outcomes,
    bash_episodes,
    call_exit_code,
    command_words,
    episode_score,
    output_error,
    pipelines,
    session_bash_episodes,
    session_shell_calls,
    session_shell_success,
    shell_program,
    shell_tool_names,
    turn_outputs,
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


def turns_taken(*turns: list[dict], toolset=None) -> list[int | None]:
    """Bash episodes of a session whose assistant turns hold the given calls, each
    answered by a user turn."""
    body: list[dict] = []
    for calls in turns:
        body += [assistant(*calls), user("go on")]
    return session_bash_episodes(session(user("go"), *body, toolset=toolset))


def tool(text: str | None) -> dict:
    return {"role": "tool", "text": text}


# --- 4. bash recovery: the program of a command -------------------------------------------


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("pytest -q", "pytest"),
        ("  make   build ", "make"),
        ("CI=1 npm test", "npm"),
        ("A=1 B='two words' python manage.py test", "python"),
        ('PATH="/opt/bin:$PATH" cargo build', "cargo"),
        ("'my tool' --flag", "my tool"),
        ("", None),
        ("   ", None),
        ("FOO=1", None),
        ("sudo", None),
        # Compound commands: the last pipeline that is not a helper.
        ("cd backend && make test", "make"),
        ("cd backend; make test", "make"),
        ("cd backend\nmake test", "make"),
        ("pip install -e . && pytest -q", "pytest"),
        ("pytest -q || true", "pytest"),
        ("make test; echo $?", "make"),
        ("source .venv/bin/activate && pytest", "pytest"),
        ("export X=1; unset Y; set -e; go test ./...", "go"),
        ("pushd web && npm test && popd", "npm"),
        ("printf 'x\\n' > f; sleep 1; wait; . env.sh; : noop; node f.js", "node"),
        ("cd src", "cd"),
        ("cd a && cd b", "cd"),
        # Pipes: the first stage does the work, later ones filter its output.
        ("pytest -q 2>&1 | tail -20", "pytest"),
        ("cargo test |& tee log.txt", "cargo"),
        ("(cd web && npm test) | tee log", "npm"),
        ("make > build.log 2>&1", "make"),
        ("make &> build.log; grep error build.log", "grep"),
        # Background jobs and subshells.
        ("./server.sh & sleep 2 && curl localhost:8000", "curl"),
        ("(cd web; npm ci)", "npm"),
        ("{ make; }", "make"),
        # Keywords before a program.
        ("if make; then echo ok; fi", "make"),
        ("for f in a b; do pytest $f; done", "pytest"),
        ("while ! pg_isready; do sleep 1; done", "pg_isready"),
        ("until curl -s x; do sleep 1; done", "curl"),
        ("if false; then true; elif make; then :; else ls; fi", "ls"),
        # Substitutions and comments are no commands of the list.
        ("pytest $(git diff --name-only) -q", "pytest"),
        ("VERSION=$(cat VERSION) make release", "make"),
        ("echo $(date) && make", "make"),
        ("make $(echo $(nproc))", "make"),
        ("make # then git push", "make"),
        ("make # build it\npytest", "pytest"),
        # Here-documents are data.
        ("cat > t.py <<'EOF'\nimport os\nprint('it\\'s')\nEOF\npython t.py", "python"),
        ("cat > notes.md <<EOF\nmake\nEOF", "cat"),
        ('cat <<-"END"\n\trm -rf x\n\tEND\nls', "ls"),
        ("cat > f <<EOF", "cat"),
        ("cat > f <<EOF\nnever closed", "cat"),
        ("grep x <<< 'a b' && make", "make"),
        # Line continuations, quoting, unclosed quotes.
        ("make \\\n  -j4", "make"),
        ('echo "a; b" ; ls', "ls"),
        ("find . -name '*.pyc' -delete && make", "make"),
        ("ls 'unclosed", "ls"),
        ("echo '' && make", "make"),
        ('echo "" ; make', "make"),
    ],
)
def test_it_names_the_program_of_a_shell_command(command: str, program: str | None) -> None:
    assert shell_program(command) == program


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("sudo apt-get install -y jq", "apt-get"),
        ("sudo -E make install", "make"),
        ("sudo -u postgres psql -c 'select 1'", "psql"),
        ("sudo -g wheel make", "make"),
        ("sudo -C 3 make", "make"),
        ("sudo -D /srv make", "make"),
        ("sudo -p pw: make", "make"),
        ("sudo -r role make", "make"),
        ("sudo -t type make", "make"),
        ("sudo -U bob make", "make"),
        ("sudo -T 60 make", "make"),
        ("sudo -h host make", "make"),
        ("env FOO=bar node index.js", "node"),
        ("env -u HOME ls", "ls"),
        ("env -C /srv ls", "ls"),
        ("env -S 'a b' ls", "ls"),
        ("env --unset HOME ls", "ls"),
        ("env --chdir /srv ls", "ls"),
        ("env -i ls", "ls"),
        ("time pytest -x", "pytest"),
        ("time -f %e make", "make"),
        ("time -o t.txt make", "make"),
        ("time --format %e make", "make"),
        ("time --output t.txt make", "make"),
        ("nohup ./server.sh &", "./server.sh"),
        ("exec python app.py", "python"),
        ("exec -a name python app.py", "python"),
        ("command make", "make"),
        ("nice make", "make"),
        ("nice -n 10 make", "make"),
        ("nice --adjustment 10 make", "make"),
        ("timeout 60 pytest -x", "pytest"),
        ("timeout -s KILL 60 pytest", "pytest"),
        ("timeout -k 5 60 pytest", "pytest"),
        ("timeout --signal KILL 60 pytest", "pytest"),
        ("timeout --kill-after 5 60 pytest", "pytest"),
        ("FOO=1 sudo env BAR=2 time nohup go test ./...", "go"),
        ("cd app && sudo -u www env X=1 timeout 9 nice -n 5 exec make", "make"),
    ],
)
def test_it_names_the_program_behind_wrappers(command: str, program: str) -> None:
    assert shell_program(command) == program


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ('bash -c "cd a && make"', "make"),
        ("bash -lc 'source venv/bin/activate && pytest'", "pytest"),
        ("sh -c 'npm test'", "npm"),
        ("zsh -c 'cargo build'", "cargo"),
        ("dash -c 'go vet'", "go"),
        ("ksh -c 'ls'", "ls"),
        ("bash -e -c 'make'", "make"),
        ("bash --norc -c 'make'", "make"),
        ("bash build.sh", "bash"),
        ("bash --login", "bash"),
        ("bash -c", "bash"),
        ("sudo bash -c 'apt-get update'", "apt-get"),
    ],
)
def test_it_names_the_program_of_a_shell_script_given_with_c(command: str, program: str) -> None:
    assert shell_program(command) == program


def test_it_names_the_program_of_an_argv_command() -> None:
    assert shell_program(["env", "X=1", "pytest", "-q"]) == "pytest"
    # argv words are not re-parsed: `&&` is an argument here.
    assert shell_program(["echo", "a", "&&", "make"]) == "echo"
    assert shell_program(["bash", "-lc", "cd d && make"]) == "make"
    assert shell_program(["cd", 1, "make"]) == "cd"
    assert shell_program([]) is None
    assert shell_program(None) is None
    assert shell_program(42) is None


def test_it_splits_a_command_into_words_and_operators() -> None:
    assert command_words("cd d && make 2>&1 | tail") == [
        "cd", "d", "&&", "make", "2", ">&", "1", "|", "tail",
    ]  # fmt: skip
    # A newline ends a command as `;` does, comment or not.
    assert command_words("a;b\nc") == ["a", ";", "b", ";", "c"]
    assert command_words("a # note\nb") == ["a", ";", "b"]
    assert command_words("echo 'x y' \"z\"") == ["echo", "x y", "z"]
    assert command_words("a \\\nb") == ["a", "b"]
    assert command_words("echo 'open") == ["echo"]
    assert command_words("cat <<EOF\nbody\nEOF\nls") == ["cat", "<<", "EOF", ";", ";", "ls"]


def test_it_keeps_the_first_stage_of_each_pipeline() -> None:
    words = ["a", "1", "|", "b", "&&", "c", "|&", "d", ";", "(", "e", ")|", "f", ")", "g"]
    assert pipelines(words) == [["a", "1"], ["c"], ["e"], ["g"]]
    assert pipelines(["a", "$", "(", "b", "(", ")", ")", "c"]) == [["a", "$", "c"]]
    assert pipelines(["a", "x$", "()", "&&", "c"]) == [["a", "x$"], ["c"]]
    assert pipelines(["$", "(", "b", "c(", ")", ";", "d"]) == [["$"], ["d"]]
    assert pipelines(["(", "a", ")"]) == [["a"]]
    assert pipelines([]) == []


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("ls\ncat > f <<EOF\nmake\nEOF", "cat"),
        ("cat <<A\nA\ncat <<A\nrm -rf x\nA", "cat"),
        ('pytest $(grep -l "def f(" src) && make', "make"),
        ("echo $() && make", "make"),
    ],
)
def test_it_skips_here_documents_and_substitutions_exactly(command: str, program: str) -> None:
    assert shell_program(command) == program


# --- 4. which tools are shell tools -------------------------------------------------------


def test_it_treats_a_toolset_entry_of_kind_shell_as_a_shell_tool() -> None:
    toolset = [{"name": "run_in_sandbox", "kind": "shell"}, {"name": "read_file"}, "x", {}]
    names = shell_tool_names(toolset)
    assert "run_in_sandbox" in names and "read_file" not in names and "x" not in names
    custom = attempts(
        sh("make", 1, tool="run_in_sandbox"),
        sh("make", 0, tool="run_in_sandbox"),
        toolset=toolset,
    )
    assert custom == [1]
    assert None not in shell_tool_names([{"kind": "shell"}])


def test_it_does_not_treat_other_tools_as_shell_calls() -> None:
    calls = (sh("make", 1, tool="python"), call("read_file", 1, path="x"))
    assert attempts(*calls, toolset=["python", "read_file"]) == []


@pytest.mark.parametrize("tool", ["bash", "shell", "sh", "terminal", "exec_command", "run_command"])
def test_it_treats_every_default_shell_name_as_a_shell_tool(tool: str) -> None:
    assert attempts(sh("make", 2, tool=tool), sh("make", 0, tool=tool)) == [1]
    assert tool in shell_tool_names(None)


def test_it_knows_exactly_the_default_shell_names() -> None:
    assert shell_tool_names([]) == {
        "bash", "shell", "sh", "terminal", "exec_command", "run_command",
    }  # fmt: skip


# --- 4. bash recovery: episodes in turns ------------------------------------------------------


def test_it_recovers_quickly_when_the_next_command_fixes_a_mistyped_flag() -> None:
    # "An agent that mistypes a flag and corrects it on the next command recovers quickly."
    assert turns_taken([sh("pytest --maxfial=1", 4)], [sh("pytest --maxfail=1", 0)]) == [1]
    assert episode_score(1) == 1.0


def test_it_counts_a_fix_in_the_failing_turn_as_one_turn() -> None:
    assert turns_taken([sh("pytest --maxfial=1", 4), sh("pytest --maxfail=1", 0)]) == [1]


def test_it_counts_several_failing_calls_in_one_turn_as_one_turn() -> None:
    failing = [sh("make", 2), sh("make", 2), sh("make", 2)]
    assert turns_taken(failing, [sh("make", 0)]) == [1]


def test_it_recovers_slowly_when_the_agent_keeps_reissuing_a_failing_command() -> None:
    # "An agent that keeps reissuing a failing command … counts as a slow … recovery."
    turns = ([sh("npm test", 1)], [sh("npm test", 1)], [sh("npm test", 1)], [sh("npm test", 0)])
    assert turns_taken(*turns) == [3]
    assert episode_score(3) == pytest.approx(1 / 3)


def test_it_counts_turns_without_shell_calls_until_the_fix() -> None:
    turns = ([sh("make", 2)], [call("read_file", 0, path="Makefile")], [], [sh("make", 0)])
    assert turns_taken(*turns) == [3]


def test_it_fails_a_workaround_that_never_reruns_the_failing_program() -> None:
    # "… or quietly works around the error instead of fixing it, counts as … failed."
    turns = ([sh("pip install foo", 1)], [sh("conda install foo", 0)], [sh("python app.py", 0)])
    assert turns_taken(*turns) == [None]
    assert episode_score(None) == 0.0


def test_it_fails_an_episode_still_open_at_the_end() -> None:
    assert turns_taken([sh("make", 1)], [sh("make", 1)]) == [None]


def test_it_matches_a_program_through_compound_commands() -> None:
    turns = ([sh("cd api && sudo make install", 1)], [sh("CC=clang make install", 0)])
    assert turns_taken(*turns) == [1]


def test_it_keeps_separate_episodes_per_program() -> None:
    turns = ([sh("make", 1)], [sh("pytest", 1)], [sh("pytest", 0)], [sh("make", 0)])
    # make: failed in turn 0, fixed in turn 3; pytest: failed in 1, fixed in 2.
    assert turns_taken(*turns) == [3, 1]


def test_it_opens_a_new_episode_after_the_previous_one_resolved() -> None:
    assert turns_taken([sh("make", 1)], [sh("make", 0)], [sh("make", 1)]) == [1, None]


def test_it_does_not_let_a_failure_of_another_program_resolve_an_episode() -> None:
    assert turns_taken([sh("make", 1)], [sh("ls", 1)], [sh("ls", 0)]) == [None, 1]


def test_it_ignores_shell_calls_whose_outcome_is_unknown() -> None:
    turns = ([sh("make", 1)], [sh("make", None), sh("ls", None)], [sh("make", 0)])
    assert turns_taken(*turns) == [2]
    s = session(assistant(sh("make", None), sh("ls", 0)))
    assert session_shell_calls(s) == [ShellCall(0, "ls", 0)]


def test_it_takes_the_shell_tool_names_given() -> None:
    s = session(assistant(sh("make", 1, tool="x")), user("?"), assistant(sh("make", 0, tool="x")))
    assert session_bash_episodes(s, frozenset({"x"})) == [1]
    assert session_shell_success(s, frozenset({"x"})) == (2, 1)
    assert session_shell_calls(s, frozenset({"bash"})) == []


def test_it_counts_only_assistant_turns() -> None:
    s = session(
        assistant(sh("make", 1)), user("?"), tool("x"), user("??"), assistant(sh("make", 0))
    )
    assert session_bash_episodes(s) == [1]
    assert [c.turn for c in session_shell_calls(s)] == [0, 1]


def test_it_neither_opens_nor_resolves_episodes_with_unnamed_commands() -> None:
    assert turns_taken([sh("", 1)], [sh("   ", 0)]) == []
    assert turns_taken([sh("make", 1)], [sh("", 0)], [sh("make", 0)]) == [2]


def test_it_reads_the_command_from_cmd_when_command_is_absent() -> None:
    turns = ([call("bash", 1, cmd="cargo test")], [call("bash", 0, cmd="cargo test")])
    assert turns_taken(*turns) == [1]
    # `command` wins over `cmd` when both are given.
    both = ([call("bash", 1, command="make", cmd="ls")], [call("bash", 0, command="make")])
    assert turns_taken(*both) == [1]
    odd = {"tool": "bash", "arguments": "make", "exit_code": 1}
    assert session_shell_calls(session(assistant(odd))) == [ShellCall(0, None, 1)]


def test_it_computes_episodes_from_collected_calls() -> None:
    calls = [ShellCall(0, "a", 1), ShellCall(0, "b", 1), ShellCall(2, "b", 0), ShellCall(5, "a", 0)]
    assert bash_episodes(calls) == [5, 2]
    assert bash_episodes([ShellCall(4, "a", 3), ShellCall(4, "a", 0)]) == [1]


# --- 4. errors in tool output -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ('Traceback (most recent call last):\n  File "x.py", line 1', "Python traceback"),
        ('Exception in thread "main" java.lang.IllegalStateException', "Java/JVM exception"),
        ("ModuleNotFoundError: No module named 'yaml'", "error line"),
        ("TypeError: undefined is not a function", "error line"),
        ("java.lang.NullPointerException: boom", "error line"),
        ("Error: Cannot find module 'express'", "error line"),
        ("error: could not compile `app`", "error: line"),
        ("error[E0425]: cannot find value `x`", "error: line"),
        ("fatal: not a git repository", "error: line"),
        ("ERROR: No matching distribution found for foo", "error: line"),
        ("FATAL: role does not exist", "error: line"),
        ("panic: runtime error: index out of range", "Go panic"),
        ("npm ERR! missing script: test", "npm error"),
        ("npm error code ENOENT", "npm error"),
        ("bash: pytset: command not found", "command not found"),
        ("sh: 1: pytset: not found", "command not found"),
        ("cat: notes.txt: No such file or directory", "missing file"),
        ("Segmentation fault (core dumped)", "segmentation fault"),
        ("ok\n  Traceback (most recent call last):", "Python traceback"),
    ],
)
def test_it_recognises_errors_in_tool_output(output: str, error: str) -> None:
    assert output_error(output) == error


@pytest.mark.parametrize(
    "output",
    [
        "",
        "3 passed in 0.2s",
        "no errors found",
        "The Error: line is quoted mid-sentence",
        "Errors: 0",
        "see error handling docs",
        "npm WARN deprecated",
        "a: not found here",
        "xpanic: no",
    ],
)
def test_it_finds_no_error_in_clean_output(output: str) -> None:
    assert output_error(output) is None


def test_it_takes_the_exit_code_over_the_output() -> None:
    assert call_exit_code({"exit_code": 0}, "Traceback (most recent call last):") == 0
    assert call_exit_code({"exit_code": 2}, "all good") == 2
    assert call_exit_code({"exit_code": None}, "Traceback (most recent call last):") == 1
    assert call_exit_code({"exit_code": None}, "all good") == 0
    assert call_exit_code({}, "") == 0
    assert call_exit_code({"exit_code": None}, None) is None


def test_it_pairs_tool_turns_with_the_calls_before_them() -> None:
    a, b, c = sh("a", None), sh("b", None), sh("c", None)
    turns = [assistant(a, b, c), tool("out a"), tool(None), user("x"), tool("stray")]
    assert turn_outputs(turns, 0) == [(a, "out a"), (b, None), (c, None)]
    assert turn_outputs([assistant(), tool("x")], 0) == []
    assert turn_outputs([{"role": "assistant"}, tool("x")], 0) == []


def test_it_counts_a_stack_trace_without_an_exit_code_as_an_error() -> None:
    s = session(
        assistant(sh("python app.py", None)),
        tool('Traceback (most recent call last):\n  File "app.py"\nKeyError: x'),
        user("fix it"),
        assistant(sh("python app.py", None)),
        tool("served on :8000"),
    )
    assert session_bash_episodes(s) == [1]
    assert session_shell_success(s) == (2, 1)


def test_it_leaves_a_call_without_exit_code_or_output_out() -> None:
    s = session(assistant(sh("python app.py", None)), user("and?"))
    assert session_shell_calls(s) == []


# --- 4. bash recovery: aggregation ------------------------------------------------------------


def test_it_averages_bash_recovery_over_several_episodes() -> None:
    sessions = [
        # One episode fixed in the next turn: score 1.
        session(assistant(sh("make", 1)), user("x"), assistant(sh("make", 0))),
        # Two episodes: `a` fixed two turns on (1/2), `c` never fixed (0).
        session(
            assistant(sh("a", 1), sh("b", 0)),
            user("x"),
            assistant(sh("c", 1)),
            user("y"),
            assistant(sh("a", 0)),
        ),
        session(assistant(sh("ls", 0))),  # no episode: a cluster with y = m = 0
    ]
    entry = score_sessions(sessions)["m"]["bash_recovery"]
    assert entry["episodes"] == 3
    assert entry["value"] == pytest.approx(1.5 / 3)
    assert entry["recovery_rate"] == pytest.approx(2 / 3)
    assert entry["median_attempts"] == 1.5
    # y = (1, 0.5, 0), m = (1, 2, 0), R = 0.5: residuals 0.5, -0.5, 0; the interval
    # 0.5 ± 0.566 is cut at [0, 1].
    half = Z * math.sqrt(3 / 2 * 0.5 / 9)
    assert half > 0.5
    assert (entry["low"], entry["high"]) == (0.0, 1.0)


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


# --- fixed before or after the user's next words ---------------------------------------------


def outcomes(*turns: dict) -> list[Episode]:
    return bash_episode_outcomes(session_shell_calls(session(*turns)))


def test_it_tells_an_error_fixed_on_its_own_from_one_fixed_after_the_user_spoke() -> None:
    turns = (
        user("build and test it"),
        assistant(sh("make", 2)),
        assistant(sh("make", 0)),  # the next turn, no words between: on its own
        assistant(sh("pytest", 1)),
        user("the fixture is in conftest.py"),
        assistant(sh("pytest", 0)),  # fixed after the user stepped in
        assistant(sh("ruff check .", 1)),  # never fixed
    )
    assert outcomes(*turns) == [Episode(1, True), Episode(1, False), Episode(None, False)]


def test_it_counts_a_fix_in_the_failing_turn_as_on_its_own() -> None:
    assert outcomes(user("go"), assistant(sh("make", 1), sh("make", 0))) == [Episode(1, True)]


def test_it_counts_a_rejection_as_the_user_stepping_in() -> None:
    turns = (
        user("go"),
        assistant(sh("npm test", 1), sh("rm -rf node_modules", None)),
        user("[rejected the Bash call]", "correction"),
        assistant(sh("npm test", 0)),
    )
    assert outcomes(*turns) == [Episode(1, False)]


def test_it_counts_user_turns_but_not_tool_turns_as_words_between() -> None:
    tool_output = {"role": "tool", "text": "make: *** [all] Error 2"}
    turns = (user("go"), assistant(sh("make", 1)), tool_output, assistant(sh("make", 0)))
    assert outcomes(*turns) == [Episode(1, True)]


def test_it_publishes_both_shares_of_the_episodes_with_wilson_intervals() -> None:
    sessions = [
        session(user("go"), assistant(sh("make", 1)), assistant(sh("make", 0))),
        session(user("go"), assistant(sh("make", 1)), user("use -j1"), assistant(sh("make", 0))),
        session(user("go"), assistant(sh("pytest", 1)), assistant(sh("pytest", 0))),
        session(user("go"), assistant(sh("cargo build", 101))),
    ]
    entry = score_sessions(sessions)["m"]["bash_recovery"]
    # Four episodes: two fixed on their own, one after the user's words, one never.
    assert entry["episodes"] == 4
    assert (entry["autonomous"], entry["after_user"]) == (2, 1)
    assert entry["autonomous_rate"] == 0.5
    assert (entry["autonomous_rate_low"], entry["autonomous_rate_high"]) == wilson_interval(2, 4)
    assert entry["after_user_rate"] == 0.25
    assert (entry["after_user_rate_low"], entry["after_user_rate_high"]) == wilson_interval(1, 4)
    # With the failed share they make up every episode, and the two resolved shares
    # make up the recovery rate.
    assert entry["autonomous_rate"] + entry["after_user_rate"] == entry["recovery_rate"]


def test_it_publishes_no_split_without_episodes() -> None:
    entry = score_sessions([session(user("go"), assistant(sh("ls", 0)))])["m"]["bash_recovery"]
    assert (entry["autonomous"], entry["autonomous_rate"], entry["autonomous_rate_low"]) == (
        0,
        None,
        None,
    )
    assert (entry["after_user"], entry["after_user_rate"]) == (0, None)
