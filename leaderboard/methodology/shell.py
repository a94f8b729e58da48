"""Shell calls in a session (methodology §3, signals 4 and shell success), on plain dicts.

Which tools are shell tools, which program a command runs (through compound commands,
`VAR=value` words and wrappers such as `sudo`), whether a call failed (its exit code,
or an error in its output when it has none), and the error episodes that bash
recovery scores, counted in assistant turns. No Django.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

# Tool names that are shell tools whatever the toolset says (methodology §3, signal 4).
DEFAULT_SHELL_TOOLS = frozenset({"bash", "shell", "sh", "terminal", "exec_command", "run_command"})
# Words that run the program named after them: their options that take a separate
# argument (`sudo -u root make`), so the argument is not mistaken for the program, and
# how many plain arguments come before the program (`timeout 60 make`).
WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset({"-u", "-g", "-C", "-D", "-p", "-r", "-t", "-U", "-T", "-h"}), 0),
    "env": (frozenset({"-u", "-C", "-S", "--unset", "--chdir"}), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "nohup": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "command": (frozenset(), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "timeout": (frozenset({"-s", "-k", "--signal", "--kill-after"}), 1),
}
# Shell keywords that may stand before a command's program (`if make; then …`).
KEYWORDS = frozenset({"if", "then", "else", "elif", "while", "until", "do", "!", "{"})
# Commands that prepare or report on the work rather than do it (`cd dir && make`,
# `make; echo $?`), and the closing keywords: never "the command" while another is
# there. `for` opens a loop header, not a program.
HELPERS = frozenset(
    {
        "cd", "pushd", "popd", "export", "unset", "set", "source", ".", "echo", "printf",
        "true", ":", "sleep", "wait", "for", "fi", "done", "}",
    }
)  # fmt: skip
# Shells whose `-c` script is itself the command (`bash -lc "cd d && make"`).
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


# --- the words of a command -------------------------------------------------------------

# Characters shlex reads as operators. A token made only of _SEPARATORS (quoted text
# aside) ends a pipeline or a stage of one; the others are redirections (`2>&1`).
_OPERATOR_CHARS = "();<>|&"
_SEPARATORS = "();|&"
_PIPES = frozenset({"|", "|&"})
# A command without any of these is plain words, split on whitespace alone.
_SHELL_SYNTAX = re.compile(r"[;&|()<>\n'\"\\$#`]")
_HEREDOC = re.compile(r"(?<!<)<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def command_words(command: str) -> list[str]:
    """The shlex tokens of a command: words (quotes removed) and operators.

    Line continuations are joined and here-document bodies left out first (their lines
    are data, not commands); every newline then ends a command as `;` does (written
    after it, so that a `# comment`, which shlex drops up to the newline, keeps it). An
    unclosed quote ends the command where it opens: the words before it still name the
    program.
    """
    text = _without_heredocs(command.replace("\\\n", " ")).replace("\n", "\n;")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace_split = True
    words: list[str] = []
    with contextlib.suppress(ValueError):
        words.extend(lexer)
    return words


def _without_heredocs(command: str) -> str:
    kept: list[str] = []
    position = 0
    while match := _HEREDOC.search(command, position):
        body = command.find("\n", match.end()) + 1
        if body == 0:
            break
        kept.append(command[position:body])
        end = re.compile(rf"^[ \t]*{match.group(2)}[ \t]*$", re.MULTILINE).search(command, body)
        position = len(command) if end is None else end.end()
    kept.append(command[position:])
    return "".join(kept)


def pipelines(words: list[str]) -> list[list[str]]:
    """The words of each pipeline's first stage, in order (empty ones left out).

    A `$( … )` substitution is skipped: it is an argument, not a command of the list.
    """
    stages: list[list[str]] = [[]]
    stage: list[str] | None = stages[0]  # None: in a later stage of a pipeline
    depth = 0  # inside a $( … ) substitution
    previous = ""
    for word in words:
        operator = _is_operator(word)
        if depth:
            depth += word.count("(") - word.count(")") if operator else 0
        elif operator and previous.endswith("$") and word.startswith("("):
            depth = word.count("(") - word.count(")")
        elif not operator:
            if stage is not None:
                stage.append(word)
        # `(cd d; make) | tee log`: the subshell is the first stage.
        elif word.replace(")", "") in _PIPES:
            stage = None
        else:
            stage = []
            stages.append(stage)
        previous = word
    return [stage for stage in stages if stage]


def _is_operator(word: str) -> bool:
    return bool(word) and all(c in _SEPARATORS for c in word)


def shell_tool_names(toolset: Sequence[Any] | None) -> frozenset[str]:
    """The default shell tool names plus toolset entries declared `"kind": "shell"`."""
    declared = {
        entry.get("name")
        for entry in toolset or ()
        if isinstance(entry, dict) and entry.get("kind") == "shell"
    }
    return DEFAULT_SHELL_TOOLS | {name for name in declared if isinstance(name, str)}


# --- the program of a command ------------------------------------------------------------


def shell_program(command: str | Sequence[str] | None) -> str | None:
    """The program a shell command runs, None when it names none.

    A command string is split with shlex into its pipelines (`&&`, `||`, `;`, `&`,
    newlines, subshell parentheses); each pipeline's program is its first stage's (the
    later stages only filter its output: `pytest 2>&1 | tail`), past `VAR=value` words,
    keywords and WRAPPERS, and inside a shell's `-c` script. The command's program is
    the last pipeline's that is not a HELPER (`cd d && make`: make; `make; echo $?`:
    make): a list's exit code is its last command's, and what comes before prepares it.
    A command of helpers only (`cd src`) is named by its last one.

    A list command (argv form) is one simple command: its words are not re-parsed.
    """
    if isinstance(command, str) and not _SHELL_SYNTAX.search(command):
        # Plain words (most commands): shlex would only split them on whitespace.
        programs = [_program(command.split())]
    elif isinstance(command, str):
        programs = [_program(words) for words in pipelines(command_words(command))]
    elif isinstance(command, Sequence):
        programs = [_program([w for w in command if isinstance(w, str)])]
    else:
        return None
    named = [p for p in programs if p is not None]
    doers = [p for p in named if p not in HELPERS]
    return (doers or named or [None])[-1]


def _program(words: list[str]) -> str | None:
    """The program of one simple command's words."""
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if _ASSIGNMENT.match(word) or word in KEYWORDS:
            continue
        if word in WRAPPERS:
            index = _past_wrapper_arguments(words, index, *WRAPPERS[word])
            continue
        if word in SHELLS:
            script = _shell_script(words, index)
            if script is not None:
                return shell_program(script)
        return word
    return None


