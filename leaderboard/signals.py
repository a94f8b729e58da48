"""Signal-board scores from user sessions (methodology §3), on plain session dicts.

A session is one line of sessions.jsonl as a dict: session_id, model, scenario,
confirmation, toolset, turns[] (role, text, label, tool_calls[{tool, arguments,
exit_code}]). The per-session functions return that session's contribution to one
signal; score_sessions makes one pass over the sessions and then aggregates every
model with numpy. No Django here: the board builder, tests and benchmarks share it.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from leaderboard import nir
from leaderboard.labeller import COMPLAINT, CORRECTION, PRAISE, turn_labels
from leaderboard.stats import cluster_robust_ratio, wilson_interval

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

# Steering efforts (methodology §3, signal 3).
EFFORT_NONE, EFFORT_LOW, EFFORT_HIGH = 0, 1, 3


# --- labels -------------------------------------------------------------------------


def session_labels(session: Mapping[str, Any]) -> list[str | None]:
    """Effective label of every turn (None for non-user turns and unlabelled ones)."""
    return [None if lab is None else lab[0] for lab in turn_labels(_turns(session))]


def _turns(session: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return session.get("turns") or []


# --- 1. confirmed success --------------------------------------------------------------


def session_confirmed(session: Mapping[str, Any]) -> bool:
    """Only the explicit "yes" to "Did this complete your task?" counts (§3, signal 1)."""
    return session.get("confirmation") == "yes"


# --- 2. praise vs complaint ------------------------------------------------------------


def session_praise_complaint(
    session: Mapping[str, Any], labels: Sequence[str | None] | None = None
) -> bool | None:
    """True when praise turns outnumber complaints, False when fewer, None when equal.

    None means "not scored", which includes the common case of no sentiment at all.
    """
    labels = session_labels(session) if labels is None else labels
    praise = sum(1 for lab in labels if lab == PRAISE)
    complaints = sum(1 for lab in labels if lab == COMPLAINT)
    if praise == complaints:
        return None
    return praise > complaints


# --- 3. steerability -------------------------------------------------------------------


def session_steering_efforts(
    session: Mapping[str, Any], labels: Sequence[str | None] | None = None
) -> list[int]:
    """Steering effort (0, 1 or 3) of each assistant turn, in order."""
    labels = session_labels(session) if labels is None else labels
    # corrected[i]: the first user turn after assistant turn i is a correction.
    corrected: list[bool] = []
    awaiting_first_user = False
    for turn, label in zip(_turns(session), labels, strict=True):
        role = turn.get("role")
        if role == "assistant":
            corrected.append(False)
            awaiting_first_user = True
        elif role == "user" and awaiting_first_user:
            # Only the first user turn after an assistant turn judges it.
            corrected[-1] = label == CORRECTION
            awaiting_first_user = False
    return [_effort(corrected, i) for i in range(len(corrected))]


def _effort(corrected: list[bool], i: int) -> int:
    if not corrected[i]:
        return EFFORT_NONE
    # No next assistant turn: nothing shows whether the correction landed, so it is
    # low, never counted as a repeat.
    if i + 1 == len(corrected):
        return EFFORT_LOW
    return EFFORT_HIGH if corrected[i + 1] else EFFORT_LOW


# --- 4. bash recovery ------------------------------------------------------------------


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
    for turn in _turns(session):
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
    return _bash_episodes(session_shell_calls(session, shell_names))


def _bash_episodes(calls: Sequence[tuple[str | None, int]]) -> list[int | None]:
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


# --- 5. tool hallucinations ------------------------------------------------------------


@dataclass(frozen=True)
class _ToolSpec:
    properties: frozenset[str] | None  # None: argument names are not checked
    required: frozenset[str]


def _tool_specs(toolset: Sequence[Any]) -> dict[str, _ToolSpec]:
    specs: dict[str, _ToolSpec] = {}
    for entry in toolset:
        if isinstance(entry, str):
            specs[entry] = _ToolSpec(None, frozenset())
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            specs[entry["name"]] = _spec_from_parameters(entry.get("parameters"))
    return specs


def _spec_from_parameters(parameters: Any) -> _ToolSpec:
    if not isinstance(parameters, dict):
        return _ToolSpec(None, frozenset())
    properties = parameters.get("properties")
    required = parameters.get("required") or ()
    # A schema without `properties` says nothing about argument names, so only a
    # given `properties` makes an unknown argument a hallucination.
    names = frozenset(properties) if isinstance(properties, dict) else None
    return _ToolSpec(names, frozenset(r for r in required if isinstance(r, str)))


def _is_hallucinated(call: Mapping[str, Any], specs: dict[str, _ToolSpec]) -> bool:
    spec = specs.get(call.get("tool"))
    if spec is None:
        return True
    arguments = call.get("arguments")
    given = arguments.keys() if isinstance(arguments, dict) else ()
    if spec.properties is not None and any(a not in spec.properties for a in given):
        return True
    return not spec.required.issubset(given)


def session_tool_calls(session: Mapping[str, Any]) -> tuple[int, int] | None:
    """(tool calls, hallucinated calls) over assistant turns; None without a toolset.

    An empty toolset list is a declared toolset with no tools: every call in it is
    hallucinated. Only a null or missing toolset leaves the session unscored.
    """
    toolset = session.get("toolset")
    if toolset is None:
        return None
    specs = _tool_specs(toolset)
    calls = hallucinated = 0
    for turn in _turns(session):
        if turn.get("role") != "assistant":
            continue
        for call in turn.get("tool_calls") or ():
            calls += 1
            hallucinated += _is_hallucinated(call, specs)
    return calls, hallucinated


# --- one session, every signal ---------------------------------------------------------


@dataclass(frozen=True)
class SessionSignals:
    """Everything one session contributes to the signal boards."""

    model: str
    scenario: str | None
    confirmed: bool
    praise_complaint: bool | None
    assistant_turns: int
    effort: int
    episode_attempts: tuple[int | None, ...]
    tool_calls: tuple[int, int] | None
    shell_calls: int = 0
    shell_successes: int = 0

    @property
    def episode_score_total(self) -> float:
        return sum(episode_score(a) for a in self.episode_attempts)

    def capability_outcomes(self) -> dict[str, float | None]:
        """The session's own value of each capability signal (§3.1 capability slice);
        None where the signal is not defined for this session."""
        episodes = len(self.episode_attempts)
        calls = self.tool_calls
        return {
            "confirmed_success": float(self.confirmed),
            "praise_complaint": None
            if self.praise_complaint is None
            else float(self.praise_complaint),
            "steerability": 1 - self.effort / (3 * self.assistant_turns)
            if self.assistant_turns
            else None,
            "bash_recovery": self.episode_score_total / episodes if episodes else None,
            "shell_success": self.shell_successes / self.shell_calls if self.shell_calls else None,
            "tool_validity": 1 - calls[1] / calls[0] if calls and calls[0] else None,
        }


def summarize_session(session: Mapping[str, Any]) -> SessionSignals:
    """Every per-session signal value, labelling the session's turns once."""
    labels = session_labels(session)
    efforts = session_steering_efforts(session, labels)
    # One pass over the shell calls serves both bash recovery and the success rate.
    shell_calls = session_shell_calls(session)
    return SessionSignals(
        model=session["model"],
        scenario=session.get("scenario"),
        confirmed=session_confirmed(session),
        praise_complaint=session_praise_complaint(session, labels),
        assistant_turns=len(efforts),
        effort=sum(efforts),
        episode_attempts=tuple(_bash_episodes(shell_calls)),
        tool_calls=session_tool_calls(session),
        shell_calls=len(shell_calls),
        shell_successes=sum(1 for _, exit_code in shell_calls if exit_code == 0),
    )


