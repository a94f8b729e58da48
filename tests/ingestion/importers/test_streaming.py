"""Native files are read within bounds: a τ-bench list one item at a time with a cap
on each item, a Harbor result.json only up to its cap (never whole)."""

from __future__ import annotations

import json

import pytest

from ingestion.bundles import BundleRejected
from tests.ingestion.importers.builders import (
    harbor,
    job_folder,
    read_back,
    tau,
    tau_result,
    trial_result,
    write_tau,
)


def test_it_refuses_a_tau_bench_item_over_the_cap_naming_it(tmp_path):
    big = tau_result("fix-git", 1, 1.0, padding="x" * 200_000)
    path = write_tau(tmp_path, [tau_result("fix-git", 0, 1.0), big])
    with pytest.raises(BundleRejected, match="item 2 is larger than the limit of 100,000 bytes"):
        tau(path, tmp_path / "out.tar.gz", max_item_bytes=100_000)


def test_whitespace_between_items_counts_against_the_cap(tmp_path):
    # The cap bounds what the parser reads for one item, whatever it is made of.
    path = tmp_path / "padded.json"
    path.write_text("[" + json.dumps(tau_result("fix-git", 0, 1.0)) + "," + " " * 500_000 + "]")
    with pytest.raises(BundleRejected, match="larger than the limit"):
        tau(path, tmp_path / "out.tar.gz", max_item_bytes=100_000)


def test_items_under_the_cap_convert_however_many(tmp_path):
    items = [tau_result("fix-git", trial, 1.0) for trial in range(300)]
    path = write_tau(tmp_path, items)
    conversion = tau(path, tmp_path / "out.tar.gz", max_item_bytes=100_000)
    _, runs = read_back(tmp_path / "out.tar.gz")
    assert conversion.runs == len(runs) == 300


def test_a_byte_order_mark_and_leading_space_are_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf  \n" + json.dumps([tau_result("fix-git", 0, 1.0)]).encode())
    assert tau(path, tmp_path / "out.tar.gz").runs == 1


def test_a_truncated_list_is_not_valid_json(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps([tau_result("fix-git", 0, 1.0)])[:-40])
    with pytest.raises(BundleRejected, match="is not valid JSON"):
        tau(path, tmp_path / "out.tar.gz")


def test_a_harbor_result_over_the_cap_is_named_and_never_parsed(tmp_path):
    trial = trial_result("fix-git", "fix-git__a", reward=1.0)
    job = job_folder(tmp_path, {"fix-git__a": trial})
    result = job / "fix-git__a" / "result.json"
    result.write_text(json.dumps(trial) + " " * 300_000)  # valid JSON, just too big
    with pytest.raises(BundleRejected) as info:
        harbor(job, tmp_path / "out.tar.gz", max_file_bytes=100_000)
    (error,) = info.value.errors
    assert error.file == "job/fix-git__a/result.json"
    assert "larger than the limit of 100,000 bytes" in error.message
