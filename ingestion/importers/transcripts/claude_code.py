"""Claude Code transcripts: `~/.claude/projects/<project>/<sessionId>.jsonl`, one JSON
event per line, converted into a sessions-only bundle for the signal boards.

A file, or a folder of them (any depth), is read line by line. Lines are grouped by
`sessionId` (a session may span files, and a resumed one repeats earlier lines: a
`uuid` seen before is skipped), ordered by time (then file and line), and assembled by
transcripts.common.TurnBuilder. Sub-agent lines (`isSidechain`) are left out: their
"user" is the main agent, not the person, and the main agent's call and its result
already stand for the sub-agent's work.

Identity: every session line carries `source_id` = `claude-code:` + its session_id
(Claude Code's `sessionId`, `~2`, `~3`, … for the parts of later models), Claude
Code's own name for the conversation. Uploading the same ~/.claude/projects folder
again stores only what is new: a session whose source_id is stored gets the turns it
gained since (a resumed conversation) appended, the others are skipped and counted in
the submission's report (ingestion/services/session_growth.py).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from ingestion.bundles import ErrorCollector, rejected
from ingestion.bundles.depth import too_deep, too_deep_message
from ingestion.bundles.lines import iter_lines
from ingestion.importers.checks import ConvertedRecords
from ingestion.importers.common import (
    Conversion,
    NativeParams,
    Output,
    RunSpool,
    capped_warnings,
    kind,
    sessions_manifest,
    write_sessions_bundle,
)
from ingestion.importers.native_json import (
    SURROGATE_MESSAGE,
    NotJson,
    finite_float,
    reject_constant,
    unpaired_surrogate,
)
from ingestion.importers.transcripts.claude_code_lines import Record, read_record
from ingestion.importers.transcripts.common import (
    Redactor,
    Turn,
    TurnBuilder,
    home_owner,
    opaque_user,
    part_id,
    session_line,
    split_by_model,
)

NAME = "claude-code"
SOURCE_PREFIX = "claude-code:"
SHELL_TOOLS = frozenset({"Bash"})
_READ_BYTES = 1024 * 1024
_DETECT_FILES = 20  # .jsonl files of a folder looked at by looks_like
_DETECT_LINES = 20
# Line types of Claude Code transcripts that carry a sessionId.
_EVENT_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "attachment", "queue-operation", "progress"}
)
# For a first line longer than the detection head: its opening bytes.
_HEAD_EVENT = re.compile(rb'"sessionId"\s*:\s*"[^"]+"')
_HEAD_TYPE = re.compile(rb'"type"\s*:\s*"(user|assistant|system|summary|queue-operation)"')
_NO_MODEL = "sessions naming no model (give the model)"
# The transcript field each converted session field comes from (checks.ConvertedRecords),
# named at the line the session (or its part) begins.
NATIVE_FIELDS = {
    "session_id": "sessionId", "source_id": "sessionId", "model": "message.model",
    "agent.version": "version",
}  # fmt: skip


def looks_like(path: Path, head: bytes) -> bool:
    """A .jsonl file, or a folder holding some, whose first lines are Claude Code events:
    JSON objects with a `type`, one of them with a `sessionId`."""
    if path.is_dir():
        files = islice((file for _, file in _jsonl_files(path)), _DETECT_FILES)
        return any(_head_looks_like(_head(file)) for file in files)
    return _head_looks_like(head)


def convert(
    path: Path, *, params: NativeParams, out: Output, max_document_bytes: int
) -> Conversion:
    """formats.convert_native's entry point: every session of the transcripts at `path`
    as a sessions-only bundle at `out`. Raises BundleRejected naming each malformed
    line (file and line)."""
    files = transcript_files(path)
    if not files:
        raise rejected(path.name, "holds no Claude Code transcripts (.jsonl files)")
    reading = _Reading(max_document_bytes)
    for index, (label, file) in enumerate(files):
        reading.read(index, label, file)
    reading.errors.raise_if_any()
    return _write(reading, params, out, path.name)


def transcript_files(path: Path) -> list[tuple[str, Path]]:
    """(label, file) of each transcript: the file itself, or a folder's .jsonl files in
    path order, labelled by their path inside it."""
    if not path.is_dir():
        return [(path.name, path)]
    return sorted(_jsonl_files(path))


def _jsonl_files(path: Path) -> Iterator[tuple[str, Path]]:
    for folder, subfolders, names in os.walk(path):
        subfolders.sort()
        for name in sorted(names):
            if name.endswith(".jsonl"):
                file = Path(folder, name)
                yield file.relative_to(path).as_posix(), file


# ------------------------------------------------------------------ reading


@dataclass
class _Session:
    records: list[tuple[tuple[str, int, int], str, Record]] = field(default_factory=list)
    uuids: set[str] = field(default_factory=set)


class _Reading:
    """Every line of every file, reduced to Records and grouped by session."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.errors = ErrorCollector()
        self.warnings: list[str] = []
        self.sessions: dict[str, _Session] = {}
        self.owners: set[str] = set()

    def read(self, index: int, label: str, file: Path) -> None:
        unfinished = not _ends_with_newline(file)
        pending: tuple[int, str, str] | None = None  # an error, unless the line is the last
        last_time = ""
        with file.open("rb") as fh:
            chunks = iter(partial(fh.read, _READ_BYTES), b"")
            lines = iter_lines(
                chunks, file=label, max_line_bytes=self.max_line_bytes, errors=self.errors
            )
            for number, raw in lines:
                if pending:
                    self.errors.add(label, *pending)
                    pending = None
                if not raw.strip():
                    continue
                obj = _parse(raw)
                if isinstance(obj, NotJson):
                    pending = (number, "", str(obj))
                    continue
                record = self._record(obj, label, number)
                if record is None:
                    continue
                # A line without a time keeps its place after the one before it.
                last_time = record.timestamp or last_time
                self._add(record, (last_time, index, number), f"{label}:{number}")
        if pending and unfinished:  # cut off while being written: the rest still counts
            self.warnings.append(f"{label}:{pending[0]}: an unfinished last line was left out")
        elif pending:
            self.errors.add(label, *pending)

    def _record(self, obj: Any, label: str, number: int) -> Record | None:
        if not isinstance(obj, dict):
            self.errors.add(label, number, "", f"must be a JSON object, not {kind(obj)}")
            return None
        return read_record(obj, lambda f, m: self.errors.add(label, number, f, m))

    def _add(self, record: Record, key: tuple[str, int, int], source: str) -> None:
        session = self.sessions.setdefault(record.session_id, _Session())
        if record.uuid is not None:
            if record.uuid in session.uuids:
                return
            session.uuids.add(record.uuid)
        owner = home_owner(record.cwd)
        if owner:
            self.owners.add(owner)
        session.records.append((key, source, record))


