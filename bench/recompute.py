"""Recompute benchmark: every board over 1,000,000 generated runs.

    python bench/recompute.py [--runs 1000000]   # --runs 10000000: 10M, the same groups

Fills the runs table of the configured database with generated runs (set-based
INSERT ... SELECT, so generation is quick), then reports:
* a full recompute (all boards, new snapshot, atomic swap) as a ratio to one plain
  `GROUP BY harness, model, task` aggregate over the same table, the interval bounds
  filled after it (leaderboard.recompute.intervals), and the same recompute with the
  bounds computed inline;
* the recompute after one more 1,000-run submission, and its bounds;
* the SQL query count of a board page, which must not grow with the rows.
Everything it creates is deleted at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._django import setup

HARNESSES = 40
MODELS = 5

# One chunk of generated runs, rows start ≤ g < stop. The ids are picked from arrays by
# position (no per-row subquery), so 10M runs take minutes, not tens of minutes.
GENERATE_RUNS_SQL = """
INSERT INTO ingestion_run (
    submission_id, run_id, harness_id, model_id, task_id, trial, outcome, infra_error,
    cost_usd, tokens_input, tokens_output, steps, tool_calls, ttft_ms, started_at,
    finished_at, extra, source_key)
SELECT a.subs[1 + g %% %(harnesses)s], 'bench-' || g, a.harnesses[1 + g %% %(harnesses)s],
       a.models[1 + (g / %(harnesses)s) %% %(models)s], a.tasks[1 + (g / %(agents)s) %% %(tasks)s],
       1 + (g / %(combos)s) %% 8,
       CASE WHEN x < 0.05 THEN 'infra_error' WHEN x < 0.65 THEN 'pass' ELSE 'fail' END,
       CASE WHEN x < 0.05 THEN 'timeout' ELSE '' END,
       round((random() * 0.5)::numeric, 4), (random() * 90000)::int, (random() * 9000)::int,
       (random() * 60)::int, (random() * 80)::int, 200 + (random() * 3000)::int,
       now() - interval '1 hour', now() - interval '1 hour' + (random() * 900) * interval '1 second',
       '{}', ''
FROM generate_series(%(start)s, %(stop)s - 1) AS g
-- g in the subquery makes it correlated: one draw per row, not one for all rows
CROSS JOIN LATERAL (SELECT random() + 0 * g AS x) AS r
CROSS JOIN bench_ids a
"""
# The generated ids in the order the runs cycle through them (a submission per harness).
BENCH_IDS_SQL = """
CREATE TEMP TABLE bench_ids AS SELECT
    (SELECT array_agg(s.id ORDER BY s.harness_id) FROM ingestion_submission s
     WHERE s.harness_id = ANY(%(harnesses)s)) AS subs,
    (SELECT array_agg(h ORDER BY h) FROM unnest(%(harnesses)s::bigint[]) h) AS harnesses,
    (SELECT array_agg(m ORDER BY m) FROM unnest(%(models)s::bigint[]) m) AS models,
    (SELECT array_agg(t ORDER BY t) FROM unnest(%(tasks)s::bigint[]) t) AS tasks
"""
# Runs generated per statement: each commits on its own, so the deferred foreign-key
# checks of one chunk are all PostgreSQL holds at once.
GENERATE_CHUNK = 1_000_000

PLAIN_GROUP_BY_SQL = """
SELECT harness_id, model_id, task_id, count(*), count(*) FILTER (WHERE outcome = 'pass'),
       sum(cost_usd), sum(tokens_input + tokens_output)