def _past_wrapper_arguments(
    words: list[str], index: int, with_argument: frozenset[str], plain: int
) -> int:
    """The index of the word after a wrapper's options and plain arguments."""
    while index < len(words) and words[index].startswith("-"):
        # `sudo -u root make`: skip the option and, if it takes one, its argument.
        index += 2 if words[index] in with_argument else 1
    return index + plain


def _shell_script(words: list[str], index: int) -> str | None:
    """The script of `bash [options] -c SCRIPT` (options may be joined: `-lc`)."""
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if not option.startswith("--") and "c" in option:
            return words[index] if index < len(words) else None
    return None


# --- shell calls and their outcome ----------------------------------------------------------


class ShellCall(NamedTuple):
    """One shell call whose outcome is known: the assistant turn holding it (0 for the
    first assistant turn), its program, its exit code (1 for an error shown only by
    its output), and how many user turns came before its assistant turn (two calls
    with the same count have no words of the user between them)."""

    turn: int
    program: str | None
    exit_code: int
    user_turns: int = 0


# Errors a tool's output shows when the call gives no exit code (methodology §3, bash
# recovery): (name, pattern), matched line by line.
ERROR_SIGNATURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Python traceback", re.compile(r"^Traceback \(most recent call last\):")),
    ("Java/JVM exception", re.compile(r"^Exception in thread ")),
    ("error line", re.compile(r"^(?:[\w.]+\.)?(?:[A-Z]\w*)?(?:Error|Exception)\b.*:")),
    ("error: line", re.compile(r"^(?:error|fatal|ERROR|FATAL)(?:\[\w+\])?:")),
    ("Go panic", re.compile(r"^panic: ")),
    ("npm error", re.compile(r"^npm (?:ERR!|error) ")),
    ("command not found", re.compile(r"command not found|: not found$")),
    ("missing file", re.compile(r"No such file or directory")),
    ("segmentation fault", re.compile(r"Segmentation fault")),
)


def output_error(output: str) -> str | None:
    """The name of the first ERROR_SIGNATURES entry a line of `output` matches, or None."""
    for line in output.splitlines():
        stripped = line.strip()
        for name, pattern in ERROR_SIGNATURES:
            if pattern.search(stripped):
                return name
    return None