def _parse(raw: bytes) -> Any:
    if too_deep(raw):
        return NotJson(too_deep_message())
    try:
        value = json.loads(
            raw.decode("utf-8"), parse_constant=reject_constant, parse_float=finite_float
        )
    except UnicodeDecodeError:
        return NotJson("is not UTF-8 text")
    except json.JSONDecodeError as exc:
        return NotJson(f"is not valid JSON ({exc.msg} at column {exc.colno})")
    except NotJson as exc:
        return NotJson(f"is not valid JSON: {exc}")
    return NotJson(SURROGATE_MESSAGE) if unpaired_surrogate(raw, value) else value


def _ends_with_newline(file: Path) -> bool:
    with file.open("rb") as fh:
        if fh.seek(0, os.SEEK_END) == 0:
            return True
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"


# ------------------------------------------------------------------ writing


def _write(reading: _Reading, params: NativeParams, out: Output, name: str) -> Conversion:
    redactor = Redactor(reading.owners)
    spool, sources, refused = RunSpool(), [], 0
    checks = ConvertedRecords(reading.errors, sessions=True)
    try:
        ordered = sorted(
            reading.sessions.items(), key=lambda s: (min(r[0] for r in s[1].records), s[0])
        )
        for session_id, session in ordered:
            for line, source in _session_lines(session_id, session, params, redactor):
                if line is None:
                    refused += 1
                    continue
                file, _, number = source.rpartition(":")
                data = checks.check(line, file=file, line=int(number), fields=NATIVE_FIELDS)
                if data is not None and not reading.errors:
                    spool.add_line(data)
                    sources.append(source)
        reading.errors.raise_if_any()
        if not spool.count:
            raise rejected(name, "holds no Claude Code conversation with a model")
    except BaseException:
        spool.close()
        raise
    note = f"Imported from Claude Code transcripts ({spool.count} sessions)."
    write_sessions_bundle(out, sessions_manifest(NAME, note), spool)
    report: dict[str, Any] = {}
    if refused:
        report["refused"] = {_NO_MODEL: refused}
    if reading.warnings:
        report["warnings"] = capped_warnings(reading.warnings)
    return Conversion(NAME, len(sources), tuple(sources), report)


