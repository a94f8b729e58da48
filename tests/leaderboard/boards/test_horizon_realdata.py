"""Time horizons end to end on METR's own data: the cross-domain study's SWE-bench
Verified tasks as a registry (human minutes from its difficulty buckets, a task's
family its repository), the 13 models' per-task scores uploaded as a bundle, the
boards recomputed, and each entry's p50 and slope checked against METR's published
horizons (horizons/swe_bench_verified.csv).

METR's scores are 0 or 100 per (model, task), one score each: one run per (model,
task), a pass for 100. Read from ../shared/realdata (metr-horizon.tar.xz), extracted
into a temporary folder; skipped, saying why, when the archive is absent.
"""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import pytest

from ingestion.bundles.model_names import model_name_unprefixed
from ingestion.services.registry import registry_load
from leaderboard.models import BoardEntry
from leaderboard.recompute.services import boards_recompute
from tests.builders import run_line, submit
from tests.ingestion.importers.realdata import extracted

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ARCHIVE = "metr-horizon.tar.xz"
CROSS = Path("metr-horizon/cross-domain-horizon/data")
SUITE, VERSION = "swe-bench-verified", "metr-cross-domain"
BOARD = f"{SUITE}-{VERSION}"


@pytest.fixture(scope="module")
def metr(tmp_path_factory) -> Path:
    return extracted(ARCHIVE, (str(CROSS) + "/",), tmp_path_factory.mktemp("metr"))


def swe_bench(metr: Path) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(minutes per task, score 0 or 100 per model per task)."""
    lengths = tomllib.loads((metr / CROSS / "benchmarks/swe_bench_verified.toml").read_text())
    scores = tomllib.loads((metr / CROSS / "scores/swe_bench_verified.toml").read_text())
    minutes = {task: lengths["splits"][task]["lengths"][0] for task in scores["splits"]}
    by_model: dict[str, dict[str, float]] = {}
    for task, row in scores["splits"].items():
        for model, score in row.items():
            by_model.setdefault(model, {})[task] = score
    return minutes, by_model


def registry(minutes: dict[str, float]) -> dict:
    tasks = [
        {"task_id": task, "category": "bugfix", "human_minutes": length,
         "family": task.split("__")[0]}
        for task, length in sorted(minutes.items())
    ]  # fmt: skip
    suite = {
        "slug": SUITE, "version": VERSION, "name": "SWE-bench Verified", "official": True,
        "joins": [], "horizon_mode": "cross_domain", "tasks": tasks,
    }  # fmt: skip
    return {"format": "arena-registry/1", "suites": [suite]}


def test_it_reproduces_metrs_swe_bench_verified_horizons_from_uploaded_runs(metr, submitter):
    minutes, by_model = swe_bench(metr)
    assert set(minutes.values()) == {7.5, 30.0, 120.0, 480.0}
    assert {s for scores in by_model.values() for s in scores.values()} == {0.0, 100.0}
    registry_load(data=registry(minutes))
    runs = [
        run_line(f"{i}-{task}", suite=SUITE, suite_version=VERSION, task_id=task,
                 model=model, outcome="pass" if score == 100 else "fail")
        for i, (model, scores) in enumerate(sorted(by_model.items()))
        for task, score in sorted(scores.items())
    ]  # fmt: skip
    submit(submitter, runs, harness="METR cross-domain")

    snapshot = boards_recompute()
    entries = BoardEntry.objects.filter(board__snapshot=snapshot, board__slug=BOARD)
    found = {model_name_unprefixed(model): e.horizon for model, e in _by_model(entries).items()}
    with (metr / CROSS / "horizons/swe_bench_verified.csv").open() as handle:
        published = list(csv.DictReader(handle))
    assert len(published) == len(found) == 13
    for row in published:
        horizon = found[model_name_unprefixed(row["model"])]
        assert horizon["mode"] == "cross_domain"
        assert horizon["p50"] == pytest.approx(float(row["horizon"]), rel=1e-3), row["model"]
        # METR's slope is the steepness of 1 / (1 + e^(slope·(log2 t − log2 h))): ours negated.
        assert -horizon["slope"] == pytest.approx(float(row["slope"]), abs=1e-3), row["model"]
        assert (horizon["tasks"], horizon["runs"], horizon["degenerate"]) == (500, 500, None)
        assert horizon["p50_low"] < horizon["p50"] < horizon["p50_high"], row["model"]
        assert horizon["p80_low"] < horizon["p80"] < horizon["p80_high"], row["model"]
        assert horizon["p80"] < horizon["p50"]


def _by_model(entries) -> dict[str, BoardEntry]:
    return {entry.model_name: entry for entry in entries}
