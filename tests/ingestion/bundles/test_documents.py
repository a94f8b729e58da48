"""Whole documents (ingestion/bundles/documents.py): trajectory files and manifest.json.

Pure: no Django, no database.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from ingestion.bundles import BundleRejected, ErrorCollector
from ingestion.bundles.documents import parse_manifest, validate_trajectory
from tests.ingestion.bundles.records import (
    DROP,
    assert_one_error,
    encode,
)

# ------------------------------------------------------------------- trajectories


def test_it_validates_a_trajectory_file():
    errors = ErrorCollector()
    turns = [{"role": "user", "text": "go", "extra": 1}, {"role": "assistant", "text": "done"}]
    assert validate_trajectory(encode(turns), "trajectories/a.json", errors) == turns
    assert validate_trajectory(encode({"role": "user"}), "trajectories/b.json", errors) is None
    assert validate_trajectory(encode([{"role": "robot"}]), "trajectories/c.json", errors) is None
    assert validate_trajectory(b"[{", "trajectories/d.json", errors) is None
    assert [(e.file, e.field) for e in errors] == [
        ("trajectories/b.json", ""), ("trajectories/c.json", "[0].role"), ("trajectories/d.json", ""),
    ]  # fmt: skip
    assert "must be a list of turns" in errors.errors[0].message


def test_it_names_a_nul_character_in_a_trajectory_file():
    errors = ErrorCollector()
    turns = [{"role": "user", "text": "go"}, {"role": "tool", "text": "a\x00b"}]
    assert validate_trajectory(encode(turns), "trajectories/a.json", errors) is None
    assert [str(e) for e in errors] == [
        "trajectories/a.json: [1].text: must not contain a NUL character"
    ]


# ------------------------------------------------------------------------ manifest

MANIFEST = {
    "format": "arena-bundle/1",
    "harness": {
        "name": "OpenHarness",
        "version": "0.9.2",
        "contributors": ["mira.chen", "dev.one"],
        "minimal_baseline": False,
        "url": "https://example.org/openharness",
    },
    "created_at": "2026-11-20T10:00:00Z",
    "notes": "free text",
}


def manifest_errors(manifest: dict[str, Any], has_runs: bool = True) -> list[tuple[str, str]]:
    with pytest.raises(BundleRejected) as caught:
        parse_manifest(encode(manifest), has_runs=has_runs)
    assert all(e.file == "manifest.json" for e in caught.value.errors)
    return [(e.field, e.message) for e in caught.value.errors]


def test_it_reads_the_example_manifest():
    manifest = parse_manifest(encode({**MANIFEST, "generator": "v2"}), has_runs=True)
    assert manifest.format == "arena-bundle/1"
    assert manifest.harness.name == "OpenHarness" and manifest.harness.version == "0.9.2"
    assert manifest.harness.contributors == ["mira.chen", "dev.one"]
    assert manifest.harness.minimal_baseline is False
    assert manifest.harness.url == "https://example.org/openharness"
    assert manifest.created_at == datetime(2026, 11, 20, 10, tzinfo=UTC)
    assert manifest.notes == "free text" and manifest.extra == {"generator": "v2"}


def test_it_defaults_minimal_baseline_to_false_and_contributors_to_empty():
    data = encode({"format": "arena-bundle/1", "harness": {"name": "H", "version": "1"}})
    first, second = (parse_manifest(data, has_runs=True) for _ in range(2))
    assert first.harness.minimal_baseline is False and first.harness.contributors == []
    assert first.harness.contributors is not second.harness.contributors  # no shared default


def test_it_accepts_a_sessions_only_manifest_without_harness():
    manifest = parse_manifest(
        encode(
            {"format": "arena-bundle/1", "source": {"name": "arena-sessions", "kind": "sessions"}}
        ),
        has_runs=False,
    )
    assert manifest.harness is None and manifest.source == {
        "name": "arena-sessions",
        "kind": "sessions",
    }


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"format": "arena-bundle/9"}, "format", ['"arena-bundle/1"', '"arena-bundle/9"']),
        ({"format": DROP}, "format", ["is required"]),
        ({"harness": DROP}, "harness", ["is required when the bundle has runs"]),
        ({"harness": {"version": "1"}}, "harness.name", ["is required"]),
        ({"harness": {"name": "", "version": "1"}}, "harness.name", ["must not be empty"]),
        ({"harness": {"name": "H" * 101, "version": "1"}}, "harness.name", ["at most 100 characters"]),
        ({"harness": {"name": "H", "version": "v" * 101}}, "harness.version", ["at most 100 characters"]),
        ({"harness": {"name": "H", "version": "1", "contributors": "mira"}}, "harness.contributors", ["an array"]),
        ({"harness": {"name": "H", "version": "1", "contributors": ["mira chen"]}}, "harness.contributors[0]", ["handle"]),
        ({"harness": {"name": "H", "version": "1", "contributors": ["h" * 101]}}, "harness.contributors[0]", ["at most 100 characters (got 101)"]),
        ({"harness": {"name": "H", "version": "1", "url": "u" * 501}}, "harness.url", ["at most 500 characters (got 501)"]),
        ({"harness": {"name": "H\x00", "version": "1"}}, "harness.name", ["must not contain a NUL character"]),
        ({"notes": "free\x00text"}, "notes", ["must not contain a NUL character"]),
        ({"source": {"name": "\x00"}}, "source.name", ["must not contain a NUL character"]),
        ({"generator": {"\x00": 1}}, "generator.\\u0000", ["NUL character in its name"]),
        ({"harness": {"name": "H", "version": "1", "minimal_baseline": "no"}}, "harness.minimal_baseline", ["true or false"]),
        ({"harness": "OpenHarness"}, "harness", ["must be an object"]),
        ({"created_at": "2026-11-20"}, "created_at", ["ISO 8601"]),
        ({"notes": 3}, "notes", ["a string or null"]),
        ({"harness": {"name": "H", "version": "1", "url": "javascript:alert(1)"}}, "harness.url", ["http:// or https://", "javascript"]),
        ({"harness": {"name": "H", "version": "1", "url": "https://a.org/x y"}}, "harness.url", ["http:// or https://"]),
        ({"harness": {"name": "H", "version": "1", "url": "ftp://a.org"}}, "harness.url", ["http:// or https://"]),
        ({"harness": {"name": "H", "version": ".."}}, "harness.version", ["'..' part"]),
        ({"harness": {"name": "H", "version": "1/../../admin"}}, "harness.version", ["'..' part"]),
        ({"harness": {"name": "H", "version": "1.0\n"}}, "harness.version", ["may only contain"]),
        ({"harness": {"name": "H", "version": "1 0"}}, "harness.version", ["may only contain"]),
        ({"harness": {"name": "Harness\nTwo", "version": "1"}}, "harness.name", ["printable text"]),
        ({"harness": {"name": "   ", "version": "1"}}, "harness.name", ["not blank"]),
        ({"harness": {"name": " H", "version": "1"}}, "harness.name", ["spaces at either end"]),
        ({"harness": {"name": "..", "version": "1"}}, "harness.name", ["'..' part"]),
        ({"harness": {"name": "H", "version": "1", "contributors": [f"p{i}" for i in range(101)]}}, "harness.contributors", ["at most 100 items (got 101)"]),
        ({"harness": {"name": "H", "version": "1", "maintainers": [f"p{i}" for i in range(101)]}}, "harness.maintainers", ["at most 100 items (got 101)"]),
    ],
)  # fmt: skip
def test_it_rejects_each_bad_manifest_field(change, field, words):
    manifest = {**MANIFEST, **change}
    errors = manifest_errors({k: v for k, v in manifest.items() if v is not DROP})
    assert_one_error(errors, field, *words)


def test_it_rejects_a_manifest_that_is_not_an_object_or_not_json():
    assert manifest_errors([1]) == [("", "must be a JSON object, not an array")]  # type: ignore[arg-type]
    with pytest.raises(BundleRejected, match="is not valid JSON"):
        parse_manifest(b"{", has_runs=False)


def test_it_refuses_twenty_thousand_contributors_by_the_limit():
    harness = {"name": "H", "version": "1", "contributors": [f"p{i}" for i in range(20_000)]}
    errors = manifest_errors({**MANIFEST, "harness": harness})
    assert_one_error(errors, "harness.contributors", "at most 100 items (got 20000)")


@pytest.mark.parametrize(
    ("name", "version", "url"),
    [
        ("Team/Agent", "release/2.1", "https://example.org/team?x=1#y"),
        ("Trudy Harness", "1.2.0-rc1+build.5", "HTTP://example.org"),
        ("Ünïcode 名前", "v2@3f9c:linux~x86_64", ""),
        ("...", "...", None),
    ],
)
def test_it_accepts_names_versions_and_urls_of_real_harnesses(name, version, url):
    harness = {"name": name, "version": version, "url": url}
    manifest = parse_manifest(encode({**MANIFEST, "harness": harness}), has_runs=True)
    assert manifest.harness is not None
    assert (manifest.harness.name, manifest.harness.version, manifest.harness.url) == (
        name, version, url,
    )  # fmt: skip