FROM ingestion_run GROUP BY harness_id, model_id, task_id
"""


def timed(function, repeat: int = 3) -> float:
    """Median wall time of `repeat` calls (absolute times drift on shared machines)."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def populate(runs: int, start: int = 0) -> None:
    """Generate runs start ≤ g < runs (start > 0: resume a kept run of whole chunks, its
    harnesses, models and submissions already there), then rebuild the rollups."""
    from django.db import connection

    from ingestion.models import Harness, LanguageModel, Task

    if not start:
        _bench_agents()
    harnesses = Harness.objects.filter(name__startswith="bench-h").order_by("pk")
    models = LanguageModel.objects.filter(name__startswith="bench-m").order_by("pk")
    tasks = list(Task.objects.approved_official().values_list("pk", flat=True))
    ids = {
        "harnesses": list(harnesses.values_list("pk", flat=True)),
        "models": list(models.values_list("pk", flat=True)),
        "tasks": tasks,
    }
    params = {"harnesses": HARNESSES, "models": MODELS, "agents": HARNESSES * MODELS,
              "tasks": len(tasks), "combos": HARNESSES * MODELS * len(tasks)}  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_ids")
        cursor.execute(BENCH_IDS_SQL, ids)
        for first in range(start, runs, GENERATE_CHUNK):
            stop = min(first + GENERATE_CHUNK, runs)
            cursor.execute(GENERATE_RUNS_SQL, {**params, "start": first, "stop": stop})
        cursor.execute("ANALYZE ingestion_run")
    # What the ingest writes in its transaction (the runs here skipped the ingest).
    from ingestion.services.rollups import rollups_rebuild

    rollups_rebuild()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ingestion_runrollup; ANALYZE ingestion_latencyrollup")


def _bench_agents() -> None:
    from bench._django import bench_account
    from ingestion.models import Harness, LanguageModel, ModelPrice, Submission

    user = bench_account("bench")
    harnesses = [
        Harness.objects.create(name=f"bench-h{i}", version="1.0") for i in range(HARNESSES)
    ]
    models = [LanguageModel.objects.create(name=f"bench-m{i}") for i in range(MODELS)]
    # Two price periods a model, so every group looks its period up (the list cost).
    ModelPrice.objects.bulk_create(
        ModelPrice(model=m, effective_from=day, input_price_per_mtok=3, output_price_per_mtok=15)
        for m in models
        for day in (dt.date(2020, 1, 1), dt.date.today() - dt.timedelta(days=30))
    )
    for h in harnesses:
        Submission.objects.create(
            uploader=user, sha256=f"bench-{h.pk}", harness=h, status="ingested"
        )


def cleanup() -> None:
    from django.db import connection

    from ingestion.models import Harness, LanguageModel, Submission
    from leaderboard.models import BoardSnapshot

    BoardSnapshot.objects.all().delete()
    harnesses = Harness.objects.filter(name__startswith="bench-")
    ids = list(harnesses.values_list("pk", flat=True))
    # Set-based: the ORM's delete would read 10M ids into the process first. On a
    # database holding only the bench's runs (a fresh one), emptying the tables is
    # instant where deleting 10M rows takes minutes.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM ingestion_run WHERE NOT harness_id = ANY(%s))", [ids]
        )
        if not cursor.fetchone()[0]:
            cursor.execute("TRUNCATE ingestion_runtrace, ingestion_run")
        cursor.execute(
            "DELETE FROM ingestion_runtrace WHERE run_id IN"
            " (SELECT id FROM ingestion_run WHERE harness_id = ANY(%s))",
            [ids],
        )
        cursor.execute("DELETE FROM ingestion_run WHERE harness_id = ANY(%s)", [ids])
    Submission.objects.filter(harness__in=harnesses).delete()
    harnesses.delete()
    LanguageModel.objects.filter(name__startswith="bench-").delete()


def _generated_runs() -> int:
    from ingestion.models import Run

    return Run.objects.filter(
        run_id__startswith="bench-", harness__name__startswith="bench-h"
    ).count()


def _small_submission_remove() -> None:
    """Undo the 1,000-run ingest, so that a kept database is measured again as it was."""
    from ingestion.models import Harness, Run, Submission

    extra = Harness.objects.filter(name="bench-extra")
    Run.objects.filter(harness__in=extra).delete()
    # Its rollups go with the submission (on delete cascade).
    Submission.objects.filter(harness__in=extra).delete()
    extra.delete()


