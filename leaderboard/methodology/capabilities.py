"""Capability claims (methodology §3, tool hallucinations), on plain dicts. No Django.

The seed counts as a tool hallucination "a call that … references a capability the agent
doesn't actually have", for example "claiming a file-editing capability that isn't
there". An assistant turn claims a capability when its words say, in the first person,
that it has done what only that capability does ("I've edited config.yaml", "I ran the
tests", "I searched the web"); the claim is hallucinated when no tool of the session's
toolset provides that capability. CAPABILITIES is the whole rule: the claim phrases,
and the tools that provide each capability (by kind, or by a fragment of their name).
A turn counts once however many unsupported claims it makes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from leaderboard.methodology.shell import shell_tool_names

# "I", "I've", "I have", "we", "we've", "we have", then the past-tense verb.
_SUBJECT = r"\b(?:I|[Ww]e)(?:'ve|’ve| have)?\s+(?:just\s+|now\s+|also\s+)?"
# A file named or called a file: `config.yaml`, "the file", "the README".
_FILE = r"(?:\S+\.[A-Za-z0-9]{1,8}\b|files?\b|README\b|Makefile\b|Dockerfile\b)"


@dataclass(frozen=True)
class Capability:
    """One row of the rule: what a claim says, and which tools make it true."""

    name: str
    label: str
    claim: re.Pattern[str]
    examples: tuple[str, ...]  # claims the pattern catches (shown on /methodology/)
    tool_fragments: tuple[str, ...]  # a tool whose name holds one of these provides it
    shell_provides: bool  # a shell tool provides it too (`sed -i`, `curl`)

    def provided_by(self, tool: str, shell_tools: frozenset[str]) -> bool:
        lowered = tool.lower()
        return (self.shell_provides and tool in shell_tools) or any(
            fragment in lowered for fragment in self.tool_fragments
        )


CAPABILITIES: tuple[Capability, ...] = (
    Capability(
        name="file_editing",
        label="Editing files",
        claim=re.compile(
            _SUBJECT
            + r"(?:edited|modified|updated|changed|written|wrote|rewritten|rewrote|"
            + r"created|saved|patched|fixed)\s+(?:\S+\s+){0,3}?"
            + _FILE
        ),
        examples=("I've edited config.yaml", "I updated the file", "We created setup.py"),
        tool_fragments=("edit", "write", "patch", "replace", "create", "save"),
        shell_provides=True,
    ),
    Capability(
        name="command_execution",
        label="Running commands",
        claim=re.compile(
            _SUBJECT + r"(?:ran|run|executed|re-ran|rerun|re-run)\s+(?:\S+\s+){0,2}?"
            r"(?:tests?|test suite|commands?|scripts?|build|linter|`)"
        ),
        examples=("I ran the tests", "I've run the test suite", "I executed `make`"),
        tool_fragments=("bash", "shell", "terminal", "exec", "command", "run"),
        shell_provides=True,
    ),
    Capability(
        name="web_search",
        label="Searching the web",
        claim=re.compile(
            _SUBJECT
            + r"(?:googled\b|(?:searched|looked\s+(?:it\s+)?up|browsed)\s+"
            + r"(?:\S+\s+){0,3}?(?:web|online|internet|Google)\b)"
        ),
        examples=("I searched the web", "I looked it up online", "I googled the error"),
        tool_fragments=("search", "web", "browse", "fetch", "http", "url"),
        shell_provides=False,
    ),
)


def provided_capabilities(toolset: Sequence[Any]) -> frozenset[str]:
    """The names of the CAPABILITIES some tool of the toolset provides."""
    names = [
        entry if isinstance(entry, str) else entry.get("name")
        for entry in toolset
        if isinstance(entry, str | dict)
    ]
    tools = [name for name in names if isinstance(name, str)]
    shell_tools = shell_tool_names(toolset)
    return frozenset(
        capability.name
        for capability in CAPABILITIES
        if any(capability.provided_by(tool, shell_tools) for tool in tools)
    )


def claimed_capabilities(text: str | None) -> frozenset[str]:
    """The names of the CAPABILITIES the assistant's words claim to have used."""
    if not text:
        return frozenset()
    return frozenset(c.name for c in CAPABILITIES if c.claim.search(text))


def session_claims(session: Mapping[str, Any]) -> int:
    """Assistant turns claiming a capability no tool of the toolset provides (0 for a
    session without a toolset: there is nothing to hold the claim against)."""
    toolset = session.get("toolset")
    if toolset is None:
        return 0
    provided = provided_capabilities(toolset)
    return sum(
        1
        for turn in session.get("turns") or ()
        if turn.get("role") == "assistant" and claimed_capabilities(turn.get("text")) - provided
    )
