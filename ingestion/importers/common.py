"""What every importer shares: small checks of native values, and writing the
converted runs as a deterministic `arena-bundle/1` tar.gz.

The output is deterministic (sorted members, fixed mtimes, gzip mtime 0, no file name
in the gzip header), so the same native files always give the same bytes and
importing them again finds the existing submission.

Conversion.report stays bounded whatever the native files hold (their strings become
its keys, and it is stored as JSON and shown on a page). Every importer builds it with:

    ReportCounts(max_keys: int = REPORT_MAX_KEYS, key_chars: int = REPORT_KEY_CHARS)
        .add(key: str, n: int = 1) -> None   # key cut to key_chars ("…"); past max_keys
                                              # distinct keys, counted under OTHER_KEY
        .as_dict() -> dict[str, int]          # sorted by key, OTHER_KEY last
        bool(counts)                          # anything counted
    capped_warnings(warnings: Iterable[str], *, max_warnings: int = REPORT_MAX_WARNINGS,
                    chars: int = REPORT_WARNING_CHARS) -> list[str]
        # each warning cut to `chars` ("…"); past max_warnings, one "… and N more" line
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import re
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from ingestion.bundles import FORMAT
from ingestion.bundles.limits import RUN_ID_CHARS, RUN_ID_LENGTH

PASS_REWARD = 1 - 1e-9  # rewards are floats; 0.9999999999 is a pass
SPOOL_BYTES = 4 * 1024**2  # a converted runs.jsonl past this goes to a temporary file
_RUN_ID_UNSAFE = re.compile(rf"[^{RUN_ID_CHARS}]")

# Conversion.report bounds (see the module docstring).
REPORT_KEY_CHARS = 200
REPORT_MAX_KEYS = 50
REPORT_MAX_WARNINGS = 50
REPORT_WARNING_CHARS = 1000
OTHER_KEY = "(other)"

Output = Path | str | BinaryIO
Report = Callable[[str, str], None]  # (field, message)


@dataclass(frozen=True)
class NativeParams:
    """What native files do not say about themselves, given by the submitter.

    `harness` is {name, version, contributors}; `model` fills in only records whose
    files name no model; `scenario` and `confirmation` apply to imported sessions;
    `run_config` fills in the run configuration the files do not record (importers'
    run_config module); `attack` and `task_ids` choose AgentDojo's runs.
    """

    harness: dict[str, Any] = field(default_factory=dict)
    suite: str = ""
    suite_version: str = ""
    model: str | None = None
    scenario: str | None = None
    confirmation: str | None = None
    run_config: dict[str, Any] = field(default_factory=dict)
    # AgentDojo: which runs (the attack's folder name, `none` for the benign runs) and
    # the task ids of one benchmark version to keep (None: all).
    attack: str | None = None
    task_ids: tuple[str, ...] | None = None
    # Which of a file's several entries (agents) to convert: swebench, task-matrix.
    entry: str | None = None


@dataclass(frozen=True)
class Conversion:
    """What an importer wrote. `sources[n - 1]` is where line n of runs.jsonl (or
    sessions.jsonl) came from (a file, or `file:item`), to point rejection errors back
    at native files.

    `report` is what the importer noticed without rejecting, shown on the submission
    page: {"unknown_exceptions": {class: count}, "refused": {reason: count},
    "warnings": [text, …]} (keys present only when there is something to say).
    """

    format: str
    runs: int
    sources: tuple[str, ...]
    report: dict[str, Any] = field(default_factory=dict)

    def source_of(self, line: int | None) -> str | None:
        if line is None or not 1 <= line <= len(self.sources):
            return None
        return self.sources[line - 1]


def cut(text: str, chars: int) -> str:
    """`text` at most `chars` long, "…" marking a cut."""
    return text if len(text) <= chars else text[: max(chars - 1, 0)] + "…"


class ReportCounts:
    """{key: count} for Conversion.report, bounded: keys (native strings, of any
    length) are cut to `key_chars`, and once `max_keys` distinct keys are held, new
    ones are counted together under OTHER_KEY."""

    def __init__(self, max_keys: int = REPORT_MAX_KEYS, key_chars: int = REPORT_KEY_CHARS):
        self.max_keys, self.key_chars = max_keys, key_chars
        self.counts: dict[str, int] = {}
        self.other = 0

    def add(self, key: str, n: int = 1) -> None:
        key = cut(str(key), self.key_chars)
        if key in self.counts or len(self.counts) < self.max_keys:
            self.counts[key] = self.counts.get(key, 0) + n
        else:
            self.other += n

    def __bool__(self) -> bool:
        return bool(self.counts) or self.other > 0

    def as_dict(self) -> dict[str, int]:
        counts = dict(sorted(self.counts.items()))
        if self.other:
            counts[OTHER_KEY] = counts.get(OTHER_KEY, 0) + self.other
        return counts


def capped_warnings(
    warnings: Iterable[str],
    *,
    max_warnings: int = REPORT_MAX_WARNINGS,
    chars: int = REPORT_WARNING_CHARS,
) -> list[str]:
    """Conversion.report's warnings, bounded: each cut to `chars`, at most
    `max_warnings` of them, then one line saying how many more there were."""
    kept: list[str] = []
    more = 0
    for warning in warnings:
        if len(kept) < max_warnings:
            kept.append(cut(str(warning), chars))
        else:
            more += 1
    if more:
        kept.append(f"… and {more:,} more warning(s)")
    return kept


# ------------------------------------------------------------------ the bundle


class UniqueIds:
    """run_ids made of the allowed characters, at most RUN_ID_LENGTH long, unique."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def take(self, name: str) -> str:
        base = _RUN_ID_UNSAFE.sub("-", name)[:RUN_ID_LENGTH] or "run"
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            suffix = f"-{n}"
            candidate = base[: RUN_ID_LENGTH - len(suffix)] + suffix
        self.taken.add(candidate)
        return candidate