# --- model-level aggregation -----------------------------------------------------------


@dataclass
class SessionColumns:
    """Per-session values as numpy columns, in session order."""

    model: np.ndarray  # model code per session
    scenario: list[str | None]
    confirmed: np.ndarray
    pc: np.ndarray  # 1 success, 0 failure, -1 not scored
    turns: np.ndarray
    effort: np.ndarray
    episodes: np.ndarray
    episode_score: np.ndarray
    resolved: np.ndarray
    calls: np.ndarray  # -1: no toolset
    hallucinated: np.ndarray
    shell_calls: np.ndarray
    shell_successes: np.ndarray
    attempts: list[list[int]]  # resolved attempts, per model code


def score_sessions(sessions: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Model -> every signal-board figure for that model (the `signals` shape).

    The net improvement rate is computed on confirmed success across all the given
    sessions, shuffling models within scenario (closed form, §3.1).
    """
    names, columns = collect_columns(sessions)
    nir_results = nir.nir_closed_form_all(
        columns.confirmed.astype(float), columns.model, columns.scenario
    )
    return {
        name: model_entry(columns, columns.model == code, code, nir_results[code])
        for code, name in enumerate(names)
    }


def collect_columns(sessions: Iterable[Mapping[str, Any]]) -> tuple[list[str], SessionColumns]:
    codes: dict[str, int] = {}
    rows: list[tuple] = []
    scenarios: list[str | None] = []
    attempts: list[list[int]] = []
    for session in sessions:
        summary = summarize_session(session)
        code = codes.setdefault(summary.model, len(codes))
        if code == len(attempts):
            attempts.append([])
        attempts[code].extend(a for a in summary.episode_attempts if a is not None)
        scenarios.append(summary.scenario)
        rows.append(_row(code, summary))
    table = np.array(rows, dtype=float).reshape(len(rows), _ROW_WIDTH)
    return list(codes), SessionColumns(
        table[:, 0].astype(np.int64),
        scenarios,
        *(table[:, i] for i in range(1, _ROW_WIDTH)),
        attempts,
    )


# Columns of a _row: the model code, then SessionColumns' numpy columns in field order.
_ROW_WIDTH = 12


def _row(code: int, s: SessionSignals) -> tuple:
    pc = -1 if s.praise_complaint is None else int(s.praise_complaint)
    calls, hallucinated = s.tool_calls if s.tool_calls is not None else (-1, 0)
    resolved = sum(1 for a in s.episode_attempts if a is not None)
    return (
        code,
        s.confirmed,
        pc,
        s.assistant_turns,
        s.effort,
        len(s.episode_attempts),
        s.episode_score_total,
        resolved,
        calls,
        hallucinated,
        s.shell_calls,
        s.shell_successes,
    )


def model_entry(
    c: SessionColumns, mask: np.ndarray, code: int, nir_result: nir.NirResult
) -> dict[str, Any]:
    return {
        "sessions": int(mask.sum()),
        "confirmed_success": _proportion(int(c.confirmed[mask].sum()), int(mask.sum())),
        "praise_complaint": _praise_complaint(c.pc[mask]),
        "steerability": _steerability(c.effort[mask], c.turns[mask]),
        "bash_recovery": _bash_recovery(c, mask, c.attempts[code]),
        "tool_hallucination": _hallucination(c.calls[mask], c.hallucinated[mask]),
        "shell_success": _shell_success(c.shell_calls[mask], c.shell_successes[mask]),
        "net_improvement": nir_result.as_dict(),
    }


def _proportion(successes: int, n: int) -> dict[str, Any]:
    low, high = wilson_interval(successes, n)
    return {"value": successes / n if n else None, "low": low, "high": high, "n": n}


def _praise_complaint(pc: np.ndarray) -> dict[str, Any]:
    scored = pc >= 0
    return _proportion(int(pc[scored].sum()), int(scored.sum()))


def _steerability(effort: np.ndarray, turns: np.ndarray) -> dict[str, Any]:
    # As for bash recovery, every session is a cluster, even one without an assistant
    # turn (the reference data has none, so this is for consistency).
    mean, low, high = cluster_robust_ratio(effort, turns)
    return {
        # The score is 1 - mean/3, so the ends of the effort interval swap.
        "value": None if mean is None else 1 - mean / 3,
        "low": None if high is None else 1 - high / 3,
        "high": None if low is None else 1 - low / 3,
        "mean_effort": mean,
        "turns": int(turns.sum()),
    }


def _bash_recovery(c: SessionColumns, mask: np.ndarray, attempts: list[int]) -> dict[str, Any]:
    episodes = c.episodes[mask]
    # Every session of the model is a cluster, including those without an episode
    # (y = m = 0: they add nothing to the sums but count in n/(n-1)). The reference
    # numbers in tests/data/expected.json confirm this reading; clustering only the
    # sessions with an episode gives intervals about 3e-4 wider.
    value, low, high = cluster_robust_ratio(c.episode_score[mask], episodes)
    total = int(episodes.sum())
    return {
        "value": value,
        "low": low,
        "high": high,
        "episodes": total,
        "recovery_rate": float(c.resolved[mask].sum()) / total if total else None,
        # Median over resolved episodes: a failed episode has no attempt count.
        "median_attempts": statistics.median(attempts) if attempts else None,
    }


def _hallucination(calls: np.ndarray, hallucinated: np.ndarray) -> dict[str, Any]:
    scored = calls >= 0
    total = int(calls[scored].sum())
    bad = int(hallucinated[scored].sum())
    low, high = wilson_interval(bad, total)
    return {
        "value": bad / total if total else None,
        "low": low,
        "high": high,
        "calls": total,
    }


def _shell_success(calls: np.ndarray, successes: np.ndarray) -> dict[str, Any]:
    total = int(calls.sum())
    ok = int(successes.sum())
    low, high = wilson_interval(ok, total)
    return {
        "value": ok / total if total else None,
        "low": low,
        "high": high,
        "calls": total,
    }
