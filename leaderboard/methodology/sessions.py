"""Each session's own contribution to the signal boards (methodology §3), on plain dicts.

A session is one line of sessions.jsonl as a dict: session_id, model, scenario,
confirmation, toolset, turns[] (role, text, label or labels, tool_calls[{tool, arguments,
exit_code}]). Each function here returns one session's contribution to one signal, and
summarize_session all of them at once; `session_scores` aggregates them per model.
No Django here: the signal board, tests and benchmarks share it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.methodology.capabilities import session_claims
from leaderboard.methodology.labeller import COMPLAINT, CORRECTION, PRAISE, turn_labels
from leaderboard.methodology.shell import bash_episode_outcomes, episode_score, session_shell_calls

# Steering efforts (methodology §3, signal 3).
EFFORT_NONE, EFFORT_LOW, EFFORT_HIGH = 0, 1, 3


# --- labels -------------------------------------------------------------------------


def session_labels(session: Mapping[str, Any]) -> list[frozenset[str]]:
    """The effective label set of every turn (empty for non-user turns and unlabelled ones)."""
    return [frozenset() if lab is None else lab[0] for lab in turn_labels(_turns(session))]


def _turns(session: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return session.get("turns") or []


# --- 1. confirmed success --------------------------------------------------------------


def session_confirmed(session: Mapping[str, Any]) -> bool:
    """Only the explicit "yes" to "Did this complete your task?" counts (§3, signal 1)."""
    return session.get("confirmation") == "yes"


# --- 2. praise vs complaint ------------------------------------------------------------


def _praise_complaint(labels: Sequence[frozenset[str]]) -> bool | None:
    # A turn may carry both ("Great, but this is wrong" counts once each way).
    praise = sum(1 for lab in labels if PRAISE in lab)
    complaints = sum(1 for lab in labels if COMPLAINT in lab)
    if praise == complaints:
        return None
    return praise > complaints


# --- 3. steerability -------------------------------------------------------------------


def steering_efforts(
    turns: Sequence[Mapping[str, Any]], labels: Sequence[frozenset[str]]
) -> list[int]:
    corrected = corrected_turns(turns, labels)
    return [_effort(corrected, i) for i in range(len(corrected))]


def corrected_turns(
    turns: Sequence[Mapping[str, Any]], labels: Sequence[frozenset[str]]
) -> list[bool]:
    """Per assistant turn: whether the first user turn after it is a correction.

    Only that first user turn judges the assistant turn, so an act of steering is
    counted once however many user turns record it (several rejected calls, a
    rejection and the words after it)."""
    corrected: list[bool] = []
    awaiting_first_user = False
    for index, turn in enumerate(turns):
        role = turn.get("role")
        if role == "assistant":
            corrected.append(False)
            awaiting_first_user = True
        elif role == "user" and awaiting_first_user:
            corrected[-1] = CORRECTION in labels[index]
            awaiting_first_user = False
    return corrected


def _effort(corrected: list[bool], i: int) -> int:
    if not corrected[i]:
        return EFFORT_NONE
    # No next assistant turn: nothing shows whether the correction landed, so it is
    # low, never counted as a repeat.
    if i + 1 == len(corrected):
        return EFFORT_LOW
    return EFFORT_HIGH if corrected[i + 1] else EFFORT_LOW


@dataclass(frozen=True)
class Recoveries:
    """Turns to recover of a session's corrections (steerability's second figure).

    `turns` holds one value per correction that was recovered from: the number of
    assistant turns from the corrected one to the first later assistant turn that
    is not itself corrected (1: the very next turn holds). `open` counts the
    corrections the session ended before recovering from: every correction of a run
    that reaches the last assistant turn with that turn still corrected, the run's
    last correction having no next turn at all to judge it."""

    turns: tuple[int, ...] = ()
    open: int = 0


def turns_to_recover(corrected: Sequence[bool]) -> Recoveries:
    """The turns to recover of each correction, from corrected_turns' flags."""
    turns: list[int] = []
    # Walk backwards: next_fine is the index of the nearest later assistant turn that
    # is not corrected (None: the session ends before one).
    next_fine: int | None = None
    open_count = 0
    for i in range(len(corrected) - 1, -1, -1):
        if not corrected[i]:
            next_fine = i
        elif next_fine is None:
            open_count += 1
        else:
            turns.append(next_fine - i)
    return Recoveries(tuple(reversed(turns)), open_count)


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
    episode_attempts: tuple[int | None, ...]  # turns per bash episode, None: failed
    tool_calls: tuple[int, int] | None
    shell_calls: int = 0
    shell_successes: int = 0
    # Assistant turns claiming a capability the toolset lacks (capabilities.py): each
    # counts as one more hallucinated reference beside the calls.
    claims: int = 0
    # Episodes resolved before the user's next words (shell.Episode.unaided).
    episodes_unaided: int = 0
    # Turns to recover of each correction recovered from, and the corrections still
    # open when the session ended (turns_to_recover).
    recoveries: tuple[int, ...] = ()
    corrections_open: int = 0

    @property
    def episode_score_total(self) -> float:
        return sum(episode_score(a) for a in self.episode_attempts)

    def capability_outcomes(self) -> dict[str, float | None]:
        """The session's own value of each capability signal (§3.1 capability slice);
        None where the signal is not defined for this session."""
        episodes = len(self.episode_attempts)
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
            "tool_validity": self._tool_validity(),
        }

    def _tool_validity(self) -> float | None:
        """1 − (hallucinated calls + claims) / (calls + claims): None without a toolset
        or with neither calls nor claims."""
        if self.tool_calls is None:
            return None
        calls, hallucinated = self.tool_calls
        references = calls + self.claims
        return 1 - (hallucinated + self.claims) / references if references else None


def summarize_session(session: Mapping[str, Any]) -> SessionSignals:
    """Every per-session signal value, labelling the session's turns once."""
    labels = session_labels(session)
    corrected = corrected_turns(_turns(session), labels)
    efforts = [_effort(corrected, i) for i in range(len(corrected))]
    recoveries = turns_to_recover(corrected)
    # One pass over the shell calls serves both bash recovery and the success rate.
    shell_calls = session_shell_calls(session)
    episodes = bash_episode_outcomes(shell_calls)
    return SessionSignals(
        model=session["model"],
        scenario=session.get("scenario"),
        confirmed=session_confirmed(session),
        praise_complaint=_praise_complaint(labels),
        assistant_turns=len(efforts),
        effort=sum(efforts),
        episode_attempts=tuple(episode.turns for episode in episodes),
        tool_calls=session_tool_calls(session),
        shell_calls=len(shell_calls),
        shell_successes=sum(1 for call in shell_calls if call.exit_code == 0),
        claims=session_claims(session),
        episodes_unaided=sum(1 for episode in episodes if episode.unaided),
        recoveries=recoveries.turns,
        corrections_open=recoveries.open,
    )
