"""Claude Code transcripts as Claude Code writes them (`~/.claude/projects/<project>/
<sessionId>.jsonl`), built line by line, and a reader of the converted bundles.

The envelope of each line (parentUuid, isSidechain, userType, cwd, sessionId, version,
gitBranch, type, uuid, timestamp), streamed assistant output (one line per content
block sharing `message.id`), tool results with `toolUseResult`, and Claude Code's own
user lines (meta, command echoes, compact summaries, interruption markers) follow the
shapes of real transcripts.
"""

from __future__ import annotations

import io
import json
import tarfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ingestion.bundles import BundleLimits, open_bundle
from ingestion.importers import NativeParams
from ingestion.importers.transcripts import claude_code

SESSION = "0ab3352c-0614-4d2c-942c-0051f270eaf3"
OPUS = "claude-opus-4-7"
SONNET = "claude-sonnet-4-5-20250929"
HOME_CWD = "/Users/jeyeng/Desktop/APP/forma-studio"
REJECT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). STOP what you are "
    "doing and wait for the user to tell you how to proceed."
)
REJECT_WITH_REASON = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
    "it was a file edit, the new_string was NOT written to the file). To tell you how to "
    "proceed, the user said:\n"
)
INTERRUPTED_TOOL = "[Request interrupted by user for tool use]"


class Transcript:
    """The lines of one session, each chained to the one before (`parentUuid`)."""

    def __init__(self, session: str = SESSION, *, cwd: str = HOME_CWD, model: str = OPUS) -> None:
        self.session, self.cwd, self.model = session, cwd, model
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.clock = datetime(2026, 5, 1, 2, 30, tzinfo=UTC)
        self.count = 0

    # ---- the envelope

    def line(self, type_: str, **fields: Any) -> dict[str, Any]:
        self.count += 1
        self.clock += timedelta(seconds=2)
        uuid = f"{self.session[:8]}-0000-4000-8000-{self.count:012d}"
        line = {
            "parentUuid": self.parent, "isSidechain": False, "userType": "external",
            "cwd": self.cwd, "sessionId": self.session, "version": "2.0.49",
            "gitBranch": "main", "type": type_, **fields, "uuid": uuid,
            "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        }  # fmt: skip
        self.parent = uuid
        self.lines.append(line)
        return line

    def user(self, content: Any, **fields: Any) -> dict[str, Any]:
        return self.line("user", message={"role": "user", "content": content}, **fields)

    # ---- the person, and Claude Code's own user lines

    def prompt(self, text: str, **fields: Any) -> dict[str, Any]:
        return self.user(text, **fields)

    def meta(self, text: str) -> dict[str, Any]:
        return self.user(text, isMeta=True)

    def command(self, name: str, args: str = "") -> dict[str, Any]:
        """A slash command's echo, as typed (`/model opus`)."""
        return self.user(
            f"<command-name>/{name}</command-name>\n            <command-message>{name}"
            f"</command-message>\n            <command-args>{args}</command-args>"
        )

    def local_output(self, text: str) -> dict[str, Any]:
        return self.user(f"<local-command-stdout>{text}</local-command-stdout>")

    def compact_summary(self, text: str = "The user asked to fix the tests.") -> dict[str, Any]:
        self.line(
            "system", subtype="compact_boundary", content="Conversation compacted",
            isMeta=False, level="info", compactMetadata={"trigger": "auto", "preTokens": 156910},
        )  # fmt: skip
        body = (
            "This session is being continued from a previous conversation that ran out of "
            f"context. The conversation is summarized below:\n{text}"
        )
        return self.user(body, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def interrupt(self, for_tool: bool = False) -> dict[str, Any]:
        marker = INTERRUPTED_TOOL if for_tool else "[Request interrupted by user]"
        return self.user([{"type": "text", "text": marker}])

    # ---- the assistant

    def say(self, *blocks: dict[str, Any], message_id: str | None = None, model: str | None = None):
        """One API message streamed as Claude Code writes it: one line per block."""
        message_id = message_id or f"msg_01{self.count:022d}"
        for block in blocks:
            self.line(
                "assistant",
                message={
                    "model": model or self.model, "id": message_id, "type": "message",
                    "role": "assistant", "content": [block],
                    "stop_reason": "tool_use" if block["type"] == "tool_use" else None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 4, "cache_read_input_tokens": 906609,
                              "output_tokens": 91, "service_tier": "standard"},
                },
                requestId=f"req_011C{message_id[-12:]}",
            )  # fmt: skip
        return message_id

    # ---- tool results

    def result(
        self, call: dict[str, Any], content: Any, *, is_error: bool | None = None, **fields: Any
    ) -> dict[str, Any]:
        block: dict[str, Any] = {
            "tool_use_id": call["id"],
            "type": "tool_result",
            "content": content,
        }
        if is_error is not None:
            block["is_error"] = is_error
        return self.user([block], **fields)

    def bash_ok(self, call: dict[str, Any], stdout: str = "ok") -> dict[str, Any]:
        return self.result(
            call, stdout, is_error=False,
            toolUseResult={"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
        )  # fmt: skip

    def bash_failed(self, call: dict[str, Any], code: int, output: str) -> dict[str, Any]:
        text = f"Exit code {code}\n{output}"
        return self.result(call, text, is_error=True, toolUseResult=f"Error: {text}")

    # ---- files

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)

    def write(self, folder: Path, name: str | None = None) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (name or f"{self.session}.jsonl")
        path.write_text(self.text(), encoding="utf-8")
        return path


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "EoUCClkIDRgCKkCy"}


_CALLS = iter(range(1, 10**6))


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": f"toolu_01{next(_CALLS):022d}",
        "name": name,
        "input": arguments,
    }


def bash(command: str, description: str = "Run it") -> dict[str, Any]:
    return tool("Bash", command=command, description=description)


def summary_line(text: str = "Fixing the flaky login test") -> dict[str, Any]:
    return {"type": "summary", "summary": text, "leafUuid": "57d54247-2e2b-4658-beaf-4e8f704569a7"}


# ------------------------------------------------------------------ converting


def convert(path: Path, out: Path | None = None, **params: Any):
    """(conversion, manifest, sessions as dicts) of the transcripts at `path`; the
    bundle is also read back through the bundle validator, which must accept it."""
    out = out or path.parent / "converted.tar.gz"
    cap = params.pop("max_document_bytes", BundleLimits.max_line_bytes)
    conversion = claude_code.convert(
        path, params=NativeParams(**params), out=out, max_document_bytes=cap
    )
    with open_bundle(out, limits=BundleLimits(), name="converted.tar.gz") as bundle:
        list(bundle.iter_sessions())
        bundle.raise_if_errors()
    manifest, sessions = read_members(out.read_bytes())
    return conversion, manifest, sessions


def read_members(archive: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert sorted(tar.getnames()) == ["manifest.json", "sessions.jsonl"]
        manifest = json.load(tar.extractfile("manifest.json"))
        lines = tar.extractfile("sessions.jsonl").read().decode().splitlines()
    return manifest, [json.loads(line) for line in lines]


def turns(session: dict[str, Any]) -> list[tuple]:
    """(role, text, label or "-") of each turn: "-" when the extractor labels it."""
    return [
        (t["role"], t["text"], t["labels"][0] if "labels" in t else "-") for t in session["turns"]
    ]


def calls(session: dict[str, Any]) -> list[tuple]:
    return [
        (c["tool"], c["exit_code"])
        for t in session["turns"]
        if t["role"] == "assistant"
        for c in t["tool_calls"]
    ]
