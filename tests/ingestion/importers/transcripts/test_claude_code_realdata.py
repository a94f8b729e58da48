"""The real Claude Code project folder (`../shared/realdata/claude-code-transcripts.tar.xz`):
its rejections and interruptions counted as the steering rules say, once by reading
the raw lines here and once by the importer and the signals, and the two compared.

The rules (docs/decisions.md, "Finer steering"): the calls of one assistant message the
person rejected are one act of steering; an interruption marker followed by the person's
words before the next assistant message is one; a marker written after a rejection of
the same message belongs to that rejection. The counting below reads the JSON lines
with its own code, sharing none with the importer.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ingestion.importers.transcripts.common import INTERRUPTION_TEXT
from leaderboard.methodology.sessions import corrected_turns, session_labels, summarize_session
from tests.ingestion.importers.realdata import extracted
from tests.ingestion.importers.transcripts.builders import convert

ARCHIVE = "claude-code-transcripts.tar.xz"
REJECTED = "The user doesn't want to proceed with this tool use."
MARKER = "[Request interrupted by user"


@dataclass
class Counted:
    rejected_calls: int = 0
    rejections: int = 0  # assistant messages with at least one rejected call
    interruptions: int = 0  # markers followed by the person's words
    markers: int = 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return extracted(ARCHIVE, ("transcripts",), tmp_path_factory.mktemp("cc")) / "transcripts"


@pytest.fixture(scope="module")
def converted(folder, tmp_path_factory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("converted") / "bundle.tar.gz"
    return convert(folder, out, model="claude-opus-4-5")[2]


def test_it_counts_each_rejection_and_each_redirecting_interruption_once(folder, converted):
    counted = count_raw(folder)
    # The folder holds what the rules are about: a rejection of parallel calls, and
    # markers both with and without words after them.
    assert counted.rejected_calls > counted.rejections > 0
    assert counted.markers > counted.interruptions > 0

    acts = [turn for s in converted for turn in s["turns"] if "labels" in turn]
    assert all(turn["labels"] == ["correction"] for turn in acts)
    interruptions = [turn for turn in acts if turn["text"] == INTERRUPTION_TEXT]
    assert len(interruptions) == counted.interruptions
    assert len(acts) - len(interruptions) == counted.rejections


def test_the_signals_count_each_act_as_one_corrected_turn(folder, converted):
    counted = count_raw(folder)
    # Only the acts: every user turn the extractor would label is labelled "none".
    sessions = [_acts_only(s) for s in converted]
    corrected = sum(sum(corrected_turns(s["turns"], session_labels(s))) for s in sessions)
    assert corrected == counted.rejections + counted.interruptions
    summaries = [summarize_session(s) for s in sessions]
    judged = sum(len(s.recoveries) + s.corrections_open for s in summaries)
    assert judged == corrected


def _acts_only(session: dict[str, Any]) -> dict[str, Any]:
    turns = [
        turn if turn["role"] != "user" or "labels" in turn else {**turn, "labels": []}
        for turn in session["turns"]
    ]
    return {**session, "turns": turns}


# --- the raw lines, counted here ------------------------------------------------------------


def count_raw(folder: Path) -> Counted:
    counted = Counted()
    for lines in _conversations(folder).values():
        _count_conversation(sorted(lines, key=lambda o: o.get("timestamp") or ""), counted)
    return counted


def _conversations(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """The person's conversations: main-chain user and assistant lines by session, each
    line once (a resumed session repeats earlier ones)."""
    conversations: dict[str, list[dict[str, Any]]] = defaultdict(list)
    seen: set[str] = set()
    for path in sorted(folder.rglob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw) if raw.strip() else {}
            if line.get("type") not in ("user", "assistant") or line.get("isSidechain"):
                continue
            if line.get("uuid") in seen:
                continue
            seen.add(line.get("uuid"))
            conversations[line["sessionId"]].append(line)
    return conversations


def _count_conversation(lines: list[dict[str, Any]], counted: Counted) -> None:
    message_of_call: dict[str, str] = {}
    rejected_messages: set[str] = set()
    current: str | None = None  # the assistant message answered now
    waiting_for_words = False
    for line in lines:
        message = line.get("message") or {}
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if line["type"] == "assistant":
            if message.get("model") == "<synthetic>":
                continue
            if message.get("id") != current:
                current, waiting_for_words = message.get("id"), False
            for block in blocks:
                if block.get("type") == "tool_use":
                    message_of_call[block["id"]] = current
            continue
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in results:
            if _rejected(line, block):
                counted.rejected_calls += 1
                rejected_messages.add(message_of_call.get(block["tool_use_id"]))
        if results or line.get("isMeta") or line.get("isCompactSummary"):
            continue
        texts = [t.strip() for t in _texts(content)]
        if any(t.startswith(MARKER) for t in texts):
            counted.markers += 1
            waiting_for_words = current is not None and current not in rejected_messages
        if waiting_for_words and any(_said_by_the_person(t) for t in texts):
            counted.interruptions += 1
            waiting_for_words = False
    rejected_messages.discard(None)
    counted.rejections += len(rejected_messages)


def _rejected(line: dict[str, Any], block: dict[str, Any]) -> bool:
    body = block.get("content")
    text = body if isinstance(body, str) else "\n".join(_texts(body or []))
    return line.get("toolDenialKind") == "user-rejected" or (
        block.get("is_error") is True and text.startswith(REJECTED)
    )


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content or () if isinstance(b, dict) and b.get("type") == "text"]


def _said_by_the_person(text: str) -> bool:
    # Not a marker, nor one of Claude Code's own tagged lines (commands, their output,
    # notifications) or notes.
    return bool(text) and not text.startswith((MARKER, "<", "Caveat:"))
