"""What every transcript format shares: home-directory redaction, the assembly of a
conversation into turns (streamed assistant parts merged, tool results matched to their
calls, a rejection or an interruption turned into the person's correction), the split
of a session by model, and the `sessions.jsonl` line a session becomes.

A transcript format's module reads its own files and feeds a TurnBuilder; everything
after that is here, so a second format is one more module.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ingestion.bundles.limits import INT32_MAX, INT32_MIN

USER_PLACEHOLDER = "<user>"
# Account names that say nothing about a person (and are ordinary words): kept when
# they appear outside a path.
_GENERIC_ACCOUNTS = frozenset(
    {"root", "user", "users", "admin", "ubuntu", "runner", "vscode", "node", "dev", "home",
     "shared", "guest", "public", "default", "codespace", "jovyan", "ec2-user"}
)  # fmt: skip
# The shortest account name also redacted as a bare word (shorter ones are too often
# ordinary words or code: "al", "max").
_BARE_NAME_CHARS = 4
# At most this many owners' names are redacted as bare words (the longest): the
# pattern tries every name at every position of every text, and one person's
# transcripts name one or two home directories; a folder naming thousands would make
# each text cost thousands of times its length. Paths are redacted whatever the owner.
MAX_BARE_NAMES = 32
_NAME = r"[^/\\\s\"'`<>:;|*?,()\[\]{}]+"
# /home/<name>, /Users/<name> (also /var/home/… and a path quoted inside text).
_POSIX_HOME = re.compile(rf"(/(?:home|Users)/)({_NAME})")
# C:\Users\<name>, C:/Users/<name>, and JSON-escaped C:\\Users\\<name>.
_WINDOWS_HOME = re.compile(rf"(\b[A-Za-z]:[\\/]+Users[\\/]+)({_NAME})", re.IGNORECASE)
# ~<name>/… (the bare ~/ names nobody).
_TILDE_HOME = re.compile(r"((?<![\w~])~)([A-Za-z_][\w.-]*)(?=/)")
# Folder names that encode a home path, as Claude Code names its project folders:
# -home-<name>-…, -Users-<name>-…, C--Users-<name>-….
_ENCODED_HOME = re.compile(r"((?<![\w-])(?:[A-Za-z]-)?-(?:home|Users)-)([A-Za-z0-9_.]+)")
_HOME_PATTERNS = (_POSIX_HOME, _WINDOWS_HOME, _TILDE_HOME, _ENCODED_HOME)


def home_owner(path: str | None) -> str | None:
    """The account name of the home directory `path` lies in, if it lies in one."""
    if not isinstance(path, str):
        return None
    for pattern in (_POSIX_HOME, _WINDOWS_HOME):
        match = pattern.search(path)
        if match and match.group(2) != USER_PLACEHOLDER:
            return match.group(2)
    return None


def opaque_user(owner: str | None, namespace: str) -> str | None:
    """A stable id for a home directory's owner that does not say the name."""
    if not owner:
        return None
    return hashlib.sha256(f"{namespace}:{owner}".encode()).hexdigest()[:24]


class Redactor:
    """Replaces the account name of home-directory paths with USER_PLACEHOLDER in every
    string of a value, and the known owners' names (`owners`) wherever they stand as a
    word: a transcript prints them outside paths too (`ls -l`, prompts, git authors).
    """

    def __init__(self, owners: Iterable[str] = ()) -> None:
        names = sorted(
            {
                n
                for n in owners
                if len(n) >= _BARE_NAME_CHARS and n.lower() not in _GENERIC_ACCOUNTS
            },
            key=lambda n: (-len(n), n),
        )[:MAX_BARE_NAMES]
        alternatives = "|".join(re.escape(n) for n in names)
        self._bare = re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w-])") if names else None

    def text(self, value: str) -> str:
        for pattern in _HOME_PATTERNS:
            value = pattern.sub(_placeholder, value)
        if self._bare is not None:
            value = self._bare.sub(USER_PLACEHOLDER, value)
        return value

    def value(self, value: Any) -> Any:
        """`value` with every string in it (keys too) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items()}
        return value


def _placeholder(match: re.Match[str]) -> str:
    return match.group(1) + USER_PLACEHOLDER


# ------------------------------------------------------------------ turns


@dataclass
class Call:
    """One tool call; `exit_code` stays None until its result says otherwise."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    exit_code: int | None = None
    unknown_tool: bool = False  # the harness answered that no such tool exists


