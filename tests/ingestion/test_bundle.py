"""Reading bundles (ingestion/bundle.py): containers, limits and hostile archives.

Pure: no Django, no database. Hostile archives are built here, in memory.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import random
import re
import stat
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import msgspec
import pytest

import ingestion.bundle as bundle_module
from ingestion.bundle import (
    CHUNK,
    Bundle,
    BundleLimits,
    BundleRejected,
    ErrorCollector,
    iter_lines,
    open_bundle,
    sha256_of,
)

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
BUNDLES_DIR = DATA_DIR / "bundles"
INVALID_DIR = DATA_DIR / "invalid"
REGISTRY = Path(__file__).resolve().parents[2] / "ingestion" / "fixtures" / "registry.json"
LIMITS = BundleLimits()


def _registry() -> dict[tuple[str, str, str], int]:
    data = json.loads(REGISTRY.read_text())
    keys = [(s["slug"], s["version"], t["task_id"]) for s in data["suites"] for t in s["tasks"]]
    return {key: pk for pk, key in enumerate(keys, 1)}


TASKS = _registry()


def lookup(suite: str, version: str, task_id: str) -> int | None:
    return TASKS.get((suite, version, task_id))


# ------------------------------------------------------------------------ builders

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


def write_dir(root: Path, files: dict[str, bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return root


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


def read_everything(source: Any, limits: BundleLimits = LIMITS, name: str = "upload"):
    """Open, iterate runs and sessions, raise if anything was wrong."""
    with open_bundle(source, limits=limits, name=name) as bundle:
        runs = list(bundle.iter_runs(lookup))
        sessions = list(bundle.iter_sessions())
        bundle.raise_if_errors()
    return runs, sessions


def rejection(source: Any, limits: BundleLimits = LIMITS, name: str = "upload") -> BundleRejected:
    with pytest.raises(BundleRejected) as caught:
        read_everything(source, limits, name)
    return caught.value


def example_files(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def fingerprints(source: Any) -> tuple[list[tuple], list[tuple]]:
    """Everything each record carries, trajectory files loaded, to compare containers."""
    with open_bundle(source, limits=LIMITS) as bundle:
        runs = []
        for run in bundle.iter_runs(lookup):
            data = msgspec.to_builtins(run)
            if isinstance(run.trajectory, str):
                data["trajectory"] = bundle.read_trajectory(run.trajectory)
            runs.append((data, run.line, run.extra, run.task_pk))
        sessions = [(msgspec.to_builtins(s), s.line, s.extra) for s in bundle.iter_sessions()]
        bundle.raise_if_errors()
    return runs, sessions


@pytest.fixture
def inflated(monkeypatch):
    """Counts the bytes inflated out of any tar.gz."""
    counter = {"bytes": 0}
    original = bundle_module._Inflater.read

    def counting(self, n):
        data = original(self, n)
        counter["bytes"] += len(data)
        return data

    monkeypatch.setattr(bundle_module._Inflater, "read", counting)
    return counter


@pytest.fixture
def no_content_reads(monkeypatch):
    """Fails the test if any member's content is read (tar.gz and zip)."""

    def forbidden(*args, **kwargs):
        raise AssertionError("member content was read")

    open_member = zipfile.ZipFile.open

    def open_for_writing_only(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            forbidden()
        return open_member(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(bundle_module, "_read_tar_data", forbidden)
    monkeypatch.setattr(zipfile.ZipFile, "open", open_for_writing_only)


# --------------------------------------------------------------- the valid examples


@pytest.mark.parametrize("path", sorted(BUNDLES_DIR.glob("runs-*.tar.gz")), ids=lambda p: p.name)
def test_it_reads_every_run_of_each_example_bundle(path):
    runs, sessions = read_everything(path, name=path.name)
    assert (len(runs), len(sessions)) == (300, 0)
    assert len({r.run_id for r in runs}) == 300
    assert all(r.task_pk == TASKS[(r.suite, r.suite_version, r.task_id)] for r in runs)
    assert [r.line for r in runs] == list(range(1, 301))


def test_it_reads_every_session_of_the_example_sessions_bundle():
    runs, sessions = read_everything(BUNDLES_DIR / "sessions.tar.gz")
    assert (len(runs), len(sessions)) == (0, 300)
    labels = {t.label for s in sessions for t in s.turns if t.role == "user" and t.label_present}
    assert labels == {None, "praise", "complaint", "correction"}


def test_it_reads_the_manifest_and_facts_of_an_example():
    path = BUNDLES_DIR / "runs-openharness.tar.gz"
    with open_bundle(path, limits=LIMITS, name=path.name) as bundle:
        assert bundle.manifest.harness.name == "OpenHarness"
        assert bundle.manifest.harness.contributors == ["mira.chen", "dev.one"]
        assert bundle.manifest.notes == "generated seed 11"
        assert (bundle.kind, bundle.has_runs, bundle.has_sessions) == ("tar.gz", True, False)
        assert bundle.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


# -------------------------------------------------------------- the invalid examples

# file → (field, words in the message, line or None)
INVALID_EXPECTED: dict[str, tuple[str, str, int | None]] = {
    "absolute-path.tar.gz": ("", "member '/tmp/evil.txt' has an absolute path", None),
    "bad-format.tar.gz": ("format", 'must be "arena-bundle/1", got "arena-bundle/9"', None),
    "bad-outcome.tar.gz": ("outcome", 'must be one of pass, fail, infra_error, got "passed"', 1),
    "bomb.tar.gz": ("", "compression ratio 1,028:1 exceeds the limit of 100:1", None),
    "checkpoints-over.tar.gz": ("checkpoints.passed", "must be ≤ checkpoints.total (6 > 5)", 1),
    "duplicate-run-id.tar.gz": ("run_id", "duplicate run_id 'r1'", 2),
    "infra-without-kind.tar.gz": ("infra_error", "is required when outcome is infra_error", 1),
    "kind-without-infra.tar.gz": ("infra_error", "must be null when outcome is pass", 1),
    "long-run-id.tar.gz": ("run_id", "must be at most 200 characters (got 300)", 1),
    "nan-cost.tar.gz": ("cost_usd", "must be a finite number", 1),
    "negative-cost.tar.gz": ("cost_usd", "must be a number ≥ 0, got -1", 1),
    "no-harness.tar.gz": ("harness", "is required when the bundle has runs", None),
    "no-manifest.zip": ("", "no manifest.json at the archive root", None),
    "not-an-archive.tar.gz": ("", "not a valid archive", None),
    "not-json-line.tar.gz": ("", "is not valid JSON", 2),
    "not-utf8.tar.gz": ("", "is not valid UTF-8", 1),
    "path-traversal.tar.gz": ("", "member '../../evil.txt' has '..' in its path", None),
    "string-number.tar.gz": ("tokens.input", 'must be an integer, not a string ("10")', 1),
    "symlink.tar.gz": ("", "member 'trajectories/link.json' is a symbolic link", None),
    "time-reversed.tar.gz": ("finished_at", "is before started_at", 1),
    "unknown-task.tar.gz": (
        "task_id",
        "task terminal-bench 4.0.0/not-a-task is not in the registry or not approved",
        1,
    ),
}


def test_it_has_an_expectation_for_every_invalid_example_listed_in_the_readme():
    listed = set(re.findall(r"^\| `([^`]+)`", (INVALID_DIR / "README.md").read_text(), re.M))
    on_disk = {p.name for p in INVALID_DIR.iterdir() if p.name != "README.md"}
    assert listed == on_disk == set(INVALID_EXPECTED)


@pytest.mark.parametrize("name", sorted(INVALID_EXPECTED))
def test_it_rejects_each_invalid_example_naming_its_problem(name):
    field, words, line = INVALID_EXPECTED[name]
    error = rejection(INVALID_DIR / name, name=name)
    assert error.total == 1, error
    (problem,) = error.errors
    assert problem.field == field
    assert words in problem.message
    assert problem.line == line
    expected_file = {None: name, 1: "runs.jsonl", 2: "runs.jsonl"}[line]
    if field in ("format", "harness"):
        expected_file = "manifest.json"
    assert problem.file == expected_file


def test_it_refuses_the_example_bomb_from_its_header(inflated, no_content_reads):
    rejection(INVALID_DIR / "bomb.tar.gz")
    # manifest.json and two headers: nothing of the 300 MB member
    assert inflated["bytes"] < 64 * 1024


# ------------------------------------------------------------- the same bundle, four ways


def trajectory_bundle_files() -> dict[str, bytes]:
    turns = [
        {"role": "user", "text": "go", "label": "praise"},
        {"role": "assistant", "text": "done", "x": 1},
    ]
    runs = [
        a_run(1, trajectory="trajectories/r-1.json"),
        a_run(2, trajectory=turns, harness_url="https://h"),
        a_run(3, outcome="infra_error", infra_error="timeout", started_at="2026-11-01T10:00:00Z"),
    ]
    sessions = [
        {"session_id": "s1", "model": "m", "turns": turns, "toolset": ["bash"]},
        {"session_id": "s2", "model": "m", "scenario": None, "turns": [], "origin": "cli"},
    ]
    return bundle_files(runs, sessions) | {"trajectories/r-1.json": json.dumps(turns).encode()}


@pytest.mark.parametrize(
    "make_files",
    [
        pytest.param(
            lambda: example_files(BUNDLES_DIR / "runs-openharness.tar.gz"), id="runs-example"
        ),
        pytest.param(lambda: example_files(BUNDLES_DIR / "sessions.tar.gz"), id="sessions-example"),
        pytest.param(trajectory_bundle_files, id="runs-sessions-trajectories"),
    ],
)
def test_it_yields_identical_records_from_tar_gz_zip_directory_and_json(make_files, tmp_path):
    files = make_files()
    expected = fingerprints(tar_gz(files))
    assert len(expected[0]) + len(expected[1]) in (3 + 2, 300)
    assert fingerprints(zip_bytes(files)) == expected
    assert fingerprints(write_dir(tmp_path / "bundle", files)) == expected
    assert fingerprints(json_document(files)) == expected


def test_it_reports_json_document_errors_by_array_and_item_number():
    runs = [a_run(1), a_run(2, cost_usd=-1), a_run(3)]
    doc = json.dumps({"manifest": MANIFEST, "runs": runs}).encode()
    error = rejection(doc)
    assert [(e.file, e.line, e.field) for e in error.errors] == [("runs", 2, "cost_usd")]


def test_it_names_the_nan_field_of_a_json_document():
    doc = json.dumps(
        {"manifest": MANIFEST, "runs": [a_run(1), a_run(2, cost_usd=float("nan"))]}
    ).encode()
    assert b"NaN" in doc
    error = rejection(doc)
    assert [(e.file, e.line, e.field, e.message) for e in error.errors] == [
        ("runs", 2, "cost_usd", "must be a finite number")
    ]


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        (b'{"runs": []}', "manifest: is required"),
        (b'{"manifest": {"format": "arena-bundle/1"}, "runs": {}}', "runs: must be an array"),
        (b'{"manifest": {"format": "arena-bundle/1"}}', "neither runs nor sessions"),
        (b'{"manifest": {}, "runs": [] } trailing', "not valid JSON"),
        (b'  {"manifest": ', "not valid JSON"),
    ],
)
def test_it_rejects_a_malformed_json_document(doc, words):
    assert words in str(rejection(doc).errors[0])


