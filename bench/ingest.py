"""Ingest benchmark: a generated 200,000-run bundle vs PostgreSQL COPY of the same rows
into a table with the same indexes and keys.

    python bench/ingest.py [--runs 200000] [--repeats 3] [--trajectories with|without|both]
                           [--against OTHER_CHECKOUT]

Uses the configured database (DATABASE_URL), migrated. Each repeat, interleaved:

* ingest: `submission_ingest` of the bundle (what `manage.py ingest` runs: store the
  bytes, validate, COPY, rollups, commit with its deferred key checks, enqueue), in a
  fresh process so that its peak RSS (a high-water mark) is its own;
* baseline: `COPY ... FROM STDIN` of the very rows that ingest stored into a table
  created `LIKE ingestion_run INCLUDING ALL` (the same indexes, checks and defaults)
  plus the same four foreign keys, deferred like the real ones, timed up to and
  including the commit that checks them.

With trajectories (bench/gen_trajectories.py: every run on a task with reference calls,
its suite stating Arena's τ-bench airline rules), the ingest also scores and stores each
run's trace and rolls the traces up, so the baseline COPYs, in the same transaction,
the RunTrace rows it stored into a table `LIKE ingestion_runtrace INCLUDING ALL` whose
key points at the run twin, deferred like the real one: both tables the ingest fills, as
COPY would fill them. `--against` also times, each repeat, the ingest of another
checkout of the project (an earlier commit, say) on the same bundle, against the same
COPYs, and checks that it stored the same traces.

Reports the medians, their ratio (target ≤ 1.5×), the median of the per-repeat ratios,
the share of the rollups the ingest writes (timed again, rolled back) and the ingest's
peak memory.
Everything it creates is deleted at the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import bench_account, peak_rss_mb, setup

BENCH_USER = "bench"
TWIN = "bench_ingest_run_twin"
TRACE_TWIN = "bench_ingest_runtrace_twin"
TARGET_RATIO = 1.5
TARGET_RSS_MB = 300


def ingest_in_this_process(path: Path) -> dict:
    """Phase run in a child process: ingest the bundle, report time and peak memory."""
    setup()

    from ingestion.services.intake import submission_ingest
    from leaderboard.models import BoardSnapshot

    user = bench_account(BENCH_USER)
    rss_before = peak_rss_mb()
    started = time.perf_counter()
    submission, created = submission_ingest(upload=path, user=user, filename=path.name)
    seconds = time.perf_counter() - started
    if not created:  # an interrupted earlier run left these bytes ingested: time it anew
        cleanup(submission.pk)
        return ingest_in_this_process(path)
    assert submission.status == "ingested", submission.errors[:5]
    # Without a broker the recompute that the ingest enqueues runs eagerly inside the
    # call; the target is about validate + store + enqueue, so its time is taken off.
    snapshot = BoardSnapshot.objects.current()
    if snapshot is not None and snapshot.computed_at > submission.finished_at:
        seconds -= snapshot.duration_ms / 1000
    return {
        "submission": submission.pk,
        "runs": submission.runs_count,
        "seconds": seconds,
        "peak_rss_mb": peak_rss_mb(),
        "rss_before_mb": rss_before,
    }


def ingest_in_child(path: Path, root: Path | None = None) -> dict:
    script = Path(__file__) if root is None else root / "bench" / "ingest.py"
    child = subprocess.run(
        [sys.executable, str(script), "--phase", "ingest", str(path)],
        check=True, capture_output=True, text=True, cwd=script.parent.parent,
    )  # fmt: skip
    return json.loads(child.stdout.strip().splitlines()[-1])


# A submission's runs' traces.
_TRACES = (
    "SELECT {} FROM ingestion_runtrace t JOIN ingestion_run r ON r.id = t.run_id"
    " WHERE r.submission_id = {}"
)


def export_rows(submission_id: int, standin_id: int, target: Path, traces: Path) -> None:
    """The rows the ingest stored, as COPY text, with their ids (the ingest gives them
    too, from the sequence, so that its traces can point at them) and under a stand-in
    submission (the ingest's is deleted before the baseline runs); and its traces."""
    from psycopg import sql

    from ingestion.services.traces import TRACE_COLUMNS
    from ingestion.services.writers import RUN_COLUMNS

    columns = [
        sql.Literal(standin_id) if column == "submission_id" else sql.Identifier(column)
        for column in ("id", *RUN_COLUMNS)
    ]
    query = sql.SQL("SELECT {} FROM ingestion_run WHERE submission_id = {}")
    _export(query.format(sql.SQL(", ").join(columns), sql.Literal(submission_id)), target)
    columns = [sql.Identifier("t", column) for column in TRACE_COLUMNS]
    _export(
        sql.SQL(_TRACES).format(sql.SQL(", ").join(columns), sql.Literal(submission_id)), traces
    )


def _export(query, target: Path) -> None:
    from django.db import connection
    from psycopg import sql

    statement = sql.SQL("COPY ({}) TO STDOUT").format(query)
    with (
        target.open("wb") as out,
        connection.cursor() as cursor,
        cursor.cursor.copy(statement) as copy,
    ):
        for chunk in copy:
            out.write(chunk)


def traces_digest(submission_id: int) -> tuple[int, str]:
    """How many traces the submission's runs have, and a digest of them by run id."""
    from django.db import connection
    from psycopg import sql

    fields = sql.SQL(
        "count(*), md5(string_agg(concat_ws('|', r.run_id, t.figures::text, t.calls,"
        " t.reference_calls, t.failed_calls, t.ignored_calls, t.alignment::text,"
        " t.violations::text), ',' ORDER BY r.run_id))"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql.SQL(_TRACES).format(fields, sql.Literal(submission_id)))
        count, digest = cursor.fetchone()
    return count, digest or ""


def standin_create() -> int:
    """A submission for the baseline's rows to point at (their key is checked too)."""
    import secrets

    from ingestion.models import Submission

    user = bench_account(BENCH_USER)
    return Submission.objects.create(uploader=user, sha256="bench-" + secrets.token_hex(29)).pk


# The real table's foreign keys, deferred like Django's, so the baseline's commit checks
# as many keys as the ingest's.
_TWIN_KEYS = (
    ("submission_id", "ingestion_submission"),
    ("harness_id", "ingestion_harness"),
    ("model_id", "ingestion_languagemodel"),
    ("task_id", "ingestion_task"),
)


def twin_create() -> None:
    from django.db import connection
    from psycopg import sql

    twin_drop()
    keys = [(TWIN, column, parent) for column, parent in _TWIN_KEYS] + [
        (TRACE_TWIN, "run_id", TWIN)
    ]
    with connection.cursor() as cursor:
        for twin, real in ((TWIN, "ingestion_run"), (TRACE_TWIN, "ingestion_runtrace")):
            cursor.execute(
                sql.SQL("CREATE TABLE {} (LIKE {} INCLUDING ALL)").format(
                    sql.Identifier(twin), sql.Identifier(real)
                )
            )
        for twin, column, parent in keys:
            cursor.execute(
                sql.SQL(
                    "ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} (id)"
                    " DEFERRABLE INITIALLY DEFERRED"
                ).format(sql.Identifier(twin), sql.Identifier(column), sql.Identifier(parent))
            )


def twin_drop() -> None:
    from django.db import connection
    from psycopg import sql

    with connection.cursor() as cursor:
        for twin in (TRACE_TWIN, TWIN):
            cursor.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(twin)))