@dataclass
class Turn:
    """A user turn (`label` None: for the extractor to label) or an assistant turn."""

    role: str
    text: str | None
    model: str | None = None
    calls: list[Call] = field(default_factory=list)
    label: str | None = None
    message_id: str | None = None
    source: str | None = None  # where the turn began (`file:line`), for errors


@dataclass(frozen=True)
class Result:
    """What a tool call's result says: its exit code (None: unknown, rejected or
    interrupted), whether the person rejected it (and what they said), whether the
    tool does not exist."""

    call_id: str
    exit_code: int | None
    rejected: bool = False
    feedback: str | None = None
    unknown_tool: bool = False


# The text of the correction an interruption stands for (TurnBuilder.interrupted).
INTERRUPTION_TEXT = "[interrupted]"


class TurnBuilder:
    """A conversation assembled event by event, in order.

    Assistant parts sharing a message id are one turn (streamed output writes one line
    per content block); a result sets its call's exit code. The person steering the
    agent becomes one user turn labelled `correction` per act:

    * a rejection: the calls of one assistant turn they rejected together (parallel
      calls each get a rejected result) are one act, with their words if they gave any;
    * an interruption (they stopped the agent) followed by their words: the words
      redirect the work. Claude Code also writes the marker after a rejection, which
      is then part of that act; an interruption the person says nothing after (the
      session ends, or the agent goes on) is no correction: nothing shows a redirect.
    """

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._messages: dict[str, Turn] = {}
        self._calls: dict[str, Call] = {}
        self._seen_assistant = False
        # Since the last assistant turn: the rejection's turn, its tools and words.
        self._rejection: Turn | None = None
        self._rejected_tools: list[str] = []
        self._feedback: list[str] = []
        self._interrupted = False

    def words(self, text: str, source: str | None = None) -> None:
        if self._interrupted:
            self.turns.append(Turn("user", INTERRUPTION_TEXT, label="correction", source=source))
            self._interrupted = False
        self.turns.append(Turn("user", text, source=source))

    def interrupted(self) -> None:
        """The person stopped the agent: a correction once their next words come."""
        if self._seen_assistant and self._rejection is None:
            self._interrupted = True

    def assistant(
        self,
        message_id: str | None,
        model: str | None,
        texts: list[str],
        calls: list[Call],
        source: str | None = None,
    ) -> None:
        turn = self._messages.get(message_id) if message_id else None
        if turn is None:
            turn = Turn("assistant", None, model=model, message_id=message_id, source=source)
            self.turns.append(turn)
            if message_id:
                self._messages[message_id] = turn
            self._new_assistant_turn()
        turn.model = turn.model or model
        text = "\n\n".join(t for t in texts if t)
        if text:
            turn.text = f"{turn.text}\n\n{text}" if turn.text else text
        for call in calls:
            if call.call_id not in self._calls:
                self._calls[call.call_id] = call
                turn.calls.append(call)

    def _new_assistant_turn(self) -> None:
        self._seen_assistant = True
        self._rejection, self._rejected_tools, self._feedback = None, [], []
        self._interrupted = False

    def result(self, result: Result, source: str | None = None) -> None:
        call = self._calls.get(result.call_id)
        if call is None:  # a result without its call (cut off by a compaction): no evidence
            return
        call.exit_code = result.exit_code
        call.unknown_tool = result.unknown_tool
        if result.rejected:
            self._rejected(call.tool, result.feedback, source)

    def _rejected(self, tool: str, feedback: str | None, source: str | None) -> None:
        # The same act while its turn is still the last one: no words came between.
        if self._rejection is None or self.turns[-1] is not self._rejection:
            self._rejection = Turn("user", None, label="correction", source=source)
            self._rejected_tools, self._feedback = [], []
            self.turns.append(self._rejection)
        self._rejected_tools.append(tool)
        if feedback and feedback not in self._feedback:
            self._feedback.append(feedback)
        self._rejection.text = "\n\n".join(self._feedback) or _rejected_text(self._rejected_tools)

    def finished(self) -> list[Turn]:
        """The turns, without assistant messages that said and called nothing
        (thinking only)."""
        return [t for t in self.turns if t.role == "user" or t.text or t.calls]