def call_exit_code(call: Mapping[str, Any], output: str | None) -> int | None:
    """The call's exit code; without one, 1 when its output shows an error and 0 when
    it shows none; None when neither is known (not evidence either way)."""
    exit_code = call.get("exit_code")
    if exit_code is not None or output is None:
        return exit_code
    return 1 if output_error(output) else 0


def _call_command(call: Mapping[str, Any]) -> Any:
    arguments = call.get("arguments")
    if not isinstance(arguments, dict):
        return None
    # `command` is the bundle format's name; `cmd` is common in exported traces.
    command = arguments.get("command")
    return arguments.get("cmd") if command is None else command


def turn_outputs(
    turns: Sequence[Mapping[str, Any]], index: int
) -> list[tuple[Mapping[str, Any], str | None]]:
    """(call, output) of each tool call of the assistant turn at `index`: the output is
    the text of the `tool` turns right after it, the first answering its first call and
    so on (None past them)."""
    outputs: list[str | None] = []
    for turn in turns[index + 1 :]:
        if turn.get("role") != "tool":
            break
        outputs.append(turn.get("text"))
    calls = turns[index].get("tool_calls") or ()
    return [(call, outputs[i] if i < len(outputs) else None) for i, call in enumerate(calls)]


def session_shell_calls(
    session: Mapping[str, Any], shell_names: frozenset[str] | None = None
) -> list[ShellCall]:
    """Every shell call whose outcome is known (call_exit_code not None), in order."""
    if shell_names is None:
        shell_names = shell_tool_names(session.get("toolset"))
    turns = session.get("turns") or []
    calls: list[ShellCall] = []
    assistant_turn = -1
    user_turns = 0
    for index, turn in enumerate(turns):
        role = turn.get("role")
        if role == "user":
            user_turns += 1
        if role != "assistant":
            continue
        assistant_turn += 1
        for call, output in turn_outputs(turns, index):
            exit_code = call_exit_code(call, output)
            if call.get("tool") in shell_names and exit_code is not None:
                program = shell_program(_call_command(call))
                calls.append(ShellCall(assistant_turn, program, exit_code, user_turns))
    return calls


def session_shell_success(
    session: Mapping[str, Any], shell_names: frozenset[str] | None = None
) -> tuple[int, int]:
    """(shell calls, calls that exited 0) of the session (§3.2, shell success rate)."""
    calls = session_shell_calls(session, shell_names)
    return len(calls), sum(1 for call in calls if call.exit_code == 0)


# --- bash recovery episodes --------------------------------------------------------------


def session_bash_episodes(
    session: Mapping[str, Any], shell_names: frozenset[str] | None = None
) -> list[int | None]:
    """Turns each error episode of the session took, None for one never resolved."""
    return bash_episodes(session_shell_calls(session, shell_names))


def bash_episodes(calls: Sequence[ShellCall]) -> list[int | None]:
    """Turns each error episode took to resolve (None: never), in opening order.

    A failing call opens an episode for its program unless one is open already; the
    next call of that program exiting 0 resolves it. Its length is the number of
    assistant turns from the failing call's turn to the resolving call's, and at least
    1: a fix in the failing turn itself or in the next one is the very next command,
    and several failing calls in one turn are one turn.
    """
    return [episode.turns for episode in bash_episode_outcomes(calls)]


class Episode(NamedTuple):
    """One error episode: the assistant turns it took (None: never resolved), and
    whether it was resolved before the user's next words (no user turn between the
    failing call and the fixing one: the agent fixed it on its own)."""

    turns: int | None
    unaided: bool = False


def bash_episode_outcomes(calls: Sequence[ShellCall]) -> list[Episode]:
    """Every error episode of bash_episodes, with whether the user stepped in."""
    episodes: list[Episode] = []
    open_at: dict[str, ShellCall] = {}  # program -> the call that opened its episode
    index_of: dict[str, int] = {}
    for call in calls:
        # A call whose program cannot be named cannot open or resolve an episode:
        # there is nothing to match it against.
        if call.program is None:
            continue
        if call.exit_code != 0:
            if call.program not in open_at:
                open_at[call.program] = call
                index_of[call.program] = len(episodes)
                episodes.append(Episode(None))
        elif call.program in open_at:
            opened = open_at.pop(call.program)
            episodes[index_of.pop(call.program)] = Episode(
                max(1, call.turn - opened.turn), call.user_turns == opened.user_turns
            )
    return episodes


def episode_score(turns: int | None) -> float:
    """1 / turns for a resolved episode, 0 for one still open at the end."""
    return 0.0 if turns is None else 1.0 / turns