def copy_baseline(rows: Path, traces: Path) -> float:
    """Seconds for COPY of the rows (and the traces, if any) into fresh twin tables, in
    one transaction, commit (key checks) included."""
    from django.db import connection, transaction
    from psycopg import sql

    from ingestion.services.traces import TRACE_COLUMNS
    from ingestion.services.writers import RUN_COLUMNS

    twin_create()
    copies = [(rows, TWIN, ("id", *RUN_COLUMNS))]
    if traces.stat().st_size:
        copies.append((traces, TRACE_TWIN, TRACE_COLUMNS))
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        for path, table, columns in copies:
            statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
                sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns))
            )
            with path.open("rb") as source, cursor.cursor.copy(statement) as copy:
                while chunk := source.read(1 << 20):
                    copy.write(chunk)
    seconds = time.perf_counter() - started
    twin_drop()
    return seconds


def rollups_seconds(submission_id: int) -> float:
    """Seconds to write the submission's rollups again (their share of the ingest, which
    writes them in its transaction), rolled back."""
    from django.db import transaction

    from ingestion.services.rollups import rollups_rebuild

    with transaction.atomic():
        started = time.perf_counter()
        rollups_rebuild(submission_ids=[submission_id])
        seconds = time.perf_counter() - started
        transaction.set_rollback(True)
    return seconds


