"""Builders of bundles as archive bytes (tar.gz, zip, JSON document), and helpers that
open them through the real reader. Hostile archives are built from these, in memory."""

from __future__ import annotations

import io
import json
import os
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ingestion.bundles import Bundle, BundleLimits, BundleRejected, open_bundle

REGISTRY = Path(__file__).resolve().parents[3] / "ingestion" / "fixtures" / "registry.json"
LIMITS = BundleLimits()


def _registry() -> dict[tuple[str, str, str], int]:
    data = json.loads(REGISTRY.read_text())
    keys = [(s["slug"], s["version"], t["task_id"]) for s in data["suites"] for t in s["tasks"]]
    return {key: pk for pk, key in enumerate(keys, 1)}


TASKS = _registry()


def lookup(suite: str, version: str, task_id: str) -> int | None:
    return TASKS.get((suite, version, task_id))


MANIFEST = {
    "format": "arena-bundle/1",
    "harness": {"name": "TestHarness", "version": "1.0.0", "contributors": ["mira.chen"]},
}


def a_run(i: int = 1, **fields: Any) -> dict[str, Any]:
    return {
        "run_id": f"r-{i}",
        "suite": "terminal-bench",
        "suite_version": "4.0.0",
        "task_id": "fix-git",
        "model": "frontier-large",
        "trial": i,
        "outcome": "pass",
        "cost_usd": 0.01,
        "tokens": {"input": 10, "output": 5},
        **fields,
    }


def jsonl(*objects: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objects)


def bundle_files(
    runs: list[dict] | None = None, sessions: list[dict] | None = None
) -> dict[str, bytes]:
    files = {"manifest.json": json.dumps(MANIFEST).encode()}
    if runs is not None:
        files["runs.jsonl"] = jsonl(*runs)
    if sessions is not None:
        files["sessions.jsonl"] = jsonl(*sessions)
    return files


Entry = tuple[str, bytes] | tarfile.TarInfo


def tar_gz(files: dict[str, bytes] | list[Entry]) -> bytes:
    """A .tar.gz; entries are (name, content) or bare TarInfo headers (links, devices)."""
    entries = list(files.items()) if isinstance(files, dict) else files
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tar.addfile(entry)
                continue
            name, content = entry
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def zip_bytes(files: dict[str, bytes] | list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    entries = list(files.items()) if isinstance(files, dict) else files
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries:
            archive.writestr(name, content)
    return buffer.getvalue()


def json_document(files: dict[str, bytes]) -> bytes:
    """The same bundle as one JSON document; trajectory files become inline lists."""
    doc: dict[str, Any] = {"manifest": json.loads(files["manifest.json"])}
    for kind in ("runs", "sessions"):
        if f"{kind}.jsonl" in files:
            doc[kind] = [
                json.loads(line) for line in files[f"{kind}.jsonl"].splitlines() if line.strip()
            ]
    for run in doc.get("runs", []):
        if isinstance(run.get("trajectory"), str):
            run["trajectory"] = json.loads(files[run["trajectory"]])
    return json.dumps(doc).encode()


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def example_files(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


@contextmanager
def opened(
    source: bytes | Path, limits: BundleLimits = LIMITS, name: str = "upload"
) -> Iterator[Bundle]:
    """open_bundle on a file: bytes are written to a temporary one first, as the
    ingest service stores every upload before reading it."""
    if isinstance(source, Path):
        with open_bundle(source, limits=limits, name=name) as bundle:
            yield bundle
        return
    fd, path = tempfile.mkstemp(suffix=".bundle")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(source)
        with open_bundle(Path(path), limits=limits, name=name) as bundle:
            yield bundle
    finally:
        os.unlink(path)


def read_everything(source: bytes | Path, limits: BundleLimits = LIMITS, name: str = "upload"):
    """Open, iterate runs and sessions, raise if anything was wrong."""
    with opened(source, limits, name) as bundle:
        runs = list(bundle.iter_runs(lookup))
        sessions = list(bundle.iter_sessions())
        bundle.raise_if_errors()
    return runs, sessions


def rejection(
    source: bytes | Path, limits: BundleLimits = LIMITS, name: str = "upload"
) -> BundleRejected:
    with pytest.raises(BundleRejected) as caught:
        read_everything(source, limits, name)
    return caught.value


def fingerprints(source: bytes) -> tuple[list[tuple], list[tuple]]:
    """Everything each record carries, trajectory files loaded, to compare containers."""
    with opened(source) as bundle:
        runs = []
        for run in bundle.iter_runs(lookup):
            data = msgspec.to_builtins(run)
            if isinstance(run.trajectory, str):
                data["trajectory"] = bundle.read_trajectory(run.trajectory)
            runs.append((data, run.line, run.extra, run.task_pk))
        sessions = [(msgspec.to_builtins(s), s.line, s.extra) for s in bundle.iter_sessions()]
        bundle.raise_if_errors()
    return runs, sessions
