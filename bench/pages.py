"""Page benchmark: p95 latency under 32 concurrent clients, as a ratio to a trivial view.

    python bench/pages.py [--seconds 5] [--rounds 3] [--entries 1000] [--replica-url URL]

Serves the project with gunicorn as production does (docker/gunicorn.conf.py: threaded
workers) on 127.0.0.1, port $BENCH_PORT or a free one, and drives it with wrk (Debian
package `wrk`). Each figure is the median over --rounds of wrk's p95, and every round
measures the trivial `/healthz/` view too, interleaved with the measured runs, so both
see the same machine. Runs:

* board page, cached: `/boards/overall/`, the same address again and again (the page
  cache's case); the home page `/` and a task page the same way;
* board page, junk parameters: `/boards/overall/?junk=<unique per request>`, which the
  page cache must serve as `/boards/overall/` (keys are the canonical parameters, not
  the query string);
* board, home and task pages, uncached: a second server whose "pages" cache is Django's
  DummyCache (bench/uncached_settings.py), so every request renders the page from the
  database: the cost a new snapshot's first visitors pay;
* board API at --entries entries (a synthetic snapshot, made current for the run);
* with --replica-url, the cached and junk runs again against a server started with
  DATABASE_REPLICA_URLS set to it (the replica must be a streaming copy of this
  database; the routing is arena's).

Requests say `Accept-Encoding: br, gzip`, as browsers do (responses are compressed,
performance.md). Any response other than 2xx (or a socket error) is counted and fails the bench: a 404
measured as fast is not a fast page. Before each server is measured, the bench waits
until it answers 200 on the address measured (the snapshot switch is seen by the
server up to ARENA_SNAPSHOT_POLL_SECONDS late). Targets (performance.md): page and API
p95 <= 2x the trivial view at 32 clients, cached and with junk parameters.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import ROOT, setup

CLIENTS = 32
# The pages measured: the Overall board, and a task of the demo that every agent ran.
BOARD = "/boards/overall/"
TASK = "/tasks/terminal-bench/4.0.0/fix-git/"
# As a browser sends it: pages are measured as visitors get them, compressed.
ACCEPT_ENCODING = "br, gzip"
TARGET = 2.0
# wrk script: optional unique junk parameter per request; every non-2xx counted.
WRK_SCRIPT = """
local threads = {}
local counter = 0
setup = function(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end
init = function(args)
  junk = args[1] == "junk"
  paths = {}
  if args[1] == "paths" then
    for i = 2, #args do table.insert(paths, args[i]) end
  end
  non2xx = 0
end
request = function()
  if #paths > 0 then
    counter = counter + 1
    return wrk.format(nil, paths[counter % #paths + 1])
  end
  if junk then
    counter = counter + 1
    local sep = string.find(wrk.path, "?", 1, true) and "&" or "?"
    local value = id .. "-" .. counter .. "-" .. math.random(1e9)
    return wrk.format(nil, wrk.path .. sep .. "junk=" .. value)
  end
  return wrk.format(nil, wrk.path)
end
response = function(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end
done = function(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + thread:get("non2xx") end
  local errors = summary.errors
  io.write(string.format("p95_us=%d requests=%d non2xx=%d socket_errors=%d\\n",
    latency:percentile(95.0), summary.requests, bad,
    errors.connect + errors.read + errors.write + errors.timeout))
end
"""


@dataclass
class Run:
    label: str
    path: str
    junk: bool = False
    p95s: list[float] = field(default_factory=list)
    requests: int = 0

    @property
    def p95(self) -> float:
        return statistics.median(self.p95s)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serve(env: dict[str, str], port: int) -> Iterator[str]:
    """gunicorn with the production configuration, on 127.0.0.1:port."""
    command = [
        sys.executable, "-m", "gunicorn", "-c", "docker/gunicorn.conf.py", "arena.wsgi",
        "--bind", f"127.0.0.1:{port}", "--access-logfile", "/dev/null", "--log-level", "warning",
    ]  # fmt: skip
    # No worker restarts mid-run (max_requests): a restart is a latency spike of its own.
    process = subprocess.Popen(command, cwd=ROOT, env={**env, "GUNICORN_MAX_REQUESTS": "0"})
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_200(f"{base}/healthz/", process, seconds=120)  # a loaded machine starts slowly
        yield base
    finally:
        process.terminate()
        process.wait()


def wait_for_200(url: str, process: subprocess.Popen | None = None, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"the server exited ({process.returncode}) before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.HTTPError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not answer 200 within {seconds:.0f} s")


def wrk(
    url: str, seconds: float, script: Path, junk: bool, paths: list[str] | None = None
) -> tuple[float, int]:
    """(p95 in ms, requests); any non-2xx response or socket error stops the bench.
    With `paths`, the clients ask for each of them in turn (url names the server)."""
    command = [
        "wrk", "-t2", f"-c{CLIENTS}", f"-d{seconds:g}s", "--timeout", "10s",
        "-H", f"Accept-Encoding: {ACCEPT_ENCODING}", "-s", str(script), url,
    ]  # fmt: skip
    if junk:
        command += ["--", "junk"]
    elif paths:
        command += ["--", "paths", *paths]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    line = next(row for row in out.splitlines() if row.startswith("p95_us="))
    fields = {key: int(value) for key, value in (part.split("=") for part in line.split())}
    if fields["non2xx"] or fields["socket_errors"]:
        raise SystemExit(
            f"{url}: {fields['non2xx']} non-2xx responses and {fields['socket_errors']} "
            f"socket errors in {fields['requests']} requests"
        )
    return fields["p95_us"] / 1000, fields["requests"]


def measure(base: str, runs: list[Run], args: argparse.Namespace, script: Path) -> Run:
    """Each round: the trivial view, then every run; returns the trivial view's Run."""
    trivial = Run("trivial view /healthz/", "/healthz/")
    for run in runs:
        wait_for_200(base + run.path, seconds=120)
        wrk(base + run.path, 1, script, run.junk)  # warm-up: caches filled, workers up
        drain(base)
    for _ in range(args.rounds):
        for run in [trivial, *runs]:
            p95, requests = wrk(base + run.path, args.seconds, script, run.junk)
            run.p95s.append(p95)
            run.requests += requests
            drain(base)
    return trivial


def drain(base: str) -> None:
    """Let the server finish what wrk left queued, so the next run starts from idle."""
    wait_for_200(f"{base}/healthz/", seconds=120)
    time.sleep(0.5)


def report(title: str, trivial: Run, runs: list[Run]) -> None:
    print(f"\n{title}")
    print(f"  {trivial.label:<42} p95 {trivial.p95:7.1f} ms  ({trivial.requests} requests)")
    for run in runs:
        if not run.requests or not trivial.requests:
            print(f"  {run.label:<42} unmeasured: no request completed (raise --seconds)")
            continue
        ratio = run.p95 / trivial.p95
        verdict = "ok" if ratio <= TARGET else "OVER"
        print(
            f"  {run.label:<42} p95 {run.p95:7.1f} ms  ratio {ratio:5.2f}x "
            f"(target <= {TARGET:g}x, {verdict}; {run.requests} requests)"
        )


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
            tokens_per_success=50_000.0,
            pass_hat_k={"1": {"value": 0.6, "pass_at_k": 0.6, "tasks": 50}},
        )
        for i in range(entries)
    )  # fmt: skip


def warmed_paths() -> list[str]:
    """The addresses the page warm renders for the current snapshot (the htmx tab
    switches apart: wrk sends one set of headers)."""
    from leaderboard.boards.current import current_boards
    from leaderboard.web.warm import warm_requests

    return [
        path for path, headers in warm_requests(current_boards()) if "HX-Request" not in headers
    ]


def ingest_small(label: str, seed: int, submissions: list[int]) -> int:
    """One 200-run ingest by a harness of its own; its recompute (and the page warm,
    unless disconnected) runs on commit, Celery being eager here. The new snapshot's id."""
    from bench._django import bench_account
    from bench.gen_bundle import write_bundle
    from ingestion.services.intake import submission_ingest
    from leaderboard.models import BoardSnapshot

    with tempfile.TemporaryDirectory() as tmp:
        bundle = write_bundle(Path(tmp) / "b.tar.gz", runs=200, seed=seed, harness=label)
        submission, _ = submission_ingest(upload=bundle, user=bench_account("bench-pages"))
    assert submission.status == "ingested", submission.errors[:3]
    submissions.append(submission.pk)
    return BoardSnapshot.objects.current().pk


@contextmanager
def page_warm_left_out() -> Iterator[None]:
    from leaderboard.recompute.announcements import snapshot_swapping
    from leaderboard.web.warm import WARM_RECEIVER, snapshot_swapping_received

    snapshot_swapping.disconnect(dispatch_uid=WARM_RECEIVER)
    try:
        yield
    finally:
        snapshot_swapping.connect(snapshot_swapping_received, dispatch_uid=WARM_RECEIVER)


def after_ingest(base: str, args: argparse.Namespace, script: Path) -> tuple[Run, list[Run]]:
    """Each round: the trivial view; an ingest, then at once the first visits of every
    warmed address for --after-seconds; the same with the page warm left out."""
    from arena.http_cache import pages_cache
    from leaderboard.boards.current import BOARDS_KEY, SNAPSHOT_KEY

    trivial = Run("trivial view /healthz/", "/healthz/")
    warm = Run("first visits after an ingest (warmed)", "/")
    cold = Run("first visits after an ingest (no warm)", "/")
    submissions: list[int] = []
    try:
        for round_ in range(args.rounds):
            p95, requests = wrk(base + "/healthz/", args.after_seconds, script, False)
            trivial.p95s.append(p95)
            trivial.requests += requests
            for run, seed in ((warm, 2 * round_), (cold, 2 * round_ + 1)):
                drain(base)
                if run is cold:
                    with page_warm_left_out():
                        snapshot = ingest_small(f"bench-pages-{seed}", seed, submissions)
                    # The servers' micro-cache of the current snapshot lapses at once.
                    pages_cache.delete_many([BOARDS_KEY, SNAPSHOT_KEY])
                else:
                    snapshot = ingest_small(f"bench-pages-{seed}", seed, submissions)
                p95, requests = wrk(base, args.after_seconds, script, False, warmed_paths())
                run.p95s.append(p95)
                run.requests += requests
                drain(base)
                seen = urllib.request.urlopen(base + "/", timeout=60).headers["ETag"]
                if f"s{snapshot}-" not in seen:
                    raise SystemExit(f"the server still serves {seen}, not snapshot {snapshot}")
    finally:
        submissions_delete(submissions)
    return trivial, [warm, cold]


def submissions_delete(ids: list[int]) -> None:
    from django.contrib.auth import get_user_model

    from ingestion.models import Harness, HarnessOwner, Submission

    harnesses = list(Submission.objects.filter(pk__in=ids).values_list("harness_id", flat=True))
    for submission in Submission.objects.filter(pk__in=ids):
        submission.runs.all().delete()
        submission.delete()
    Harness.objects.filter(pk__in=harnesses, name__startswith="bench-pages-").delete()
    # The names it published are its own (an owner is protected): released with it.
    HarnessOwner.objects.filter(owner__username="bench-pages").delete()
    get_user_model().objects.filter(username="bench-pages").delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=5, help="per wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per run")
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--replica-url", default="", help="passed as DATABASE_REPLICA_URLS")
    parser.add_argument(
        "--after-seconds", type=int, default=2, help="first visits measured after each ingest"
    )
    args = parser.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    setup(page_warm=True)
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from arena.embedded_db import database_url_of

    # Hashed static names need the manifest (CompressedManifestStaticFilesStorage), for
    # the servers and for the page warm of the recompute below.
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)
    call_command("recompute", verbosity=0)
    env = {**os.environ, "DATABASE_URL": database_url_of(connection.settings_dict), "DEBUG": "0"}
    env.pop("DATABASE_REPLICA_URLS", None)
    port = int(os.environ.get("BENCH_PORT") or free_port())
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as file:
        file.write(WRK_SCRIPT)
    script = Path(file.name)
    try:
        pages = [
            Run("board page (cached)", BOARD),
            Run("board page ?junk=<unique>", BOARD, True),
            Run("home page / (cached)", "/"),
            Run("task page (cached)", TASK),
        ]
        with serve(env, port) as base:
            trivial = measure(base, pages, args, script)
        report(f"Board, home and task pages, demo data, {CLIENTS} clients", trivial, pages)

        uncached = [
            Run("board page (uncached: DummyCache)", BOARD),
            Run("home page / (uncached)", "/"),
            Run("task page (uncached)", TASK),
        ]
        uncached_env = {**env, "DJANGO_SETTINGS_MODULE": "bench.uncached_settings"}
        with serve(uncached_env, port) as base:
            trivial = measure(base, uncached, args, script)
        report(f"Pages, every request rendered, {CLIENTS} clients", trivial, uncached)

        if args.replica_url:
            replica = [
                Run("board page (replica)", BOARD),
                Run("board page ?junk= (replica)", BOARD, True),
            ]
            with serve({**env, "DATABASE_REPLICA_URLS": args.replica_url}, port) as base:
                trivial = measure(base, replica, args, script)
            report(f"Board page served from {args.replica_url}", trivial, replica)

        if settings.REDIS_CACHE_URL:
            with serve(env, port) as base:
                wait_for_200(base + "/")
                trivial, first = after_ingest(base, args, script)
            report(f"First visits after an ingest, {CLIENTS} clients", trivial, first)
        else:
            print("\nFirst visits after an ingest: skipped (set REDIS_CACHE_URL: the warm")
            print("  fills the cache the server shares with this process)")

        synthetic_snapshot(args.entries)
        api = [
            Run(f"board API ({args.entries} entries)", "/api/v1/boards/bench/"),
            Run("board API ?junk=<unique>", "/api/v1/boards/bench/", True),
        ]
        with serve(env, port) as base:
            trivial = measure(base, api, args, script)  # waits for the new snapshot's 200
        report(f"Board API, synthetic snapshot, {CLIENTS} clients", trivial, api)
    finally:
        script.unlink()
        call_command("recompute", verbosity=0)


if __name__ == "__main__":
    main()