def board_page_queries() -> int:
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings

    # Plain static names: the bench does not run collectstatic (no manifest to read).
    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    client = Client()
    with (
        override_settings(STORAGES={**settings.STORAGES, "staticfiles": plain}),
        CaptureQueriesContext(connection) as captured,
    ):
        response = client.get("/boards/overall/")
    assert response.status_code == 200, response.status_code
    return len(captured.captured_queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000, help="10000000 for the 10M figure")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the generated runs, and reuse them when already there (re-measure 10M)",
    )
    args = parser.parse_args()
    setup()
    from django.core.management import call_command
    from django.db import connection

    from bench.gen_bundle import write_bundle
    from ingestion.services.intake import submission_ingest
    from leaderboard.recompute.services import boards_recompute

    call_command("migrate", verbosity=0)
    call_command("load_registry", verbosity=0)
    kept = _generated_runs() if args.keep else 0
    reuse = kept == args.runs
    # An interrupted --keep run left whole chunks: generation resumes after them.
    resume = kept if args.keep and 0 < kept < args.runs and not kept % GENERATE_CHUNK else 0
    if not reuse and not resume:
        cleanup()
    try:
        started = time.perf_counter()
        if reuse:
            _small_submission_remove()
            print(f"reusing the {args.runs:,} runs kept by an earlier --keep")
        else:
            populate(args.runs, start=resume)
            print(f"generated {args.runs - resume:,} runs in {time.perf_counter() - started:.1f} s")

        def group_by() -> None:
            with connection.cursor() as cursor:
                cursor.execute(PLAIN_GROUP_BY_SQL)
                cursor.fetchall()

        # The harness × model fit and the interval bounds follow each worker's recompute
        # as tasks of their own (run in place here): timed apart, as no swap waits for them.
        from leaderboard.effects.services import effects_snapshot_write
        from leaderboard.recompute import services as recompute_services
        from leaderboard.recompute.intervals import intervals_snapshot_fill

        fits: list[int] = []
        fills: list[int] = []
        recompute_services.effects_kick = fits.append
        recompute_services.intervals_kick = fills.append
        # Interleaved with its baseline, so that a load change on a shared machine moves
        # both: the ratio is the median of the rounds' ratios.
        plains, fulls = [], []
        for _ in range(3):
            plains.append(timed(group_by, repeat=1))
            fulls.append(timed(lambda: boards_recompute(defer_intervals=True), repeat=1))
        plain, full = statistics.median(plains), statistics.median(fulls)
        ratio = statistics.median(f / p for f, p in zip(fulls, plains, strict=True))
        bounds = timed(lambda: intervals_snapshot_fill(snapshot_id=fills[-1]), repeat=1)
        inline = timed(boards_recompute, repeat=1)
        fit = timed(lambda: effects_snapshot_write(snapshot_id=fits[-1]), repeat=1)
        print(f"plain GROUP BY over the runs:   {plain:.2f} s")
        print(f"full recompute (the swap):      {full:.2f} s")
        print(f"ratio recompute / GROUP BY:     {ratio:.2f}x   (target <= 1.5x)")
        print(f"interval bounds, after it:      {bounds:.2f} s  ({bounds / plain:.2f}x GROUP BY)")
        print(f"full recompute, bounds inline:  {inline:.2f} s  ({inline / plain:.2f}x GROUP BY)")
        print(f"harness x model fit, after it:  {fit:.2f} s  ({fit / plain:.2f}x GROUP BY)")

        import tempfile

        from bench._django import bench_account

        user = bench_account("bench")
        with tempfile.TemporaryDirectory() as tmp:
            bundle = write_bundle(
                Path(tmp) / "small.tar.gz", runs=1000, seed=7, harness="bench-extra"
            )
            submission, _ = submission_ingest(upload=bundle, user=user)
        # What the worker runs after that ingest: only the new harness is read again.
        after_ingest = timed(
            lambda: boards_recompute(harness_ids=[submission.harness_id], defer_intervals=True)
        )
        its_bounds = timed(lambda: intervals_snapshot_fill(snapshot_id=fills[-1]), repeat=1)
        print(f"recompute after a 1,000-run ingest: {after_ingest:.2f} s   (target <= 0.3 s)")
        print(f"its interval bounds, after it:  {its_bounds:.2f} s")
        print(f"board page SQL queries:         {board_page_queries()}   (target <= 6)")
    finally:
        if args.keep:
            _small_submission_remove()
        else:
            cleanup()


if __name__ == "__main__":
    main()