def cleanup(submission_id: int) -> None:
    from django.db import connection

    from ingestion.models import Submission

    with connection.cursor() as cursor:  # in SQL: the ORM would collect every trace first
        cursor.execute(
            "DELETE FROM ingestion_runtrace WHERE run_id IN"
            " (SELECT id FROM ingestion_run WHERE submission_id = %s)",
            [submission_id],
        )
    submission = Submission.objects.get(pk=submission_id)
    submission.runs.all().delete()
    submission.delete()
    # Each repeat starts from tables without the last one's dead rows.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE ingestion_run")
        cursor.execute("VACUUM ANALYZE ingestion_runtrace")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--trajectories", choices=["without", "with", "both"], default="both",
        help="runs without trajectories, with them (and their traces), or both in turn",
    )  # fmt: skip
    parser.add_argument("--against", type=Path, help="another checkout to time on the same data")
    parser.add_argument("--phase", choices=["ingest"], help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "ingest":
        print(json.dumps(ingest_in_this_process(args.path)))
        return

    setup()
    from django.core.management import call_command

    from bench.gen_trajectories import trace_registry
    from ingestion.services.registry import registry_load

    call_command("migrate", verbosity=0)
    call_command("load_registry", verbosity=0)
    registry_load(data=trace_registry())  # its suite only: the bundle without them ignores it
    standin = standin_create()
    modes = {"without": [False], "with": [True], "both": [False, True]}[args.trajectories]
    results = [(mode, measure(args, standin, trajectories=mode)) for mode in modes]
    cleanup(standin)
    for trajectories, (ingests, copies, against) in results:
        print(f"--- runs {'with' if trajectories else 'without'} trajectories")
        report(ingests, copies, against)


def measure(args, standin: int, *, trajectories: bool):
    """(the ingests, the COPYs, the other checkout's ingests) of `args.repeats` repeats."""
    from bench.gen_bundle import write_bundle

    ingests, copies, against = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        bundle = write_bundle(
            Path(tmp) / "bench.tar.gz", runs=args.runs, seed=args.seed, trajectories=trajectories
        )
        rows, traces = Path(tmp) / "rows.copy", Path(tmp) / "traces.copy"
        for repeat in range(args.repeats):
            # Interleaved, alternating which goes first, so that drift (autovacuum,
            # caches, a neighbour's load) falls on both sides.
            if repeat % 2:
                copies.append(copy_baseline(rows, traces))
            result = ingest_in_child(bundle)
            export_rows(result["submission"], standin, rows, traces)
            result["rollups_seconds"] = rollups_seconds(result["submission"])
            digest = traces_digest(result["submission"])
            result["traces"] = digest[0]
            cleanup(result["submission"])
            if not repeat % 2:
                copies.append(copy_baseline(rows, traces))
            ingests.append(result)
            line = f"repeat {repeat + 1}: ingest {result['seconds']:.2f} s, COPY {copies[-1]:.2f} s"
            if args.against:
                other = ingest_in_child(bundle, root=args.against)
                other["same_traces"] = traces_digest(other["submission"]) == digest
                cleanup(other["submission"])
                against.append(other)
                line += f", other checkout {other['seconds']:.2f} s"
            print(line, file=sys.stderr)
    return ingests, copies, against


def report(ingests: list[dict], copies: list[float], against: list[dict]) -> None:
    ingest = statistics.median(r["seconds"] for r in ingests)
    copy = statistics.median(copies)
    peak = max(r["peak_rss_mb"] for r in ingests)
    before = max(r["rss_before_mb"] for r in ingests)
    print(
        f"runs ingested:                 {ingests[0]['runs']:,}   ({len(ingests)} repeats, medians)"
    )
    print(f"traces written:                {ingests[0]['traces']:,}")
    print(f"ingest end to end:             {ingest:.2f} s")
    rollups = statistics.median(r["rollups_seconds"] for r in ingests)
    print(f"  of which rollups (redone):   {rollups:.2f} s")
    print(f"COPY, same indexes and keys:   {copy:.2f} s")
    pairs = statistics.median(r["seconds"] / c for r, c in zip(ingests, copies, strict=True))
    print(f"ratio ingest / COPY:           {ingest / copy:.2f}x   (target <= {TARGET_RATIO}x)")
    print(f"median of per-repeat ratios:   {pairs:.2f}x   (each ingest over its own COPY)")
    print(f"peak memory of ingest:         {peak:.0f} MB   (target <= {TARGET_RSS_MB} MB; "
          f"{before:.0f} MB before the ingest started)")  # fmt: skip
    if against:
        other = statistics.median(r["seconds"] for r in against)
        same = all(r["same_traces"] for r in against)
        print(f"other checkout's ingest:       {other:.2f} s   ({other / copy:.2f}x COPY; "
              f"{max(r['peak_rss_mb'] for r in against):.0f} MB; "
              f"{'the same' if same else 'OTHER'} traces stored)")  # fmt: skip


if __name__ == "__main__":
    main()
