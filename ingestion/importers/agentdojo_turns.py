"""An AgentDojo run's messages as arena turns.

System messages are dropped (the harness's, as for τ-bench); an
assistant's `tool_calls` become `{tool: function, arguments: args, exit_code}` with
exit code 1 when the tool message answering it (by `tool_call_id`) has an `error`,
else null; a tool message's text is its content, or its error when it has none.
`content` is a string or null (older AgentDojo) or a list of content blocks
`[{"type": "text", "content": …}]` (newer): both are read.
"""

from __future__ import annotations

import json
from typing import Any


def content_text(content: Any) -> str | None:
    """A message's content: a string, null, or a list of content blocks
    (`{"type": "text", "content": …}`; other blocks' text is skipped)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                text = block.get("content", block.get("text"))
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts) if parts else None
    return json.dumps(content, ensure_ascii=False)


def _call_id(value: Any) -> str | None:
    """A call id as text; anything but a string or an integer pairs no call."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return str(value)


def agentdojo_turns(messages: list[Any]) -> list[dict[str, Any]]:
    """AgentDojo messages as arena turns `{role, text, tool_calls}` (module docstring)."""
    failed = {
        _call_id(m.get("tool_call_id"))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool" and m.get("error") is not None
    } - {None}
    turns: list[dict[str, Any]] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role not in ("user", "assistant", "tool"):
            continue  # system prompts are the harness's
        text = content_text(message.get("content"))
        if role == "tool" and not text and message.get("error") is not None:
            text = str(message["error"])
        turn: dict[str, Any] = {"role": role, "text": text}
        if role == "assistant":
            calls = []
            for call in message.get("tool_calls") or ():
                if not isinstance(call, dict) or not isinstance(call.get("function"), str):
                    continue
                args = call.get("args")
                calls.append({
                    "tool": call["function"],
                    "arguments": args if isinstance(args, dict) else {},
                    "exit_code": 1 if _call_id(call.get("id")) in failed else None,
                })  # fmt: skip
            if calls:
                turn["tool_calls"] = calls
        elif role == "tool" and isinstance(message.get("tool_call"), dict):
            name = message["tool_call"].get("function")
            if isinstance(name, str) and name:
                turn["name"] = name
        turns.append(turn)
    return turns
