"""Page benchmark: p95 latency under 32 concurrent clients, against a trivial view.

    python bench/pages.py [--seconds 10] [--entries 1000]

Serves the project with gunicorn on 127.0.0.1 (the same WSGI app as production) and
drives it with wrk (Debian package `wrk`). Reports the p95 of the board page, the board
API at 1,000 entries and the trivial `/healthz/` view, each as a ratio to the trivial
one measured in the same run. Targets (performance.md): board page and API p95 <= 3x.
The 1,000-entry board is a synthetic snapshot made current for the run; the real boards
are recomputed afterwards.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import ROOT, setup

PORT = 8765
P95_SCRIPT = """
done = function(summary, latency, requests)
  io.write(string.format("p95_us=%d requests=%d errors=%d\\n", latency:percentile(95.0),
    summary.requests, summary.errors.status + summary.errors.connect + summary.errors.timeout))
end
"""


def synthetic_snapshot(entries: int) -> None:
    """A current snapshot whose `bench` board has `entries` agents."""
    from django.utils import timezone

    from ingestion.models import Harness, LanguageModel
    from leaderboard.models import Board, BoardEntry, BoardSnapshot

    harness, _ = Harness.objects.get_or_create(name="bench-pages", version="1.0")
    model, _ = LanguageModel.objects.get_or_create(name="bench-pages-model")
    BoardSnapshot.objects.filter(is_current=True).update(is_current=False)
    snapshot = BoardSnapshot.objects.create(computed_at=timezone.now(), is_current=True)
    board = Board.objects.create(
        snapshot=snapshot, slug="bench", title="Bench", position=0, entry_count=entries
    )
    BoardEntry.objects.bulk_create(
        BoardEntry(
            board=board, position=i, rank=i + 1, harness=harness, model=model,
            harness_name=f"Agent {i:04d}", harness_version="1.0", model_name="bench-model",
            runs=200, n=190, passes=190 - i % 150, pass_rate=(190 - i % 150) / 190,
            wilson_low=0.5, wilson_high=0.7, infra_errors=10, infra_error_rate=0.05,
            conflict_excluded=0, cost_per_success=0.3, cost_per_success_status="ok",
            tokens_per_success=50_000.0, pass_hat_k={"1": {"value": 0.6, "pass_at_k": 0.6, "tasks": 50}},
        )
        for i in range(entries)
    )  # fmt: skip


def serve(env: dict) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "arena.wsgi", "--bind", f"127.0.0.1:{PORT}",
               "--workers", "4", "--log-level", "warning"]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/healthz/", timeout=1)
            return process
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("gunicorn did not start")


def p95_ms(path: str, seconds: int, script: Path) -> tuple[float, int]:
    url = f"http://127.0.0.1:{PORT}{path}"
    subprocess.run(["wrk", "-t2", "-c32", "-d2s", url], check=True, capture_output=True)  # warm-up
    out = subprocess.run(
        ["wrk", "-t2", "-c32", f"-d{seconds}s", "-s", str(script), url],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    line = next(row for row in out.splitlines() if row.startswith("p95_us="))
    fields = dict(part.split("=") for part in line.split())
    return int(fields["p95_us"]) / 1000, int(fields["requests"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--entries", type=int, default=1000)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    setup()
    from django.core.management import call_command
    from django.db import connection

    from arena.embedded_db import database_url_of

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    call_command("recompute", verbosity=0)
    env = {**os.environ, "DATABASE_URL": database_url_of(connection.settings_dict), "DEBUG": "0"}
    call_command("collectstatic", interactive=False, verbosity=0)
    server = serve(env)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
            script.write(P95_SCRIPT)
        trivial, _ = p95_ms("/healthz/", args.seconds, Path(script.name))
        page, _ = p95_ms("/", args.seconds, Path(script.name))
        synthetic_snapshot(args.entries)
        api, _ = p95_ms("/api/v1/boards/bench/", args.seconds, Path(script.name))
    finally:
        server.terminate()
        server.wait()
        call_command("recompute", verbosity=0)
    print(f"trivial view p95:                 {trivial:.1f} ms")
    print(
        f"board page p95 (demo data):       {page:.1f} ms   ratio {page / trivial:.2f}x (target <= 3x)"
    )
    print(
        f"board API p95 ({args.entries} entries):     {api:.1f} ms   ratio {api / trivial:.2f}x (target <= 3x)"
    )


if __name__ == "__main__":
    main()