def _rejected_text(tools: list[str]) -> str:
    if len(tools) == 1:
        return f"[rejected the {tools[0]} call]"
    return f"[rejected {len(tools)} calls: {', '.join(tools)}]"


def split_by_model(turns: list[Turn]) -> list[tuple[str | None, list[Turn]]]:
    """Consecutive parts of one model each: a part begins at an assistant turn of
    another model. User turns stay with the part before them: what the person says
    reacts to the work before it (a correction, praise), whichever model answers next.
    An assistant turn naming no model continues the part it follows."""
    parts: list[tuple[str | None, list[Turn]]] = []
    for turn in turns:
        if turn.role == "assistant" and parts and turn.model not in (None, parts[-1][0]):
            if parts[-1][0] is None:  # only user turns so far: the model answering them
                parts[-1] = (turn.model, parts[-1][1])
            else:
                parts.append((turn.model, []))
        elif not parts:
            parts.append((turn.model if turn.role == "assistant" else None, []))
        parts[-1][1].append(turn)
    return parts


def part_id(session_id: str, index: int) -> str:
    """`<session>` for the first part, `<session>~2`, `~3`, … for the next ones. Never
    cut to the column's length: two long ids sharing their start would pass for one
    session (the bundle's rules refuse one too long, naming it)."""
    return session_id if index == 1 else f"{session_id}~{index}"


def toolset(turns: list[Turn], shell_tools: frozenset[str]) -> list[dict[str, Any]]:
    """The tools the session called, sorted, shell tools declared `"kind": "shell"`.

    A transcript does not list the tools offered, so the ones called stand in for them,
    except tools the harness answered do not exist: those stay out, so that the calls
    count as invented.
    """
    called: dict[str, bool] = {}
    for turn in turns:
        for call in turn.calls:
            called[call.tool] = called.get(call.tool, False) or not call.unknown_tool
    return [
        {"name": name, "kind": "shell"} if name in shell_tools else {"name": name}
        for name in sorted(called)
        if called[name]
    ]


def exit_code(value: int) -> int | None:
    """`value` if a process could exit with it (it fits the column), else None."""
    return value if INT32_MIN <= value <= INT32_MAX else None


def session_line(
    session_id: str,
    model: str,
    turns: list[Turn],
    *,
    redactor: Redactor,
    shell_tools: frozenset[str],
    scenario: str | None,
    confirmation: str | None,
    user: str | None,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """One line of sessions.jsonl, every text and argument redacted."""
    return {
        "session_id": session_id,
        "model": model,
        "scenario": scenario,
        "user": user,
        "confirmation": confirmation,
        "toolset": toolset(turns, shell_tools),
        "turns": [_turn_line(turn, redactor) for turn in turns],
        **redactor.value(extra),
    }


def _turn_line(turn: Turn, redactor: Redactor) -> dict[str, Any]:
    text = None if turn.text is None else redactor.text(turn.text)
    line: dict[str, Any] = {"role": turn.role, "text": text}
    if turn.role == "user":
        if turn.label is not None:  # absent: the extractor labels the turn
            line["labels"] = [turn.label]
        return line
    line["tool_calls"] = [
        {"tool": c.tool, "arguments": redactor.value(c.arguments), "exit_code": c.exit_code}
        for c in turn.calls
    ]
    return line
