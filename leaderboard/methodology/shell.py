"""Shell calls in a session (methodology §3, signals 4 and shell success), on plain dicts.

Which tools are shell tools, which program a command runs (past `VAR=value` words and
wrappers such as `sudo`), and the error episodes that bash recovery scores. No Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# Tool names that are shell tools whatever the toolset says (methodology §3, signal 4).
DEFAULT_SHELL_TOOLS = frozenset({"bash", "shell", "sh", "terminal", "exec_command", "run_command"})
# Words that wrap the real program and are skipped when naming it.
WRAPPER_WORDS = frozenset({"sudo", "env", "time", "nohup"})
# Wrapper options that take a separate argument (`sudo -u root make`), so the
# argument is not mistaken for the program.
_WRAPPER_OPTIONS_WITH_ARGUMENT = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-p", "-r", "-t", "-U", "-T", "-h"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "nohup": frozenset(),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# A shell word: unquoted runs, backslash escapes and quoted strings glued together.
_SHELL_WORD = re.compile(r"""(?:[^\s'"\\]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+""")


def shell_tool_names(toolset: Sequence[Any] | None) -> frozenset[str]:
    """The default shell tool names plus toolset entries declared `"kind": "shell"`."""
    declared = {
        entry.get("name")
        for entry in toolset or ()
        if isinstance(entry, dict) and entry.get("kind") == "shell"
    }
    return DEFAULT_SHELL_TOOLS | {name for name in declared if isinstance(name, str)}


def shell_program(command: str | Sequence[str] | None) -> str | None:
    """The program a shell command runs: its first word after leading `VAR=value`
    words and `sudo`/`env`/`time`/`nohup` (with their options). None when empty.

    A list command (argv form) is read word by word without shell parsing.
    """
    if isinstance(command, str):
        words: Iterable[str] = (m.group(0) for m in _SHELL_WORD.finditer(command))
    elif isinstance(command, Sequence):
        words = (w for w in command if isinstance(w, str))
    else:
        return None
    return _first_program_word(iter(words))


def _first_program_word(words: Any) -> str | None:
    wrapper: str | None = None
    for word in words:
        if _ASSIGNMENT.match(word):
            continue
        if word in WRAPPER_WORDS:
            wrapper = word
            continue
        if wrapper is not None and word.startswith("-"):
            # `sudo -u root make`: skip the option and, if it takes one, its argument.
            if word in _WRAPPER_OPTIONS_WITH_ARGUMENT[wrapper]:
                next(words, None)
            continue
        return _unquote(word)
    return None


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


def _call_command(call: Mapping[str, Any]) -> Any:
    arguments = call.get("arguments")
    if not isinstance(arguments, dict):
        return None
    # `command` is the bundle format's name; `cmd` is common in exported traces.
    command = arguments.get("command")
    return arguments.get("cmd") if command is None else command


def session_shell_calls(
    session: Mapping[str, Any], shell_names: frozenset[str] | None = None
) -> list[tuple[str | None, int]]:
    """(program, exit_code) of every shell call with a non-null exit code, in order."""
    if shell_names is None:
        shell_names = shell_tool_names(session.get("toolset"))
    calls: list[tuple[str | None, int]] = []
    for turn in session.get("turns") or ():
        if turn.get("role") != "assistant":
            continue
        for call in turn.get("tool_calls") or ():
            exit_code = call.get("exit_code")
            # A null exit code means the result is unknown: not evidence either way.
            if call.get("tool") in shell_names and exit_code is not None:
                calls.append((shell_program(_call_command(call)), exit_code))
    return calls


def session_shell_success(
    session: Mapping[str, Any], shell_names: frozenset[str] | None = None
) -> tuple[int, int]:
    """(shell calls, calls that exited 0) of the session (§3.2, shell success rate).

    Shell calls are those of session_shell_calls: a null exit code is not counted.
    """
    calls = session_shell_calls(session, shell_names)
    return len(calls), sum(1 for _, exit_code in calls if exit_code == 0)


def session_bash_episodes(
    session: Mapping[str, Any], shell_names: frozenset[str] | None = None
) -> list[int | None]:
    """Attempts of each error episode in the session, None for one never resolved.

    A failing call opens an episode for its program unless one is open already; the
    next call of that program exiting 0 resolves it, after `attempts` shell calls
    (of any program) counted from the failure. Episode order is opening order.
    """
    return bash_episodes(session_shell_calls(session, shell_names))


def bash_episodes(calls: Sequence[tuple[str | None, int]]) -> list[int | None]:
    """session_bash_episodes from (program, exit_code) calls already collected."""
    attempts: list[int | None] = []
    open_at: dict[str, tuple[int, int]] = {}  # program -> (call index, episode index)
    for index, (program, exit_code) in enumerate(calls):
        # A call whose program cannot be named still counts as an attempt, but it
        # cannot open or resolve an episode: there is nothing to match it against.
        if program is None:
            continue
        if exit_code != 0:
            if program not in open_at:
                open_at[program] = (index, len(attempts))
                attempts.append(None)
        elif program in open_at:
            opened, episode = open_at.pop(program)
            attempts[episode] = index - opened
    return attempts


def episode_score(attempts: int | None) -> float:
    """1 / attempts for a resolved episode, 0 for one still open at the end."""
    return 0.0 if attempts is None else 1.0 / attempts
