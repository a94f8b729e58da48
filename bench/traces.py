"""Trace benchmark: ingest of native results with the trajectory figures and rule checks
against the same ingest when the registry states no reference calls and no rules.

    python bench/traces.py --tau results.json [--agentdojo runs/<pipeline>] [--repeats 5]
    python bench/traces.py [--results 2000]   # a generated τ-bench results file

Uses the configured database (DATABASE_URL), migrated. The registry entries are built
from the files themselves (`ingestion.importers.references`, with Arena's suite
statements in ingestion/fixtures/) and loaded once; each repeat, interleaved, ingests the
file with the suite's statements in place and again with them cleared (the suite and
its tasks updated in place, no rescore), deleting the submission after each. Reports
the median of each, their ratio, and the median time of the trace step alone (each
run's scoring, done in the pass over the runs, and the trace rollups).
Everything it creates is deleted at the end, except the registry's suites and tasks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import ROOT, bench_account, setup

BENCH_USER = "bench-traces"
FIXTURES = ROOT / "ingestion" / "fixtures"


def _registry(kind: str, path: Path) -> tuple[dict, dict]:
    """(registry document, native parameters) for one source file or folder."""
    from ingestion.importers.references import agentdojo_registry, tau_bench_registry

    if kind == "tau-bench":
        base = json.loads((FIXTURES / "tau-bench-airline-suite.json").read_text())
        data = tau_bench_registry(path, suite=base["slug"], version=base["version"], base=base)
        params = {"model": "gpt-4o"}
    else:
        base = json.loads((FIXTURES / "agentdojo-suite.json").read_text())
        root = path.parent.parent
        data = agentdojo_registry(
            root / "derived" / "agentdojo_v1.1.2_ground_truth_calls.json",
            root / "derived" / "agentdojo_task_ids_by_version.json",
            suite=base["slug"], version=base["version"], benchmark_version="v1.1.2", base=base,
        )  # fmt: skip
        params = {"model": path.name}
    suite = data["suites"][0]
    return data, {"suite": suite["slug"], "suite_version": suite["version"], **params}


def _statements(suite_key: tuple[str, str], stated: dict | None) -> dict:
    """Put the suite's statements in place (or clear them with None); returns them."""
    from ingestion.models import Suite, Task

    suite = Suite.objects.get(slug=suite_key[0], version=suite_key[1])
    if stated is None:
        kept = {
            "trajectory": suite.trajectory,
            "rules": suite.rules,
            "tasks": dict(Task.objects.filter(suite=suite).values_list("pk", "reference_calls")),
        }
        Suite.objects.filter(pk=suite.pk).update(trajectory={}, rules=[])
        Task.objects.filter(suite=suite).update(reference_calls=None)
        return kept
    Suite.objects.filter(pk=suite.pk).update(trajectory=stated["trajectory"], rules=stated["rules"])
    for pk, calls in stated["tasks"].items():
        Task.objects.filter(pk=pk).update(reference_calls=calls)
    return stated


def _ingest_once(kind: str, path: Path, params: dict) -> tuple[float, float, int]:
    """(seconds of the whole ingest, seconds of the trace step, runs) of one ingest."""
    from ingestion.models import Submission
    from ingestion.services import processing
    from ingestion.services.intake import NativeSource, submission_ingest
    from ingestion.services.traces import TraceLines
    from leaderboard.models import BoardSnapshot

    user = bench_account(BENCH_USER)
    spent = [0.0]
    real_line, real_rollups = TraceLines.line, processing.trace_rollups_write

    def timed(real):
        def call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - started

        return call

    # The trace step: each run's scoring, in the pass over the runs, and the rollups.
    TraceLines.line = timed(real_line)
    processing.trace_rollups_write = timed(real_rollups)
    native = NativeSource(
        format=kind, harness="bench-traces", harness_version="1", suite=params["suite"],
        suite_version=params["suite_version"], model=params["model"], contributors=(),
        scenario=None, confirmation=None, run_config=None,
    )  # fmt: skip
    try:
        started = time.perf_counter()
        submission, _ = submission_ingest(upload=path, user=user, filename=path.name, native=native)
        elapsed = time.perf_counter() - started
    finally:
        TraceLines.line, processing.trace_rollups_write = real_line, real_rollups
    # Without a broker the recompute the ingest asks for runs inside the call: the
    # ratio is the ingest's, so its time is taken off (as bench/ingest.py does).
    snapshot = BoardSnapshot.objects.current()
    if snapshot is not None and snapshot.computed_at > submission.finished_at:
        elapsed -= snapshot.duration_ms / 1000
    if submission.status != Submission.Status.INGESTED:
        raise SystemExit(f"the bench ingest ended {submission.status}: {submission.errors[:3]}")
    runs = submission.runs_count
    Submission.objects.filter(pk=submission.pk).delete()
    return elapsed, spent[0], runs


def generated_tau(folder: Path, results: int) -> Path:
    """A τ-bench results file of `results` results over 50 tasks, each task's reference
    action the one call its trajectory makes (tests' builders: real-shaped, not real)."""
    from tests.ingestion.importers.builders import tau_result, write_tau

    action = {"name": "get_order_details", "kwargs": {"order_id": "#W2378156"}}
    items = []
    for i in range(results):
        item = tau_result(task_id=i % 50, trial=i // 50, reward=float(i % 3 != 0))
        item["info"]["task"]["actions"] = [action]
        items.append(item)
    return write_tau(folder, items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tau", type=Path, help="a τ-bench results file")
    parser.add_argument("--agentdojo", type=Path, help="an AgentDojo runs/<pipeline> folder")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--results", type=int, default=2000, help="without --tau/--agentdojo: generated ones"
    )
    args = parser.parse_args()
    setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    sources = [(k, p) for k, p in (("tau-bench", args.tau), ("agentdojo", args.agentdojo)) if p]
    with tempfile.TemporaryDirectory() as folder:
        if not sources:
            sources = [("tau-bench", generated_tau(Path(folder), args.results))]
        for kind, path in sources:
            measure(kind, path, args.repeats)


def measure(kind: str, path: Path, repeats: int) -> None:
    """Interleaved ingests of one source with its suite's statements and without."""
    from ingestion.services.registry import registry_load

    data, params = _registry(kind, path)
    registry_load(data=data)
    key = (params["suite"], params["suite_version"])
    stated = _statements(key, None)
    with_s, without_s, step_s = [], [], []
    for _ in range(repeats):
        _statements(key, stated)
        elapsed, step, runs = _ingest_once(kind, path, params)
        with_s.append(elapsed)
        step_s.append(step)
        _statements(key, None)
        without_s.append(_ingest_once(kind, path, params)[0])
    _statements(key, stated)
    with_m, without_m = statistics.median(with_s), statistics.median(without_s)
    print(
        f"{kind} {path.name}: {runs} runs; ingest with traces {with_m:.3f} s, without "
        f"{without_m:.3f} s: ratio {with_m / without_m:.2f}x; trace step "
        f"{statistics.median(step_s):.3f} s (median of {repeats})"
    )


if __name__ == "__main__":
    main()