# ----------------------------------------------------------- errors while streaming


def test_it_yields_valid_runs_and_collects_the_errors_of_the_others():
    lines = (
        jsonl(a_run(1), a_run(2, cost_usd=-1), a_run(3)) + b"{oops\n" + jsonl(a_run(4, trial="4"))
    )
    with open_bundle(
        tar_gz({"manifest.json": json.dumps(MANIFEST).encode(), "runs.jsonl": lines}), limits=LIMITS
    ) as bundle:
        assert [r.run_id for r in bundle.iter_runs(lookup)] == ["r-1", "r-3"]
        assert [str(e) for e in bundle.errors] == [
            "runs.jsonl:2: cost_usd: must be a number ≥ 0, got -1",
            "runs.jsonl:4: is not valid JSON (object keys must be strings (byte 1))",
            'runs.jsonl:5: trial: must be an integer, not a string ("4")',
        ]
        with pytest.raises(BundleRejected) as caught:
            bundle.raise_if_errors()
    assert caught.value.total == 3


def test_it_reports_the_first_200_errors_and_counts_them_all():
    runs = [a_run(i, cost_usd=-1) for i in range(1, 251)]
    error = rejection(tar_gz(bundle_files(runs)))
    assert (len(error.errors), error.total) == (200, 250)
    assert [e.line for e in error.errors] == list(range(1, 201))