def check_parameters(harness: dict[str, Any], suite: str, suite_version: str) -> None:
    """What the native files never say must be given: ValueError otherwise."""
    if not isinstance(harness, dict) or not harness.get("name") or not harness.get("version"):
        raise ValueError("the harness name and version are required")
    if not suite or not suite_version:
        raise ValueError("the suite and its version are required")


def manifest(
    harness: dict[str, Any], native: str, notes: str, run_config: dict[str, Any] | None = None
) -> dict[str, Any]:
    converted = {
        "format": FORMAT,
        "harness": {"contributors": [], **harness},
        "notes": notes,
        "source": {"name": native, "kind": "runs"},
    }
    if run_config:  # left out when empty: the bundle of an upload stays what it was
        converted["run_config"] = run_config
    return converted


class RunSpool:
    """runs.jsonl (or sessions.jsonl) written one line at a time to a spooled temporary
    file, so that a conversion holds one run in memory, not all of them."""

    def __init__(self) -> None:
        # Closed by write_bundle (or by the caller on failure), not by a with block.
        self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115
        self.count = 0

    def add(self, run: dict[str, Any]) -> None:
        self.add_line(dumps(run).encode())

    def add_line(self, data: bytes) -> None:
        """A line already encoded (checks.ConvertedRecords.check returns it)."""
        self.file.write(data + b"\n")
        self.count += 1

    def close(self) -> None:
        self.file.close()


def write_bundle(
    out: Output,
    manifest: dict[str, Any],
    runs: Iterable[dict[str, Any]] | RunSpool,
    files: dict[str, bytes | Path],
) -> None:
    """The bundle as a tar.gz at `out` (a path, or a binary stream left open).

    Extra files are bytes or files on disk; runs are a RunSpool or spooled into one.
    """
    spool = runs if isinstance(runs, RunSpool) else RunSpool()
    try:
        if spool is not runs:
            for run in runs:
                spool.add(run)
        members = {"runs.jsonl": spool.file, **files}
        _write_archive(out, manifest, members)
    finally:
        spool.close()


def sessions_manifest(native: str, notes: str) -> dict[str, Any]:
    """The manifest of a sessions-only bundle: no harness, the native source named."""
    return {"format": FORMAT, "notes": notes, "source": {"name": native, "kind": "sessions"}}


def write_sessions_bundle(out: Output, manifest: dict[str, Any], sessions: RunSpool) -> None:
    """A sessions-only bundle at `out`: manifest.json and sessions.jsonl (the spooled
    lines; no runs.jsonl, which would ask for a harness). The spool is closed."""
    try:
        _write_archive(out, manifest, {"sessions.jsonl": sessions.file})
    finally:
        sessions.close()


def _write_archive(
    out: Output, manifest: dict[str, Any], members: dict[str, bytes | Path | BinaryIO]
) -> None:
    """The tar.gz of manifest.json and `members` at `out` (a path, or a stream left open)."""
    members = {"manifest.json": dumps(manifest).encode() + b"\n", **members}
    if isinstance(out, str | Path):
        with open(out, "wb") as target:
            _write_tar(target, members)
    else:
        _write_tar(out, members)


def _write_tar(target: BinaryIO, members: dict[str, bytes | Path | BinaryIO]) -> None:
    # filename="" keeps the output's name out of the gzip header: same input, same bytes.
    with (
        gzip.GzipFile(filename="", fileobj=target, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.mtime, info.mode = 0, 0o644
            info.uid, info.gid, info.uname, info.gname = 0, 0, "", ""
            with _member_stream(members[name]) as (stream, size):
                info.size = size
                archive.addfile(info, stream)


@contextlib.contextmanager
def _member_stream(data: bytes | Path | BinaryIO) -> Iterator[tuple[BinaryIO, int]]:
    if isinstance(data, bytes):
        yield io.BytesIO(data), len(data)
    elif isinstance(data, Path):
        with data.open("rb") as stream:
            yield stream, data.stat().st_size
    else:  # a spooled file of ours, written to its end
        size = data.seek(0, io.SEEK_END)
        data.seek(0)
        yield data, size


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# ------------------------------------------------------------------ native values


def get(obj: Any, path: tuple[str, ...]) -> Any:
    """obj[path[0]][path[1]]…, or None where an object or key is missing."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def number(obj: Any, path: tuple[str, ...], report: Report) -> float | None:
    """A number ≥ 0 at `path`, None if absent; reported if it is anything else."""
    value = get(obj, path)
    if value is None:
        return None
    if not is_number(value) or value < 0:
        report(".".join(path), f"must be a number ≥ 0, got {show(value)}")
        return None
    return value


def count(obj: Any, path: tuple[str, ...], report: Report) -> int | None:
    """A whole number ≥ 0 at `path`, None if absent; reported if it is anything else."""
    value = number(obj, path, report)
    if value is None:
        return None
    if value != int(value):
        report(".".join(path), f"must be a whole number, got {show(value)}")
        return None
    return int(value)


def timestamp(value: Any, field: str, report: Report) -> datetime | None:
    """An ISO 8601 date-time, None if absent; reported if it is anything else.

    Harbor (older versions) and τ²-bench write local times without an offset: reading
    both ends of a span the same way (as UTC) keeps its duration, which is what the
    boards use.
    """
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        parsed = None
    if parsed is None:
        report(field, f"must be an ISO 8601 date-time, got {show(value)}")
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    return "null" if value is None else kinds.get(type(value), "a number")


def show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "…"
