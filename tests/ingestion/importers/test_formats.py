"""Format detection and dispatch (ingestion/importers/formats.py)."""

from __future__ import annotations

import json

from ingestion.importers import detect_format
from tests.builders import EXAMPLE_RUN_BUNDLES, harness_manifest, run_line
from tests.ingestion.importers.builders import job_folder, tau_result, trial_result, write_tau

# ------------------------------------------------------------------ detection


def test_it_detects_each_format(tmp_path):
    job = job_folder(tmp_path, {"fix-git__1": trial_result()})
    arena_dir = tmp_path / "arena-dir"
    arena_dir.mkdir()
    (arena_dir / "manifest.json").write_text(json.dumps(harness_manifest()))
    (arena_dir / "runs.jsonl").write_text(json.dumps(run_line()) + "\n")
    arena_json = tmp_path / "bundle.json"
    arena_json.write_text(json.dumps({"manifest": harness_manifest(), "runs": [run_line()]}))
    tau_file = write_tau(tmp_path, [tau_result()])
    tau_file.write_bytes(b"\xef\xbb\xbf\n  " + tau_file.read_bytes())

    assert detect_format(job) == "harbor"
    assert detect_format(tmp_path) == "harbor"  # a folder holding job folders
    assert detect_format(job / "fix-git__1" / "result.json") == "harbor"
    assert detect_format(tau_file) == "tau-bench"
    assert detect_format(arena_dir) == "arena"
    assert detect_format(arena_json) == "arena"
    assert detect_format(EXAMPLE_RUN_BUNDLES[0]) == "arena"
    assert detect_format(job / "job.log") == "arena"  # not native: the normal path says why