def test_it_ignores_blank_lines_but_counts_them_in_line_numbers():
    lines = b"\n" + jsonl(a_run(1)) + b"  \n\r\n" + jsonl(a_run(2, cost_usd=-1))
    error = rejection(tar_gz({"manifest.json": json.dumps(MANIFEST).encode(), "runs.jsonl": lines}))
    assert [(e.line, e.field) for e in error.errors] == [(5, "cost_usd")]


def test_it_accepts_crlf_line_ends_a_bom_and_no_final_newline():
    lines = (
        b"\xef\xbb\xbf" + jsonl(a_run(1)).replace(b"\n", b"\r\n") + json.dumps(a_run(2)).encode()
    )
    runs, _ = read_everything(
        tar_gz({"manifest.json": json.dumps(MANIFEST).encode(), "runs.jsonl": lines})
    )
    assert [(r.run_id, r.line) for r in runs] == [("r-1", 1), ("r-2", 2)]


def test_it_rejects_a_line_over_the_limit_and_reads_on():
    long_line = a_run(2, notes="x" * 500)
    error = rejection(
        tar_gz(bundle_files([a_run(1), long_line, a_run(3, cost_usd=-1)])),
        BundleLimits(max_line_bytes=400),
    )
    assert [(e.line, e.message) for e in error.errors] == [
        (2, "line is longer than the limit of 400 bytes"),
        (3, "must be a number ≥ 0, got -1"),
    ]


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 1000])
def test_it_splits_lines_across_chunk_boundaries(chunk_size):
    data = b'{"a": 1}\n\n{"b": "\xc3\xa9t\xc3\xa9"}\r\n' + b"y" * 120 + b'\n{"c": 3}'
    chunks = [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
    errors = ErrorCollector()
    lines = list(iter_lines(chunks, file="f", max_line_bytes=100, errors=errors))
    assert lines == [
        (1, b'{"a": 1}'),
        (2, b""),
        (3, b'{"b": "\xc3\xa9t\xc3\xa9"}\r'),
        (5, b'{"c": 3}'),
    ]
    assert [(e.line, e.message) for e in errors] == [
        (4, "line is longer than the limit of 100 bytes")
    ]


# ------------------------------------------------------------------- trajectories


@pytest.mark.parametrize("kind", ["tar.gz", "zip", "directory"])
def test_it_reads_and_validates_trajectory_files(kind, tmp_path):
    good = [{"role": "user", "text": "go"}, {"role": "assistant", "text": "ok", "tool_calls": []}]
    files = bundle_files(
        [
            a_run(1, trajectory="trajectories/r-1.json"),
            a_run(2, trajectory="./trajectories/r-2.json"),
        ]
    ) | {
        "trajectories/r-1.json": json.dumps(good).encode(),
        "trajectories/r-2.json": json.dumps([{"role": "assistant", "label": "praise"}]).encode(),
        "trajectories/big.json": b"[" + b" " * 5000 + b"]",
    }
    source = {"tar.gz": tar_gz, "zip": zip_bytes, "directory": lambda f: write_dir(tmp_path, f)}[
        kind
    ](files)
    with open_bundle(source, limits=BundleLimits(max_line_bytes=4096), name="b") as bundle:
        runs = list(bundle.iter_runs(lookup))
        assert [r.trajectory for r in runs] == ["trajectories/r-1.json", "./trajectories/r-2.json"]
        assert bundle.read_trajectory(runs[0].trajectory) == good
        assert bundle.read_trajectory(runs[1].trajectory) is None
        assert bundle.read_trajectory("trajectories/absent.json") is None
        assert bundle.read_trajectory("runs.jsonl") is None  # not a trajectory path
        assert bundle.read_trajectory("trajectories/big.json") is None
        assert [path for path, _ in bundle.iter_trajectories()] == ["trajectories/r-1.json"]
        assert [str(e) for e in bundle.errors][:2] == [
            "trajectories/r-2.json: [0].label: only user turns carry a label (this is a assistant turn)",
            "trajectories/big.json: is 5,002 bytes, over the limit of 4 KiB for one JSON document",
        ]


def test_it_rejects_a_run_whose_trajectory_file_is_missing():
    error = rejection(tar_gz(bundle_files([a_run(1, trajectory="trajectories/r-1.json")])))
    assert [str(e) for e in error.errors] == [
        "runs.jsonl:1: trajectory: trajectories/r-1.json is not in the bundle"
    ]


# --------------------------------------------------------------------- containers


def test_it_accepts_dot_slash_names_directory_entries_and_long_pax_names():
    long_id = "r-" + "x" * 150
    folder = tarfile.TarInfo("./trajectories")
    folder.type = tarfile.DIRTYPE
    files: list[Entry] = [
        ("./manifest.json", json.dumps(MANIFEST).encode()),
        (
            "./runs.jsonl",
            jsonl(a_run(1, run_id=long_id, trajectory=f"trajectories/{long_id}.json")),
        ),
        folder,
        (f"./trajectories/{long_id}.json", b"[]"),
    ]
    with open_bundle(tar_gz(files), limits=LIMITS) as bundle:
        (run,) = bundle.iter_runs(lookup)
        assert bundle.read_trajectory(run.trajectory) == []
        bundle.raise_if_errors()


def test_it_reads_a_gzip_stream_made_of_several_members():
    whole = gzip.decompress(tar_gz(bundle_files([a_run(1), a_run(2)])))
    multi = gzip.compress(whole[:700]) + gzip.compress(whole[700:]) + b"\0" * 16
    runs, _ = read_everything(multi)
    assert [r.run_id for r in runs] == ["r-1", "r-2"]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\x00\x01 random bytes", "not a valid archive"),
        (b"", "not a valid archive"),
        (gzip.decompress(tar_gz(bundle_files([a_run()]))), "not a valid archive"),  # a plain .tar
        (gzip.compress(jsonl(a_run())), "not a valid archive"),  # gzip, but not a tar
        (
            tar_gz(bundle_files([a_run(i) for i in range(1, 99)]))[:400],
            "not a valid archive",
        ),  # truncated
        (b"PK\x03\x04 broken zip", "not a valid archive"),
        (
            tar_gz(bundle_files([a_run()])) + b"garbage",
            "unexpected data after the end of the gzip stream",
        ),
    ],
    ids=[
        "random",
        "empty",
        "plain-tar",
        "gzip-not-tar",
        "truncated",
        "broken-zip",
        "trailing-garbage",
    ],
)
def test_it_rejects_what_is_not_a_valid_archive(data, words):
    assert words in rejection(data).errors[0].message