def _session_lines(
    session_id: str, session: _Session, params: NativeParams, redactor: Redactor
) -> Iterator[tuple[dict[str, Any] | None, str]]:
    """Each model's part of the session as a sessions.jsonl line (None: no model known)."""
    records = sorted(session.records, key=lambda r: r[0])
    turns = _turns(records)
    if not turns:
        return
    first = records[0][2]
    cwd = next((r.cwd for _, _, r in records if r.cwd), None)
    extra = {"cwd": cwd, "claude_code_version": first.version, "started_at": first.timestamp}
    agent = _agent(params, first.version)
    for index, (model, part) in enumerate(split_by_model(turns), 1):
        model = model or params.model
        source = part[0].source or records[0][1]
        if not model:
            yield None, source
            continue
        part_session = part_id(session_id, index)
        line = session_line(
            part_session, model, part, redactor=redactor,
            shell_tools=SHELL_TOOLS, scenario=params.scenario,
            confirmation=params.confirmation, user=opaque_user(home_owner(cwd), NAME),
            extra=extra,
        )  # fmt: skip
        if agent is not None:
            line["agent"] = agent
        yield {**line, "source_id": SOURCE_PREFIX + part_session}, source


def _agent(params: NativeParams, version: str | None) -> dict[str, str] | None:
    """The session's agent: the harness the submitter registered Claude Code
    as (the `harness` parameter), at the version the transcript's own lines carry.
    Without either, none: the ingest checks the pair against the registry."""
    name = (params.harness or {}).get("name")
    return {"harness": name, "version": version} if name and version else None


def _turns(records: list[tuple[tuple[str, int, int], str, Record]]) -> list[Turn]:
    builder = TurnBuilder()
    for _, source, record in records:
        if record.interrupted:
            builder.interrupted()
        for words in record.words:
            builder.words(words, source)
        part = record.assistant
        if part is not None:
            builder.assistant(part.message_id, part.model, part.texts, part.calls, source)
        for result in record.results:
            builder.result(result, source)
    return builder.finished()


# ------------------------------------------------------------------ detection


def _head(file: Path) -> bytes:
    try:
        with file.open("rb") as fh:
            return fh.read(64 * 1024).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return b""


def _head_looks_like(head: bytes) -> bool:
    pieces = head.split(b"\n")
    found = False
    for index, raw in enumerate(pieces[:_DETECT_LINES]):
        if not raw.strip():
            continue
        if too_deep(raw):  # json.loads would recurse until RecursionError
            return False
        try:
            obj = json.loads(raw)
        except ValueError:
            # Only the last piece may be a line cut by the end of the head.
            if index < len(pieces) - 1:
                return False
            return found or (index == 0 and _long_first_line(raw))
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            return False
        if "session_id" in obj:  # an arena sessions.jsonl, or `claude -p` stream output
            return False
        found = found or (obj["type"] in _EVENT_TYPES and isinstance(obj.get("sessionId"), str))
    return found


def _long_first_line(raw: bytes) -> bool:
    return bool(_HEAD_EVENT.search(raw) and _HEAD_TYPE.search(raw[:4096]))
