"""Ingest benchmark: a generated 200,000-run bundle vs PostgreSQL COPY of the same rows
into a table with the same indexes and keys.

    python bench/ingest.py [--runs 200000] [--repeats 3]

Uses the configured database (DATABASE_URL), migrated. Each repeat, interleaved:

* ingest: `submission_ingest` of the bundle (what `manage.py ingest` runs: store the
  bytes, validate, COPY, rollups, commit with its deferred key checks, enqueue), in a
  fresh process so that its peak RSS (a high-water mark) is its own;
* baseline: `COPY ... FROM STDIN` of the very rows that ingest stored into a table
  created `LIKE ingestion_run INCLUDING ALL` (the same indexes, checks and defaults)
  plus the same four foreign keys, deferred like the real ones, timed up to and
  including the commit that checks them.

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
    submission, _ = submission_ingest(upload=path, user=user, filename=path.name)
    seconds = time.perf_counter() - started
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


def ingest_in_child(path: Path) -> dict:
    child = subprocess.run(
        [sys.executable, __file__, "--phase", "ingest", str(path)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(child.stdout.strip().splitlines()[-1])


def export_rows(submission_id: int, standin_id: int, target: Path) -> None:
    """The rows the ingest stored, as COPY text, without their ids (the twin's own
    identity numbers them, as the real sequence numbered the ingest's), and under a
    stand-in submission (the ingest's is deleted before the baseline runs)."""
    from django.db import connection
    from psycopg import sql

    from ingestion.services.writers import RUN_COLUMNS

    columns = [
        sql.Literal(standin_id) if column == "submission_id" else sql.Identifier(column)
        for column in RUN_COLUMNS
    ]
    query = sql.SQL("COPY (SELECT {} FROM ingestion_run WHERE submission_id = {}) TO STDOUT")
    query = query.format(sql.SQL(", ").join(columns), sql.Literal(submission_id))
    with target.open("wb") as out, connection.cursor() as cursor, cursor.cursor.copy(query) as copy:
        for chunk in copy:
            out.write(chunk)


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

    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(TWIN)))
        cursor.execute(
            sql.SQL("CREATE TABLE {} (LIKE ingestion_run INCLUDING ALL)").format(
                sql.Identifier(TWIN)
            )
        )
        for column, parent in _TWIN_KEYS:
            cursor.execute(
                sql.SQL(
                    "ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} (id)"
                    " DEFERRABLE INITIALLY DEFERRED"
                ).format(sql.Identifier(TWIN), sql.Identifier(column), sql.Identifier(parent))
            )


def twin_drop() -> None:
    from django.db import connection
    from psycopg import sql

    with connection.cursor() as cursor:
        cursor.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(TWIN)))


def copy_baseline(rows: Path) -> float:
    """Seconds for COPY of the rows into a fresh twin table, commit (key checks) included."""
    from django.db import connection, transaction
    from psycopg import sql

    from ingestion.services.writers import RUN_COLUMNS

    twin_create()
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(TWIN), sql.SQL(", ").join(map(sql.Identifier, RUN_COLUMNS))
    )
    started = time.perf_counter()
    with (
        rows.open("rb") as source,
        transaction.atomic(),
        connection.cursor() as cursor,
        cursor.cursor.copy(statement) as copy,
    ):
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

    submission = Submission.objects.get(pk=submission_id)
    submission.runs.all().delete()
    submission.delete()
    # Each repeat starts from a table without the last one's dead rows.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE ingestion_run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--phase", choices=["ingest"], help=argparse.SUPPRESS)
    parser.add_argument("path", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "ingest":
        print(json.dumps(ingest_in_this_process(args.path)))
        return

    setup()
    from django.core.management import call_command

    from bench.gen_bundle import write_bundle

    call_command("migrate", verbosity=0)
    call_command("load_registry", verbosity=0)
    ingests, copies = [], []
    standin = standin_create()
    with tempfile.TemporaryDirectory() as tmp:
        bundle = write_bundle(Path(tmp) / "bench.tar.gz", runs=args.runs, seed=args.seed)
        rows = Path(tmp) / "rows.copy"
        for repeat in range(args.repeats):
            # Interleaved, alternating which goes first, so that drift (autovacuum,
            # caches, a neighbour's load) falls on both sides.
            if repeat % 2:
                copies.append(copy_baseline(rows))
            result = ingest_in_child(bundle)
            export_rows(result["submission"], standin, rows)
            result["rollups_seconds"] = rollups_seconds(result["submission"])
            cleanup(result["submission"])
            if not repeat % 2:
                copies.append(copy_baseline(rows))
            ingests.append(result)
            print(
                f"repeat {repeat + 1}: ingest {result['seconds']:.2f} s, COPY {copies[-1]:.2f} s",
                file=sys.stderr,
            )
    cleanup(standin)
    report(ingests, copies)


def report(ingests: list[dict], copies: list[float]) -> None:
    ingest = statistics.median(r["seconds"] for r in ingests)
    copy = statistics.median(copies)
    peak = max(r["peak_rss_mb"] for r in ingests)
    before = max(r["rss_before_mb"] for r in ingests)
    print(
        f"runs ingested:                 {ingests[0]['runs']:,}   ({len(ingests)} repeats, medians)"
    )
    print(f"ingest end to end:             {ingest:.2f} s")
    rollups = statistics.median(r["rollups_seconds"] for r in ingests)
    print(f"  of which rollups (redone):   {rollups:.2f} s")
    print(f"COPY, same indexes and keys:   {copy:.2f} s")
    pairs = statistics.median(r["seconds"] / c for r, c in zip(ingests, copies, strict=True))
    print(f"ratio ingest / COPY:           {ingest / copy:.2f}x   (target <= {TARGET_RATIO}x)")
    print(f"median of per-repeat ratios:   {pairs:.2f}x   (each ingest over its own COPY)")
    print(f"peak memory of ingest:         {peak:.0f} MB   (target <= {TARGET_RSS_MB} MB; "
          f"{before:.0f} MB before the ingest started)")  # fmt: skip


if __name__ == "__main__":
    main()