def test_it_detects_a_corrupt_gzip_checksum():
    data = bytearray(tar_gz(bundle_files([a_run()])))
    data[-8] ^= 0xFF  # the CRC32 in the gzip trailer
    assert "not a valid archive" in rejection(bytes(data)).errors[0].message


def test_it_points_at_a_manifest_packed_inside_a_folder():
    files = {f"bundle/{name}": data for name, data in bundle_files([a_run()]).items()}
    message = rejection(tar_gz(files)).errors[0].message
    assert message == (
        "no manifest.json at the archive root (found bundle/manifest.json: pack the bundle's contents, not its folder)"
    )


def test_it_rejects_a_bundle_with_neither_runs_nor_sessions():
    error = rejection(tar_gz({"manifest.json": json.dumps(MANIFEST).encode()}))
    assert error.errors[0].message == "the bundle has neither runs.jsonl nor sessions.jsonl"


def test_it_rejects_a_member_that_appears_twice():
    files = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", jsonl(a_run())),
        ("./runs.jsonl", b""),
    ]
    assert (
        rejection(tar_gz(files)).errors[0].message == "member './runs.jsonl' appears more than once"
    )


def test_it_hashes_the_uploaded_bytes_whatever_the_source(tmp_path):
    data = tar_gz(bundle_files([a_run()]))
    path = tmp_path / "b.tar.gz"
    path.write_bytes(data)
    expected = hashlib.sha256(data).hexdigest()

    class Pipe(io.RawIOBase):  # a stream that cannot seek, like a socket
        def __init__(self):
            self._data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, buffer):
            chunk = self._data.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    for source in (data, path, str(path), io.BytesIO(data), Pipe()):
        with open_bundle(source, limits=LIMITS) as bundle:
            assert bundle.sha256 == expected
            assert [r.run_id for r in bundle.iter_runs(lookup)] == ["r-1"]
    assert sha256_of(data) == sha256_of(path) == expected


