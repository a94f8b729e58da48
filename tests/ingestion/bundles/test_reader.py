"""Reading bundles (ingestion/bundles/reader.py and its containers): the examples,
the same bundle in each container, errors while streaming, trajectory files.

Pure: no Django, no database.
"""

from __future__ import annotations

import gzip
import json
import re
import tarfile

import pytest

from ingestion.bundles import Bundle, BundleLimits, BundleRejected
from ingestion.bundles.container import Upload
from tests.conftest import BUNDLES_DIR, INVALID_DIR
from tests.ingestion.bundles.archives import (
    MANIFEST,
    TASKS,
    Entry,
    a_run,
    bundle_files,
    example_files,
    fingerprints,
    json_document,
    jsonl,
    lookup,
    opened,
    read_everything,
    rejection,
    tar_gz,
    zip_bytes,
)

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
    with opened(path, name=path.name) as bundle:
        assert bundle.manifest.harness.name == "OpenHarness"
        assert bundle.manifest.harness.contributors == ["mira.chen", "dev.one"]
        assert bundle.manifest.notes == "generated seed 11"
        assert (bundle.kind, bundle.has_runs, bundle.has_sessions) == ("tar.gz", True, False)


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


# ------------------------------------------------------------ the same bundle, three ways


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
def test_it_yields_identical_records_from_tar_gz_zip_and_json(make_files):
    files = make_files()
    expected = fingerprints(tar_gz(files))
    assert len(expected[0]) + len(expected[1]) in (3 + 2, 300)
    assert fingerprints(zip_bytes(files)) == expected
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


@pytest.mark.parametrize("cost", [0.5, float("nan")], ids=["strict", "lenient"])
def test_it_names_a_nul_character_in_a_json_document_whichever_parser_reads_it(cost):
    runs = [a_run(1, cost_usd=cost), a_run(2, model="m\x00")]
    error = rejection(json.dumps({"manifest": MANIFEST, "runs": runs}).encode())
    assert ("runs", 2, "model", "must not contain a NUL character") in [
        (e.file, e.line, e.field, e.message) for e in error.errors
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
    with opened(
        tar_gz({"manifest.json": json.dumps(MANIFEST).encode(), "runs.jsonl": lines})
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


def test_it_reports_the_first_20_errors_then_one_per_cause_and_counts_them_all():
    runs = [a_run(i, cost_usd=-1) for i in range(1, 251)]
    error = rejection(tar_gz(bundle_files(runs)))
    assert (len(error.errors), error.total) == (21, 250)
    assert [e.line for e in error.errors[:20]] == list(range(1, 21))
    assert (error.errors[20].line, error.errors[20].count) == (None, 230)


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


# ------------------------------------------------------------------- trajectories


@pytest.mark.parametrize("container", [tar_gz, zip_bytes], ids=["tar.gz", "zip"])
def test_it_reads_and_validates_trajectory_files(container):
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
    with opened(container(files), BundleLimits(max_line_bytes=4096), name="b") as bundle:
        runs = list(bundle.iter_runs(lookup))
        assert [r.trajectory for r in runs] == ["trajectories/r-1.json", "./trajectories/r-2.json"]
        assert bundle.read_trajectory(runs[0].trajectory) == good
        assert bundle.read_trajectory(runs[1].trajectory) is None
        assert bundle.read_trajectory("trajectories/absent.json") is None
        assert bundle.read_trajectory("runs.jsonl") is None  # not a trajectory path
        assert bundle.read_trajectory("trajectories/big.json") is None
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
    with opened(tar_gz(files)) as bundle:
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


def test_it_closes_what_it_opened():
    with opened(tar_gz(trajectory_bundle_files())) as bundle:
        assert isinstance(bundle, Bundle)
        assert bundle.read_trajectory("trajectories/r-1.json") is not None
        spool = bundle._container._spool
    assert spool._file.closed


SESSIONS_ONLY = {"format": "arena-bundle/1"}


@pytest.mark.parametrize(
    ("container", "files", "file", "kind"),
    [
        (tar_gz, {"runs.jsonl": b""}, "runs.jsonl", "runs"),
        (zip_bytes, {"runs.jsonl": b"\n   \n\t\n"}, "runs.jsonl", "runs"),
        (tar_gz, {"sessions.jsonl": b"\n"}, "sessions.jsonl", "sessions"),
        (tar_gz, {"runs.jsonl": jsonl(a_run()), "sessions.jsonl": b""}, "sessions.jsonl", "sessions"),
    ],
    ids=["empty-runs", "blank-runs", "blank-sessions", "runs-and-empty-sessions"],
)  # fmt: skip
def test_it_refuses_a_results_file_that_holds_nothing(container, files, file, kind):
    manifest = MANIFEST if "runs.jsonl" in files else SESSIONS_ONLY
    error = rejection(container({"manifest.json": json.dumps(manifest).encode(), **files}))
    assert [str(e) for e in error.errors] == [
        f"{file}: holds no {kind}: it is empty or blank (leave it out if the bundle has none)"
    ]


def test_it_refuses_a_json_document_whose_arrays_hold_nothing():
    error = rejection(json.dumps({"manifest": MANIFEST, "runs": []}).encode())
    assert [(e.file, e.message) for e in error.errors] == [
        ("runs", "holds no runs: it is empty or blank (leave it out if the bundle has none)")
    ]


def test_it_refuses_a_json_document_over_the_document_cap_before_reading_it(monkeypatch):
    doc = json_document(bundle_files([a_run(i) for i in range(1, 300)]))
    limits = BundleLimits(max_line_bytes=len(doc) - 1)

    def unread(self):
        raise AssertionError("the document was read")

    monkeypatch.setattr(Upload, "read_all", unread)
    message = rejection(doc, limits).errors[0].message
    assert message == (
        f"a JSON bundle is {len(doc):,} bytes, over the limit of {len(doc) - 1:,} bytes for one"
        " JSON document; send a .tar.gz or .zip instead"
    )
    monkeypatch.undo()
    runs, _ = read_everything(doc, BundleLimits(max_line_bytes=len(doc)))
    assert len(runs) == 299