def test_it_reads_from_the_current_position_of_a_stream():
    data = tar_gz(bundle_files([a_run()]))
    stream = io.BytesIO(b"HEADER" + data)
    stream.seek(6)
    with open_bundle(stream, limits=LIMITS) as bundle:
        assert bundle.sha256 == hashlib.sha256(data).hexdigest()
        assert len(list(bundle.iter_runs(lookup))) == 1


def test_it_hashes_a_directory_stably_over_paths_and_bytes(tmp_path):
    files = bundle_files([a_run()])
    first = write_dir(tmp_path / "a", files)
    second = write_dir(tmp_path / "b", dict(reversed(list(files.items()))))
    with open_bundle(first, limits=LIMITS) as a, open_bundle(second, limits=LIMITS) as b:
        assert a.kind == "directory" and a.sha256 == b.sha256 == sha256_of(first)
    (second / "runs.jsonl").write_bytes(jsonl(a_run(2)))
    assert sha256_of(second) != sha256_of(first)
    (second / "runs.jsonl").rename(second / "other.jsonl")
    assert sha256_of(second) != sha256_of(first)


def test_it_rejects_a_symlink_or_fifo_in_a_directory_bundle(tmp_path):
    root = write_dir(tmp_path, bundle_files([a_run()]))
    (root / "trajectories").mkdir()
    (root / "trajectories" / "r.json").symlink_to("/etc/passwd")
    os.mkfifo(root / "pipe")
    messages = [e.message for e in rejection(root).errors]
    assert messages == [
        "member 'pipe' is a FIFO; only regular files and directories are allowed",
        "member 'trajectories/r.json' is a symbolic link; links are not allowed",
    ]


# ------------------------------------------------------------------ hostile archives


def test_it_refuses_an_upload_over_the_size_limit_before_reading_it():
    class Unreadable(io.RawIOBase):  # 1,000 bytes that must never be read
        position = 0

        def seekable(self):
            return True

        def seek(self, offset, whence=io.SEEK_SET):
            self.position = 1000 + offset if whence == io.SEEK_END else offset
            return self.position

        def tell(self):
            return self.position

        def readinto(self, buffer):
            raise AssertionError("read before the size check")

    error = rejection(Unreadable(), BundleLimits(max_upload_bytes=999), name="up.tar.gz")
    assert str(error.errors[0]) == "up.tar.gz: upload is 1,000 bytes, over the limit of 999 bytes"
    message = (
        rejection(BUNDLES_DIR / "sessions.tar.gz", BundleLimits(max_upload_bytes=1024))
        .errors[0]
        .message
    )
    assert "over the limit of 1 KiB" in message


def test_it_stops_copying_an_endless_stream_at_the_size_limit():
    class Endless(io.RawIOBase):
        served = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            Endless.served += len(buffer)
            buffer[:] = b"\0" * len(buffer)
            return len(buffer)

    error = rejection(Endless(), BundleLimits(max_upload_bytes=3 * CHUNK))
    assert "over the limit of 3 MiB" in error.errors[0].message
    assert Endless.served <= 4 * CHUNK + io.DEFAULT_BUFFER_SIZE


@pytest.mark.parametrize("container", [tar_gz, zip_bytes])
def test_it_refuses_more_members_than_the_limit_before_reading_content(container, no_content_reads):
    files = bundle_files([a_run()]) | {f"trajectories/t{i}.json": b"[]" for i in range(4)}
    error = rejection(container(files), BundleLimits(max_members=5))
    assert error.errors[0].message == "archive has more than 5 members, the limit"


def test_it_refuses_a_zip_whose_directory_declares_too_many_entries_before_parsing_it(monkeypatch):
    data = zip_bytes(bundle_files([a_run()]) | {f"t{i}": b"" for i in range(10)})

    def forbidden(*args, **kwargs):
        raise AssertionError("the central directory was parsed")

    monkeypatch.setattr(bundle_module.zipfile, "ZipFile", forbidden)
    assert "more than 5 members" in rejection(data, BundleLimits(max_members=5)).errors[0].message


@pytest.mark.parametrize("container", [tar_gz, zip_bytes])
def test_it_refuses_a_declared_total_over_the_uncompressed_limit(container, no_content_reads):
    files = bundle_files([a_run()]) | {"trajectories/a.json": b"[" + b" " * 3000 + b"]"}
    error = rejection(container(files), BundleLimits(max_uncompressed_bytes=3000))
    assert error.errors[0].message.startswith("uncompressed size exceeds the limit of 3,000 bytes")


def test_it_guards_the_bytes_actually_inflated_past_the_declared_sizes(inflated):
    # Zero padding after the tar's end is legal, and no header declares it: only the
    # count of inflated bytes can stop it (the ratio limit is lifted to show that).
    tar = gzip.decompress(tar_gz(bundle_files([a_run()])))
    data = gzip.compress(tar + bytes(8 * CHUNK))
    limits = BundleLimits(max_uncompressed_bytes=50_000, max_members=10, max_compression_ratio=1e9)
    error = rejection(data, limits)
    assert error.errors[0].message == "uncompressed size exceeds the limit of 50,000 bytes"
    assert inflated["bytes"] < 2 * CHUNK + len(tar) + 50_000


def test_it_rejects_data_after_the_end_of_the_tar(inflated):
    tar = gzip.decompress(tar_gz(bundle_files([a_run()])))
    data = gzip.compress(tar + os.urandom(3 * CHUNK), compresslevel=1)
    message = rejection(data).errors[0].message
    assert (
        message == "not a valid archive: damaged tar header, or data after the end of the archive"
    )
    assert inflated["bytes"] < len(tar) + 2 * CHUNK


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (special("trajectories/r.json", tarfile.LNKTYPE, "runs.jsonl"), "is a hard link"),
        (special("trajectories/r.json", tarfile.SYMTYPE, "/etc/passwd"), "is a symbolic link"),
        (special("dev/null", tarfile.CHRTYPE), "is a device file"),
        (special("dev/sda", tarfile.BLKTYPE), "is a device file"),
        (special("pipe", tarfile.FIFOTYPE), "is a FIFO"),
        (("../evil.json", b"x"), "has '..' in its path"),
        (("trajectories/../../evil.json", b"x"), "has '..' in its path"),
        (("/etc/cron.d/evil", b"x"), "has an absolute path"),
        (("C:/evil", b"x"), "has an absolute path"),
        (("a\\..\\evil", b"x"), "has '..' in its path"),
    ],
    ids=[
        "hard-link",
        "symlink",
        "char-device",
        "block-device",
        "fifo",
        "dotdot",
        "nested-dotdot",
        "absolute",
        "drive",
        "backslash",
    ],
)
def test_it_refuses_a_hostile_tar_member_before_reading_content(entry, words, no_content_reads):
    # The hostile member comes last, after a runs.jsonl that is not even JSON: the
    # rejection names the member, so no content was looked at.
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", b"{oops\n"),
        entry,
    ]
    error = rejection(tar_gz(files))
    assert error.total == 1
    assert words in error.errors[0].message


def test_it_lists_every_hostile_member_not_just_the_first():
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", jsonl(a_run())),
        ("../a", b""),
        special("b", tarfile.LNKTYPE, "runs.jsonl"),
        ("/c", b""),
    ]
    assert rejection(tar_gz(files)).total == 3


def zip_member(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode bits below mean something
    info.external_attr = mode << 16
    return info


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../evil.json", "has '..' in its path"),
        ("trajectories/../../evil.json", "has '..' in its path"),
        ("/etc/evil", "has an absolute path"),
        (zip_member("trajectories/link.json", stat.S_IFLNK | 0o777), "is a symbolic link"),
        (zip_member("fifo", stat.S_IFIFO | 0o644), "is a FIFO"),
        (zip_member("dev", stat.S_IFCHR | 0o644), "is a device file"),
    ],
    ids=["dotdot", "nested-dotdot", "absolute", "symlink", "fifo", "device"],
)
def test_it_refuses_a_hostile_zip_member_before_reading_content(name, words, no_content_reads):
    files = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", b"{oops\n"),
        (name, b"/etc/passwd"),
    ]
    error = rejection(zip_bytes(files))
    assert error.total == 1
    assert words in error.errors[0].message


def test_it_refuses_an_encrypted_zip_member(no_content_reads):
    data = bytearray(zip_bytes(bundle_files([a_run()])))
    # set the "encrypted" flag in the central directory entry of runs.jsonl
    entry = data.rfind(b"PK\x01\x02", 0, data.rfind(b"runs.jsonl"))
    data[entry + 8] |= 0x01
    assert "is encrypted" in rejection(bytes(data)).errors[0].message


def test_it_refuses_a_zip_bomb_by_its_compression_ratio(no_content_reads):
    data = zip_bytes(bundle_files([a_run()]) | {"trajectories/zeros.json": b"\0" * (8 * CHUNK)})
    assert len(data) < 20_000
    message = rejection(data, name="bomb.zip").errors[0].message
    assert re.fullmatch(
        r"member 'trajectories/zeros\.json': compression ratio [\d,]+:1 exceeds the limit of 100:1 .*",
        message,
    )


def test_it_refuses_a_tar_gz_member_too_large_for_the_archive_from_its_header(
    inflated, no_content_reads
):
    data = tar_gz(bundle_files([a_run()]) | {"trajectories/zeros.json": b"\0" * (12 * CHUNK)})
    message = rejection(data).errors[0].message
    assert "member 'trajectories/zeros.json': compression ratio" in message
    assert "exceeds the limit of 100:1" in message
    assert inflated["bytes"] < 64 * 1024  # stopped at the header, before its data


def test_it_refuses_a_tar_gz_member_whose_inflated_bytes_break_the_ratio(inflated):
    # Its header is plausible (a random member makes the archive big), so the ratio
    # can only be seen while inflating: it must stop soon after 1 MiB, not at 12.
    files = bundle_files([a_run()]) | {
        "trajectories/noise.json": os.urandom(CHUNK),
        "trajectories/zeros.json": b"\0" * (12 * CHUNK),
    }
    message = rejection(tar_gz(files), BundleLimits(max_compression_ratio=20)).errors[0].message
    assert message.startswith("member 'trajectories/zeros.json': compression ratio")
    assert message.endswith("exceeds the limit of 20:1")
    assert inflated["bytes"] < 4 * CHUNK


def test_it_refuses_an_oversized_tar_header():
    info = tarfile.TarInfo("trajectories/a.json")
    info.pax_headers = {"comment": "x" * (5 * CHUNK)}
    files: list[Entry] = [
        ("manifest.json", json.dumps(MANIFEST).encode()),
        ("runs.jsonl", jsonl(a_run())),
        info,
    ]
    assert rejection(tar_gz(files)).errors[0].message == "an archive header is larger than 4 MiB"


def test_it_judges_small_members_by_size_not_ratio():
    # 500 KB of spaces compresses far better than 100:1 but cannot hurt anyone.
    files = bundle_files([a_run(1, trajectory="trajectories/r-1.json")]) | {
        "trajectories/r-1.json": b"[" + b" " * 500_000 + b"]"
    }
    for data in (tar_gz(files), zip_bytes(files)):
        with open_bundle(data, limits=LIMITS) as bundle:
            (run,) = bundle.iter_runs(lookup)
            assert bundle.read_trajectory(run.trajectory) == []
            bundle.raise_if_errors()


def test_it_closes_what_it_opened(tmp_path):
    with open_bundle(tar_gz(trajectory_bundle_files()), limits=LIMITS) as bundle:
        assert isinstance(bundle, Bundle)
        assert bundle.read_trajectory("trajectories/r-1.json") is not None
        spool = bundle._container._spool
    assert spool._file.closed


def test_it_rejects_a_tar_whose_header_is_damaged_midway():
    tar = bytearray(
        gzip.decompress(tar_gz(bundle_files([a_run()]) | {"trajectories/x.json": b"[]"}))
    )
    header = tar.find(b"trajectories/x.json")
    tar[header + 148 : header + 156] = b"0000000\0"  # a wrong checksum
    message = rejection(gzip.compress(bytes(tar))).errors[0].message
    assert (
        message == "not a valid archive: damaged tar header, or data after the end of the archive"
    )


@pytest.mark.parametrize("read_size", [1, 3, 258, 4096, CHUNK])
def test_it_inflates_exactly_what_gzip_does_whatever_the_read_size(read_size):
    rng = random.Random(read_size)
    data = b"".join(
        rng.choice([b"a" * rng.randrange(1, 600), rng.randbytes(50)]) for _ in range(400)
    )
    packed = gzip.compress(data[:7000]) + gzip.compress(data[7000:]) + b"\0" * 3
    inflater = bundle_module._Inflater(io.BytesIO(packed))
    out = []
    while not inflater.finished:
        out.append(inflater.read(read_size))
    assert b"".join(out) == data
    assert (inflater.bytes_in, inflater.bytes_out) == (len(packed) - 3, len(data))
    with pytest.raises(EOFError):
        truncated = bundle_module._Inflater(io.BytesIO(gzip.compress(data)[:-20]))
        while not truncated.finished:
            truncated.read(read_size)
